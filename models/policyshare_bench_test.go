package models

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkRefit compares, on BenchmarkFit's data (n = 10^4 trajectories
// of up to H = 100 steps, 500 observations, 6 actions), a warm `fitted`
// FitTo with a Refit under another pi_e (what each candidate policy after
// the first costs through a PolicyShare): the ratio of the two is the
// share's saving on the model fit, to quote from benchstat. Both report
// the process's CPU time a fit (cpu-sec/op, unix only).
func BenchmarkRefit(b *testing.B) {
	const n, h, obs, actions = 10000, 100, 500, 6
	batch := randomBatch(rand.New(rand.NewPCG(1, 1)), n, h, obs, actions)
	sp := Space{Obs: obs, Actions: actions, Horizon: h, PiE: uniform(actions)}
	other := sp
	other.PiE = skewed(actions, 1)
	for _, refit := range []bool{false, true} {
		name := "fit=FitTo/n=10000,H=100"
		if refit {
			name = "fit=Refit/n=10000,H=100"
		}
		b.Run(name, func(b *testing.B) {
			var f Fitter
			if err := f.FitTo(batch, batch, sp, 0.99); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				var err error
				if refit {
					err = f.Refit(batch, other, 0.99)
				} else {
					err = f.FitTo(batch, batch, other, 0.99)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			if cpu := processCPU() - cpu; cpu > 0 {
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-sec/op")
			}
		})
	}
}
