//go:build !noasm && !gccgo

package kernel

import "golang.org/x/sys/cpu"

// The Lepski rounds' kernels (Chain2, Regen, Regen2) in AVX-512 assembly,
// eight trajectories a vector: every lane does the Go twin's operations on
// its own trajectory (separate multiplies and subtractions, no FMA), so the
// bits are the twin's. The last n mod 8 trajectories go through the twin.

// LD8Name is the instruction set of Chain2, Regen and Regen2, for the
// tests' and benchmarks' labels.
const LD8Name = "avx512"

// hasLD8 reports whether the CPU runs the AVX-512 kernels.
var hasLD8 = cpu.X86.HasAVX512F

// Chain2 moves bk on by two lags: B_{k+2} = (B_k rho0) rho1. Here
// chain2AVX512 on the first multiple of 8 trajectories where the CPU has
// AVX-512, the Go twin chain2Go on the rest.
func Chain2(rho0, rho1, bk []float64) {
	n := len(bk)
	rho0, rho1 = rho0[:n], rho1[:n]
	m := 0
	if hasLD8 {
		m = n &^ 7
	}
	if m > 0 {
		chain2AVX512(&rho0[0], &rho1[0], &bk[0], m)
	}
	chain2Go(rho0[m:], rho1[m:], bk[m:])
}

// Regen regenerates one lag of the pass over a run: a[j] = X_k - cx with
// X_k = B_k r, and moves bk[j] on to B_{k+1} (unless rho is nil: the last
// lag), with the products of Lag. Here regenAVX512 (rho not nil) on the
// first multiple of 8 trajectories where the CPU has AVX-512, the Go twin
// regenGo on the rest.
func Regen(rho, rw, bk []float64, cx float64, a []float64) {
	n := len(bk)
	rw, a = rw[:n], a[:n]
	m := 0
	if hasLD8 && rho != nil {
		rho = rho[:n]
		m = n &^ 7
	}
	if m > 0 {
		regenAVX512(&rho[0], &rw[0], &bk[0], &a[0], m, cx)
	}
	if rho != nil {
		rho = rho[m:]
	}
	regenGo(rho, rw[m:], bk[m:], cx, a[m:])
}

// Regen2 is Regen for two lags at once. Here regen2AVX512 on the first
// multiple of 8 trajectories where the CPU has AVX-512, the Go twin
// regen2Go on the rest.
func Regen2(rho0, rho1, rw, bk []float64, cx0, cx1 float64, a0, a1 []float64) {
	n := len(bk)
	rho0, rho1, rw, a0, a1 = rho0[:n], rho1[:n], rw[:n], a0[:n], a1[:n]
	m := 0
	if hasLD8 {
		m = n &^ 7
	}
	if m > 0 {
		regen2AVX512(&rho0[0], &rho1[0], &rw[0], &bk[0], &a0[0], &a1[0], m, cx0, cx1)
	}
	regen2Go(rho0[m:], rho1[m:], rw[m:], bk[m:], cx0, cx1, a0[m:], a1[m:])
}

// chain2AVX512 is chain2Go on m (a multiple of 8) trajectories.
//
//go:noescape
func chain2AVX512(rho0, rho1, bk *float64, m int)

// regenAVX512 is regenGo (rho not nil) on m (a multiple of 8)
// trajectories.
//
//go:noescape
func regenAVX512(rho, rw, bk, a *float64, m int, cx float64)

// regen2AVX512 is regen2Go on m (a multiple of 8) trajectories.
//
//go:noescape
func regen2AVX512(rho0, rho1, rw, bk, a0, a1 *float64, m int, cx0, cx1 float64)
