package estimators

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// crossFit is the 2-fold cross-fitting of SPEC 1f's fitted model that drl
// and adaptive (version 3) share. Fold A is the first ceil(n/2)
// trajectories of the batch in data order, fold B the rest; the model of
// each fold (SPEC 1d's `fitted`, censored at H, H the longest trajectory
// of the whole batch, fitted on the undiscounted rewards) is read on the
// other: after fit, q and v of every step of fold k come from the model
// fitted on fold 1-k.
//
// The ids are made compact (0, 1, ... in order of first appearance), and
// pi_e(a|o) is read from the rows (Batch.PiE at the steps where (o, a) was
// logged); the probability mass of the actions never logged at o goes to
// one extra action, whose q is 0. The workspace is kept between calls: a
// warm crossFit allocates nothing for batches of the same size.
type crossFit struct {
	obsIDs, actIDs compactIDs
	obs, act       []int32   // compact ids of every step
	pie            []float64 // pi_e per (compact observation, compact action)
	na             int       // compact actions (the extra one not counted)
	pow            []float64 // gamma^t, t = 0..H
	fold           [2]trajectory.Batch
	base           int // the first step of fold B
	fit            models.Fitter
	piE            func(o int, dst []float64)
}

// fitFolds fits the two folds' models on b (ids checked, at least one
// step, PiE present) and writes each fold's q_hat and v_hat, from the
// other fold's model, into c.fold[k].QHat and VHat (undiscounted: the
// expected return from step t on, discounted to step t). It returns
// half = ceil(n/2) and the number of compact observations. name is the
// estimator's, for errors.
func (c *crossFit) fitFolds(b *trajectory.Batch, name string) (half, m int, err error) {
	steps := b.Steps()
	gamma := b.Gamma
	if gamma == 0 {
		gamma = 1
	}
	n, h := b.N(), b.Horizon()
	c.obs = growSlice(c.obs, steps)
	c.act = growSlice(c.act, steps)
	m = c.obsIDs.build(b.Obs, c.obs)
	c.na = c.actIDs.build(b.Action, c.act)
	na := c.na
	c.pie = growSlice(c.pie, m*na)
	clear(c.pie)
	for s := range steps {
		c.pie[int(c.obs[s])*na+int(c.act[s])] = b.PiE[s]
	}
	c.pow = growSlice(c.pow, h+1)
	for t := range c.pow {
		c.pow[t] = math.Pow(gamma, float64(t))
	}
	if c.piE == nil {
		c.piE = func(o int, dst []float64) {
			row := c.pie[o*c.na : (o+1)*c.na]
			copy(dst, row)
			s := 0.0
			for _, x := range row {
				s += x
			}
			dst[c.na] = max(0, 1-s) // an action never logged: q = 0
		}
	}
	sp := models.Space{Obs: m, Actions: na + 1, Horizon: max(h, 1), PiE: c.piE}
	half = (n + 1) / 2
	c.base = b.Offsets[half]
	c.split(b, 0, 0, half)
	c.split(b, 1, half, n)
	for k := range 2 {
		if err := c.fit.FitTo(&c.fold[1-k], &c.fold[k], sp, gamma); err != nil {
			return 0, 0, fmt.Errorf("%s: fitting the model on fold %c: %w", name, 'B'-rune(k), err)
		}
	}
	return half, m, nil
}

// columns returns the q_hat and v_hat columns (undiscounted) of the fold
// that holds step s of the batch, and s's index in them.
func (c *crossFit) columns(s int) (q, v []float64, fs int) {
	if s < c.base {
		return c.fold[0].QHat, c.fold[0].VHat, s
	}
	return c.fold[1].QHat, c.fold[1].VHat, s - c.base
}

// split copies trajectories lo to hi-1 of b into fold k: offsets from 0,
// compact ids, and the rewards undiscounted (the view's r_t divided by
// gamma^(t-1); 0 where that power underflows to 0).
func (c *crossFit) split(b *trajectory.Batch, k, lo, hi int) {
	f := &c.fold[k]
	base := b.Offsets[lo]
	steps := b.Offsets[hi] - base
	f.Offsets = growSlice(f.Offsets, hi-lo+1)
	for i := lo; i <= hi; i++ {
		f.Offsets[i-lo] = b.Offsets[i] - base
	}
	f.Reward = growSlice(f.Reward, steps)
	f.Obs = growSlice(f.Obs, steps)
	f.Action = growSlice(f.Action, steps)
	copy(f.Obs, c.obs[base:base+steps])
	copy(f.Action, c.act[base:base+steps])
	for i := lo; i < hi; i++ {
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			r, p := b.Reward[s], c.pow[s-b.Offsets[i]]
			if p != 1 {
				r = ratio(r, p)
			}
			f.Reward[s-base] = r
		}
	}
}
