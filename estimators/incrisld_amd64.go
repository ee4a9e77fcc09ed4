//go:build !noasm

package estimators

import "golang.org/x/sys/cpu"

// ldDefaultOptions returns incris-ld's options: the four-lag kernel
// (ldKernel4 with the AVX2 ldPairs4) where the CPU has AVX2, else the pass
// lag by lag. The choice changes the speed, not the bits (ldPairs4 does
// ldPairs4Go's operations lane by lane, in the same order, and ldKernel4
// is ldKernel for four lags: TestLDKernel4MatchesLDKernel,
// TestINCRISLDBitIdentical).
func ldDefaultOptions() ldOptions {
	if cpu.X86.HasAVX2 {
		return ldOptions{pairs4: ldPairs4}
	}
	return ldOptions{}
}

// ldPairs4 is ldPairs4Go in AVX2 assembly (the same operations, lane by
// lane, in the same order), after checking the bounds it relies on.
func ldPairs4(rho0, rho1, rho2, rho3, rw, bk []float64, m int, acc *ldAcc4) {
	if m <= 0 {
		return
	}
	_, _, _, _, _, _ = rho0[m-1], rho1[m-1], rho2[m-1], rho3[m-1], rw[m-1], bk[m-1]
	ldPairs4AVX2(&rho0[0], &rho1[0], &rho2[0], &rho3[0], &rw[0], &bk[0], m, acc)
}

//go:noescape
func ldPairs4AVX2(rho0, rho1, rho2, rho3, rw, bk *float64, m int, acc *ldAcc4)
