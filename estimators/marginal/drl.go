package marginal

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// DRL is double reinforcement learning, cross-fitted with 2 folds (Kallus
// & Uehara 2020), in two versions of its weight w_t. Fold A is the first
// ceil(n/2) trajectories in data order, fold B the rest (n >= 2). For a
// trajectory i of one fold the nuisances come from the other fold alone
// (F, of m trajectories): q_t and v_t from the series' learned model
// (models.CrossFit: `fitted`, SPEC 1d/1f with censoring at the horizon,
// unless UseModel names another kind) over F, with H the longest
// trajectory of the whole data set, and
//
//   - "drl" (docs/drl.md section 1, Kallus & Uehara's finite-horizon
//     form): W_t = w_t(o) rho_t, with the marginal state ratio w_t(o) =
//     d^e_t(o) / (n_t(o)/m), n_t(o) F's visits of o at step t and d^e_t
//     the distribution at step t of pi_e run through F's model
//     (time-indexed with fitted-t, time-homogeneous otherwise) from F's
//     empirical initial distribution; 0 where n_t(o) = 0;
//   - "drl-mis" (SPEC 1f's definition, NewDRLMIS): w_t(o) rho_t, with
//     w_t(o) = d_t(o) / (n_t(o)/m), d_t and n_t those of mis over F (0
//     where n_t(o) = 0).
//
// Then, W_t the step's weight w_t(o_t) rho_t,
//
//	phi^i = v_1(o^i_1) + sum_t gamma^(t-1) W^i_t (r^i_t + gamma v_{t+1}(o^i_{t+1}) - q_t(o^i_t, a^i_t)),
//	DRL = (1/n) sum_i phi^i,
//
// with v(o^i_{H_i+1}) := 0 after the trajectory's last step. The batch's
// rewards are the discounted view (trajectory.Discounted, SPEC 1c: r_t
// scaled by gamma^(t-1), gamma in Batch.Gamma): gamma^(t-1) r_t is the
// batch's reward, and q and v, discounted to their own step by the model,
// are scaled by gamma^(t-1) and gamma^t here. The model is fitted on the
// undiscounted rewards (the view's divided back by gamma^(t-1)).
//
// pi_e(a|o), the model's evaluation policy, is read from the rows
// (Batch.PiE at the steps where (o, a) was logged); v(o) sums over the
// actions seen at o in the fold the model is fitted on (SPEC 1f).
//
// Cost: two model fits, each on one fold and read on the other (at most
// the cost of fitting the whole data set, plus O(steps)), and one
// forward pass per fold for the weights: O(steps) for drl-mis and for drl
// over fitted-t, plus per step t O(pairs + distinct transitions) for drl
// over a time-homogeneous model. The two fits are the same for drl and
// drl-mis (same kind, folds and data): given a models.CrossFitShare
// (ShareCrossFit, as package evaluate's Evaluator does), the second of
// them on a batch reuses the first's. The workspace is kept between
// calls: a warm DRL allocates nothing.
type DRL struct {
	cf      models.CrossFit // the series' learned kind (`fitted` by default) on each fold, read on the other
	timed   bool            // cf.Kind is time-indexed (models.Kind.TimeIndexed): d^e_t propagates through its P_t
	share   *models.CrossFitShare
	fit     *models.CrossFit // the last fit: &cf, or the share's
	mis     bool             // drl-mis: SPEC 1f's weights
	count   []int32
	d, dn   []float64
	liveB   []int32   // the trajectories a forward pass writes that go on
	w       []float64 // the weight W_t of every step, from the other fold
	phi     []float64 // the per-trajectory terms
	tr      transitions
	obsAt   []int32  // the observations visited at t (capacity m)
	pairsAt []int32  // drl with a time-indexed model: the pairs visited at t (capacity m na)
	tile    stepTile // the weights' factors over a tile of steps
}

// NewDRL returns a DRL estimator with Kallus & Uehara's normalised
// marginal ratio (key "drl", docs/drl.md).
func NewDRL() *DRL { return &DRL{} }

// NewDRLMIS returns a DRL estimator with SPEC 1f's weights, mis's d_t
// over the visit frequencies (key "drl-mis").
func NewDRLMIS() *DRL { return &DRL{mis: true} }

// Name returns "drl", or "drl-mis" for SPEC 1f's weights.
func (e *DRL) Name() string {
	if e.mis {
		return "drl-mis"
	}
	return "drl"
}

