package domains

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// BenchmarkCollect measures drawing trajectories into a reused batch, per
// domain, and reports primitive steps per second (noisytaxi's benchmark is
// in package domains/taxi).
func BenchmarkCollect(b *testing.B) {
	for _, tc := range []struct {
		domain string
		params Params
	}{
		{"subepisode", nil},
		{"chainmdp", Params{"horizon": 100}},
	} {
		spec, _ := Lookup(tc.domain)
		p := spec.Defaults()
		for k, v := range tc.params {
			p[k] = v
		}
		d, err := spec.New(p)
		if err != nil {
			b.Fatal(err)
		}
		name := tc.domain
		if m, ok := tc.params["option_length"]; ok {
			name += "/m=" + strconv.Itoa(int(m))
		}
		b.Run(name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			var batch trajectory.Batch
			const n = 1000
			steps := 0
			b.ReportAllocs()
			for b.Loop() {
				batch.Reset()
				d.Collect(&batch, n, rng)
				steps += batch.Steps()
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}
