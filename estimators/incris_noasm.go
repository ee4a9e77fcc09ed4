//go:build noasm || !amd64

package estimators

// useWide selects the wide path (addWide). Without the vector kernel the
// scalar path is used; tests may set it to run the wide path with
// incrisGroupGo.
var useWide = false

// usePair selects, on the wide path, the kernel for pairs of groups.
var usePair = false

// The wide path's kernels (for tests and benchmarks): names, and whether
// they can run here.
var (
	wideKernel, wideAvailable = "go", true
	pairKernel, pairAvailable = "go-pairs", true
)

// incrisGroup is the wide path's kernel: here incrisGroupGo.
func incrisGroup(cells []incrisCell, s0 int, rv *[4 * incrisWide]float64, rho, tda []float64) {
	incrisGroupGo(cells, s0, rv, rho, tda)
}

// incrisPair is the wide path's kernel for two groups, rows s0..s0+3
// (cells b) and s0+4..s0+7 (cells a), rv holding b's rewards then a's:
// here incrisGroupGo on each.
func incrisPair(a, b []incrisCell, s0 int, rv *[8 * incrisWide]float64, rho, tda []float64) {
	incrisGroupGo(a, s0+4, (*[4 * incrisWide]float64)(rv[4*incrisWide:]), rho, tda)
	incrisGroupGo(b, s0, (*[4 * incrisWide]float64)(rv[:4*incrisWide]), rho, tda)
}
