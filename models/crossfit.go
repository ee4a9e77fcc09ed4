package models

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/internal/compact"
	"github.com/ope-lab/longhorizon/trajectory"
)

// CrossFit is the 2-fold cross-fitting of a learned model (SPEC 1f) that
// drl and adaptive (version 3) share: fold A is the first ceil(n/2)
// trajectories of a batch in data order, fold B the rest; the model of
// each fold (fitted on the undiscounted rewards, censored at H, H the
// longest trajectory of the whole batch) is read on the other: after Fit,
// q and v of every step of fold k come from the model fitted on fold 1-k.
// The model is a learner of the registry entry Kind (Lookup, Kind.New),
// SPEC 1f's `fitted` unless Kind names another learned kind.
//
// The ids are made compact (0, 1, ... in order of first appearance), and
// pi_e(a|o) is read from the rows (Batch.PiE at the steps where (o, a) was
// logged); the probability mass of the actions never logged at o goes to
// one extra action, whose q is 0. A CrossFit keeps its workspace between
// calls: a warm one allocates nothing for batches of the same size. It is
// not safe for concurrent use.
type CrossFit struct {
	// Kind names the registry entry of the learned model fitted on each
	// fold; "" is `fitted`.
	Kind string
	// Policies, when not nil, is the owner's promise of a PolicyShare:
	// a Fit on the data of the last one (same offsets, ids and rewards,
	// same gamma; other pi_e and ratios) keeps the compact ids and the
	// folds, and refits each fold's model under the new pi_e (a Refitter's
	// Refit, Kind.Refits; else a fit), bit for bit a fresh Fit's.
	Policies *PolicyShare

	obsIDs, actIDs compact.IDs
	obs, act       []int32   // compact ids of every step
	pie            []float64 // pi_e per (compact observation, compact action)
	na             int       // compact actions (the extra one not counted)
	pow            []float64 // gamma^t, t = 0..H
	fold           [2]trajectory.Batch
	half           int // trajectories in fold A
	base           int // the first step of fold B
	learner        Learner
	// other is fold A's learner when the kind refits with Policies (each
	// fold keeps its counts); else learner fits both folds.
	other  Learner
	last   batchKey // the data of the last Fit (pie and ratios nil), lastOK when it succeeded
	lastOK bool
	m      int
	piE    func(o int, dst []float64)
	// the folds laid out step by step (StepMajor), built since the last Fit
	stepMajor   [2]StepMajor
	stepMajorOK [2]bool
}

// Fit fits the two folds' models on b, whose ids, probabilities pi_e and
// at least one step the caller has checked, and writes each fold's q_hat
// and v_hat, from the other fold's model, into its columns (Columns,
// Fold): undiscounted, the expected return from step t on, discounted to
// step t. b's rewards may be a discounted view (trajectory.Discounted,
// with b.Gamma its gamma): they are divided back by gamma^(t-1), and the
// models' dynamic programs discount by b.Gamma (1 when 0). It returns the
// number of compact observations. The error names the fold whose fit
// failed.
func (c *CrossFit) Fit(b *trajectory.Batch) (int, error) {
	c.stepMajorOK = [2]bool{}
	key := keyOf(b)
	key.pie, key.rat = nil, nil
	if c.Policies != nil && c.lastOK && c.last == key && c.other != nil {
		return c.refit(b)
	}
	c.lastOK = false
	m, err := c.fit(b)
	if err != nil {
		return 0, err
	}
	c.last, c.lastOK, c.m = key, true, m
	return m, nil
}

