package models

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/internal/hugepage"
	"github.com/ope-lab/longhorizon/models/internal/demand"

	"github.com/ope-lab/longhorizon/trajectory"
)

// maxSteps is the largest batch Fit accepts: step positions and compact
// ids are stored as int32.
const maxSteps = math.MaxInt32 - 1

// fitAllocs is the number of slices a cold Fitter allocates in Fit (the
// two columns of the batch included), each rounded up by Go's allocator to
// its size class or to whole 8 KiB pages: less than pageSlack bytes each.
const (
	fitAllocs = 14
	pageSlack = 8 << 10
)

func init() {
	Register(Kind{
		Name: "fitted",
		Doc: "tabular maximum-likelihood model over (observation, action), fitted on the data set of each estimate and evaluated by " +
			"finite-horizon dynamic programming: R(o, a) the mean reward of its visits, P(o'|o, a) the fraction of its uncensored visits " +
			"followed by o' (episode ended: value 0; a visit at step H is censored), Q_K = R + gamma P V_{K-1}, V_K(o) = sum_a pi_e(a|o) Q_K(o, a); " +
			"q = 0 at a pair never visited; at step t, K = H - t + 1 steps are left. Time-homogeneous: misspecified where rewards or dynamics change with t",
		Source:   "SPEC 1d, with SPEC 1f's censoring; COBS's AM row",
		Needs:    IDs,
		Bytes:    FitBytes,
		BytesDoc: "FitBytes: 4 Obs + 24 m + 28 m Actions + 32 steps + 8 min(steps, 2^15, (min(H, 64) - 1)(m Actions + m)) + 4 (H+2) + 14 x 8 KiB, m = min(Obs, steps) (the q_hat and v_hat columns included: 16 of the 32 bytes a step, written once and reused between fits; the min is the dynamic program's tile of up to 64 steps); + 16 m + 4 (H+2) + 12 steps + 7 x 8 KiB when H m Actions > steps (the program run on the cells the writes need alone, their values kept)",
		New:      func() Learner { return new(Fitter) },
		Refits:   true,
	})
}

// Fitter fits the `fitted` model of SPEC 1d, a time-homogeneous tabular
// maximum-likelihood model over (observation, action), and evaluates it by
// finite-horizon dynamic programming. Its zero value is ready to use; it
// keeps its workspace between calls, so that refitting batches of the same
// size allocates nothing.
//
// Memory: Fit allocates at most FitBytes(steps, sp.Obs, sp.Actions,
// sp.Horizon) bytes on a cold Fitter, the two columns it writes into the
// batch included. With m = min(Obs, steps) observations occurring and
// P = m Actions (observation, action) pairs, the workspace is
//
//	4 Obs                 observation id -> compact index (a sparse set)
//	+ 24 m                compact index -> id, a mark per observation, V_K and V_{K-1}
//	+ 28 P + 4            R, Q_K and pi_e per pair (float64), transition rows (int32)
//	+ 16 steps            transitions: next observation (int32) and probability (float64),
//	                      start of every trajectory (int32)
//	+ 4 (Horizon + 2)     trajectories counted by length
//	+ 16 steps            q_hat and v_hat, when the batch's columns have no room
//	+ 8 min(steps, 2^15, (min(Horizon, 64) - 1)(P + m))
//	                      the rest of evaluate's tile: Q_K and V_K of its
//	                      other tile - 1 steps, tile <= min(Horizon, 64) and
//	                      (tile - 1)(P + m) <= steps and 2^15 (evalSteps)
//
// and each of its 14 slices is rounded up by less than 8 KiB; when
// Horizon P > steps, the dynamic program may run on the cells the
// writes need alone (demand.Cells), adding demand.Bytes: 16 m + 4 (Horizon + 2)
// + 12 steps and 7 slices more. Memory allocated by sp.PiE is not counted.
type Fitter struct {
	idx  []int32   // observation id -> compact index, valid if obs[idx[o]] == o
	obs  []int32   // compact index -> observation id
	mark []int32   // per compact observation: its slot in the row being built
	v    []float64 // evaluate's V_{K0-1}, then the V_K of its tile

	row   []int32   // pair p's transitions are next[row[p]:row[p+1]]
	r     []float64 // per pair: reward sum, then mean reward R(o, a)
	q     []float64 // per pair: Q_K(o, a)
	pie   []float64 // per pair: pi_e(a|o)
	next  []int32   // compact next observation of every distinct transition
	prob  []float64 // its empirical probability P(o'|o, a)
	start []int32   // first step of the non-empty trajectories, longest first
	byLen []int32   // byLen[l]: number of trajectories of length >= l

	toStart, toByLen []int32 // the same of FitTo's other batch

	dem   demand.Cells // the cells the writes need, when the program runs on them alone
	dense bool         // tests: the program on every cell, whatever the sizes

	last lastFit // what the last FitTo counted, for Refit
}

