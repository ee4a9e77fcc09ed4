package models

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkFit fits n = 10^4 trajectories of up to H = 100 steps (a random
// walk over 500 observations, 6 actions; 433312 steps) with a warm
// Fitter, the harness's steady state.
func BenchmarkFit(b *testing.B) {
	const n, h, obs, actions = 10000, 100, 500, 6
	batch := randomBatch(rand.New(rand.NewPCG(1, 1)), n, h, obs, actions)
	sp := Space{Obs: obs, Actions: actions, Horizon: h, PiE: uniform(actions)}
	var f Fitter
	if err := f.Fit(batch, sp, 0.99); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := f.Fit(batch, sp, 0.99); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(batch.Steps()), "ns/step")
}
