package models

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/models/internal/demand"
	"github.com/ope-lab/longhorizon/trajectory"
)

// timeFitAllocs is the number of slices a cold TimeFitter allocates in
// Fit (the two columns of the batch included).
const timeFitAllocs = 18

func init() {
	Register(Kind{
		Name: "fitted-t",
		Doc: "the fitted model indexed by the 1-based step t: R_t(o, a) and P_t(o'|o, a) from the visits at step t alone, " +
			"q_t = R_t + gamma P_t v_{t+1}, v_t(o) = sum_a pi_e(a|o) q_t(o, a), v_{H+1} = 0, by backward induction; " +
			"q_t = 0 at a pair never visited at step t. Right on domains Markov in (t, observation), such as drift; " +
			"with dm it is the tabular TMIS of Yin & Wang 2020",
		Source:      "beyond SPEC (issue 24 item 2); SPEC 1f's censoring",
		Needs:       IDs,
		Bytes:       TimeFitBytes,
		BytesDoc:    "TimeFitBytes: 4 Obs + 24 m + 40 m Actions + 20 steps + 12 min(min(H, 32)(P + m), max(P + m, 2^15)) + 4 (H+2) + 18 x 8 KiB, m = min(Obs, steps), P = m Actions (the q_hat and v_hat columns included: 16 of the 20 bytes a step, written once and reused between fits; the min is the backward pass's tile of up to 32 steps); + 12 m + 8 steps + 4 x 8 KiB when that tile is shorter than min(H, 32) steps (the values kept per observation)",
		New:         func() Learner { return new(TimeFitter) },
		TimeIndexed: true,
	})
}

// TimeFitter fits the `fitted-t` model: a tabular maximum-likelihood model
// over (observation, action) indexed by the 1-based step t, evaluated by
// backward induction over t. It is right on domains that are Markov in
// (t, observation), where the time-homogeneous model of Fitter is
// misspecified (a reward or a transition that drifts with t), at the
// price of fitting every step on its own visits only. Its zero value is
// ready to use; it keeps its workspace between calls, so that refitting
// batches of the same size allocates nothing.
//
// The model: for each step t and each (o, a) visited at t, R_t(o, a) is
// the mean reward of those visits and P_t(o'|o, a) the fraction of them
// followed by observation o' at step t+1, "episode ended" (the visit was
// its trajectory's last step) being its own outcome, of value 0. A visit
// at t = sp.Horizon is censored as in Fitter (it counts in R_H, not in
// P_H); since v_{H+1} = 0 this changes nothing here. Then
//
//	q_t(o, a) = R_t(o, a) + gamma sum_o' P_t(o'|o, a) v_{t+1}(o'),
//	v_t(o) = sum_a pi_e(a|o) q_t(o, a),   v_{H+1} = 0,
//
// and q_t(o, a) = 0 for an (o, a) never visited at step t (it still
// enters v_t with its weight pi_e(a|o)). At step t of a trajectory,
// q_hat = q_t(o_t, a_t) and v_hat = v_t(o_t), discounted to step t; the
// factor gamma^(t-1) of SPEC 1c is left to trajectory.Discounted.
//
// Since P_t is the empirical distribution of the next observations, the
// sum over o' is the mean of v_{t+1}(o_{t+1}) over the uncensored visits
// (0 for a visit that ended): the backward pass accumulates it directly,
// step by step, and never stores P_t. Its workspace is therefore that of
// one step, O(pairs), not O(H x pairs) (TimeFitBytes).
//
// Memory: Fit allocates at most TimeFitBytes(steps, sp.Obs, sp.Actions,
// sp.Horizon) bytes on a cold TimeFitter. With m = min(Obs, steps)
// observations occurring and P = m Actions pairs, the workspace is
//
//	4 Obs                 observation id -> compact index (a sparse set)
//	+ 24 m                compact index -> id, the step of its v, v_t and v_{t+1}
//	+ 40 P                pi_e, the step of its sums, visits, uncensored visits,
//	                      reward sum and sum of v_{t+1} per pair, and the
//	                      distinct pairs visited at a step
//	+ 4 steps             start of every non-empty trajectory
//	+ 4 (Horizon + 2)     trajectories counted by length
//	+ 16 steps            q_hat and v_hat, when the batch's columns have no room
//	+ 12 min(min(Horizon, 32)(P + m), max(P + m, 2^15))
//	                      evaluate's tile: q_t and v_t, with the step of each,
//	                      of up to 32 steps (timeTileSteps)
//
// and each of its 18 slices is rounded up by less than 8 KiB; when the
// tile is shorter than min(Horizon, 32) steps, the values may be kept
// per observation instead (demand.Times), adding timeKeepBytes: 12 m + 8
// steps and 4 slices more. Memory allocated by sp.PiE is not counted.
type TimeFitter struct {
	idx  []int32   // observation id -> compact index, valid if obs[idx[o]] == o
	obs  []int32   // compact index -> observation id
	seen []int32   // per compact observation: the step t whose v_t is in v
	v    []float64 // per compact observation: v_t
	vn   []float64 // per compact observation: v_{t+1}
	pie  []float64 // per pair: pi_e(a|o)
	at   []int32   // per pair: the step t whose visits the sums below count
	nv   []int32   // per pair: visits at step t
	nk   []int32   // per pair: uncensored visits at step t
	rsum []float64 // per pair: reward sum of the visits at step t
	vsum []float64 // per pair: sum of v_{t+1}(o_{t+1}) over them (0 if ended)
	// the distinct pairs visited at step t, in order of first visit
	// (capacity P)
	pairs []int32

	start []int32 // first step of the non-empty trajectories, longest first
	byLen []int32 // byLen[t]: number of trajectories of length >= t

	toStart, toByLen []int32 // the same of FitTo's other batch

	tq  []float64 // per step of evaluate's tile: q_t per pair, then v_t per observation
	tat []int32   // per cell of tq: the step t whose value it holds

	kp demand.Times // the values kept per observation, when the tile is short
}

