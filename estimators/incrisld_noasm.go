//go:build noasm || !amd64

package estimators

// ldDefaultOptions returns incris-ld's options: without assembly, the pass
// lag by lag (ldKernel). (ldPairs4Go, the four-lag inner loop in Go, is
// the tests' reference for the assembly one.)
func ldDefaultOptions() ldOptions { return ldOptions{} }
