package models

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/trajectory"
)

// fqeAllocs is the number of slices a cold FQE allocates in FitTo (the
// two columns of the batch included).
const fqeAllocs = 14

func init() {
	Register(Kind{
		Name: "fqe",
		Doc: "fitted Q evaluation, tabular, finite horizon: iteration K = 1..H regresses each visit's target r_t + gamma V_{K-1}(o_{t+1}) " +
			"(0 after an ended episode) on its (observation, action), Q_K(o, a) = R(o, a) + gamma x the mean of V_{K-1}(o_{t+1}) over its uncensored visits " +
			"(a visit at step H is censored: its reward counts in the mean reward R, its unknown continuation is the pair's mean), V_K(o) = sum_a pi_e(a|o) Q_K(o, a); " +
			"q = 0 at a pair never visited; step t reads K = H - t + 1; exactly H iterations, no tolerance. " +
			"The same model as fitted (the empirical Bellman operator is the maximum-likelihood model's), computed by the regression's route (docs/models.md)",
		Source:   "Le, Voloshin & Yue 2019 (FQE); COBS's FQE row",
		Needs:    IDs,
		Bytes:    FQEBytes,
		BytesDoc: "FQEBytes: 4 Obs + 20 m + 32 m Actions + 24 steps + 4 (H+2) + 20 + 14 x 8 KiB, m = min(Obs, steps) (the q_hat and v_hat columns included: 16 of the 24 bytes a step)",
		New:      func() Learner { return new(FQE) },
	})
}

// FQE fits the `fqe` model: tabular fitted Q evaluation (Le, Voloshin &
// Yue 2019) for the finite horizon, iteration K = 1..H regressing every
// visit's one-step target on its (observation, action) by least squares,
// the per-pair mean (docs/models.md). It is the model of Fitter reached by
// another route: Fitter sums P(o'|o, a) V(o') over the distinct
// transitions, FQE sums V(o') over the visits, grouped by pair; the two
// agree as real numbers and to rounding in floating point. FQE shares
// with Fitter only the checks of its arguments, the reading of pi_e and
// the ordering of the output steps. Its zero value is ready to use; it
// keeps its workspace between calls, so that refitting batches of the
// same size allocates nothing.
//
// Memory: FitTo allocates at most FQEBytes(steps, sp.Obs, sp.Actions,
// sp.Horizon) bytes on a cold FQE, the two columns it writes included.
// With m = min(Obs, steps) observations occurring and P = m Actions pairs,
// the workspace is
//
//	4 Obs                 observation id -> compact index (a sparse set)
//	+ 20 m + 16           compact index -> id, V_K and V_{K-1} (each with a 0 for "ended")
//	+ 32 P + 4            pi_e, R and Q_K per pair (float64), visits and row starts (int32)
//	+ 8 steps             the successor of every uncensored visit, grouped by pair (int32),
//	                      start of every trajectory (int32)
//	+ 4 (Horizon + 2)     trajectories counted by length
//	+ 16 steps            q_hat and v_hat, when the batch's columns have no room
//
// and each of its 14 slices is rounded up by less than 8 KiB. Memory
// allocated by sp.PiE is not counted.
type FQE struct {
	idx  []int32   // observation id -> compact index, valid if obs[idx[o]] == o
	obs  []int32   // compact index -> observation id
	pie  []float64 // per pair: pi_e(a|o)
	nv   []int32   // per pair: its visits
	row  []int32   // pair p's uncensored visits are next[row[p]:row[p+1]]
	next []int32   // compact observation after each uncensored visit; m: ended
	r    []float64 // per pair: reward sum, then the mean reward R(o, a)
	q    []float64 // per pair: Q_K(o, a)
	v    []float64 // per compact observation: V_K, and v[m] = 0 ("ended")
	vp   []float64 // V_{K-1}, the same layout

	start, byLen     []int32 // train's trajectories by length (order)
	toStart, toByLen []int32 // apply's, when it is another batch
}

// FQEBytes returns the bound of FQE's doc comment: the bytes FitTo
// allocates on a cold FQE for a batch of steps steps, with obs
// observation ids, actions action ids and the given horizon, the q_hat and
// v_hat columns included (float64 arguments, as FitBytes's).
func FQEBytes(steps, obs, actions, horizon float64) float64 {
	m := math.Min(obs, steps)
	p := m * actions
	return 4*obs + 20*m + 16 + 32*p + 4 + 24*steps + 4*(horizon+2) + fqeAllocs*pageSlack
}

