package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ldDraw returns a ratio with heavy tails, or 0 or 1 (a quarter each).
func ldDraw(rng *rand.Rand) float64 {
	switch rng.IntN(4) {
	case 0:
		return 1
	case 1:
		return 0
	}
	return math.Exp(3 * rng.NormFloat64())
}

// sameRow reports whether a and b hold the same bits.
func sameRow(a, b []float64) bool {
	for j := range a {
		if math.Float64bits(a[j]) != math.Float64bits(b[j]) {
			return false
		}
	}
	return len(a) == len(b)
}

// TestLD8MatchesGo: Chain2, Regen (with and without rho) and Regen2 give
// bit for bit the B and the regenerated rows of their Go twins (chain2Go,
// regenGo, regen2Go), for every run length 0 to 20 (both sides of the
// assembly's multiples of 8) and 512, on ratios with heavy tails, zeros
// and ones, and rewards of both signs. Run in both builds: with assembly
// it compares the AVX-512 kernels (LD8Name) with the twins.
func TestLD8MatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 8))
	lengths := []int{512}
	for n := range 21 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		rho0, rho1, rw, bk := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for j := range n {
			rho0[j], rho1[j] = ldDraw(rng), ldDraw(rng)
			rw[j] = rng.NormFloat64() * 10
			bk[j] = math.Exp(rng.NormFloat64())
		}
		cx0, cx1 := 0.5, -2.25
		clone := func(x []float64) []float64 { return append([]float64(nil), x...) }

		bw, bg := clone(bk), clone(bk)
		chain2Go(rho0, rho1, bw)
		Chain2(rho0, rho1, bg)
		if !sameRow(bg, bw) {
			t.Errorf("%s: Chain2 n=%d: B differs from chain2Go's", LD8Name, n)
		}

		for _, rho := range [][]float64{rho0, nil} {
			bw, bg := clone(bk), clone(bk)
			aw, ag := make([]float64, n), make([]float64, n)
			regenGo(rho, rw, bw, cx0, aw)
			Regen(rho, rw, bg, cx0, ag)
			if !sameRow(bg, bw) || !sameRow(ag, aw) {
				t.Errorf("%s: Regen n=%d (rho nil: %v): B or a differs from regenGo's", LD8Name, n, rho == nil)
			}
		}

		bw, bg = clone(bk), clone(bk)
		aw0, aw1, ag0, ag1 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		regen2Go(rho0, rho1, rw, bw, cx0, cx1, aw0, aw1)
		Regen2(rho0, rho1, rw, bg, cx0, cx1, ag0, ag1)
		if !sameRow(bg, bw) || !sameRow(ag0, aw0) || !sameRow(ag1, aw1) {
			t.Errorf("%s: Regen2 n=%d: B or a differs from regen2Go's", LD8Name, n)
		}
		// Regen2 is two Regens (the twins' own contract).
		bw = clone(bk)
		regenGo(rho0, rw, bw, cx0, aw0)
		regenGo(rho1, rw, bw, cx1, aw1)
		if !sameRow(bg, bw) || !sameRow(ag0, aw0) || !sameRow(ag1, aw1) {
			t.Errorf("%s: Regen2 n=%d: differs from two Regens", LD8Name, n)
		}
	}
}

// TestLag8MatchesLag: the eight-lag kernel Lag8, with Pairs8 (the AVX-512
// assembly where the CPU has it, its Go twin with -tags noasm) and with
// the Go twin pairs8Go, gives bit for bit the sums and products of eight
// calls of Lag, lag by lag, for every parity of the run's ends and run
// lengths 0 to 20 (the remainders after multiples of 8, which go through
// Pairs4) and 512, on ratios with heavy tails, zeros and ones and rewards
// of both signs, with partial sums that start nonzero.
func TestLag8MatchesLag(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 9))
	lengths := []int{512}
	for n := range 21 {
		lengths = append(lengths, n)
	}
	pairs := map[string]Pairs8Func{"Pairs8-" + Pairs8Name: Pairs8, "pairs8Go": pairs8Go}
	for _, n := range lengths {
		for _, odd := range []bool{false, true} {
			for _, lastOdd := range []bool{false, true} {
				var rho [8][]float64
				fm := make([][]float64, 8)
				for L := range rho {
					rho[L], fm[L] = make([]float64, n), make([]float64, n)
					for j := range n {
						rho[L][j] = ldDraw(rng)
						fm[L][j] = rho[L][j] - 1
					}
				}
				rw, bk := make([]float64, n), make([]float64, n)
				for j := range n {
					rw[j] = rng.NormFloat64() * 10
					bk[j] = math.Exp(rng.NormFloat64())
				}
				cx := []float64{0.5, -1, 2, 0.25, 3, -0.75, 1.5, 0}
				cd := []float64{-0.5, 1, 0.125, 3, 0, -2, 0.375, 1}
				var want [8]Part
				for L := range want {
					want[L] = Part{SX: float64(L), SD: 1, SS: 2, Lanes: Lanes{L0: 3, L1: float64(L) / 3, Last: 7}}
				}
				init := want
				bw := append([]float64(nil), bk...)
				for L := range 8 {
					Lag(rho[L], fm[L], rw, bw, cx[L], cd[L], &want[L], odd, lastOdd)
				}
				for name, p8 := range pairs {
					got := init
					bg := append([]float64(nil), bk...)
					var acc Acc8
					var acc4 Acc4
					r := rho
					Lag8(p8, Pairs4, &acc, &acc4, &r, rw, bg, cx, cd, got[:], odd, lastOdd)
					for L := range 8 {
						if !samePart(got[L], want[L]) {
							t.Errorf("%s n=%d odd=%v lastOdd=%v lag %d: %+v, want %+v", name, n, odd, lastOdd, L, got[L], want[L])
						}
					}
					if !sameRow(bg, bw) {
						t.Errorf("%s n=%d odd=%v lastOdd=%v: B differs from Lag's", name, n, odd, lastOdd)
					}
				}
			}
		}
	}
}

