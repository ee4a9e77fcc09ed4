package models

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkWeightedLearners fits BenchmarkFit's data (n = 10^4
// trajectories of up to H = 100 steps, a random walk over 500
// observations, 6 actions; 433312 steps), with ratios drawn in [0.5, 1.5]
// instead of 1, by a warm learner of each kind: fitted (BenchmarkFit's
// unit) and the importance-weighted q-reg and mrdr, which issue 30 bounds
// by 3 fitted fits. Compare with benchstat -col /kind.
func BenchmarkWeightedLearners(b *testing.B) {
	const n, h, obs, actions = 10000, 100, 500, 6
	rng := rand.New(rand.NewPCG(1, 1))
	batch := randomBatch(rng, n, h, obs, actions)
	for s := range batch.Ratio {
		batch.Ratio[s] = 0.5 + rng.Float64()
	}
	sp := Space{Obs: obs, Actions: actions, Horizon: h, PiE: uniform(actions)}
	for _, kind := range []string{"fitted", "q-reg", "mrdr"} {
		k, err := Get(kind)
		if err != nil {
			b.Fatal(err)
		}
		l := k.New()
		b.Run("kind="+kind+"/n=10000,H=100", func(b *testing.B) {
			if err := l.FitTo(batch, batch, sp, 0.99); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := l.FitTo(batch, batch, sp, 0.99); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(batch.Steps()), "ns/step")
		})
	}
}
