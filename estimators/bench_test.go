package estimators

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// subepisodeBatch draws n trajectories shaped like the sub-episode MDP of
// SPEC 2.2 (H = 2 x subepisodes, every reward nonzero) under a uniform
// behavior policy, with the ratios of p_e = 0.75: 1.5 for a1, 0.5 for a2.
// Split points mark the ends of sub-episodes.
func subepisodeBatch(rng *rand.Rand, n, subepisodes int) *trajectory.Batch {
	var b trajectory.Batch
	b.Grow(n, n*2*subepisodes)
	ratio := [2]float64{1.5, 0.5}
	for range n {
		eps := 0.0
		for range subepisodes {
			a := rng.IntN(2)
			if a == 0 { // s1 -> s2, r = +1
				eps += 0.01
				b.Add(1, ratio[0])
				b.Add(-2+eps, ratio[rng.IntN(2)])
			} else { // s1 -> s3, r = -1
				b.Add(-1, ratio[1])
				b.Add(2, ratio[rng.IntN(2)])
			}
			b.MarkSplit()
		}
		b.End()
	}
	return &b
}

// fig4Grid is configs/fig4.yaml's grid of n.
var fig4Grid = []int{10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}

// fig4Estimators are configs/fig4.yaml's estimators.
var fig4Estimators = []string{"is", "pdis", "wis", "cwpdis", "incris", "partitioned-pdis"}

// BenchmarkEstimateGrid: every Fig. 4 estimator at every n of the Fig. 4
// grid from one batch of 10^4 sub-episode trajectories, with EstimateGrid
// (one trial's estimation work in `make fig4`; data collection excepted).
// The workspaces exist before timing starts (as in a runner's worker), so
// allocs/op counts only per-call allocations.
func BenchmarkEstimateGrid(b *testing.B) {
	batch := subepisodeBatch(rand.New(rand.NewPCG(5, 6)), 10000, 50)
	ests := make([]Estimator, len(fig4Estimators))
	for i, name := range fig4Estimators {
		ests[i], _ = New(name)
	}
	out := make([]float64, len(fig4Grid))
	ks := make([][]float64, len(fig4Grid))
	for j := range ks {
		ks[j] = make([]float64, 0, batch.Horizon())
	}
	diags := [][][]float64{ks}
	run := func(b *testing.B, ests ...Estimator) {
		for _, e := range ests { // warm up the workspaces
			if err := EstimateGrid(e, batch, fig4Grid, out, diags); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		for b.Loop() {
			for _, e := range ests {
				if err := EstimateGrid(e, batch, fig4Grid, out, diags); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("all", func(b *testing.B) { run(b, ests...) })
	for _, e := range ests {
		b.Run(e.Name(), func(b *testing.B) { run(b, e) })
	}
}