// FitTo fits the model on train and writes, for every step of apply
// (which may be train), q_hat = Q_K(o_t, a_t) and v_hat = V_K(o_t) with
// K = sp.Horizon - t + 1 into apply.QHat and apply.VHat, reusing their
// memory; 0 where train never visits the pair (q_hat) or the observation
// (both). Its requirements and errors are Fitter.Fit's: ids in sp, no
// trajectory longer than sp.Horizon, finite rewards, sp.PiE a
// distribution, gamma in (0, 1]; a train without steps gives columns of
// 0; on error, apply's columns are unspecified.
//
// Cost: O(steps) to group the visits, then H iterations of
// O(uncensored steps + m sp.Actions) and O(trajectories of apply with a
// step t) to write step t.
func (f *FQE) FitTo(train, apply *trajectory.Batch, sp Space, gamma float64) error {
	if err := checkPair(train, apply, sp, gamma); err != nil {
		return err
	}
	var err error
	if f.start, f.byLen, err = order(train, sp, f.start, f.byLen); err != nil {
		return err
	}
	start, byLen := f.start, f.byLen
	if apply != train {
		if f.toStart, f.toByLen, err = order(apply, sp, f.toStart, f.toByLen); err != nil {
			return err
		}
		start, byLen = f.toStart, f.toByLen
	}
	if f.idx, f.obs, err = compactObs(train, sp, f.idx, f.obs); err != nil {
		return err
	}
	if f.pie, err = policyOf(sp, f.obs, f.pie); err != nil {
		return err
	}
	f.group(train, sp)
	f.sweep(apply, sp, gamma, start, byLen)
	return nil
}

// checkPair checks the arguments of a FitTo that need no pass over the
// steps: train's and apply's (when it is another batch).
func checkPair(train, apply *trajectory.Batch, sp Space, gamma float64) error {
	if err := check(train, sp, gamma); err != nil {
		return err
	}
	if apply != train {
		if err := check(apply, sp, gamma); err != nil {
			return fmt.Errorf("the batch the model is read on: %w", err)
		}
	}
	return nil
}

// compactObs gives the observations of b compact indices 0, 1, ... in
// order of first occurrence, in idx's and obs's memory: idx (sp.Obs long)
// maps an id o to its index c, valid where obs[c] == o, and obs maps c
// back to o. It checks that every reward is finite; the ids must have
// been checked (order).
func compactObs(b *trajectory.Batch, sp Space, idx, obs []int32) ([]int32, []int32, error) {
	steps := len(b.Reward)
	idx = grow(idx, sp.Obs)
	obs = grow(obs, min(sp.Obs, steps))[:0] // append never reallocates
	for i := 0; i+1 < len(b.Offsets); i++ {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		for s := lo; s < hi; s++ {
			if r := b.Reward[s]; math.IsNaN(r) || math.IsInf(r, 0) {
				return idx, obs, fmt.Errorf("models: step %d (trajectory %d, t = %d): reward %v is not finite", s, i, s-lo+1, r)
			}
			o := b.Obs[s]
			if c := idx[o]; c < 0 || int(c) >= len(obs) || obs[c] != o {
				idx[o] = int32(len(obs))
				obs = append(obs, o)
			}
		}
	}
	return idx, obs, nil
}

// group counts the visits and sums the rewards of every pair and places
// the successor of every uncensored visit in its pair's row (a counting
// sort, in step order): the compact observation of the next step, or m
// when the episode ended.
func (f *FQE) group(b *trajectory.Batch, sp Space) {
	m, na, h := len(f.obs), sp.Actions, sp.Horizon
	np := m * na
	f.nv = grow(f.nv, np)
	clear(f.nv)
	f.r = grow(f.r, np)
	clear(f.r)
	f.row = grow(f.row, np+1)
	clear(f.row)
	for i := 0; i+1 < len(b.Offsets); i++ {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		for s := lo; s < hi; s++ {
			p := int(f.idx[b.Obs[s]])*na + int(b.Action[s])
			f.nv[p]++
			f.r[p] += b.Reward[s]
			if s-lo+1 < h {
				f.row[p+1]++
			}
		}
	}
	for p := range np {
		f.row[p+1] += f.row[p]
		if f.nv[p] > 0 {
			f.r[p] /= float64(f.nv[p])
		}
	}
	// row[p] serves as pair p's cursor, then is shifted back.
	f.next = grow(f.next, int(f.row[np]))
	for i := 0; i+1 < len(b.Offsets); i++ {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		for s := lo; s < hi && s-lo+1 < h; s++ {
			p := int(f.idx[b.Obs[s]])*na + int(b.Action[s])
			o := int32(m) // ended
			if s+1 < hi {
				o = f.idx[b.Obs[s+1]]
			}
			f.next[f.row[p]] = o
			f.row[p]++
		}
	}
	copy(f.row[1:], f.row[:np])
	f.row[0] = 0
}

