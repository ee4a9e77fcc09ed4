//go:build noasm || !amd64

package estimators

// The wide path's kernels the tests run here (incrisPaths): without
// assembly, the Go ones.
var (
	wideKernel, wideAvailable = "go", true
	pairKernel, pairAvailable = "go-pairs", true
	wideGroup, widePair       = incrisGroupGo, incrisPairGo
)
