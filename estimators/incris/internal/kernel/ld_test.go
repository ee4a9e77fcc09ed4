package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLDKernel4MatchesLDKernel: the four-lag kernel Lag4 with Pairs4 (the
// AVX2 assembly where the CPU has it, its Go twin with -tags noasm) gives
// bit for bit the sums and products of four calls of Lag, lag by lag, for
// every parity of the run's ends and run lengths 0 to 11 and 512, on
// ratios with heavy tails and rewards of both signs. Run in both builds,
// it shows the assembly and the Go twin give the same bits.
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
	if !HasPairs4() {
		t.Skip("Pairs4 needs AVX2, which this CPU lacks")
	}
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
				var want [4]Part
				for L := range want {
					want[L] = Part{SX: float64(L), SD: 1, SS: 2, Lanes: Lanes{L0: 3, L1: float64(L) / 3, Last: 7}}
				}
				got := want
				bw := append([]float64(nil), bk...)
				for L := range 4 {
					Lag(rho[L], fm[L], rw, bw, cx[L], cd[L], &want[L], odd, lastOdd)
				}
				bg := append([]float64(nil), bk...)
				var acc Acc4
				Lag4(Pairs4, &acc, &rho, rw, bg, cx, cd, got[:], odd, lastOdd)
				for L := range 4 {
					if !samePart(got[L], want[L]) {
						t.Errorf("n=%d odd=%v lastOdd=%v lag %d: %+v, want %+v", n, odd, lastOdd, L, got[L], want[L])
					}
				}
				for j := range n {
					if math.Float64bits(bg[j]) != math.Float64bits(bw[j]) {
						t.Errorf("n=%d odd=%v lastOdd=%v: B[%d] = %v, want %v", n, odd, lastOdd, j, bg[j], bw[j])
					}
				}
			}
		}
	}
}

// samePart compares two Parts bit for bit.
func samePart(a, b Part) bool {
	x := [...]float64{a.SX, a.SB, a.SD, a.SS, a.L0, a.L1, a.Last}
	y := [...]float64{b.SX, b.SB, b.SD, b.SS, b.L0, b.L1, b.Last}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

// TestMeans4MatchesMeans: Means4 (the AVX2 assembly where the CPU has it,
// else its Go twin) and the Go twin means4Go give bit for bit the sums
// and products of four calls of Means, lag by lag, for run lengths 0 to 9
// and 512, on ratios with heavy tails, zeros and ones, rewards of both
// signs, and sums that start nonzero.
func TestMeans4MatchesMeans(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 5))
	draw := func() float64 {
		switch rng.IntN(4) {
		case 0:
			return 1
		case 1:
			return 0
		}
		return math.Exp(3 * rng.NormFloat64())
	}
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 512} {
		var rho [4][]float64
		for L := range rho {
			rho[L] = make([]float64, n)
			for j := range n {
				rho[L][j] = draw()
			}
		}
		rw, bk := make([]float64, n), make([]float64, n)
		for j := range n {
			rw[j] = rng.NormFloat64() * 10
			bk[j] = math.Exp(rng.NormFloat64())
		}
		wx, wd := []float64{0.5, -1, 2, 0.25}, []float64{-0.5, 1, 0.125, 3}
		x0, d0 := append([]float64(nil), wx...), append([]float64(nil), wd...)
		bw := append([]float64(nil), bk...)
		for L := range 4 {
			Means(rho[L], rw, bw, &wx[L], &wd[L])
		}
		for name, f := range map[string]func(r0, r1, r2, r3, rw, bk, sx, sd []float64){"Means4": Means4, "means4Go": means4Go} {
			sx, sd := append([]float64(nil), x0...), append([]float64(nil), d0...)
			bg := append([]float64(nil), bk...)
			f(rho[0], rho[1], rho[2], rho[3], rw, bg, sx, sd)
			for L := range 4 {
				if math.Float64bits(sx[L]) != math.Float64bits(wx[L]) || math.Float64bits(sd[L]) != math.Float64bits(wd[L]) {
					t.Errorf("%s n=%d lag %d: sx %v sd %v, want %v %v", name, n, L, sx[L], sd[L], wx[L], wd[L])
				}
			}
			for j := range n {
				if math.Float64bits(bg[j]) != math.Float64bits(bw[j]) {
					t.Errorf("%s n=%d: B[%d] = %v, want %v", name, n, j, bg[j], bw[j])
				}
			}
		}
	}
}