// refit is Fit on the data of the last Fit: pi_e and the folds' ratios
// again, and each fold's model refitted under the new pi_e.
func (c *CrossFit) refit(b *trajectory.Batch) (int, error) {
	c.lastOK = false
	m, na := c.m, c.na
	c.pie = grow(c.pie, m*na)
	clear(c.pie)
	for s := range b.Steps() {
		c.pie[int(c.obs[s])*na+int(c.act[s])] = b.PiE[s]
	}
	n := b.N()
	for k, rng := range [2][2]int{{0, c.half}, {c.half, n}} {
		f := &c.fold[k]
		base, hi := b.Offsets[rng[0]], b.Offsets[rng[1]]
		f.Ratio = f.Ratio[:0]
		if len(b.Ratio) == len(b.Reward) {
			f.Ratio = append(f.Ratio, b.Ratio[base:hi]...)
		}
	}
	gamma := b.Gamma
	if gamma == 0 {
		gamma = 1
	}
	sp := Space{Obs: m, Actions: na + 1, Horizon: max(b.Horizon(), 1), PiE: c.piE}
	for k, l := range [2]Learner{c.learner, c.other} {
		if err := l.(Refitter).Refit(&c.fold[k], sp, gamma); err != nil {
			return 0, fmt.Errorf("refitting the model on fold %c: %w", 'B'-rune(k), err)
		}
	}
	c.lastOK = true
	return m, nil
}

// fit is Fit on new data.
func (c *CrossFit) fit(b *trajectory.Batch) (int, error) {
	if c.learner == nil {
		kind := c.Kind
		if kind == "" {
			kind = "fitted"
		}
		k, err := Get(kind)
		if err != nil {
			return 0, fmt.Errorf("cross-fitting: %w", err)
		}
		if !k.Learned() {
			return 0, fmt.Errorf("cross-fitting: model %s is not learned from data", kind)
		}
		c.learner = k.New()
		if c.Policies != nil && k.Refits {
			c.other = k.New()
		}
	}
	steps := b.Steps()
	gamma := b.Gamma
	if gamma == 0 {
		gamma = 1
	}
	n, h := b.N(), b.Horizon()
	c.obs = grow(c.obs, steps)
	c.act = grow(c.act, steps)
	m := c.obsIDs.Build(b.Obs, c.obs)
	c.na = c.actIDs.Build(b.Action, c.act)
	na := c.na
	c.pie = grow(c.pie, m*na)
	clear(c.pie)
	for s := range steps {
		c.pie[int(c.obs[s])*na+int(c.act[s])] = b.PiE[s]
	}
	c.pow = grow(c.pow, h+1)
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
	sp := Space{Obs: m, Actions: na + 1, Horizon: max(h, 1), PiE: c.piE}
	c.half = (n + 1) / 2
	c.base = b.Offsets[c.half]
	c.split(b, 0, 0, c.half)
	c.split(b, 1, c.half, n)
	for k, l := range [2]Learner{c.learner, c.other} {
		if l == nil {
			l = c.learner
		}
		if err := l.FitTo(&c.fold[1-k], &c.fold[k], sp, gamma); err != nil {
			return 0, fmt.Errorf("fitting the model on fold %c: %w", 'B'-rune(k), err)
		}
	}
	return m, nil
}

// CrossFitBytes bounds what a cold CrossFit of kind (as CrossFit.Kind:
// "" is `fitted`) allocates in Fit on a batch of n trajectories, steps
// steps and horizon h whose observation and action ids take at most obs
// and actions values (0: unknown, at most a new one a step): the compact
// ids of every step and their tables (compact.Bytes), pi_e per (compact
// observation, action), the powers of gamma, both folds as batches
// (rewards, ratios, ids and offsets), the other fold's order (FitTo), and the
// learner's bound (Kind.Bytes) over the compact space (m observations,
// na + 1 actions): at the whole batch's steps, which covers its per-step
// tables for both folds and the q_hat and v_hat columns of both, and once
// more for its per-observation and per-pair tables, which the second
// fold's fit may grow again. It is 0 for a kind that is not learned.
func CrossFitBytes(kind string, n, steps, h, obs, actions float64) float64 {
	if kind == "" {
		kind = "fitted"
	}
	k, ok := Lookup(kind)
	if !ok || !k.Learned() {
		return 0
	}
	m, na := distinct(obs, steps), distinct(actions, steps)
	pairs := m * (na + 1)
	// the learner fits fold B, then fold A, growing what A needs more
	// of: its per-step tables add up to the whole batch's (the first
	// term), its per-observation and per-pair tables are allocated twice
	// at most (the second: a fit of as many steps as pairs has them all)
	learner := k.Bytes(steps, m, na+1, h) + k.Bytes(min(steps, pairs), m, na+1, h)
	return 8*steps + compact.Bytes(obs, steps) + compact.Bytes(actions, steps) + 8*m*na + 8*(h+1) +
		24*steps + 16*(n+2) + 4*n + 8*(h+2) + learner
}

