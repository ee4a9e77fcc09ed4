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

// Pairs8Name is the instruction set of Pairs8, for the tests' labels.
const Pairs8Name = "avx512"

// HasPairs8 reports whether Pairs8 runs here: the CPU has AVX-512.
func HasPairs8() bool { return hasLD8 }

// Pairs8 is Lag8's inner loop (a Pairs8Func): here pairs8AVX512, which
// does the Go twin's (pairs8Go) operations lane by lane, one lag per lane,
// in the same order, after checking the bounds it relies on (m a multiple
// of 8). It needs AVX-512 (HasPairs8).
func Pairs8(rows *[8][]float64, j0, m int, rw, bk []float64, acc *Acc8) {
	if m <= 0 {
		return
	}
	if m%8 != 0 {
		panic("kernel: Pairs8 needs a multiple of 8 trajectories")
	}
	e := j0 + m - 1
	var ptr [8]*float64
	for L := range ptr {
		ptr[L] = &rows[L][j0 : e+1][0]
	}
	_, _ = rw[e], bk[e]
	pairs8AVX512(&ptr, &rw[j0], &bk[j0], m, acc)
}

// pairs8AVX512 is pairs8Go on m (a multiple of 8) trajectories, row L of
// the lags at ptr[L]: for each eight trajectories it multiplies B along
// the eight lags, eight trajectories a vector (the scalar chain's products
// in the same order), transposes B and rho - 1 to one trajectory's eight
// lags a vector, and adds the trajectories to the sums in order.
//
//go:noescape
func pairs8AVX512(ptr *[8]*float64, rw, bk *float64, m int, acc *Acc8)

// dotPairs8 is DotLanes8's inner loop, the products of the m trajectories
// j0 .. j0+m-1 (m a multiple of 8) of the eight entries added to their
// lanes (acc[i]: L0, acc[8+i]: L1): here dotPairs8AVX512 where the CPU
// has AVX-512, which does the Go twin's (dotPairs8Go) operations lane by
// lane, one entry per lane, in the same order; else the twin.
func dotPairs8(x, a *[8][]float64, j0, m int, acc *[16]float64) {
	if !hasLD8 {
		dotPairs8Go(x, a, j0, m, acc)
		return
	}
	e := j0 + m - 1
	var ptr [16]*float64
	for i := range 8 {
		ptr[i] = &a[i][j0 : e+1][0]
		ptr[8+i] = &x[i][j0 : e+1][0]
	}
	dotPairs8AVX512(&ptr, m, acc)
}

// dotPairs8AVX512 is dotPairs8Go with the rows a[i] at ptr[i] and x[i] at
// ptr[8+i]: for each eight trajectories it multiplies the eight entries'
// rows, eight trajectories a vector, transposes the products to one
// trajectory's eight entries a vector and adds the trajectories to the
// lanes in order.
//
//go:noescape
func dotPairs8AVX512(ptr *[16]*float64, m int, acc *[16]float64)

// Means8 is Means for eight lags at once (rho[L] = rho_{t-k-L}; sx, sd:
// theirs): here means8AVX512 on the first multiple of 8 trajectories
// where the CPU has AVX-512, which does the Go twin's (means8Go)
// operations lane by lane, one lag per lane, in the same order; the twin
// on the rest.
func Means8(rho *[8][]float64, rw, bk []float64, sx, sd []float64) {
	n := len(bk)
	m := 0
	if hasLD8 {
		m = n &^ 7
	}
	if m > 0 {
		var ptr [8]*float64
		for L := range ptr {
			ptr[L] = &rho[L][:n][0]
		}
		_, _, _ = rw[n-1], sx[7], sd[7]
		means8AVX512(&ptr, &rw[0], &bk[0], m, &sx[0], &sd[0])
	}
	means8Go(rho, m, rw, bk, sx, sd)
}

// means8AVX512 is means8Go on m (a multiple of 8) trajectories, row L of
// the lags at ptr[L]: for each eight trajectories it multiplies B along
// the eight lags and forms X and D, eight trajectories a vector (the
// scalar chain's products in the same order), transposes X and D to one
// trajectory's eight lags a vector and adds the trajectories in order.
//
//go:noescape
func means8AVX512(ptr *[8]*float64, rw, bk *float64, m int, sx, sd *float64)

// Steps8 adds the lags k..k+3 (k+3 <= s) of steps s..s+7 of the m
// trajectories of a chunk from its start (trajectory j's ratio and reward
// of step i at ratio[j*stride+i] and rw[j*stride+i]; B of step s+L at
// bk[8j+L], moved on to lag k+4) to acc, as Lag does cell by cell;
// lastOdd: the last trajectory ends a chunk of odd width. Here
// steps8AVX512 on the pairs of trajectories where the CPU has AVX-512,
// which does the Go twin's (steps8Go) operations lane by lane, one step
// per lane, in the same order; the twin on the rest.
func Steps8(ratio, rw []float64, stride, s, k, m int, bk []float64, acc *Steps8Acc, lastOdd bool) {
	checkSteps8(ratio, rw, stride, s, k, m, bk)
	p := 0
	if hasLD8 {
		p = m &^ 1
	}
	if p > 0 {
		steps8AVX512(&ratio[s-k], &rw[s], 8*stride, &bk[0], p, acc)
	}
	steps8Go(ratio, rw, stride, s, k, p, m-p, bk, acc, lastOdd)
}