// lastFit is what a Fitter's last successful FitTo fitted: the space's
// sizes, whether its train batch was empty, and whether it was read on
// itself (else on another batch, ordered in toStart).
type lastFit struct {
	ok, empty, self bool
	obs, actions, h int
	steps, n        int // the apply batch's
}

// FitBytes returns the bound of Fitter's doc comment: the bytes Fit
// allocates on a cold Fitter for a batch of steps steps, with obs
// observation ids, actions action ids and the given horizon, the q_hat and
// v_hat columns of the batch included. Its arguments are float64 so that
// sizes far beyond memory can be computed, and refused, without overflow.
func FitBytes(steps, obs, actions, horizon float64) float64 {
	m := math.Min(obs, steps)
	p := m * actions
	return 4*obs + 24*m + 28*p + 4 + 16*steps + 4*(horizon+2) + 16*steps + 8*tileFloats(steps, horizon, p+m) + fitAllocs*pageSlack +
		demand.Bytes(steps, m, p, horizon)
}

// Fit fits the model on b and writes, for every step of b, the model's
// q_hat and v_hat (SPEC 1d) into b.QHat and b.VHat, reusing their memory.
// The rewards of b must be undiscounted; gamma in (0, 1] is the discount
// of the dynamic program.
//
// The model (SPEC 1d, `fitted`, with SPEC 1f's censoring): for each
// (o, a) visited, R(o, a) is the mean reward of all its visits and
// P(o'|o, a) the fraction of its uncensored visits followed by observation
// o', "episode ended" (the visit was its trajectory's last step, before
// the horizon) being its own outcome, of value 0. A visit at 1-based step
// t = sp.Horizon is censored: what follows it is unknown (the episode was
// cut by the horizon, not ended), so it counts in R but not in P, whose
// denominator is the number of uncensored visits; an (o, a) visited only
// at t = sp.Horizon has no transition, and Q_K(o, a) = R(o, a). With K
// steps left,
//
//	Q_K(o, a) = R(o, a) + gamma sum_o' P(o'|o, a) V_{K-1}(o'),
//	V_K(o) = sum_a pi_e(a|o) Q_K(o, a),   V_0 = 0,
//
// and Q_K(o, a) = 0 for an (o, a) never visited (it still enters V_K with
// its weight pi_e(a|o)). At 1-based step t of a trajectory, with
// K = sp.Horizon - t + 1, q_hat = Q_K(o_t, a_t) and v_hat = V_K(o_t): the
// expected return from step t on, discounted to step t; the factor
// gamma^(t-1) of SPEC 1c is left to trajectory.Discounted.
//
// b must carry ids (b.HasIDs), with every observation id in [0, sp.Obs)
// and action id in [0, sp.Actions), and no trajectory longer than
// sp.Horizon; sp.PiE must write a distribution. A batch with no steps is
// fitted trivially: its columns are emptied. On error, b is unchanged.
//
// Cost: O(steps) to count, and O(sp.Horizon (T + m sp.Actions)) for the
// dynamic program, T the number of distinct (o, a, o') transitions and m
// the number of distinct observations in b; past H m Actions > steps,
// the program runs on the (K, o) the writes need (demand.Cells) if they
// are few: O(H) on a chain, the same values bit for bit.
func (f *Fitter) Fit(b *trajectory.Batch, sp Space, gamma float64) error {
	return f.FitTo(b, b, sp, gamma)
}