// UseModel sets the kind of the model DRL cross-fits for q and v
// (estimators.ModelFitter): a learned kind of package models' registry;
// "" (the default, SPEC 1f) is `fitted`. With `fitted-t`, q_t is
// time-indexed, as in Kallus & Uehara's finite-horizon DRL, and so is the
// model drl propagates d^e_t through; drl-mis's w_t stays SPEC 1f's.
func (e *DRL) UseModel(kind string) {
	e.cf.Kind = kind
	k, _ := models.Lookup(kind)
	e.timed = k.TimeIndexed
}

// ShareCrossFit implements models.CrossFitSharer: with s not nil, the
// folds' models are read from s, fitted once per batch for drl and
// drl-mis together (their fits are the same: same kind, same folds, same
// data); with nil, DRL fits its own.
func (e *DRL) ShareCrossFit(s *models.CrossFitShare) { e.share = s }

// SharePolicies implements models.PolicySharer: its own CrossFit refits
// its folds when the next batch holds the last one's data under another
// pi_e (models.CrossFit.Policies).
func (e *DRL) SharePolicies(s *models.PolicyShare) { e.cf.Policies = s }

// Estimate returns the DRL estimate from b, which must carry observation
// and action ids (ErrNoIDs) and the action probabilities (ErrNoProbs), and
// at least 2 trajectories: the mean of the per-trajectory terms phi^i
// (Terms).
func (e *DRL) Estimate(b *trajectory.Batch) (float64, error) {
	var err error
	if e.phi, err = e.phis(b, e.phi); err != nil {
		return 0, err
	}
	total := 0.0
	for i, phi := range e.phi {
		if b.Offsets[i+1] > b.Offsets[i] { // an empty trajectory adds nothing
			total += phi
		}
	}
	return estimators.Finite(e.Name(), total/float64(b.N()))
}

// Terms implements estimators.Termer: phi^1..phi^n of the estimate from b
// (0 for an empty trajectory), whose mean is the estimate. The phi^i are
// i.i.d. given the folds' models and weights, so the Student-t bound of
// SPEC 1e is the normal interval of Kallus & Uehara 2020 with n - 1
// degrees of freedom. A term that is not representable as a float64 is an
// error wrapping estimators.ErrNotRepresentable.
func (e *DRL) Terms(b *trajectory.Batch, dst []float64) ([]float64, error) {
	dst, err := e.phis(b, dst)
	if err != nil {
		return dst, err
	}
	for i, phi := range dst {
		if math.IsNaN(phi) || math.IsInf(phi, 0) {
			return dst, fmt.Errorf("%s: the term of trajectory %d %w", e.Name(), i, estimators.ErrNotRepresentable)
		}
	}
	return dst, nil
}

// phis appends phi^i of every trajectory of b to dst[:0] (0 for an empty
// one), after fitting the folds' models and weights.
func (e *DRL) phis(b *trajectory.Batch, dst []float64) ([]float64, error) {
	name := e.Name()
	if err := checkIDs(name, b, 2); err != nil {
		return dst[:0], err
	}
	n := b.N()
	dst = scratch.Grow(dst, n)
	clear(dst)
	steps := b.Steps()
	if steps == 0 {
		return dst, nil
	}
	if len(b.PiE) != steps || len(b.PiB) != steps {
		return dst[:0], fmt.Errorf("%s: %w", name, ErrNoProbs)
	}
	m, err := e.fitFolds(b)
	if err != nil {
		return dst[:0], fmt.Errorf("%s: %w", name, err)
	}
	half := e.fit.Half()
	e.w = scratch.Grow(e.w, steps)
	e.obsAt = scratch.Grow(e.obsAt, m)
	if e.mis {
		e.misWeights(b, m, half)
	} else {
		e.ratios(b.Horizon(), m)
	}
	pow := e.fit.Pow()
	for k, rng := range [2][2]int{{0, half}, {half, n}} {
		f := e.fit.Fold(k)
		for i := rng[0]; i < rng[1]; i++ {
			lo, hi := b.Offsets[i], b.Offsets[i+1]
			if hi == lo {
				continue
			}
			flo := f.Offsets[i-rng[0]]
			phi := f.VHat[flo]
			for s := lo; s < hi; s++ {
				t := s - lo // 0-based
				fs := flo + t
				next := 0.0
				if s+1 < hi {
					next = pow[t+1] * f.VHat[fs+1]
				}
				phi += e.w[s] * (b.Reward[s] + next - pow[t]*f.QHat[fs])
			}
			dst[i] = phi
		}
	}
	return dst, nil
}