// TimeFitBytes returns the bound of TimeFitter's doc comment: the bytes
// Fit allocates on a cold TimeFitter for a batch of steps steps, with obs
// observation ids, actions action ids and the given horizon, the q_hat
// and v_hat columns of the batch included (float64 arguments, as
// FitBytes's).
func TimeFitBytes(steps, obs, actions, horizon float64) float64 {
	m := math.Min(obs, steps)
	p := m * actions
	return 4*obs + 24*m + 40*p + 4*steps + 4*(horizon+2) + 16*steps + 12*timeTileCells(horizon, p+m) + timeFitAllocs*pageSlack +
		timeKeepBytes(steps, m, p, horizon)
}

// Fit fits the time-indexed model on b and writes, for every step of b,
// q_hat and v_hat into b.QHat and b.VHat, reusing their memory. The
// rewards of b must be undiscounted; gamma in (0, 1] is the discount of
// the dynamic program. Its requirements and errors are Fitter.Fit's: ids
// in sp, no trajectory longer than sp.Horizon, finite rewards, sp.PiE a
// distribution; a batch with no steps has its columns emptied; on error,
// b is unchanged.
//
// Cost: O(steps + sp.Horizon) and O(m sp.Actions) to clear the
// workspace, plus sp.Actions per distinct (t, o) visited for v_t.
func (f *TimeFitter) Fit(b *trajectory.Batch, sp Space, gamma float64) error {
	return f.FitTo(b, b, sp, gamma)
}