// distinct is the number of distinct ids that steps steps of ids taking
// at most values values (0: unknown) hold.
func distinct(values, steps float64) float64 {
	if values > 0 {
		return min(values, steps)
	}
	return steps
}

// PiE returns pi_e per (compact observation, compact action) of the last
// Fit, row-major with na compact actions (pi_e(a|o) at o*na + a; the
// extra action of the mass never logged is not in it). The slice is the
// CrossFit's and changes with the next Fit.
func (c *CrossFit) PiE() (pie []float64, na int) { return c.pie, c.na }

// Half returns the number of trajectories of fold A, ceil(n/2), of the
// last Fit.
func (c *CrossFit) Half() int { return c.half }

// Obs returns the compact observation index of every step of the last
// Fit's batch (0, 1, ... in order of first appearance). The slice is the
// CrossFit's and changes with the next Fit.
func (c *CrossFit) Obs() []int32 { return c.obs }

// Pow returns gamma^t for t = 0..H, gamma the last Fit's batch's.
func (c *CrossFit) Pow() []float64 { return c.pow }

// Fold returns fold k (0: A, 1: B) of the last Fit: its trajectories with
// offsets from 0, undiscounted rewards, ratios (retrace's traces read
// them), compact ids, and the q_hat and v_hat of the other fold's model.
// The batch is the CrossFit's.
func (c *CrossFit) Fold(k int) *trajectory.Batch { return &c.fold[k] }

// Columns returns the q_hat and v_hat columns (undiscounted) of the fold
// that holds step s of the last Fit's batch, and s's index in them.
func (c *CrossFit) Columns(s int) (q, v []float64, fs int) {
	if s < c.base {
		return c.fold[0].QHat, c.fold[0].VHat, s
	}
	return c.fold[1].QHat, c.fold[1].VHat, s - c.base
}

// split copies trajectories lo to hi-1 of b into fold k: offsets from 0,
// compact ids, ratios (none when b has none), and the rewards
// undiscounted (the view's r_t divided by gamma^(t-1); 0 where that power
// underflows to 0).
func (c *CrossFit) split(b *trajectory.Batch, k, lo, hi int) {
	f := &c.fold[k]
	base := b.Offsets[lo]
	steps := b.Offsets[hi] - base
	f.Offsets = grow(f.Offsets, hi-lo+1)
	for i := lo; i <= hi; i++ {
		f.Offsets[i-lo] = b.Offsets[i] - base
	}
	f.Reward = grow(f.Reward, steps)
	f.Obs = grow(f.Obs, steps)
	f.Action = grow(f.Action, steps)
	copy(f.Obs, c.obs[base:base+steps])
	copy(f.Action, c.act[base:base+steps])
	f.Ratio = f.Ratio[:0]
	if len(b.Ratio) == len(b.Reward) {
		f.Ratio = append(f.Ratio, b.Ratio[base:base+steps]...)
	}
	for i := lo; i < hi; i++ {
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			r, p := b.Reward[s], c.pow[s-b.Offsets[i]]
			switch {
			case p == 0:
				r = 0 // 0/0 := 0 (SPEC 1)
			case p != 1:
				r /= p
			}
			f.Reward[s-base] = r
		}
	}
}
