package suite

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/trajectory"
)

// BenchmarkTabularCollect: drawing configs/horizon.yaml's series A data
// (randommdp, S = 10, H = 1000, n = 1000) into a reused batch, without
// and with the observation and action ids that the fitted models read
// (ModelDomain.Record), and with the probability columns too.
func BenchmarkTabularCollect(b *testing.B) {
	for _, tc := range []struct {
		name       string
		ids, probs bool
	}{{"plain", false, false}, {"ids", true, false}, {"ids+probs", true, true}} {
		d, _, err := domains.New("randommdp", map[string]float64{"horizon": 1000, "end_prob": 0, "mix": 0.2})
		if err != nil {
			b.Fatal(err)
		}
		d.(domains.ModelDomain).Record(tc.ids, false)
		if err := d.(domains.ProbRecorder).RecordProbs(tc.probs); err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name+"/n=1000,H=1000", func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			var batch trajectory.Batch
			b.ReportAllocs()
			for b.Loop() {
				batch.Reset()
				d.Collect(&batch, 1000, rng)
			}
		})
	}
}
