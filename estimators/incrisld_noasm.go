//go:build noasm || !amd64

package estimators

// useLD4 selects incris-ld's four-lag kernel in the pass. Without the
// vector kernel the pass goes lag by lag (ldKernel); tests may set it.
var useLD4 = false

// ldPairs4 is here ldPairs4Go.
func ldPairs4(rho0, rho1, rho2, rho3, rw, bk []float64, m int, acc *ldAcc4) {
	ldPairs4Go(rho0, rho1, rho2, rho3, rw, bk, m, acc)
}