// FitTo fits the model on b, as Fit does, and writes its q_hat and v_hat
// at every step of to (which may be b) into to.QHat and to.VHat: the
// cross-fitting of drl (SPEC 1f), where the model of one fold is read on
// the other. to must satisfy what Fit asks of b; an observation of to
// that b never visits has v_hat = 0, and an (o, a) b never visits q_hat
// = 0. Cost: Fit's, plus O(steps of to) to order and write to's steps; a
// to other than b adds 4 (n_to + Horizon + 2) bytes to FitBytes (its
// trajectories by length).
func (f *Fitter) FitTo(b, to *trajectory.Batch, sp Space, gamma float64) error {
	f.last = lastFit{}
	if err := f.fitTo(b, to, sp, gamma); err != nil {
		return err
	}
	f.last = lastFit{ok: true, empty: len(b.Reward) == 0, self: to == b, obs: sp.Obs, actions: sp.Actions, h: sp.Horizon,
		steps: len(to.Reward), n: len(to.Offsets)}
	return nil
}

// Refit implements Refitter: the columns of the model of the last FitTo's
// data under sp (pi_e may differ) into apply, which must hold the last
// FitTo's apply batch's trajectories and ids (it may be a view with other
// probabilities), and sp its sizes. It runs only the policy's part: pi_e
// at every observation, and the dynamic program (O(sp.Horizon (T + m
// sp.Actions)) and the writes, FitTo's cost without the counting).
func (f *Fitter) Refit(apply *trajectory.Batch, sp Space, gamma float64) error {
	l := f.last
	switch {
	case !l.ok:
		return fmt.Errorf("models: Refit without a successful FitTo before")
	case sp.Obs != l.obs || sp.Actions != l.actions || sp.Horizon != l.h:
		return fmt.Errorf("models: Refit over a space of %d observations, %d actions and horizon %d; the fit was over %d, %d and %d",
			sp.Obs, sp.Actions, sp.Horizon, l.obs, l.actions, l.h)
	case len(apply.Reward) != l.steps || len(apply.Offsets) != l.n:
		return fmt.Errorf("models: Refit on %d steps and %d offsets; the fit was read on %d and %d", len(apply.Reward), len(apply.Offsets), l.steps, l.n)
	}
	if err := check(apply, sp, gamma); err != nil {
		return err
	}
	if l.empty {
		if l.self {
			apply.QHat, apply.VHat = apply.QHat[:0], apply.VHat[:0]
			return nil
		}
		apply.QHat = grow(apply.QHat, len(apply.Reward))
		apply.VHat = grow(apply.VHat, len(apply.Reward))
		clear(apply.QHat)
		clear(apply.VHat)
		return nil
	}
	if err := f.policy(sp); err != nil {
		return err
	}
	start, byLen := f.start, f.byLen
	if !l.self {
		start, byLen = f.toStart, f.toByLen
	}
	f.evaluate(apply, sp, gamma, start, byLen)
	return nil
}

// fitTo is FitTo, without recording the fit for Refit.
func (f *Fitter) fitTo(b, to *trajectory.Batch, sp Space, gamma float64) error {
	if err := check(b, sp, gamma); err != nil {
		return err
	}
	if to != b {
		if err := check(to, sp, gamma); err != nil {
			return err
		}
	}
	steps := len(b.Reward)
	if steps == 0 {
		if to == b {
			b.QHat, b.VHat = b.QHat[:0], b.VHat[:0]
			return nil
		}
		f.obs = f.obs[:0] // nothing visited: every q_hat and v_hat is 0
		to.QHat = grow(to.QHat, len(to.Reward))
		to.VHat = grow(to.VHat, len(to.Reward))
		clear(to.QHat)
		clear(to.VHat)
		return nil
	}
	if err := f.count(b, sp); err != nil {
		return err
	}
	if err := f.policy(sp); err != nil {
		return err
	}
	f.transitions(b, sp.Actions, sp.Horizon)
	start, byLen := f.start, f.byLen
	if to != b {
		var err error
		if f.toStart, f.toByLen, err = order(to, sp, f.toStart, f.toByLen); err != nil {
			return err
		}
		start, byLen = f.toStart, f.toByLen
	}
	f.evaluate(to, sp, gamma, start, byLen)
	return nil
}

