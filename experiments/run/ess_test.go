package run

import (
	"context"
	"math"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestUnitESS: every unit's effective sample sizes are those of the data
// its estimates were made from: WeightStatsOf on the first n trajectories
// of the unit's stream (nested data), or on the n drawn afresh for that n
// (independent data), recomputed here directly. The tolerance, a relative
// 1e-13, is ESSGrid's against WeightStatsOf (summing by segments).
func TestUnitESS(t *testing.T) {
	for _, data := range []string{"nested", "independent"} {
		p, err := config.Parse([]byte("seed: 5\ntrials: 2\ndata: "+data+"\nn: [3, 10, 40]\nseries:\n"+
			"  - {name: sub, domain: subepisode, params: {subepisodes: 4}, estimators: [pdis]}\n"+
			"  - {name: taxi, domain: noisytaxi, params: {option_length: 2}, estimators: [wis]}\n"), "ess.yaml")
		if err != nil {
			t.Fatal(err)
		}
		results, err := RunUnits(context.Background(), p, Units(p), Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range results {
			rs := &p.Series[res.Series]
			d, err := rs.Spec().New(rs.Params)
			if err != nil {
				t.Fatal(err)
			}
			rng := Stream(p, Unit{Series: res.Series, Trial: res.Trial})
			var b trajectory.Batch
			if data == "nested" {
				d.Collect(&b, p.NMax(), rng)
			}
			for j, n := range p.N {
				var pre trajectory.Batch
				if data == "nested" {
					pre = b.Prefix(n)
				} else {
					b.Reset()
					d.Collect(&b, n, rng)
					pre = b
				}
				want := estimators.WeightStatsOf(&pre)
				if !near(res.ESS[j], want.ESS) || !near(res.MinStepESS[j], want.MinStepESS) {
					t.Errorf("%s, %s trial %d, n = %d: ess %v, min step %v; want %v, %v",
						data, rs.Name, res.Trial, n, res.ESS[j], res.MinStepESS[j], want.ESS, want.MinStepESS)
				}
				if want.ESS == float64(n) && data == "nested" && rs.Name == "sub" {
					t.Errorf("%s, %s, n = %d: ESS n, equal weights: the data has no off-policy weights to test", data, rs.Name, n)
				}
			}
		}
	}
}

func near(a, b float64) bool { return a == b || math.Abs(a-b) <= 1e-13*math.Abs(b) }
