package selection

import (
	"math"
	"slices"
	"testing"
)

func TestRanks(t *testing.T) {
	for _, tc := range []struct {
		name string
		x    []float64
		want []float64
	}{
		{"distinct", []float64{3, 1, 2}, []float64{3, 1, 2}},
		// 5 and 5 span ranks 2 and 3: both (2+3)/2 = 2.5.
		{"pair tie", []float64{1, 5, 5, 9}, []float64{1, 2.5, 2.5, 4}},
		// all four span ranks 1..4: (1+2+3+4)/4 = 2.5.
		{"all tied", []float64{7, 7, 7, 7}, []float64{2.5, 2.5, 2.5, 2.5}},
	} {
		if got := Ranks(tc.x); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Ranks(%v) = %v, want %v", tc.name, tc.x, got, tc.want)
		}
	}
}

func TestSpearmanByHand(t *testing.T) {
	truth := []float64{10, 20, 30, 40}
	for _, tc := range []struct {
		name string
		est  []float64
		want float64
	}{
		{"same order", []float64{0.1, 0.2, 0.5, 9}, 1},
		{"reversed", []float64{4, 3, 2, 1}, -1},
		// ranks (2, 1, 3, 4) against (1, 2, 3, 4): d = (1, -1, 0, 0), no
		// ties, rho = 1 - 6 sum d^2 / (n (n^2 - 1)) = 1 - 12/60 = 0.8.
		{"one swap", []float64{2, 1, 3, 4}, 0.8},
		// ties: est ranks (1.5, 1.5, 3, 4), means 2.5; deviations
		// (-1, -1, 0.5, 1.5) and truth's (-1.5, -0.5, 0.5, 1.5):
		// sxy = 1.5 + 0.5 + 0.25 + 2.25 = 4.5, sxx = 1 + 1 + 0.25 + 2.25 = 4.5,
		// syy = 2.25 + 0.25 + 0.25 + 2.25 = 5: rho = 4.5 / sqrt(4.5 * 5) = 0.9487
		{"tie", []float64{1, 1, 2, 3}, 4.5 / math.Sqrt(4.5*5)},
		{"constant estimates", []float64{2, 2, 2, 2}, 0},
	} {
		if got := SpearmanRho(tc.est, truth); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: rho = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := SpearmanRho([]float64{1, math.NaN(), 2, 3}, truth); !math.IsNaN(got) {
		t.Errorf("NaN estimate: rho = %v, want NaN", got)
	}
}

func TestRegretByHand(t *testing.T) {
	truth := []float64{5, 9, 7, 1, 8}
	for _, tc := range []struct {
		name string
		est  []float64
		k    int
		want float64
	}{
		// best truth 9 (candidate 2); est's largest is candidate 4 (truth 1): 9 - 1 = 8.
		{"wrong pick", []float64{0, 1, 2, 10, 3}, 1, 8},
		// est's top 3: candidates 4, 5, 3 (truths 1, 8, 7): 9 - 8 = 1.
		{"top 3", []float64{0, 1, 2, 10, 3}, 3, 1},
		{"right pick", []float64{0, 5, 1, 1, 1}, 1, 0},
		// ties 4 = 4 between candidates 1 and 3: the first listed (truth 5): 9 - 5 = 4.
		{"tie first listed", []float64{4, 0, 4, 0, 0}, 1, 4},
		// a NaN ranks below every number: candidate 3 (truth 7): 9 - 7 = 2.
		{"NaN last", []float64{math.NaN(), 0, 1, 0, 0}, 1, 2},
		// k above the candidates: all of them, the best included.
		{"k > C", []float64{1, 2, 3, 4, 5}, 9, 0},
	} {
		if got := Regret(tc.est, truth, tc.k); got != tc.want {
			t.Errorf("%s: regret@%d = %v, want %v", tc.name, tc.k, got, tc.want)
		}
	}
}

func TestCoverageByHand(t *testing.T) {
	truth := []float64{1, 2, 3, 4}
	lo := []float64{0, 2, 3.5, -1}
	hi := []float64{2, 2, 4, 3.9}
	// in: 1 in [0, 2], 2 in [2, 2] (closed); out: 3 < 3.5, 4 > 3.9: 2/4.
	if got := CoverageOf(lo, hi, truth); got != 0.5 {
		t.Errorf("coverage = %v, want 0.5", got)
	}
}

// TestBootstrapDeterministic: the draws depend on (seed, series, n)
// alone, and the percentile interval is the 50th smallest and largest of
// 2000 replicate means.
func TestBootstrapDeterministic(t *testing.T) {
	a := Draws(7, "sub", 100, 50, 2000)
	b := Draws(7, "sub", 100, 50, 2000)
	for r := range a {
		if !slices.Equal(a[r], b[r]) {
			t.Fatalf("replicate %d differs between two calls", r)
		}
	}
	if c := Draws(7, "sub", 1000, 50, 2000); slices.Equal(a[0], c[0]) && slices.Equal(a[1], c[1]) {
		t.Errorf("n = 100 and n = 1000 drew the same trials")
	}
	x := make([]float64, 50)
	for i := range x {
		x[i] = float64(i)
	}
	lo, hi := Interval(x, a)
	lo2, hi2 := Interval(x, b)
	if lo != lo2 || hi != hi2 {
		t.Fatalf("interval [%v, %v] then [%v, %v]", lo, hi, lo2, hi2)
	}
	// the mean is 24.5 and the sd of a replicate mean sqrt(var/50) with
	// var = (50^2 - 1)/12 = 208.25: 2.04; the 95% interval is about
	// 24.5 +- 1.96 x 2.04 = [20.5, 28.5]; 0.6 of tolerance on each end.
	if math.Abs(lo-20.5) > 0.6 || math.Abs(hi-28.5) > 0.6 {
		t.Errorf("interval [%v, %v], want about [20.5, 28.5]", lo, hi)
	}
	// by hand: 40 replicates, k = ceil(40 x 0.025) = 1: the smallest and largest.
	if lo, hi := percentiles([]float64{3, 1, 2, 5, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
		21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40}); lo != 1 || hi != 40 {
		t.Errorf("percentiles of 1..40 = [%v, %v], want [1, 40]", lo, hi)
	}
}

func TestDecide(t *testing.T) {
	one, half := 1.0, 0.5
	for _, tc := range []struct {
		name   string
		c      Claim
		lo, hi float64
		want   string
	}{
		{"above holds", Claim{Versus: "s/b", Relation: Above}, 0.1, 0.3, Holds},
		{"above fails", Claim{Versus: "s/b", Relation: Above}, -0.3, -0.1, Fails},
		{"above straddles", Claim{Versus: "s/b", Relation: Above}, -0.1, 0.1, Inconclusive},
		{"below holds", Claim{Versus: "s/b", Relation: Below}, -0.3, -0.1, Holds},
		{"min holds at the edge", Claim{Min: &half}, 0.5, 0.9, Holds},
		{"min fails", Claim{Min: &one}, 0.2, 0.9, Fails},
		{"max holds", Claim{Max: &one}, 0.2, 0.9, Holds},
		{"max inconclusive", Claim{Max: &half}, 0.2, 0.9, Inconclusive},
		{"NaN", Claim{Max: &half}, math.NaN(), math.NaN(), Inconclusive},
	} {
		if got := decide(&tc.c, tc.lo, tc.hi); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
