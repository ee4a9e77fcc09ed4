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