// MeansSteps8 is Means for the lags k..k+3 (k+3 <= s) of steps s..s+7 of
// m trajectories, laid out as for Steps8. Here meansSteps8AVX512 where the
// CPU has AVX-512, which does the Go twin's (meansSteps8Go) operations
// lane by lane, in the same order; else the twin.
func MeansSteps8(ratio, rw []float64, stride, s, k, m int, bk []float64, acc *MeansSteps8Acc) {
	checkSteps8(ratio, rw, stride, s, k, m, bk)
	if hasLD8 && m > 0 {
		meansSteps8AVX512(&ratio[s-k], &rw[s], 8*stride, &bk[0], m, acc)
		return
	}
	meansSteps8Go(ratio, rw, stride, s, k, 0, m, bk, acc)
}

// steps8AVX512 is steps8Go on m (even, > 0) trajectories from position
// 0, ratio at trajectory 0's step s-k, rw at its step s, the rows bs
// bytes apart.
//
//go:noescape
func steps8AVX512(ratio, rw *float64, bs int, bk *float64, m int, acc *Steps8Acc)

// meansSteps8AVX512 is meansSteps8Go on m (> 0) trajectories, laid out
// as for steps8AVX512.
//
//go:noescape
func meansSteps8AVX512(ratio, rw *float64, bs int, bk *float64, m int, acc *MeansSteps8Acc)

// ScanClass classifies the comparisons of row p with the lags k2+i, i =
// 0 .. len(sd)-1 (S_k2k2 sd[i], sqrt(Y_k2k2) sq[i], mean[i], cx[i],
// dm[i]) as incris-ld's scanRow does, from Fails at the upper and the
// lower Cauchy-Schwarz bounds of S_kk2: it appends the undecided lags to
// unk and returns it, with the first i that fails at both bounds (-1 if
// none; the lags after it are not classified). Here scanClassAVX512 on
// the first multiple of 8 lags where the CPU has AVX-512, which does the
// Go twin's (scanClassGo) operations lane by lane (Fails with its fast
// path, and with the division and the square root in a vector where a
// lane needs them), then the twin.
func ScanClass(p *ScanRow, k2 int, sd, sq, mean, cx, dm []float64, unk []Unknown) ([]Unknown, int) {
	n := len(sd)
	sq, mean, cx, dm = sq[:n], mean[:n], cx[:n], dm[:n]
	i := 0
	if m := n &^ 7; hasLD8 && m > 0 {
		if cap(unk)-len(unk) < m {
			unk = append(make([]Unknown, 0, len(unk)+n), unk...)
		}
		free := unk[len(unk):cap(unk)]
		c, f := scanClassAVX512(p, &sd[0], &sq[0], &mean[0], &cx[0], &dm[0], m, k2, &free[0])
		if unk = unk[:len(unk)+c]; f >= 0 {
			return unk, f
		}
		i = m
	}
	unk, f := scanClassGo(p, k2+i, sd[i:], sq[i:], mean[i:], cx[i:], dm[i:], unk)
	if f >= 0 {
		f += i
	}
	return unk, f
}

// scanClassAVX512 is scanClassGo on m (a multiple of 8, > 0) lags,
// writing the undecided ones from unk on (room for m): it returns their
// number and the first failing lag, or -1.
//
//go:noescape
func scanClassAVX512(p *ScanRow, sd, sq, mean, cx, dm *float64, m, k2 int, unk *Unknown) (int, int)

// hasPopcnt8 reports whether the CPU runs countRunAVX512.
var hasPopcnt8 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VPOPCNTDQ

// countRun8 is countRunGo on all the block's mask words (alive and rneg
// are 0 outside the run's), rows s, s-1, ... for the lags 0 ..
// len(cnt)-1: here countRunAVX512 (a block's 512 bits a vector), which
// counts the same bits; false where the CPU lacks it.
func countRun8(alive, rneg *[blockWords]uint64, eq1, lt1, zero []uint64, s int, cnt, neg []int) bool {
	if !hasPopcnt8 || len(cnt) > s+1 {
		return false
	}
	r := s * blockWords
	_, _, _, _ = eq1[r+blockWords-1], lt1[r+blockWords-1], zero[r+blockWords-1], neg[len(cnt)-1]
	countRunAVX512(alive, rneg, &eq1[r], &lt1[r], &zero[r], len(cnt), &cnt[0], &neg[0])
	return true
}

// countRunAVX512 is countRunGo on the eight words of n lags, the masks'
// rows from eq1, lt1 and zero down by eight words a lag.
//
//go:noescape
func countRunAVX512(alive, rneg *[blockWords]uint64, eq1, lt1, zero *uint64, n int, cnt, neg *int)
