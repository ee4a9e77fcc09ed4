package estimators

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLDKernel4MatchesLDKernel: the four-lag kernel (with the AVX2 pairs
// where the CPU has them, and with ldPairs4Go) gives bit for bit the sums
// and products of four calls of ldKernel, lag by lag, for every parity of
// the run's ends and run lengths 0 to 11 and 512, on ratios with heavy
// tails and rewards of both signs.
func TestLDKernel4MatchesLDKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 4))
	draw := func() float64 {
		switch rng.IntN(4) {
		case 0:
			return 1
		case 1:
			return 0
		}
		return math.Exp(3 * rng.NormFloat64())
	}
	kernels := map[string]ldPairs4Func{"go": ldPairs4Go}
	if ldPairs4Available {
		kernels[ldPairs4Name] = ldPairs4Native
	}
	for name, pairs4 := range kernels {
		for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 512} {
			for _, odd := range []bool{false, true} {
				for _, lastOdd := range []bool{false, true} {
					var rho [4][]float64
					fm := make([][]float64, 4)
					for L := range rho {
						rho[L] = make([]float64, n)
						fm[L] = make([]float64, n)
						for j := range n {
							rho[L][j] = draw()
							fm[L][j] = rho[L][j] - 1
						}
					}
					rw, bk := make([]float64, n), make([]float64, n)
					for j := range n {
						rw[j] = rng.NormFloat64() * 10
						bk[j] = math.Exp(rng.NormFloat64())
					}
					cx := []float64{0.5, -1, 2, 0.25}
					cd := []float64{-0.5, 1, 0.125, 3}
					var want [4]ldPart
					for L := range want {
						want[L] = ldPart{sx: float64(L), sd: 1, ss: 2, l0: 3, l1: float64(L) / 3, last: 7}
					}
					got := want
					bw := append([]float64(nil), bk...)
					for L := range 4 {
						ldKernel(rho[L], fm[L], rw, bw, cx[L], cd[L], &want[L], odd, lastOdd)
					}
					bg := append([]float64(nil), bk...)
					var acc ldAcc4
					ldKernel4(pairs4, &acc, &rho, rw, bg, cx, cd, got[:], odd, lastOdd)
					for L := range 4 {
						if !samePart(got[L], want[L]) {
							t.Errorf("%s n=%d odd=%v lastOdd=%v lag %d: %+v, want %+v", name, n, odd, lastOdd, L, got[L], want[L])
						}
					}
					for j := range n {
						if math.Float64bits(bg[j]) != math.Float64bits(bw[j]) {
							t.Errorf("%s n=%d odd=%v lastOdd=%v: B[%d] = %v, want %v", name, n, odd, lastOdd, j, bg[j], bw[j])
						}
					}
				}
			}
		}
	}
}

// samePart compares two ldParts bit for bit.
func samePart(a, b ldPart) bool {
	x := [...]float64{a.sx, a.sb, a.sd, a.ss, a.l0, a.l1, a.last}
	y := [...]float64{b.sx, b.sb, b.sd, b.ss, b.l0, b.l1, b.last}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

// ldPairs4Go is ldPairs4 in Go (an ldPairs4Func): m (even) trajectories,
// in pairs whose first goes to lane l0 and second to l1, each through the
// four lags. It is the reference the assembly is tested against.
func ldPairs4Go(rho0, rho1, rho2, rho3, rw, bk []float64, m int, acc *ldAcc4) {
	rho := [4][]float64{rho0, rho1, rho2, rho3}
	for j := 0; j < m; j++ {
		b := bk[j]
		r := rw[j]
		for L := range 4 {
			f := rho[L][j]
			x := float64(b * r)
			d := float64((f - 1) * x)
			acc[L] += x
			acc[4+L] += d
			dd := d - acc[24+L]
			acc[8+L] += float64(dd * dd)
			a := x - acc[20+L]
			acc[12+4*(j&1)+L] += float64(a * a)
			b = float64(b * f)
		}
		bk[j] = b
	}
}
