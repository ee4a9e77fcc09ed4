package models

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// TestStepMajor: each fold's columns hold, at step t, the steps t of the
// fold's trajectories that have one, in trajectory order, with the next
// step's observation (-1 after the last) and the ratio: compared with a
// direct reading of the fold (trajectory i's step t at Offsets[i] + t),
// on batches whose trajectories have equal lengths, lengths 0 to 150
// (longer than a block of 64 steps), and one step each; and rebuilt after
// the next Fit.
func TestStepMajor(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name       string
		n, minL, h int
	}{
		{"equal lengths", 9, 70, 70},
		{"lengths 0 to 150", 40, 0, 150},
		{"one step", 7, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c CrossFit
			for round := range 2 { // the second Fit must rebuild the columns
				b := probBatch(rng, tc.n, tc.minL, tc.h)
				if _, err := c.Fit(b); err != nil {
					t.Fatal(err)
				}
				for k := range 2 {
					f, sm := c.Fold(k), c.StepMajor(k)
					for step := 0; step <= tc.h; step++ {
						lo, hi := sm.Column(step)
						j := lo
						for i := range f.N() {
							s, end := f.Offsets[i]+step, f.Offsets[i+1]
							if s >= end {
								continue
							}
							next := int32(-1)
							if s+1 < end {
								next = f.Obs[s+1]
							}
							if j >= hi {
								t.Fatalf("round %d, fold %d, step %d: column ends at trajectory %d", round, k, step, i)
							}
							if sm.Obs[j] != f.Obs[s] || sm.Action[j] != f.Action[s] || sm.Next[j] != next || sm.Ratio[j] != f.Ratio[s] {
								t.Fatalf("round %d, fold %d, step %d, trajectory %d: column has (%d, %d, %d, %v), fold (%d, %d, %d, %v)",
									round, k, step, i, sm.Obs[j], sm.Action[j], sm.Next[j], sm.Ratio[j], f.Obs[s], f.Action[s], next, f.Ratio[s])
							}
							j++
						}
						if j != hi {
							t.Errorf("round %d, fold %d, step %d: column has %d steps, the fold %d", round, k, step, hi-lo, j-lo)
						}
					}
				}
			}
		})
	}
}

// probBatch returns n trajectories of minL to h steps on 6 observation
// and 3 action ids, with probabilities (pi_b uniform, pi_e(a|o) = 0.2 +
// 0.1 a: 0.1 on actions never logged) and random rewards.
func probBatch(rng *rand.Rand, n, minL, h int) *trajectory.Batch {
	var b trajectory.Batch
	for range n {
		for range minL + rng.IntN(h-minL+1) {
			a := rng.IntN(3)
			pe := 0.2 + 0.1*float64(a)
			b.Add(rng.NormFloat64(), 3*pe)
			b.AddIDs(int32(rng.IntN(6)), int32(a))
			b.AddProbs(1.0/3, pe)
		}
		b.End()
	}
	return &b
}

// BenchmarkStepMajor: laying out one fold of configs/horizon.yaml's
// largest batches (500 trajectories of 3000 steps) step by step.
func BenchmarkStepMajor(b *testing.B) {
	const n, h = 500, 3000
	rng := rand.New(rand.NewPCG(7, 8))
	var f trajectory.Batch
	for range n {
		for range h {
			f.Add(0, rng.Float64())
			f.AddIDs(int32(rng.IntN(10)), int32(rng.IntN(3)))
		}
		f.End()
	}
	var sm StepMajor
	b.Run("n=500,H=3000", func(b *testing.B) {
		sm.build(&f)
		b.ReportAllocs()
		for b.Loop() {
			sm.build(&f)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(f.Steps()), "ns/step")
	})
}