// TestDotLanes8MatchesDotLanes: DotLanes8 (with the AVX-512 assembly
// where the CPU has it) gives bit for bit the lanes of eight calls of
// DotLanes, for every parity of the run's ends and run lengths 0 to 20
// and 512, with lanes that start nonzero; and dotPairs8 those of its Go
// twin dotPairs8Go.
func TestDotLanes8MatchesDotLanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 10))
	lengths := []int{512}
	for n := range 21 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		for _, odd := range []bool{false, true} {
			for _, lastOdd := range []bool{false, true} {
				var x, a [8][]float64
				for i := range 8 {
					x[i], a[i] = make([]float64, n), make([]float64, n)
					for j := range n {
						x[i][j] = rng.NormFloat64() * math.Exp(2*rng.NormFloat64())
						a[i][j] = rng.NormFloat64() * math.Exp(2*rng.NormFloat64())
					}
				}
				var want, got [8]Lanes
				for i := range want {
					want[i] = Lanes{L0: float64(i), L1: -float64(i) / 3, Last: 5}
				}
				got = want
				for i := range want {
					DotLanes(x[i], a[i], &want[i], odd, lastOdd)
				}
				var en [8]*Lanes
				for i := range en {
					en[i] = &got[i]
				}
				var acc [16]float64
				xs, as := x, a
				DotLanes8(&xs, &as, &en, &acc, odd, lastOdd)
				for i := range got {
					w, g := want[i], got[i]
					if !sameRow([]float64{g.L0, g.L1, g.Last}, []float64{w.L0, w.L1, w.Last}) {
						t.Errorf("%s n=%d odd=%v lastOdd=%v entry %d: %+v, want %+v", LD8Name, n, odd, lastOdd, i, g, w)
					}
				}
			}
		}
		if m := n &^ 7; m > 0 {
			var x, a [8][]float64
			var ag, aw [16]float64
			for i := range 8 {
				x[i], a[i] = make([]float64, n), make([]float64, n)
				for j := range n {
					x[i][j], a[i][j] = rng.NormFloat64(), rng.NormFloat64()*1e3
				}
				ag[i], ag[8+i] = float64(i), 1
			}
			aw = ag
			dotPairs8(&x, &a, n-m, m, &ag)
			dotPairs8Go(&x, &a, n-m, m, &aw)
			if !sameRow(ag[:], aw[:]) {
				t.Errorf("%s n=%d: dotPairs8 differs from dotPairs8Go", LD8Name, n)
			}
		}
	}
}

// TestMeans8MatchesMeans: Means8 (the AVX-512 assembly where the CPU has
// it, else its Go twin) and the twin means8Go give bit for bit the sums
// and products of eight calls of Means, lag by lag, for run lengths 0 to
// 20 and 512, on ratios with heavy tails, zeros and ones, rewards of both
// signs, and sums that start nonzero.
func TestMeans8MatchesMeans(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 11))
	lengths := []int{512}
	for n := range 21 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		var rho [8][]float64
		for L := range rho {
			rho[L] = make([]float64, n)
			for j := range n {
				rho[L][j] = ldDraw(rng)
			}
		}
		rw, bk := make([]float64, n), make([]float64, n)
		for j := range n {
			rw[j] = rng.NormFloat64() * 10
			bk[j] = math.Exp(rng.NormFloat64())
		}
		x0 := []float64{0.5, -1, 2, 0.25, 0, 3, -7, 1}
		d0 := []float64{-0.5, 1, 0.125, 3, 2, 0, 1, -1}
		wx, wd := append([]float64(nil), x0...), append([]float64(nil), d0...)
		bw := append([]float64(nil), bk...)
		for L := range 8 {
			Means(rho[L], rw, bw, &wx[L], &wd[L])
		}
		for name, f := range map[string]func(rho *[8][]float64, rw, bk, sx, sd []float64){
			"Means8-" + LD8Name: Means8,
			"means8Go":          func(rho *[8][]float64, rw, bk, sx, sd []float64) { means8Go(rho, 0, rw, bk, sx, sd) },
		} {
			sx, sd := append([]float64(nil), x0...), append([]float64(nil), d0...)
			bg := append([]float64(nil), bk...)
			r := rho
			f(&r, rw, bg, sx, sd)
			if !sameRow(sx, wx) || !sameRow(sd, wd) {
				t.Errorf("%s n=%d: sx %v sd %v, want %v %v", name, n, sx, sd, wx, wd)
			}
			if !sameRow(bg, bw) {
				t.Errorf("%s n=%d: B differs from Means's", name, n)
			}
		}
	}
}
