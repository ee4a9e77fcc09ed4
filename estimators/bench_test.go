package estimators_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
)

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
	ests := make([]estimators.Estimator, len(fig4Estimators))
	for i, name := range fig4Estimators {
		ests[i], _ = estimators.New(name)
	}
	out := make([]float64, len(fig4Grid))
	ks := make([][]float64, len(fig4Grid))
	for j := range ks {
		ks[j] = make([]float64, 0, batch.Horizon())
	}
	diags := [][][]float64{ks}
	run := func(b *testing.B, ests ...estimators.Estimator) {
		for _, e := range ests { // warm up the workspaces
			if err := estimators.EstimateGrid(e, batch, fig4Grid, out, diags); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		for b.Loop() {
			for _, e := range ests {
				if err := estimators.EstimateGrid(e, batch, fig4Grid, out, diags); err != nil {
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
