package models

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/trajectory"
)

// weightedAllocs is the number of slices a cold weighted learner
// allocates in FitTo (the two columns of the batch included).
const weightedAllocs = 10

// WeightedBytes bounds what a cold QReg or MRDR allocates in FitTo for a
// batch of steps steps, with obs observation ids, actions action ids and
// the given horizon, the q_hat and v_hat columns included (float64
// arguments, as FitBytes's). With m = min(obs, steps) observations
// occurring and P = m actions pairs:
//
//	4 obs               observation id -> compact index (a sparse set)
//	+ 20 m              compact index -> id, V(o), MRDR's sum of c_t over o
//	+ 24 P              numerator, denominator (then Q) and pi_e per pair
//	+ 8 (horizon + 1)   gamma^(t-1) W_t of one trajectory
//	+ 16 steps          q_hat and v_hat, when the batch's columns have no room
//
// each of its 10 slices rounded up by less than 8 KiB. Memory allocated by
// sp.PiE is not counted.
func WeightedBytes(steps, obs, actions, horizon float64) float64 {
	m := math.Min(obs, steps)
	return 4*obs + 20*m + 24*m*actions + 8*(horizon+1) + 16*steps + weightedAllocs*pageSlack
}

const weightedBytesDoc = "WeightedBytes: 4 Obs + 20 m + 24 m Actions + 8 (H+1) + 16 steps + 10 x 8 KiB, m = min(Obs, steps) " +
	"(the q_hat and v_hat columns included: the 16 bytes a step, written once and reused between fits)"

// weighted is the engine QReg and MRDR share: one backward pass per
// trajectory accumulates, per (observation, action), the weighted sums of
// the targets G_t (docs/models.md), then Q is a ratio of sums and
// the columns are written. Its zero value is ready; it keeps its
// workspace between calls.
type weighted struct {
	idx  []int32   // observation id -> compact index, valid if obs[idx[o]] == o
	obs  []int32   // compact index -> observation id
	v    []float64 // per compact observation: V(o) = sum_a pi_e(a|o) Q(o, a)
	dobs []float64 // per compact observation: MRDR's sum of c_t over its visits
	num  []float64 // per pair: sum of the weighted targets
	den  []float64 // per pair: sum of the weights (q-reg); then Q
	pie  []float64 // per pair: pi_e(a|o)
	buf  []float64 // gamma^(t-1) W_t of the steps of one trajectory
}

// fit fits the model on train (mrdr: MRDR's weights, else q-reg's) and
// writes q_hat and v_hat of every step of apply. Its requirements are
// Fitter.FitTo's, and train must carry one finite ratio >= 0 a step.
func (f *weighted) fit(train, apply *trajectory.Batch, sp Space, gamma float64, mrdr bool) error {
	if err := checkWeighted(train, sp, gamma, true); err != nil {
		return err
	}
	if apply != train {
		if err := checkWeighted(apply, sp, gamma, false); err != nil {
			return err
		}
	}
	steps := len(train.Reward)
	f.index(train, sp)
	if steps > 0 {
		var err error
		if f.pie, err = policyOf(sp, f.obs, f.pie); err != nil {
			return err
		}
		if err := f.accumulate(train, sp, gamma, mrdr); err != nil {
			return err
		}
	}
	f.solve(sp.Actions, mrdr)
	f.write(apply, sp.Actions)
	return nil
}

// checkWeighted validates a batch: check's conditions, trajectories in
// order and no longer than the horizon, ids in the space, and for the
// training batch finite rewards and finite ratios >= 0.
func checkWeighted(b *trajectory.Batch, sp Space, gamma float64, train bool) error {
	if err := check(b, sp, gamma); err != nil {
		return err
	}
	steps := len(b.Reward)
	if steps == 0 {
		return nil
	}
	if train && len(b.Ratio) != steps {
		return fmt.Errorf("models: %d ratios for %d steps: an importance-weighted model needs one a step", len(b.Ratio), steps)
	}
	for i := 0; i+1 < len(b.Offsets); i++ {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		if hi < lo || hi > steps {
			return fmt.Errorf("models: trajectory %d: offsets %d to %d out of order", i, lo, hi)
		}
		if hi-lo > sp.Horizon {
			return fmt.Errorf("models: trajectory %d has %d steps, longer than the horizon %d", i, hi-lo, sp.Horizon)
		}
		for s := lo; s < hi; s++ {
			if o, a := b.Obs[s], b.Action[s]; o < 0 || int(o) >= sp.Obs || a < 0 || int(a) >= sp.Actions {
				return fmt.Errorf("models: step %d (trajectory %d): ids (%d, %d) not in [0, %d) x [0, %d)", s, i, o, a, sp.Obs, sp.Actions)
			}
			if !train {
				continue
			}
			if r := b.Reward[s]; math.IsNaN(r) || math.IsInf(r, 0) {
				return fmt.Errorf("models: step %d (trajectory %d, t = %d): reward %v is not finite", s, i, s-lo+1, r)
			}
			if w := b.Ratio[s]; !(w >= 0) || math.IsInf(w, 0) {
				return fmt.Errorf("models: step %d (trajectory %d, t = %d): ratio %v is not finite and >= 0", s, i, s-lo+1, w)
			}
		}
	}
	return nil
}

