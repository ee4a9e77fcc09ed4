package estimators

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// taxiIDBatch collects n noisytaxi episodes (the defaults: cap 200,
// epsilon 0.3 against 0.05) with observation and action ids and the
// action probabilities, the data of SPEC 1f: at n = 10^4 about 229000
// steps, H = 76, 500 observations, 6 actions, about 15000 distinct
// (t, o).
func taxiIDBatch(b *testing.B, n int) *trajectory.Batch {
	b.Helper()
	d, _, err := domains.New("noisytaxi", nil)
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

// suiteGrid is configs/suite.yaml's grid of n.
var suiteGrid = []int{10, 20, 50, 100, 200, 500, 1000, 2000, 5000}

// BenchmarkMIS: one mis estimate from 10^4 noisytaxi episodes
// (taxiIDBatch), the workspace warm. allocs/op must be 0.
func BenchmarkMIS(b *testing.B) {
	batch := taxiIDBatch(b, 10000)
	e := NewMIS()
	b.Run("n=10000", func(b *testing.B) {
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

// BenchmarkMISGrid: mis at every n of configs/suite.yaml's grid (10 ...
// 5000) from one batch of 5000 noisytaxi episodes, with EstimateGrid (one
// trial's mis work in the nested protocol), the workspace warm.
func BenchmarkMISGrid(b *testing.B) {
	batch := taxiIDBatch(b, suiteGrid[len(suiteGrid)-1])
	e := NewMIS()
	out := make([]float64, len(suiteGrid))
	b.Run("suite", func(b *testing.B) {
		if err := EstimateGrid(e, batch, suiteGrid, out, nil); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := EstimateGrid(e, batch, suiteGrid, out, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDRL: one drl estimate (two model fits on half the data each,
// two mis weight passes, phi) from taxiIDBatch's 10^4 episodes, the
// workspace warm; compare BenchmarkFit/n=10000 (issue 24: drl at most 3
// model fits).
func BenchmarkDRL(b *testing.B) {
	batch := taxiIDBatch(b, 10000)
	e := NewDRL()
	b.Run("n=10000", func(b *testing.B) {
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
	var obsIDs, actIDs compactIDs
	m := obsIDs.build(src.Obs, fb.Obs)
	na := actIDs.build(src.Action, fb.Action)
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
