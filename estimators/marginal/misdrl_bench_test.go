package marginal

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	_ "github.com/ope-lab/longhorizon/domains/suite" // registers randommdp
	_ "github.com/ope-lab/longhorizon/domains/taxi"  // registers noisytaxi
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/internal/compact"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// idDomainBatch collects n episodes of a suite domain (its defaults)
// with observation and action ids and the action probabilities, the data
// of SPEC 1f. noisytaxi at n = 10^4: about 229000 steps, H = 76 to 88,
// 500 observations, 6 actions, about 15000 distinct (t, o) and 75000
// distinct (t, o, o'); randommdp: about 166000 steps, H = 20, 10
// observations, 3 actions, 200 (t, o).
func idDomainBatch(b *testing.B, domain string, n int) *trajectory.Batch {
	b.Helper()
	d, _, err := domains.New(domain, nil)
	if err != nil {
		b.Fatal(err)
	}
	d.(domains.ModelDomain).Record(true, false)
	if err := d.(domains.ProbRecorder).RecordProbs(true); err != nil {
		b.Fatal(err)
	}
	var batch trajectory.Batch
	d.Collect(&batch, n, rand.New(rand.NewPCG(41, 42)))
	return &batch
}

// taxiIDBatch is idDomainBatch's noisytaxi.
func taxiIDBatch(b *testing.B, n int) *trajectory.Batch {
	return idDomainBatch(b, "noisytaxi", n)
}

// suiteGrid is configs/suite.yaml's grid of n.
var suiteGrid = []int{10, 20, 50, 100, 200, 500, 1000, 2000, 5000}