// fitFolds fits the folds' models on b, or reads them from the share,
// into e.fit, and returns the number of compact observations.
func (e *DRL) fitFolds(b *trajectory.Batch) (int, error) {
	if e.share == nil {
		e.fit = &e.cf
		return e.cf.Fit(b)
	}
	var (
		m   int
		err error
	)
	e.fit, m, err = e.share.Fit(e.cf.Kind, b)
	return m, err
}

// misWeights writes drl-mis's W_t = w_t(o_t) rho_t into e.w at every step
// of b (m compact observations, fold A the first half trajectories): each
// fold's w_t from mis over the other.
func (e *DRL) misWeights(b *trajectory.Batch, m, half int) {
	n := b.N()
	e.count = scratch.Grow(e.count, m)
	e.d = scratch.Grow(e.d, m)
	e.dn = scratch.Grow(e.dn, m)
	clear(e.count)
	clear(e.d)
	clear(e.dn)
	e.weights(b, 1, 0, half)
	e.weights(b, 0, half, n)
}

// weights writes into e.w, at every step of trajectories tlo to thi-1 of
// b, W_t = w_t(o_t) rho_t, w_t(o_t) = d_t(o_t) / (n_t(o_t)/m) of mis over
// fold from of the last fit (m trajectories), 0 where it has n_t(o_t) =
// 0. It reads from's steps
// step by step (models.CrossFit.StepMajor: in the fold's order, as the
// trajectories themselves). e.count, e.d and e.dn are zero and left zero.
func (e *DRL) weights(b *trajectory.Batch, from, tlo, thi int) {
	off := b.Offsets
	sm := e.fit.StepMajor(from)
	count, d, dn := e.count, e.d, e.dn
	mf := float64(e.fit.Fold(from).N())
	dst := e.liveB[:0]
	lo, hi := sm.Column(0)
	first := sm.Obs[lo:hi] // o_1 of from's non-empty trajectories
	for _, c := range first {
		count[c]++
	}
	for i := tlo; i < thi; i++ {
		if off[i+1] > off[i] {
			dst = append(dst, int32(i))
		}
	}
	for _, c := range first { // d_1(o) = n_1(o)/m
		d[c] = float64(count[c]) / mf
	}
	for _, c := range first {
		count[c] = 0
	}
	last := longest(off, dst) // dst has steps before last
	tile := &e.tile
	tile.reset(len(count), last)
	t := 0
	for ; t < last; t++ {
		lo, hi := sm.Column(t)
		obs, next, rho := sm.Obs[lo:hi], sm.Next[lo:hi], sm.Ratio[lo:hi]
		obsAt := e.obsAt[:0]
		for _, c := range obs {
			if count[c]++; count[c] == 1 {
				obsAt = append(obsAt, c)
			}
		}
		for j, c := range obs {
			if nx := next[j]; nx >= 0 {
				dn[nx] += d[c] / float64(count[c]) * rho[j]
			}
		}
		for _, c := range obsAt {
			tile.set(t, int(c), d[c]/float64(count[c])*mf)
			d[c], count[c] = 0, 0
		}
		d, dn = dn, d
		if tile.flushes(t) {
			dst = e.flushWeights(b, dst, t)
		}
	}
	if t > 0 && !tile.flushes(t-1) {
		dst = e.flushWeights(b, dst, t-1)
	}
	// leave d zero for the next call: d_t of the trajectories that go on
	lo, hi = sm.Column(t)
	for _, c := range sm.Obs[lo:hi] {
		d[c] = 0
	}
	e.liveB = dst[:0]
}

// flushWeights writes into e.w, at the steps of the tile ending at step t1
// of the trajectories dst of b, W_t = w_t(o_t) rho_t, w_t(o_t) = d_t(o_t)
// / (n_t(o_t)/m) from e.tile's factors, 0 where none is set (no visit of
// o_t at t in the other fold), and returns dst less the trajectories that
// end in the tile. The product is the one SPEC 1f's phi^i takes first,
// w_t rho_t (r + ... - q), 0 rho_t where w_t is 0.
func (e *DRL) flushWeights(b *trajectory.Batch, dst []int32, t1 int) []int32 {
	off, obs, ratio := b.Offsets, e.fit.Obs(), b.Ratio
	t0, k := e.tile.tileStart(t1), 0
	for _, i := range dst {
		lo, hi := off[i], off[i+1]
		for t := t0; t <= t1 && lo+t < hi; t++ {
			s := lo + t
			x, ok := e.tile.get(t, int(obs[s]))
			if !ok {
				x = 0
			}
			e.w[s] = x * ratio[s]
		}
		if lo+t1+1 < hi {
			dst[k] = i
			k++
		}
	}
	return dst[:k]
}
