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

// BenchmarkLearners fits every learned kind of the registry with a warm
// learner on BenchmarkFit's data (n = 10^4 trajectories of up to H = 100
// steps, 500 observations, 6 actions, 433312 steps, every ratio 1): issue
// 30 bounds each learner by 3 times one `fitted` fit (kind=fitted), a
// ratio to quote from benchstat. Besides the wall time it reports the
// process's CPU time a fit (cpu-sec/op, unix only), steadier on a shared
// machine.
func BenchmarkLearners(b *testing.B) {
	const n, h, obs, actions = 10000, 100, 500, 6
	batch := randomBatch(rand.New(rand.NewPCG(1, 1)), n, h, obs, actions)
	sp := Space{Obs: obs, Actions: actions, Horizon: h, PiE: uniform(actions)}
	for _, k := range Kinds() {
		if !k.Learned() {
			continue
		}
		b.Run("kind="+k.Name+"/n=10000,H=100", func(b *testing.B) {
			l := k.New()
			if err := l.FitTo(batch, batch, sp, 0.99); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				if err := l.FitTo(batch, batch, sp, 0.99); err != nil {
					b.Fatal(err)
				}
			}
			if cpu := processCPU() - cpu; cpu > 0 {
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-sec/op")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(batch.Steps()), "ns/step")
		})
	}
}
