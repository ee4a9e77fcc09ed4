package kernel

// Eight steps of incris-ld's pass at a time, on dense data (every
// trajectory runs the whole horizon with a nonzero reward at every step,
// so every step has the same active trajectories in the same positions):
// a vector holds one trajectory's cells of one lag at eight consecutive
// steps s..s+7, whose ratios rho_{s+L-k} and rewards r_{s+L} lie next to
// each other in the batch's trajectory-major columns. B moves from lag to
// lag lane by lane, so no vector is transposed, and every cell still adds
// its trajectories in order with Lag's operations.

// Steps8Acc holds the sums of the cells of four lags k..k+3 of eight steps
// (lane L: step s+L): for lag k+q at 64q, sx, sd, ss, l0, l1, last, then
// the shifts cx and cd, eight values each.
type Steps8Acc [256]float64

// MeansSteps8Acc holds the shifts' sums of four lags k..k+3 of eight steps
// (lane L: step s+L): for lag k+q at 16q, sx then sd.
type MeansSteps8Acc [64]float64

// steps8Go is Steps8 in Go on trajectories j0 .. j0+m-1, trajectory j at
// position j of its chunk (its (x-cx)^2 added to l0 when j is even, to l1
// when odd, and set in last when lastOdd and j = j0+m-1): the operations Lag does for
// each cell, in the same order.
func steps8Go(ratio, rw []float64, stride, s, k, j0, m int, bk []float64, acc *Steps8Acc, lastOdd bool) {
	for j := j0; j < j0+m; j++ {
		lane, last := 24+8*(j&1), lastOdd && j == j0+m-1
		row := ratio[j*stride:]
		for L := range 8 {
			b, r := bk[8*j+L], rw[j*stride+s+L]
			for q := range 4 {
				a := acc[64*q : 64*q+64]
				f := row[s+L-k-q]
				x := float64(b * r)
				d := float64((f - 1) * x)
				a[L] += x
				a[8+L] += d
				dd := d - a[56+L]
				a[16+L] += float64(dd * dd)
				c := x - a[48+L]
				if last {
					a[40+L] = float64(c * c) // set, as Lag sets Part.Last
				} else {
					a[lane+L] += float64(c * c)
				}
				b = float64(b * f)
			}
			bk[8*j+L] = b
		}
	}
}

// meansSteps8Go is MeansSteps8 in Go on trajectories j0 .. j0+m-1: the
// operations Means does for each cell, in the same order.
func meansSteps8Go(ratio, rw []float64, stride, s, k, j0, m int, bk []float64, acc *MeansSteps8Acc) {
	for j := j0; j < j0+m; j++ {
		row := ratio[j*stride:]
		for L := range 8 {
			b, r := bk[8*j+L], rw[j*stride+s+L]
			for q := range 4 {
				f := row[s+L-k-q]
				x := float64(b * r)
				acc[16*q+L] += x
				acc[16*q+8+L] += float64((f - 1) * x)
				b = float64(b * f)
			}
			bk[8*j+L] = b
		}
	}
}

// checkSteps8 panics unless the m trajectories' lags k..k+3 of steps
// s..s+7 lie inside ratio and rw (stride apart) and bk holds their B:
// the assembly relies on it.
func checkSteps8(ratio, rw []float64, stride, s, k, m int, bk []float64) {
	if k < 0 || k+3 > s || s+8 > stride || m < 0 || len(bk) < 8*m ||
		len(ratio) < m*stride || len(rw) < m*stride {
		panic("kernel: Steps8 or MeansSteps8 out of range")
	}
}

// PassSteps8 runs Steps8 on the lags k = 0, 4, ... with k+3 <= s of the
// eight steps s..s+7 of m trajectories from a chunk's start (laid out as
// for Steps8, stride h), B starting at 1 in bk, with acc as its scratch:
// the cells' partial sums, which start at 0, go to p[L*cs+k] (lane L, lag
// k), the shifts come from cx and cd likewise. It returns the first lag
// left, with bk holding B there.
func PassSteps8(ratio, rw []float64, h, s, m int, bk []float64, acc *Steps8Acc, p []Part, cx, cd []float64, cs int) int {
	for j := range bk[:8*m] {
		bk[j] = 1
	}
	k := 0
	for ; k+3 <= s; k += 4 {
		for q := range 4 {
			a := acc[64*q : 64*q+64]
			clear(a[:48])
			for L := range 8 {
				a[48+L], a[56+L] = cx[L*cs+k+q], cd[L*cs+k+q]
			}
		}
		Steps8(ratio, rw, h, s, k, m, bk, acc, m%2 == 1)
		for q := range 4 {
			a := acc[64*q : 64*q+64]
			for L := range 8 {
				c := &p[L*cs+k+q]
				c.SX, c.SD, c.SS, c.L0, c.L1, c.Last = a[L], a[8+L], a[16+L], a[24+L], a[32+L], a[40+L]
			}
		}
	}
	return k
}

// MeansStepsAll runs MeansSteps8 on the lags k = 0, 4, ... with k+3 <= s
// of the eight steps s..s+7 of m trajectories (laid out as for Steps8,
// stride h), B starting at 1 in bk, with acc as its scratch, adding to
// the shifts' sums sx[L*cs+k] and sd[L*cs+k] (lane L, lag k). It returns
// the first lag left, with bk holding B there.
func MeansStepsAll(ratio, rw []float64, h, s, m int, bk []float64, acc *MeansSteps8Acc, sx, sd []float64, cs int) int {
	for j := range bk[:8*m] {
		bk[j] = 1
	}
	k := 0
	for ; k+3 <= s; k += 4 {
		for q := range 4 {
			for L := range 8 {
				acc[16*q+L], acc[16*q+8+L] = sx[L*cs+k+q], sd[L*cs+k+q]
			}
		}
		MeansSteps8(ratio, rw, h, s, k, m, bk, acc)
		for q := range 4 {
			for L := range 8 {
				sx[L*cs+k+q], sd[L*cs+k+q] = acc[16*q+L], acc[16*q+8+L]
			}
		}
	}
	return k
}

// Lane sets bk to B at lag k of lane L of bk8 (B of eight steps per
// trajectory, as Steps8 lays it out): 1 at lag 0.
func Lane(bk, bk8 []float64, L, k int) {
	for j := range bk {
		bk[j] = 1
		if k > 0 {
			bk[j] = bk8[8*j+L]
		}
	}
}
