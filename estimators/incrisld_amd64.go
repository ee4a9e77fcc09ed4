//go:build !noasm

package estimators

import "golang.org/x/sys/cpu"

// useLD4 selects incris-ld's four-lag kernel (ldKernel4 with the AVX2
// ldPairs4) in the pass, where the CPU has AVX2.
var useLD4 = cpu.X86.HasAVX2

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
