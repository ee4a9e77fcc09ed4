package evaluate

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// boundOf is the lower bound kind of registry estimator est on b (read as
// every estimator reads it: under gamma already), as an Evaluator
// computes it on a one-point grid: the real path, with its checks (an
// unknown bound or delta out of range refused by New, a bound the
// estimator does not have not computed).
func boundOf(est, kind string, b *trajectory.Batch, delta, lo, hi float64) (float64, error) {
	m, err := Registry(est)
	if err != nil {
		return 0, err
	}
	req := Request{Methods: []Method{m}, Bounds: []string{kind}, Delta: delta, Lo: lo, Hi: hi}
	c := m.Caps()
	if c.Needs&estimators.Model != 0 {
		req.Model = Columns{}
	}
	ev, err := New(req) // refuses an unknown bound, a delta out of range
	if err != nil {
		return 0, err
	}
	if !slices.Contains(c.Bounds, kind) {
		return 0, fmt.Errorf("%s has no %s lower bound (its bounds: %v)", est, kind, c.Bounds)
	}
	res := ev.NewResult(1)
	if err := ev.Evaluate(b, []int{b.N()}, &res); err != nil {
		return 0, err
	}
	return res.Bounds[0][0][0], nil
}

type step struct{ r, rho float64 }

// batchOf builds a primitive batch from per-trajectory steps.
func batchOf(trajs ...[]step) *trajectory.Batch {
	var b trajectory.Batch
	for _, tr := range trajs {
		for _, s := range tr {
			b.Add(s.r, s.rho)
		}
		b.End()
	}
	return &b
}

// ratioBatch draws n trajectories of random length in [1, h] with ratios
// in {0, 0.5, 1.5, 2} and rewards that depend on the ratios.
func ratioBatch(rng *rand.Rand, n, h int) *trajectory.Batch {
	var b trajectory.Batch
	ratios := []float64{0, 0.5, 1.5, 2}
	for range n {
		l := 1 + rng.IntN(h)
		for range l {
			rho := ratios[rng.IntN(len(ratios))]
			r := 0.0
			if rng.Float64() < 0.7 {
				r = rho + rng.NormFloat64()
			}
			b.Add(r, rho)
		}
		b.End()
	}
	return &b
}

// withModelColumns returns a copy of b with model columns q_hat = r +
// N(0, 1) and v_hat = q_hat + N(0, 1).
func withModelColumns(rng *rand.Rand, b *trajectory.Batch) *trajectory.Batch {
	c := *b
	c.QHat, c.VHat = make([]float64, b.Steps()), make([]float64, b.Steps())
	for s, r := range b.Reward {
		c.QHat[s] = r + rng.NormFloat64()
		c.VHat[s] = c.QHat[s] + rng.NormFloat64()
	}
	return &c
}

type mstep struct{ r, rho, q, v float64 }

// modelHandBatch is package estimators' hand-computed batch with model
// columns (TestModelHandComputed): dr's per-trajectory sums are 7.5 and
// 3.5.
//
//	traj 1: (r=1, rho=2, q=0.5, v=1), (r=0, rho=0.5, q=1, v=2), (r=3, rho=1, q=2, v=1.5)
//	traj 2: (r=2, rho=0.5, q=1, v=3)
func modelHandBatch() *trajectory.Batch {
	var b trajectory.Batch
	for _, tr := range [][]mstep{{{1, 2, 0.5, 1}, {0, 0.5, 1, 2}, {3, 1, 2, 1.5}}, {{2, 0.5, 1, 3}}} {
		for _, s := range tr {
			b.Add(s.r, s.rho)
			b.AddModel(s.q, s.v)
		}
		b.End()
	}
	return &b
}

// chainAllA1 is the chain MDP of SPEC 2.1 with horizon h and p_e = 1: the
// all-a1 trajectory has weight 2^h (beyond float64 for h > 1023) and
// reward 1 at step h; the other takes a2 at step 1 (ratio 0).
func chainAllA1(h int) *trajectory.Batch {
	var b trajectory.Batch
	for t := 1; t <= h; t++ {
		r := 0.0
		if t == h {
			r = 1
		}
		b.Add(r, 2)
	}
	b.End()
	for range h {
		b.Add(0, 0)
	}
	b.End()
	return &b
}