// sweep runs the iterations K = 1..H and writes q_hat and v_hat of apply's
// steps t = H - K + 1 as each Q_K is fitted.
func (f *FQE) sweep(apply *trajectory.Batch, sp Space, gamma float64, start, byLen []int32) {
	m, na, h := len(f.obs), sp.Actions, sp.Horizon
	np := m * na
	f.q = grow(f.q, np)
	f.v = grow(f.v, m+1)
	f.vp = grow(f.vp, m+1)
	clear(f.v) // V_0 = 0, and v[m] = 0 for good
	clear(f.vp)
	apply.QHat = grow(apply.QHat, len(apply.Reward))
	apply.VHat = grow(apply.VHat, len(apply.Reward))
	q, v, vp := f.q, f.v, f.vp
	row, next, r, nv, pie := f.row, f.next, f.r, f.nv, f.pie
	for k := 1; k <= h; k++ {
		v, vp = vp, v // vp: V_{K-1}
		for p := 0; p < np; p++ {
			lo, hi := row[p], row[p+1]
			switch {
			case nv[p] == 0:
				q[p] = 0
			case lo == hi: // every visit censored
				q[p] = r[p]
			case p+1 < np && hi < row[p+2]: // two sums at once: sumAt2
				x, y := sumAt2(vp, next[lo:hi], next[hi:row[p+2]])
				q[p] = r[p] + gamma*x/float64(hi-lo)
				q[p+1] = r[p+1] + gamma*y/float64(row[p+2]-hi)
				p++
			default:
				q[p] = r[p] + gamma*sumAt(vp, next[lo:hi])/float64(hi-lo)
			}
		}
		for c := range m {
			x := 0.0
			for a, w := range pie[c*na : (c+1)*na] {
				x += w * q[c*na+a]
			}
			v[c] = x
		}
		writeStep(apply, f.idx, f.obs, q, v, na, 1, h-k+1, start, byLen)
	}
	f.v, f.vp = v, vp
}

// writeStep writes q_hat = q[c na + a] and v_hat = v[c stride] (c the
// step's compact observation, a its action) at 1-based step t of every
// trajectory of b that has one (start[:byLen[t]], order's ordering), 0
// where obs (the compact observations, idx their index) lacks the step's
// observation.
func writeStep(b *trajectory.Batch, idx, obs []int32, q, v []float64, na, stride, t int, start, byLen []int32) {
	m := len(obs)
	for _, lo := range start[:byLen[t]] {
		s := int(lo) + t - 1
		o := b.Obs[s]
		c := idx[o]
		if c < 0 || int(c) >= m || obs[c] != o {
			b.QHat[s], b.VHat[s] = 0, 0
			continue
		}
		b.QHat[s] = q[int(c)*na+int(b.Action[s])]
		b.VHat[s] = v[int(c)*stride]
	}
}

// sumAt2 returns sumAt(v, a) and sumAt(v, b), the same additions in the
// same order for each, interleaved while both have four indices left:
// eight additions in flight rather than four, which is what bounds
// sumAt (each addition waits for the previous one of its partial sum).
func sumAt2(v []float64, a, b []int32) (float64, float64) {
	var s0, s1, s2, s3, t0, t1, t2, t3 float64
	j := 0
	for ; j+4 <= len(a) && j+4 <= len(b); j += 4 {
		s0 += v[a[j]]
		t0 += v[b[j]]
		s1 += v[a[j+1]]
		t1 += v[b[j+1]]
		s2 += v[a[j+2]]
		t2 += v[b[j+2]]
		s3 += v[a[j+3]]
		t3 += v[b[j+3]]
	}
	s0, s1, s2, s3 = sumFrom(v, a, j, s0, s1, s2, s3)
	t0, t1, t2, t3 = sumFrom(v, b, j, t0, t1, t2, t3)
	return (s0 + s1) + (s2 + s3), (t0 + t1) + (t2 + t3)
}

// sumFrom continues sumAt's four partial sums from index j of at.
func sumFrom(v []float64, at []int32, j int, s0, s1, s2, s3 float64) (float64, float64, float64, float64) {
	for ; j+4 <= len(at); j += 4 {
		s0 += v[at[j]]
		s1 += v[at[j+1]]
		s2 += v[at[j+2]]
		s3 += v[at[j+3]]
	}
	for ; j < len(at); j++ {
		s0 += v[at[j]]
	}
	return s0, s1, s2, s3
}

// sumAt returns the sum of v[o] over the indices o in at, in four partial
// sums (which keeps four additions in flight rather than one), combined
// as (s0 + s1) + (s2 + s3).
func sumAt(v []float64, at []int32) float64 {
	s0, s1, s2, s3 := sumFrom(v, at, 0, 0, 0, 0, 0)
	return (s0 + s1) + (s2 + s3)
}