// FitTo fits the time-indexed model on b, as Fit does, and writes its
// q_hat and v_hat at every step of to (which may be b) into to.QHat and
// to.VHat: at 1-based step t with ids (o, a), q_t(o, a) and v_t(o) of the
// model fitted on b, 0 where b has no visit of (o, a), or of o, at step t
// (as Fit's q_t of an unvisited pair). to must satisfy what Fit asks of
// b. A to other than b adds 4 (n_to + Horizon + 2) bytes to TimeFitBytes
// (its trajectories by length).
func (f *TimeFitter) FitTo(b, to *trajectory.Batch, sp Space, gamma float64) error {
	if err := check(b, sp, gamma); err != nil {
		return err
	}
	if to != b {
		if err := check(to, sp, gamma); err != nil {
			return err
		}
	}
	var err error
	if f.start, f.byLen, err = order(b, sp, f.start, f.byLen); err != nil {
		return err
	}
	toStart, toByLen := f.start, f.byLen
	if to != b {
		if f.toStart, f.toByLen, err = order(to, sp, f.toStart, f.toByLen); err != nil {
			return err
		}
		toStart, toByLen = f.toStart, f.toByLen
	}
	steps := len(b.Reward)
	if steps == 0 {
		f.obs = f.obs[:0] // nothing visited: every q_hat and v_hat is 0
		to.QHat = grow(to.QHat, len(to.Reward))
		to.VHat = grow(to.VHat, len(to.Reward))
		clear(to.QHat)
		clear(to.VHat)
		return nil
	}
	// Compact observation indices, in order of first occurrence; finite
	// rewards.
	f.idx = grow(f.idx, sp.Obs)
	f.obs = grow(f.obs, min(sp.Obs, steps))[:0] // append never reallocates
	for i := 0; i+1 < len(b.Offsets); i++ {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		for s := lo; s < hi; s++ {
			if r := b.Reward[s]; math.IsNaN(r) || math.IsInf(r, 0) {
				return fmt.Errorf("models: step %d (trajectory %d, t = %d): reward %v is not finite", s, i, s-lo+1, r)
			}
			o := b.Obs[s]
			if c := f.idx[o]; c < 0 || int(c) >= len(f.obs) || f.obs[c] != o {
				f.idx[o] = int32(len(f.obs))
				f.obs = append(f.obs, o)
			}
		}
	}
	if f.pie, err = policyOf(sp, f.obs, f.pie); err != nil {
		return err
	}
	f.evaluate(b, to, sp, gamma, toStart, toByLen)
	return nil
}

// timeTile is the most steps whose q_t and v_t TimeFitter.evaluate keeps
// before writing them, and timeTileMax the most cells of its tile beyond
// one step's.
const (
	timeTile    = 32
	timeTileMax = 1 << 15
)

// timeTileSteps returns the steps of evaluate's tile with np pairs and m
// observations: at most timeTile and h, and at most timeTileMax cells
// unless one step has more.
func timeTileSteps(np, m, h int) int {
	return max(1, min(timeTile, h, timeTileMax/max(np+m, 1)))
}

// timeTileCells bounds the cells of evaluate's tile, perStep = pairs +
// observations (TimeFitBytes).
func timeTileCells(horizon, perStep float64) float64 {
	return math.Min(math.Min(horizon, timeTile)*perStep, math.Max(perStep, timeTileMax))
}

