package incris

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	_ "github.com/ope-lab/longhorizon/domains/suite" // registers randommdp, drift
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ldSubepisode collects n trajectories of the sub-episode MDP (SPEC 2.2)
// with h/2 sub-episodes (H = h), as the harness does.
func ldSubepisode(tb testing.TB, n, h int) *trajectory.Batch {
	d, _, err := domains.New("subepisode", map[string]float64{"subepisodes": float64(h / 2)})
	if err != nil {
		tb.Fatal(err)
	}
	var b trajectory.Batch
	d.Collect(&b, n, rand.New(rand.NewPCG(2017, uint64(n+h))))
	return &b
}

// BenchmarkINCRISLDDomain: one incris-ld estimate from n sub-episode
// trajectories of horizon H (the harness's data), workspace warm.
func BenchmarkINCRISLDDomain(b *testing.B) {
	for _, c := range [][2]int{{1000, 100}, {10000, 100}, {1000, 1000}, {10000, 1000}} {
		n, h := c[0], c[1]
		b.Run("n="+strconv.Itoa(n)+",H="+strconv.Itoa(h), func(b *testing.B) {
			batch := ldSubepisode(b, n, h)
			e := NewINCRISLD(true)
			if _, err := e.Estimate(batch); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Estimate(batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkINCRISLDGrid: incris-ld at every n of the harness's grid
// (10, 20, 50, ..., 10^4) from one batch of 10^4 sub-episode trajectories,
// with EstimateGrid: what one trial costs.
func BenchmarkINCRISLDGrid(b *testing.B) {
	for _, h := range []int{100, 1000} {
		b.Run("n=10000,H="+strconv.Itoa(h), func(b *testing.B) {
			batch := ldSubepisode(b, 10000, h)
			e := NewINCRISLD(true)
			out := make([]float64, len(fig4Grid))
			if err := estimators.EstimateGrid(e, batch, fig4Grid, out, nil); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := estimators.EstimateGrid(e, batch, fig4Grid, out, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkINCRISLDHorizon: incris-ld on one data set of n = 1000 of
// configs/horizon.yaml's series A_ld, B_ld and C_ld at H = 300 and 1000
// (their parameters there), workspace warm: what the horizon run's
// incris-ld units cost.
func BenchmarkINCRISLDHorizon(b *testing.B) {
	for _, tc := range []struct {
		series, domain string
		set            map[string]float64
	}{
		{"A", "randommdp", map[string]float64{"horizon": 300, "end_prob": 0, "mix": 0.2}},
		{"A", "randommdp", map[string]float64{"horizon": 1000, "end_prob": 0, "mix": 0.2}},
		{"B", "drift", map[string]float64{"subepisodes": 150, "drift": 0.0033333333333333335}},
		{"B", "drift", map[string]float64{"subepisodes": 500, "drift": 0.001}},
		{"C", "subepisode", map[string]float64{"subepisodes": 150, "eps_step": 0.0033333333333333335}},
		{"C", "subepisode", map[string]float64{"subepisodes": 500, "eps_step": 0.001}},
	} {
		d, _, err := domains.New(tc.domain, tc.set)
		if err != nil {
			b.Fatal(err)
		}
		var batch trajectory.Batch
		d.Collect(&batch, 1000, rand.New(rand.NewPCG(1, 2)))
		b.Run(fmt.Sprintf("%s_ld/n=1000,H=%d", tc.series, batch.Horizon()), func(b *testing.B) {
			e := NewINCRISLD(true)
			if _, err := e.Estimate(&batch); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Estimate(&batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