// order checks the trajectories and ids of b against sp and returns the
// first steps of its non-empty trajectories, longest first, with byLen[t]
// the number of length >= t (count's ordering), in start and byLen's
// memory.
func order(b *trajectory.Batch, sp Space, start, byLen []int32) ([]int32, []int32, error) {
	steps, h := len(b.Reward), sp.Horizon
	byLen = grow(byLen, h+2)
	clear(byLen)
	nonEmpty := 0
	for i := 0; i+1 < len(b.Offsets); i++ {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		if hi < lo || hi > steps {
			return nil, nil, fmt.Errorf("models: trajectory %d: offsets %d to %d out of order", i, lo, hi)
		}
		if hi-lo > h {
			return nil, nil, fmt.Errorf("models: trajectory %d has %d steps, longer than the horizon %d", i, hi-lo, h)
		}
		if hi > lo {
			byLen[hi-lo]++
			nonEmpty++
		}
		for s := lo; s < hi; s++ {
			if o, a := b.Obs[s], b.Action[s]; o < 0 || int(o) >= sp.Obs || a < 0 || int(a) >= sp.Actions {
				return nil, nil, fmt.Errorf("models: step %d (trajectory %d): ids (%d, %d) not in [0, %d) x [0, %d)", s, i, o, a, sp.Obs, sp.Actions)
			}
		}
	}
	longer := int32(0)
	for l := h; l >= 1; l-- {
		c := byLen[l]
		byLen[l] = longer
		longer += c
	}
	start = grow(start, nonEmpty)
	for i := 0; i+1 < len(b.Offsets); i++ {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		if hi > lo {
			start[byLen[hi-lo]] = int32(lo)
			byLen[hi-lo]++
		}
	}
	return start, byLen, nil
}

// check validates Fit's arguments that need no pass over the steps.
func check(b *trajectory.Batch, sp Space, gamma float64) error {
	switch {
	case b == nil:
		return fmt.Errorf("models: nil batch")
	case !(gamma > 0 && gamma <= 1):
		return fmt.Errorf("models: gamma %v is not in (0, 1]", gamma)
	case sp.Obs < 1 || sp.Actions < 1 || sp.Obs > math.MaxInt32 || sp.Actions > math.MaxInt32:
		return fmt.Errorf("models: space of %d observations and %d actions: want 1 to %d of each", sp.Obs, sp.Actions, math.MaxInt32)
	case sp.Horizon < 1 || sp.Horizon > maxSteps:
		return fmt.Errorf("models: horizon %d is not in [1, %d]", sp.Horizon, maxSteps)
	case sp.PiE == nil:
		return fmt.Errorf("models: the space has no evaluation policy (PiE is nil)")
	}
	steps := len(b.Reward)
	if steps == 0 {
		return nil
	}
	switch {
	case !b.HasIDs() || len(b.Action) != steps:
		return fmt.Errorf("models: the batch has no observation and action ids (%d and %d for %d steps): a fitted model needs them", len(b.Obs), len(b.Action), steps)
	case steps > maxSteps:
		return fmt.Errorf("models: %d steps: at most %d can be fitted", steps, maxSteps)
	case len(b.Offsets) == 0 || b.Offsets[0] != 0 || b.Offsets[len(b.Offsets)-1] != steps:
		return fmt.Errorf("models: the batch's offsets do not cover its %d steps", steps)
	}
	return nil
}