// BenchmarkMIS: one mis estimate from 10^4 episodes with ids, the
// workspace warm: n=10000 is noisytaxi (many distinct (t, o, o')),
// randommdp/n=10000 a domain of 10 observations, randommdp/n=1000,H=3000
// configs/horizon.yaml's series A at its largest H. allocs/op must be 0.
func BenchmarkMIS(b *testing.B) {
	for _, c := range []struct{ name, domain string }{{"n=10000", "noisytaxi"}, {"randommdp/n=10000", "randommdp"}, {"randommdp/n=1000,H=3000", ""}} {
		var batch *trajectory.Batch
		if c.domain != "" {
			batch = idDomainBatch(b, c.domain, 10000)
		} else {
			batch = horizonBatch(b, 1000, 3000) // configs/horizon.yaml's A at its largest H
		}
		e := NewMIS()
		b.Run(c.name, func(b *testing.B) {
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

// BenchmarkMISGrid: mis at every n of configs/suite.yaml's grid (10 ...
// 5000) from one batch of 5000 episodes, noisytaxi and randommdp, with
// EstimateGrid (one trial's mis work in the nested protocol), the
// workspace warm.
func BenchmarkMISGrid(b *testing.B) {
	for _, domain := range []string{"noisytaxi", "randommdp"} {
		batch := idDomainBatch(b, domain, suiteGrid[len(suiteGrid)-1])
		e := NewMIS()
		out := make([]float64, len(suiteGrid))
		b.Run(domain, func(b *testing.B) {
			if err := estimators.EstimateGrid(e, batch, suiteGrid, out, nil); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := estimators.EstimateGrid(e, batch, suiteGrid, out, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDRL: one drl estimate (two model fits on half the data each,
// two forward passes for the marginal ratio, phi), the workspace warm:
// n=10000,H=100 is randommdp (10 observations, 3 actions) with horizon
// 100 and no early ends over the fitted (time-homogeneous) model,
// fitted-t/n=10000,H=100 the same over the time-indexed one, noisytaxi/n=10000
// taxiIDBatch's 10^4 episodes, n=1000,H=3000 and chain/n=1000,H=3000
// configs/horizon.yaml's A and D at their largest H (chainBatch); compare BenchmarkDRLMIS (SPEC 1f's weights)
// and BenchmarkFit/n=10000 (issue 24: drl at most 3 model fits).
func BenchmarkDRL(b *testing.B) { benchDRL(b, NewDRL) }

// BenchmarkDRLMIS: BenchmarkDRL's cases for drl-mis.
func BenchmarkDRLMIS(b *testing.B) { benchDRL(b, NewDRLMIS) }

// benchDRL runs BenchmarkDRL's cases for the estimators mk makes.
func benchDRL(b *testing.B, mk func() *DRL) {
	long := horizonBatch(b, 10000, 100)
	taxi := taxiIDBatch(b, 10000)
	h3000 := horizonBatch(b, 1000, 3000) // configs/horizon.yaml's A and A_t at their largest H
	chain := chainBatch(b, 1000, 3000)   // its D and D_t
	for _, c := range []struct {
		name, kind string
		batch      *trajectory.Batch
	}{{"n=10000,H=100", "", long}, {"fitted-t/n=10000,H=100", "fitted-t", long}, {"noisytaxi/n=10000", "", taxi},
		{"n=1000,H=3000", "", h3000}, {"fitted-t/n=1000,H=3000", "fitted-t", h3000},
		{"chain/n=1000,H=3000", "", chain}, {"chain/fitted-t/n=1000,H=3000", "fitted-t", chain}} {
		e := mk()
		e.UseModel(c.kind)
		b.Run(c.name, func(b *testing.B) {
			if _, err := e.Estimate(c.batch); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Estimate(c.batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// chainBatch collects n episodes of chainmdp with the given horizon, p_b
// = 0.99 and p_e = 1 (configs/horizon.yaml's domain D: about 2 H
// observations, d^e_t on one of them), with ids and action probabilities.
func chainBatch(b *testing.B, n, h int) *trajectory.Batch {
	b.Helper()
	d, _, err := domains.New("chainmdp", map[string]float64{"horizon": float64(h), "p_b": 0.99, "p_e": 1})
	if err != nil {
		b.Fatal(err)
	}
	d.(domains.ModelDomain).Record(true, false)
	if err := d.(domains.ProbRecorder).RecordProbs(true); err != nil {
		b.Fatal(err)
	}
	var batch trajectory.Batch
	d.Collect(&batch, n, rand.New(rand.NewPCG(45, 46)))
	return &batch
}

// horizonBatch collects n episodes of randommdp with the given horizon
// and no early ends (configs/horizon.yaml's domain A at mix 0.2), with
// ids and action probabilities.
func horizonBatch(b *testing.B, n, h int) *trajectory.Batch {
	b.Helper()
	d, _, err := domains.New("randommdp", map[string]float64{"horizon": float64(h), "end_prob": 0, "mix": 0.2})
	if err != nil {
		b.Fatal(err)
	}
	d.(domains.ModelDomain).Record(true, false)
	if err := d.(domains.ProbRecorder).RecordProbs(true); err != nil {
		b.Fatal(err)
	}
	var batch trajectory.Batch
	d.Collect(&batch, n, rand.New(rand.NewPCG(43, 44)))
	return &batch
}

// BenchmarkFit: one fit of SPEC 1f's model (models.Fitter, censored at H)
// on all of taxiIDBatch's 10^4 episodes, with the space drl builds
// (compact ids, |A| + 1 actions, pi_e read from the rows), a warm Fitter:
// the unit of issue 24's bound on drl.
func BenchmarkFit(b *testing.B) {
	src := taxiIDBatch(b, 10000)
	steps := src.Steps()
	fb := *src // rewards undiscounted (gamma 1), ids made compact below
	fb.Obs, fb.Action = make([]int32, steps), make([]int32, steps)
	fb.QHat, fb.VHat = nil, nil
	var obsIDs, actIDs compact.IDs
	m := obsIDs.Build(src.Obs, fb.Obs)
	na := actIDs.Build(src.Action, fb.Action)
	pie := make([]float64, m*na)
	for s := range steps {
		pie[int(fb.Obs[s])*na+int(fb.Action[s])] = src.PiE[s]
	}
	piE := func(o int, dst []float64) {
		row := pie[o*na : (o+1)*na]
		copy(dst, row)
		sum := 0.0
		for _, x := range row {
			sum += x
		}
		dst[na] = max(0, 1-sum)
	}
	sp := models.Space{Obs: m, Actions: na + 1, Horizon: src.Horizon(), PiE: piE}
	var f models.Fitter
	b.Run("n=10000", func(b *testing.B) {
		if err := f.Fit(&fb, sp, 1); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := f.Fit(&fb, sp, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
}
