package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// edgy returns a copy of b with edge cases spliced in: every 7th reward
// -0, every 11th +0, every 13th huge (1e300, the sums stay finite at
// these sizes), every 17th trajectory emptied, every 19th cut to its
// first step, and some ratios 0 or above 1 kept as they are (retrace's
// min(1, rho) and 0 traces).
func edgy(b *trajectory.Batch) *trajectory.Batch {
	var e trajectory.Batch
	for i := range b.N() {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		switch {
		case i%17 == 3:
			hi = lo
		case i%19 == 5:
			hi = min(hi, lo+1)
		}
		for s := lo; s < hi; s++ {
			r, rho := b.Reward[s], b.Ratio[s]
			switch {
			case s%7 == 0:
				r = math.Copysign(0, -1)
			case s%11 == 0:
				r = 0
			case s%13 == 0:
				r = 1e300
			}
			if s%23 == 0 {
				rho = 0
			}
			e.Add(r, rho)
			e.AddIDs(b.Obs[s], b.Action[s])
		}
		e.End()
	}
	return &e
}

// sameColumns reports the first step where x and y differ in their bits,
// or -1.
func sameColumns(x, y []float64) int {
	if len(x) != len(y) {
		return 0
	}
	for s := range x {
		if math.Float64bits(x[s]) != math.Float64bits(y[s]) {
			return s
		}
	}
	return -1
}

// TestTraceKernelBits: TraceLearner writes the bits of traceRef, the
// kernel before its rewrite (models/traceref_test.go), whose estimates
// the committed results hold: every trace and lambda in {0, 0.5, 1},
// gamma 1 and 0.9, on random off-policy data with episodes ended and cut
// at H, with -0, 0 and huge rewards, empty and one-step trajectories,
// H = 1, and on on-policy data, read on its own batch and on another, one
// learner refitting every case warm (stale workspace must not leak); the
// three kernels of the pass (c per step, per pair, 1) are all reached.
func TestTraceKernelBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 31))
	type dataset struct {
		name  string
		b     *trajectory.Batch
		sp    Space
		other *trajectory.Batch
	}
	var sets []dataset
	for _, c := range []struct {
		name               string
		n, h, obs, actions int
		edges, onPolicy    bool
	}{
		{"small", 60, 5, 4, 2, false, false},
		{"edges", 300, 9, 12, 3, true, false},
		{"H=1", 50, 1, 5, 3, true, false},
		{"long", 200, 40, 30, 4, true, false},
		{"on-policy", 200, 12, 10, 3, true, true},
	} {
		b, sp := offPolicy(rng, c.n, c.h, c.obs, c.actions)
		o, _ := offPolicy(rng, c.n/2, c.h, c.obs, c.actions)
		if c.edges {
			b, o = edgy(b), edgy(o)
		}
		if c.onPolicy { // every ratio 1 (edgy's 0s too): retrace's c = lambda
			for s := range b.Ratio {
				b.Ratio[s] = 1
			}
		}
		sets = append(sets, dataset{c.name, b, sp, o})
	}
	kernels := map[int]int{} // fits by kernel: each must be reached
	for _, tr := range []Trace{Retrace, QPiLambda, TreeBackup} {
		l := &TraceLearner{Trace: tr}
		for _, d := range sets {
			for _, gamma := range []float64{1, 0.9} {
				for _, lambda := range []float64{0, 0.5, 1} {
					l.Lambda = lambda
					for _, apply := range []*trajectory.Batch{d.b, d.other} {
						ref := &traceRef{Trace: tr, Lambda: lambda}
						wantTo, gotTo := clone(apply), clone(apply)
						wantFrom, gotFrom := clone(d.b), clone(d.b)
						if apply == d.b {
							wantTo, gotTo = wantFrom, gotFrom
						}
						if err := ref.FitTo(wantFrom, wantTo, d.sp, gamma); err != nil {
							t.Fatal(err)
						}
						if err := l.FitTo(gotFrom, gotTo, d.sp, gamma); err != nil {
							t.Fatal(err)
						}
						kernels[l.kernel]++
						if s := sameColumns(gotTo.QHat, wantTo.QHat); s >= 0 {
							t.Fatalf("%v, %s, gamma %v, lambda %v: q_hat of step %d: %v, the old kernel's %v", tr, d.name, gamma, lambda, s, gotTo.QHat[s], wantTo.QHat[s])
						}
						if s := sameColumns(gotTo.VHat, wantTo.VHat); s >= 0 {
							t.Fatalf("%v, %s, gamma %v, lambda %v: v_hat of step %d: %v, the old kernel's %v", tr, d.name, gamma, lambda, s, gotTo.VHat[s], wantTo.VHat[s])
						}
					}
				}
			}
		}
	}
	for _, k := range []int{tracePerStep, tracePerPair, traceUnit} {
		if kernels[k] == 0 {
			t.Errorf("no fit used kernel %d: the test does not reach it", k)
		}
	}
}
