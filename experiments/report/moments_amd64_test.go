//go:build !noasm

package report

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// TestFixedMomentsAreGonums: on amd64 with gonum's assembly, fixedMean,
// fixedPopMeanVariance and fixedStdDev give bit for bit what gonum's stat
// gives on slices from make (so the results keep their bits), for every
// length up to 300 (every tail of the eight-lane sum), on values of mixed
// signs and magnitudes.
func TestFixedMomentsAreGonums(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for n := 1; n <= 300; n++ {
		for range 5 {
			x := make([]float64, n)
			for i := range x {
				x[i] = rng.NormFloat64() * math.Exp(5*rng.NormFloat64())
			}
			if got, want := fixedMean(x), stat.Mean(x, nil); !same(got, want) {
				t.Fatalf("n=%d: mean %v, gonum %v", n, got, want)
			}
			gm, gv := fixedPopMeanVariance(x)
			wm, wv := stat.PopMeanVariance(x, nil)
			if !same(gm, wm) || !same(gv, wv) {
				t.Fatalf("n=%d: PopMeanVariance %v %v, gonum %v %v", n, gm, gv, wm, wv)
			}
			if n > 1 {
				if got, want := fixedStdDev(x), stat.StdDev(x, nil); !same(got, want) {
					t.Fatalf("n=%d: StdDev %v, gonum %v", n, got, want)
				}
			}
		}
	}
}