// index assigns compact indices to the observations of b, in order of
// first occurrence.
func (f *weighted) index(b *trajectory.Batch, sp Space) {
	steps := len(b.Reward)
	f.idx = grow(f.idx, sp.Obs)
	f.obs = grow(f.obs, min(sp.Obs, steps))[:0] // append never reallocates
	for _, o := range b.Obs[:steps] {
		if c := f.idx[o]; c < 0 || int(c) >= len(f.obs) || f.obs[c] != o {
			f.idx[o] = int32(len(f.obs))
			f.obs = append(f.obs, o)
		}
	}
}

// accumulate runs over each trajectory of b backward, with
// buf[t] = gamma^(t-1) W_t and tail = gamma^(t-1) W_t G_t, the PDIS tail
// sum_{tau >= t} gamma^(tau-1) W_tau r_tau: q-reg adds tail to num and
// buf[t] to den of the step's pair; MRDR, with
// prev = gamma^(t-1) W_{t-1} (so that c_t = prev buf[t] and
// c_t G_t = prev tail), adds prev tail to num and prev buf[t] to its
// observation's dobs. An overflow to an infinite weight is an error.
func (f *weighted) accumulate(b *trajectory.Batch, sp Space, gamma float64, mrdr bool) error {
	m, na := len(f.obs), sp.Actions
	f.num = grow(f.num, m*na)
	f.den = grow(f.den, m*na)
	f.dobs = grow(f.dobs, m)
	f.buf = grow(f.buf, sp.Horizon+1)
	clear(f.num)
	clear(f.den)
	clear(f.dobs)
	num, den, dobs, buf, idx := f.num, f.den, f.dobs, f.buf, f.idx
	for i := 0; i+1 < len(b.Offsets); i++ {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		w := 1 / gamma // gamma^(t-1) W_{t-1} at t = 0, so that t = 1 has W_0 = 1
		for s := lo; s < hi; s++ {
			w *= gamma * b.Ratio[s]
			buf[s-lo+1] = w
		}
		if math.IsInf(w, 0) || math.IsNaN(w) {
			return fmt.Errorf("models: trajectory %d: its importance weight gamma^(t-1) W_t overflows", i)
		}
		tail := 0.0
		for s := hi - 1; s >= lo; s-- {
			t := s - lo + 1
			tail += buf[t] * b.Reward[s]
			c := idx[b.Obs[s]]
			p := int(c)*na + int(b.Action[s])
			if !mrdr {
				num[p] += tail
				den[p] += buf[t]
				continue
			}
			prev := 1.0
			if t > 1 {
				prev = gamma * buf[t-1]
			}
			num[p] += prev * tail
			dobs[c] += prev * buf[t]
		}
		if math.IsInf(tail, 0) || math.IsNaN(tail) {
			return fmt.Errorf("models: trajectory %d: its importance-weighted return overflows", i)
		}
	}
	return nil
}

// solve turns the sums into Q (in den) and V per observation: q-reg's
// Q = num / den, MRDR's Q = num / (pi_e(a|o) dobs(o)), 0 where the
// denominator is 0 (a pair without weight) or the ratio is not finite
// (an underflow of the denominator).
func (f *weighted) solve(na int, mrdr bool) {
	m := len(f.obs)
	f.den = grow(f.den, m*na)
	f.v = grow(f.v, m)
	for c := range m {
		vs := 0.0
		for a := range na {
			p := c*na + a
			d := f.den[p]
			if mrdr {
				d = f.pie[p] * f.dobs[c]
			}
			q := 0.0
			if d > 0 {
				q = f.num[p] / d
			}
			if math.IsInf(q, 0) || math.IsNaN(q) {
				q = 0
			}
			f.den[p] = q
			vs += f.pie[p] * q
		}
		f.v[c] = vs
	}
}

// write writes q_hat = Q(o_t, a_t) and v_hat = V(o_t) of every step of b:
// 0 and 0 at an observation the training batch never visits.
func (f *weighted) write(b *trajectory.Batch, na int) {
	steps := len(b.Reward)
	b.QHat = grow(b.QHat, steps)
	b.VHat = grow(b.VHat, steps)
	m := len(f.obs)
	for s := range steps {
		o := b.Obs[s]
		c := f.idx[o]
		if c < 0 || int(c) >= m || f.obs[c] != o {
			b.QHat[s], b.VHat[s] = 0, 0
			continue
		}
		b.QHat[s] = f.den[int(c)*na+int(b.Action[s])]
		b.VHat[s] = f.v[c]
	}
}