// count checks every trajectory and id, assigns compact indices to the
// observations that occur, counts the visits of every pair into f.row
// (visits of pair p at f.row[p+1]) and sums their rewards into f.r, and
// orders the non-empty trajectories by length.
func (f *Fitter) count(b *trajectory.Batch, sp Space) error {
	steps, h, na := len(b.Reward), sp.Horizon, sp.Actions
	f.idx = grow(f.idx, sp.Obs)
	f.obs = grow(f.obs, min(sp.Obs, steps))[:0] // append never reallocates
	f.byLen = grow(f.byLen, h+2)
	clear(f.byLen)
	// the pairs' sums in this pass: room for FitBytes's m observations,
	// each one's cleared when it first occurs
	f.row = grow(f.row, cap(f.obs)*na+1)
	f.r = grow(f.r, cap(f.obs)*na)
	row, r := f.row[1:], f.r
	nonEmpty := 0
	for i := 0; i+1 < len(b.Offsets); i++ {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		if hi < lo || hi > steps {
			return fmt.Errorf("models: trajectory %d: offsets %d to %d out of order", i, lo, hi)
		}
		if hi-lo > h {
			return fmt.Errorf("models: trajectory %d has %d steps, longer than the horizon %d", i, hi-lo, h)
		}
		if hi > lo {
			f.byLen[hi-lo]++
			nonEmpty++
		}
		for s := lo; s < hi; s++ {
			o, a := b.Obs[s], b.Action[s]
			if o < 0 || int(o) >= sp.Obs {
				return fmt.Errorf("models: step %d (trajectory %d, t = %d): observation id %d is not in [0, %d)", s, i, s-lo+1, o, sp.Obs)
			}
			if a < 0 || int(a) >= na {
				return fmt.Errorf("models: step %d (trajectory %d, t = %d): action id %d is not in [0, %d)", s, i, s-lo+1, a, na)
			}
			if r := b.Reward[s]; math.IsNaN(r) || math.IsInf(r, 0) {
				return fmt.Errorf("models: step %d (trajectory %d, t = %d): reward %v is not finite", s, i, s-lo+1, r)
			}
			c := f.idx[o]
			if c < 0 || int(c) >= len(f.obs) || f.obs[c] != o {
				c = int32(len(f.obs))
				f.idx[o] = c
				f.obs = append(f.obs, o)
				clear(row[int(c)*na : (int(c)+1)*na])
				clear(r[int(c)*na : (int(c)+1)*na])
			}
			p := int(c)*na + int(a)
			row[p]++
			r[p] += b.Reward[s]
		}
	}
	// Non-empty trajectories, longest first (a counting sort by length):
	// byLen[l] becomes the number longer than l, the first slot of those
	// of length l; after placing them it is the number of length >= l, so
	// that start[:byLen[t]] are the trajectories that have a step t.
	longer := int32(0)
	for l := h; l >= 1; l-- {
		c := f.byLen[l]
		f.byLen[l] = longer
		longer += c
	}
	f.start = grow(f.start, nonEmpty)
	for i := 0; i+1 < len(b.Offsets); i++ {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		if hi > lo {
			f.start[f.byLen[hi-lo]] = int32(lo)
			f.byLen[hi-lo]++
		}
	}

	np := len(f.obs) * na
	f.row, f.r = f.row[:np+1], f.r[:np]
	f.row[0] = 0
	return nil
}

// policy reads pi_e(.|o) of every occurring observation into f.pie and
// checks that it is a distribution.
func (f *Fitter) policy(sp Space) error {
	var err error
	f.pie, err = policyOf(sp, f.obs, f.pie)
	return err
}

// policyOf reads pi_e(.|o) of every observation id in obs (compact index
// c at pie[c Actions:(c+1) Actions]) into pie's memory and checks that it
// is a distribution.
func policyOf(sp Space, obs []int32, pie []float64) ([]float64, error) {
	na := sp.Actions
	pie = grow(pie, len(obs)*na)
	for c, o := range obs {
		dst := pie[c*na : (c+1)*na]
		clear(dst)
		sp.PiE(int(o), dst)
		sum := 0.0
		for a, w := range dst {
			if !(w >= 0) || math.IsInf(w, 0) {
				return pie, fmt.Errorf("models: pi_e(%d|%d) = %v is not a probability", a, o, w)
			}
			sum += w
		}
		if math.Abs(sum-1) > 1e-9 {
			return pie, fmt.Errorf("models: pi_e(.|%d) sums to %v, not 1", o, sum)
		}
	}
	return pie, nil
}