// evaluate runs the backward pass t = H..1: it sums the visits of step t
// per pair, then keeps q_t and v_t of the pairs and observations visited
// at t in a tile of timeTileSteps steps; at the tile's first step it
// writes q_hat and v_hat of to's steps in the tile as q_t and v_t (toStart
// and toByLen order to's trajectories as start and byLen do b's),
// trajectory by trajectory: each trajectory's steps of the tile are
// adjacent in memory, where the steps t of all trajectories lie a
// trajectory's length apart (a TLB miss a write at H = 3000).
func (f *TimeFitter) evaluate(b, to *trajectory.Batch, sp Space, gamma float64, toStart, toByLen []int32) {
	m, na, h := len(f.obs), sp.Actions, sp.Horizon
	np := m * na
	tile := timeTileSteps(np, m, h)
	f.tq = grow(f.tq, tile*(np+m))
	f.tat = grow(f.tat, tile*(np+m))
	clear(f.tat) // no step is 0
	tq, tat := f.tq, f.tat
	f.seen = grow(f.seen, m)
	clear(f.seen) // no step is 0
	f.v = grow(f.v, m)
	f.vn = grow(f.vn, m)
	f.at = grow(f.at, np)
	clear(f.at)
	f.nv = grow(f.nv, np)
	f.nk = grow(f.nk, np)
	f.rsum = grow(f.rsum, np)
	f.vsum = grow(f.vsum, np)
	f.pairs = grow(f.pairs, np)[:0] // append never reallocates
	to.QHat = grow(to.QHat, len(to.Reward))
	to.VHat = grow(to.VHat, len(to.Reward))
	// a short tile: the values kept per observation if they fit
	kept := tile < min(timeTile, h) && f.kp.Keep(b.Offsets, b.Obs, f.idx, m, na)
	idx, seen, v, vn, pie := f.idx, f.seen, f.v, f.vn, f.pie
	at, nv, nk, rsum, vsum := f.at, f.nv, f.nk, f.rsum, f.vsum
	obs, act, reward := b.Obs, b.Action, b.Reward
	start, byLen := f.start, f.byLen
	for t := h; t >= 1; t-- {
		t32 := int32(t)
		// q_t of pair p (0 when p has no visit at step t).
		q := func(p int) float64 {
			if at[p] != t32 {
				return 0
			}
			x := rsum[p] / float64(nv[p])
			if nk[p] > 0 {
				x += gamma * vsum[p] / float64(nk[p])
			}
			return x
		}
		// The trajectories with a step t are start[:byLen[t]], longest
		// first: the first byLen[t+1] of them also have a step t+1.
		visits, cont := start[:byLen[t]], int(byLen[t+1])
		pairs := f.pairs[:0]
		for j, lo := range visits {
			s := int(lo) + t - 1
			p := int(idx[obs[s]])*na + int(act[s])
			if at[p] != t32 {
				at[p], nv[p], nk[p], rsum[p], vsum[p] = t32, 0, 0, 0, 0
				pairs = append(pairs, int32(p))
			}
			nv[p]++
			rsum[p] += reward[s]
			if t == h {
				continue // censored (SPEC 1f); v_{H+1} = 0 anyway
			}
			nk[p]++
			if j < cont {
				vsum[p] += vn[idx[obs[s+1]]]
			} // else "episode ended": value 0
		}
		// q_t and v_t of the pairs and observations visited at t: the
		// distinct pairs, not the visits, whose steps lie a trajectory's
		// length apart (the same cells get the same values)
		u := (t - 1) % tile
		for _, p32 := range pairs {
			p := int(p32)
			c := p / na
			if seen[c] != t32 {
				seen[c] = t32
				x := 0.0
				for a, w := range pie[c*na : (c+1)*na] {
					x += w * q(c*na+a)
				}
				v[c] = x
				if kept {
					f.kp.Put(c, t, na, na, x)
				} else {
					tq[tile*np+u*m+c], tat[tile*np+u*m+c] = x, t32
				}
			}
			if kept {
				f.kp.Put(c, t, p-c*na, na, q(p))
			} else {
				tq[u*np+p], tat[u*np+p] = q(p), t32
			}
		}
		if u == 0 && !kept {
			f.write(to, toStart, toByLen, t, min(t+tile-1, h), na, tile)
		}
		v, vn = vn, v
	}
	if kept {
		f.kp.Write(na, to.Offsets, to.Obs, to.Action, f.idx, f.obs, to.QHat, to.VHat)
	}
}

// write writes q_hat and v_hat at the 1-based steps tlo..thi of to's
// trajectories from evaluate's tile (tile steps): q_t and v_t where b has
// a visit of the pair, of the observation, at step t, else 0.
func (f *TimeFitter) write(to *trajectory.Batch, toStart, toByLen []int32, tlo, thi, na, tile int) {
	m := len(f.obs)
	np := m * na
	for j, lo := range toStart[:toByLen[tlo]] {
		// the trajectory has a step t iff it is among the toByLen[t] longest
		for t := tlo; t <= thi && int32(j) < toByLen[t]; t++ {
			s := int(lo) + t - 1
			u, t32 := (t-1)%tile, int32(t)
			o := to.Obs[s]
			c := f.idx[o]
			if c < 0 || int(c) >= m || f.obs[c] != o || f.tat[tile*np+u*m+int(c)] != t32 {
				to.QHat[s], to.VHat[s] = 0, 0 // no visit of o at step t
				continue
			}
			q := 0.0 // no visit of the pair at step t
			if p := u*np + int(c)*na + int(to.Action[s]); f.tat[p] == t32 {
				q = f.tq[p]
			}
			to.QHat[s], to.VHat[s] = q, f.tq[tile*np+u*m+int(c)]
		}
	}
}

// timeKeepBytes bounds what TimeFitter's demand.Times allocates for a
// batch of steps steps, m observations, p pairs and the given horizon:
// nothing when evaluate's tile holds min(horizon, timeTile) steps.
func timeKeepBytes(steps, m, p, horizon float64) float64 {
	if float64(timeTileSteps(int(min(p, math.MaxInt32)), int(min(m, math.MaxInt32)), int(min(horizon, math.MaxInt32)))) >= min(horizon, timeTile) {
		return 0
	}
	return demand.TimesBytes(steps, m)
}
