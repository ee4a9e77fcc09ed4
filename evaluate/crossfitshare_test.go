package evaluate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	_ "github.com/ope-lab/longhorizon/domains/suite" // registers randommdp
	"github.com/ope-lab/longhorizon/estimators/marginal"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestEvaluateSharesCrossFit: drl and drl-mis, over fitted and fitted-t,
// evaluated together (one run per batch sharing each kind's cross-fit,
// models.CrossFitShare) give the estimates of fresh estimators fitting
// their own on exactly the data of each grid point, bit for bit, on three
// batches collected in turn into the same memory with the same lengths
// (randommdp never ends early: a fit kept from the previous call would
// match its key: on the one-point grid, the calls' only data sets have
// the same key), on a grid of three points and of one, with one worker
// and with three (no sharing).
func TestEvaluateSharesCrossFit(t *testing.T) {
	d, _, err := domains.New("randommdp", map[string]float64{"horizon": 15, "end_prob": 0})
	if err != nil {
		t.Fatal(err)
	}
	d.(domains.ModelDomain).Record(true, false)
	if err := d.(domains.ProbRecorder).RecordProbs(true); err != nil {
		t.Fatal(err)
	}
	type spec struct{ name, model string }
	specs := []spec{{"drl", ""}, {"drl-mis", ""}, {"drl", "fitted-t"}, {"drl-mis", "fitted-t"}}
	for _, tc := range []struct {
		workers int
		grid    []int
	}{{1, []int{5, 20, 60}}, {1, []int{60}}, {3, []int{5, 20, 60}}, {3, []int{60}}} {
		workers, grid := tc.workers, tc.grid
		var ms []Method
		for _, s := range specs {
			m, err := RegistryModel(s.name, s.model)
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, m)
		}
		ev, err := New(Request{Methods: ms, Gamma: 0.9, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(7, 8))
		var b trajectory.Batch
		for round := range 3 {
			b.Reset()
			d.Collect(&b, 60, rng)
			res := ev.NewResult(len(grid))
			if err := ev.Evaluate(&b, grid, &res); err != nil {
				t.Fatal(err)
			}
			for j, n := range grid {
				pre := b.Prefix(n)
				var disc trajectory.Discounted
				view := disc.Of(&pre, 0.9)
				for m, s := range specs {
					e := marginal.NewDRL()
					if s.name == "drl-mis" {
						e = marginal.NewDRLMIS()
					}
					e.UseModel(s.model)
					want, err := e.Estimate(view)
					if err != nil {
						t.Fatal(err)
					}
					if got := res.Values[m][j]; math.Float64bits(got) != math.Float64bits(want) {
						t.Errorf("workers %d, round %d, %s over %q at n = %d: %v, want %v", workers, round, s.name, s.model, n, got, want)
					}
				}
			}
		}
	}
}
