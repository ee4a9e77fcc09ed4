package incris_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	_ "github.com/ope-lab/longhorizon/domains/suite" // registers randommdp, drift
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// horizonCases are configs/horizon.yaml's series A ... D at their
// largest H for incris (3000) and incris-ld (1000), n = 1000.
var horizonCases = []struct {
	series, domain string
	set            map[string]float64
}{
	{"A", "randommdp", map[string]float64{"horizon": 3000, "end_prob": 0, "mix": 0.2}},
	{"B", "drift", map[string]float64{"subepisodes": 1500, "drift": 0.0003333333333333333}},
	{"C", "subepisode", map[string]float64{"subepisodes": 1500, "eps_step": 0.0003333333333333333}},
	{"D", "chainmdp", map[string]float64{"horizon": 3000, "p_b": 0.99, "p_e": 1}},
	{"A", "randommdp", map[string]float64{"horizon": 1000, "end_prob": 0, "mix": 0.2}},
	{"B", "drift", map[string]float64{"subepisodes": 500, "drift": 0.001}},
	{"C", "subepisode", map[string]float64{"subepisodes": 500, "eps_step": 0.001}},
	{"D", "chainmdp", map[string]float64{"horizon": 1000, "p_b": 0.99, "p_e": 1}},
}

// BenchmarkINCRISHorizon: incris and incris-ld on one data set of n =
// 1000 of each of configs/horizon.yaml's series A ... D, at H = 3000
// (incris) and 1000 (both), as the horizon run calls them.
func BenchmarkINCRISHorizon(b *testing.B) {
	for _, tc := range horizonCases {
		d, _, err := domains.New(tc.domain, tc.set)
		if err != nil {
			b.Fatal(err)
		}
		var batch trajectory.Batch
		d.Collect(&batch, 1000, rand.New(rand.NewPCG(1, 2)))
		for _, name := range []string{"incris", "incris-ld"} {
			h := batch.Horizon()
			if name == "incris-ld" && h > 1000 {
				continue
			}
			e, _ := estimators.New(name)
			b.Run(fmt.Sprintf("%s/%s/n=1000,H=%d", name, tc.series, h), func(b *testing.B) {
				if _, err := e.Estimate(&batch); err != nil {
					b.Skip(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					_, _ = e.Estimate(&batch)
				}
			})
		}
	}
}