// transitions builds, from the visit counts in f.row and reward sums in
// f.r, the rows of distinct transitions in f.next and f.prob (CSR: pair
// p's are at f.row[p] to f.row[p+1]-1, in order of first occurrence;
// "episode ended" is not stored, its value being 0; a visit at step
// horizon is censored: neither stored nor counted in its row's
// denominator) and turns the reward sums into means.
func (f *Fitter) transitions(b *trajectory.Batch, na, horizon int) {
	steps, m := len(b.Reward), len(f.obs)
	np := m * na
	for p := range np {
		f.row[p+1] += f.row[p]
	}
	// Place every visit's next outcome in its pair's row (a counting sort,
	// stable in step order), using row[p] as the cursor: afterwards row[p]
	// is the end of row p, the start of row p+1.
	end, censored := int32(m), int32(m+1)
	f.next = grow(f.next, steps)
	for i := 0; i+1 < len(b.Offsets); i++ {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		for s := lo; s < hi; s++ {
			p := int(f.idx[b.Obs[s]])*na + int(b.Action[s])
			o := end
			switch {
			case s-lo+1 == horizon: // SPEC 1f: cut by the horizon
				o = censored
			case s+1 < hi:
				o = f.idx[b.Obs[s+1]]
			}
			f.next[f.row[p]] = o
			f.row[p]++
		}
	}
	copy(f.row[1:], f.row[:np])
	f.row[0] = 0

	// Merge each row's repeated outcomes in place (w <= the read position)
	// and drop "episode ended": mark[o] >= the row's new start means o is
	// already in the row, at slot mark[o].
	f.prob = grow(f.prob, steps)
	f.mark = grow(f.mark, m)
	for c := range f.mark {
		f.mark[c] = -1
	}
	w := int32(0)
	for p := range np {
		lo, hi := f.row[p], f.row[p+1]
		f.row[p] = w
		if hi == lo {
			continue
		}
		first, cut := w, int32(0)
		for j := lo; j < hi; j++ {
			o := f.next[j]
			switch {
			case o == censored:
				cut++
			case o == end:
			case f.mark[o] >= first:
				f.prob[f.mark[o]]++
			default:
				f.mark[o] = w
				f.next[w], f.prob[w] = o, 1
				w++
			}
		}
		uncensored := float64(hi - lo - cut)
		for j := first; j < w; j++ {
			f.prob[j] /= uncensored
		}
		f.r[p] /= float64(hi - lo)
	}
	f.row[np] = w
}

// evalTile is the most steps of the dynamic program evaluate runs before
// writing their Q_K and V_K to the trajectories, and evalTileFloats the
// most float64 its tile of Q_K and V_K holds beyond one step's.
const (
	evalTile       = 64
	evalTileFloats = 1 << 15
)

// evalSteps returns the steps of the dynamic program evaluate runs per
// tile, with np pairs and m observations: at most evalTile and h, and with
// (tile - 1) (np + m) at most steps and evalTileFloats, so that the
// tile's memory beyond one step's is at most 8 steps bytes (FitBytes)
// and stays in the cache.
func evalSteps(np, m, steps, h int) int {
	per := max(np+m, 1)
	return max(1, min(evalTile, h, 1+steps/per, 1+evalTileFloats/per))
}

// tileFloats bounds the float64 of evaluate's tile beyond one step's, with
// perStep = pairs + observations (FitBytes): (tile - 1) perStep, at most
// steps and evalTileFloats by evalSteps.
func tileFloats(steps, horizon, perStep float64) float64 {
	return math.Min(math.Min(steps, evalTileFloats), (math.Min(horizon, evalTile)-1)*perStep)
}

