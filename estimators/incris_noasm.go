//go:build noasm || !amd64

package estimators

// incrisDefaultKernels returns INCRIS's kernels: without assembly, the
// scalar path. (incrisGroupGo, the wide path's kernel in Go, is the
// tests' reference for the assembly kernels.)
func incrisDefaultKernels() incrisKernels { return incrisKernels{} }
