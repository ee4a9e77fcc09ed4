package estimators

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// TestESSGridPassesAgree checks that ESSGrid's trajectory-by-trajectory
// pass (plainPass) gives stepPass's bits, the step-by-step pass over every
// trajectory that curve.csv's committed ESS columns were written with, on
// random data of variable lengths; and that a batch whose later
// trajectory leaves [2^-500, 2^500], after earlier ones that do not, falls
// back to stepPass from a clean start (the same bits as a fresh stepPass).
func TestESSGridPassesAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	random := func(n, h int, wild int) *trajectory.Batch {
		var b trajectory.Batch
		for i := range n {
			for range 1 + rng.IntN(h) {
				f := 2 * rng.Float64()
				if rng.IntN(10) == 0 {
					f = 0
				}
				if i == wild {
					f = 1e300
				}
				b.Add(rng.NormFloat64(), f)
			}
			b.End()
		}
		return &b
	}
	cases := []struct {
		name string
		b    *trajectory.Batch
		grid []int
	}{
		{"random", random(300, 40, -1), []int{3, 30, 100, 300}},
		{"one point", random(100, 60, -1), []int{100}},
		{"a wild trajectory late", random(60, 30, 41), []int{10, 40, 60}},
	}
	for _, c := range cases {
		ng := len(c.grid)
		ess, minStep := make([]float64, ng), make([]float64, ng)
		var g ESSGrid
		if err := g.Compute(c.b, c.grid, ess, minStep); err != nil {
			t.Fatal(err)
		}
		var ref ESSGrid
		wantESS, wantMin := make([]float64, ng), make([]float64, ng)
		for j := range wantMin {
			wantMin[j] = math.Inf(1)
		}
		ref.f = c.b.Factors(nil)
		ref.plain = make([]float64, c.grid[ng-1])
		ref.ws = growScaled(nil, c.grid[ng-1])
		ref.seg = make([]essSegment, ng)
		ref.horizons(c.b, c.grid)
		ref.stepPass(c.b, c.grid, wantESS, wantMin)
		for j := range c.grid {
			if math.Float64bits(ess[j]) != math.Float64bits(wantESS[j]) || math.Float64bits(minStep[j]) != math.Float64bits(wantMin[j]) {
				t.Errorf("%s, n = %d: ESS %v, min step %v; step by step %v, %v", c.name, c.grid[j], ess[j], minStep[j], wantESS[j], wantMin[j])
			}
		}
	}
}