// evaluate runs the dynamic program K = 1..h on the fitted model and
// writes q_hat and v_hat at every step of b (start and byLen order b's
// trajectories). It runs the program a tile of evalSteps values of K at
// a time, keeping their Q_K and V_K, then writes them trajectory by
// trajectory: each trajectory's steps of the tile are adjacent in
// memory, where the steps t of all trajectories lie a trajectory's length
// apart (a page apart at H = 3000: a TLB miss a read). The values are
// those of one step at a time, bit for bit.
func (f *Fitter) evaluate(b *trajectory.Batch, sp Space, gamma float64, start, byLen []int32) {
	steps, m, na, h := len(b.Reward), len(f.obs), sp.Actions, sp.Horizon
	np := m * na
	tile := evalSteps(np, m, steps, h)
	f.q = grow(f.q, tile*np)
	f.v = grow(f.v, (tile+1)*m) // V_{K0-1}, then V_K of the tile's K = K0..
	clear(f.v[:m])              // V_0 = 0
	b.QHat = grow(b.QHat, steps)
	b.VHat = grow(b.VHat, steps)
	fit := demand.Fit{Row: f.row, Next: f.next, Idx: f.idx, Obs: f.obs, Steps: len(f.next),
		Off: b.Offsets, BObs: b.Obs, BAct: b.Action, QHat: b.QHat, VHat: b.VHat}
	sparse := !f.dense && f.dem.Build(&fit, h, np, m, na)
	kept := sparse && f.dem.Keep(m, na, len(f.next))
	for k0 := 1; k0 <= h; k0 += tile {
		kn := min(tile, h-k0+1)
		for j := range kn {
			q, v, vp := f.q[j*np:(j+1)*np], f.v[(j+1)*m:(j+2)*m], f.v[j*m:(j+1)*m]
			if !sparse {
				f.bellman(q, v, vp, gamma, na)
				continue
			}
			demand.BellmanAt(q, v, vp, gamma, na, f.dem.At(k0+j), f.row, f.next, f.prob, f.r, f.pie)
			if kept {
				f.dem.Store(k0+j, f.dem.At(k0+j), q, v, na)
			}
		}
		if !kept {
			f.write(b, start, byLen, h-k0-kn+2, h-k0+1, na)
		}
		copy(f.v[:m], f.v[kn*m:(kn+1)*m])
	}
	if kept {
		f.dem.Write(&fit, h, na)
	}
}

// bellman writes Q_K into q and V_K into v from V_{K-1} in vp.
func (f *Fitter) bellman(q, v, vp []float64, gamma float64, na int) {
	row, next, prob, r, pie := f.row, f.next, f.prob, f.r, f.pie
	for p := range q {
		s := 0.0
		for j := row[p]; j < row[p+1]; j++ {
			s += prob[j] * vp[next[j]]
		}
		q[p] = r[p] + gamma*s
	}
	for c := range v {
		s := 0.0
		for a, w := range pie[c*na : (c+1)*na] {
			s += w * q[c*na+a]
		}
		v[c] = s
	}
}

// write writes q_hat and v_hat at the 1-based steps tlo..thi of every
// trajectory of b that has them, from the tile of evaluate holding
// K = h - thi + 1 .. h - tlo + 1 (f.q from its first K, f.v from one
// slot after).
func (f *Fitter) write(b *trajectory.Batch, start, byLen []int32, tlo, thi, na int) {
	m := len(f.obs)
	np := m * na
	qHat, vHat, obs, act, idx := b.QHat, b.VHat, b.Obs, b.Action, f.idx
	for j, lo := range start[:byLen[tlo]] {
		// the trajectory has a step t iff it is among the byLen[t] longest
		for t := tlo; t <= thi && int32(j) < byLen[t]; t++ {
			s := int(lo) + t - 1
			slot := thi - t // K - K0, K = h - t + 1
			c := idx[obs[s]]
			if c < 0 || int(c) >= m || f.obs[c] != obs[s] { // never visited (FitTo)
				qHat[s], vHat[s] = 0, 0
				continue
			}
			qHat[s] = f.q[slot*np+int(c)*na+int(act[s])]
			vHat[s] = f.v[(slot+1)*m+int(c)]
		}
	}
}

// grow returns s resliced to length n, allocating exactly n elements when
// its capacity is short (a large array advised for huge pages:
// internal/hugepage). The contents are not preserved.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return hugepage.Make[T](n)
	}
	return s[:n]
}
