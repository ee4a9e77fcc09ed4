package models

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/trajectory"
)

// Trace names the trace c_s of a TraceLearner: the factor by which the
// return-based operator of Munos et al. 2016 (Section 2) carries the TD
// errors of later steps back to a visit (docs/models.md).
type Trace int

// The traces of the kinds retrace, q-pi-lambda and tree-backup.
const (
	// Retrace is Retrace(lambda) (Munos et al. 2016):
	// c_s = lambda min(1, pi_e(a_s|o_s) / pi_b(a_s|o_s)), the ratio being
	// the batch's Ratio of step s.
	Retrace Trace = iota
	// QPiLambda is Q^pi(lambda) (Harutyunyan et al. 2016): c_s = lambda.
	QPiLambda
	// TreeBackup is TB(lambda) (Precup, Sutton & Singh 2000):
	// c_s = lambda pi_e(a_s|o_s).
	TreeBackup
)

// String returns the trace's kind name.
func (tr Trace) String() string {
	switch tr {
	case Retrace:
		return "retrace"
	case QPiLambda:
		return "q-pi-lambda"
	case TreeBackup:
		return "tree-backup"
	}
	return fmt.Sprintf("Trace(%d)", int(tr))
}

// traceAllocs is the number of slices a cold TraceLearner allocates in
// FitTo (the two columns of the batch included).
const traceAllocs = 16

// TraceBytes returns the bound of TraceLearner's doc comment: the bytes
// FitTo allocates on a cold TraceLearner for a batch of steps steps, with
// obs observation ids, actions action ids and the given horizon, the
// q_hat and v_hat columns included (float64 arguments, as FitBytes's).
func TraceBytes(steps, obs, actions, horizon float64) float64 {
	m := math.Min(obs, steps)
	p := m * actions
	return 4*obs + 12*m + 64*(p+1) + 40*steps + 4*(horizon+2) + traceAllocs*pageSlack
}

// traceBytesDoc is TraceBytes's formula, for the kinds' BytesDoc.
const traceBytesDoc = "TraceBytes: 4 Obs + 12 m + 64 (m Actions + 1) + 40 steps + 4 (H+2) + 16 x 8 KiB, m = min(Obs, steps) " +
	"(the q_hat and v_hat columns included: 16 of the 40 bytes a step; 8 more are retrace's traces)"

// traceDoc is the part of the three trace kinds' Doc they share.
const traceDoc = "tabular, finite horizon, lambda = 1: Y_t^K = r_t + gamma C_t^K, " +
	"C_t^K = V_{K-1}(o_{t+1}) + c_{t+1} (Y_{t+1}^{K-1} - Q_{K-1}(o_{t+1}, a_{t+1})) (0 after an ended episode), " +
	"Q_K(o, a) = R(o, a) + gamma x the mean of C^K over its uncensored visits, V_K(o) = sum_a pi_e(a|o) Q_K(o, a): " +
	"the exact fixed point of the off-policy operator of Munos et al. 2016 with per-pair means, reached in one sweep K = 1..H, a pass over the steps each (no tolerance); " +
	"a visit at step H is censored (its continuation is the pair's mean, the trace stops there); q = 0 at a pair never visited; " +
	"step t reads K = H - t + 1 (docs/models.md)"

// TraceLearner fits the models `retrace`, `q-pi-lambda` and `tree-backup`
// (docs/models.md): tabular off-policy evaluation of Q of pi_e from the
// logged trajectories by the return-based operator of Munos et al. 2016,
// Section 2, with the trace Trace and its lambda, for the finite horizon
// and with `fitted`'s conventions (time-homogeneous Q_K per number of
// steps left K, censoring at H, 0 at unseen pairs).
//
// The operator's fixed point, with the expectation the mean over the
// visits of a pair, is computed exactly by one sweep K = 1..H: the target
// of a visit at step t with K steps left is
//
//	Y_t^K = r_t + gamma C_t^K,
//	C_t^K = V_{K-1}(o_{t+1}) + c_{t+1} (Y_{t+1}^{K-1} - Q_{K-1}(o_{t+1}, a_{t+1})),
//
// C_t^K = 0 when the episode ended at t, and
//
//	Q_K(o, a) = R(o, a) + gamma (mean of C^K over the uncensored visits of (o, a)),
//
// R the mean reward of all its visits; a visit at t = H is censored: its
// continuation is the pair's mean (Y - Q = r - R), and a trace stops
// there. Unrolled, C_t^K is the operator's sum of the later TD errors
// weighted by gamma^(s-t-1) c_{t+1}...c_s. Its zero value is Retrace
// with lambda 0, which is fqe's model; the kinds' New sets Trace and
// lambda 1. It keeps its workspace between calls, so that refitting
// batches of the same size allocates nothing.
//
// Memory: FitTo allocates at most TraceBytes(steps, sp.Obs, sp.Actions,
// sp.Horizon) bytes on a cold TraceLearner. With m = min(Obs, steps)
// observations occurring and P = m Actions pairs, the workspace is
//
//	4 Obs                 observation id -> compact index (a sparse set)
//	+ 12 m                compact index -> id (int32), V_K (float64)
//	+ 64 (P + 1)          pi_e, R and Q_K (float64), visits and uncensored visits (int32),
//	                      and the table of the pass, V_K, Q_K, c and the sum of C (float64),
//	                      per pair (the + 1 is slack: an entry the kernel before its
//	                      rewrite needed, kept so that the bound does not move)
//	+ 12 steps            pair (int32) and Y (float64) of every step
//	+ 8 steps             retrace's trace c_s of every step (the others' c is per pair)
//	+ 4 steps             start of every trajectory
//	+ 4 (Horizon + 2)     trajectories counted by length
//	+ 16 steps            q_hat and v_hat, when the batch's columns have no room
//
// and each of its 16 slices is rounded up by less than 8 KiB. Memory
// allocated by sp.PiE is not counted.
type TraceLearner struct {
	// Trace is the trace c_s.
	Trace Trace
	// Lambda in [0, 1] scales the trace (0: every trace learner is fqe).
	Lambda float64

	idx []int32      // observation id -> compact index, valid if obs[idx[o]] == o
	obs []int32      // compact index -> observation id
	v   []float64    // per compact observation: V_K(o)
	pie []float64    // per pair: pi_e(a|o)
	nv  []int32      // per pair: its visits
	nu  []int32      // per pair: its uncensored visits
	r   []float64    // per pair: reward sum, then the mean reward R(o, a)
	q   []float64    // per pair: Q_K(o, a)
	tab []traceEntry // per pair: what the pass reads and sums

	kernel int // the pass's kernel: where it reads c (pick)

	pair []int32   // per step: its pair
	c    []float64 // per step, retrace only: its trace c_s
	y    []float64 // per step: its target Y^K (the last step of a trajectory: r, never rewritten)

	start, byLen     []int32 // train's trajectories by length (order, which checks train)
	toStart, toByLen []int32 // apply's, when it is another batch (writeStep)
}

// traceEntry is what a pass reads of the pair of a step's successor, and
// the sum it accumulates for the pair of the step: one cache line holds
// two entries, so that the successor costs one miss at most.
type traceEntry struct {
	v   float64 // V_{K-1}(o)
	q   float64 // Q_{K-1}(o, a)
	c   float64 // the trace, when it is a function of the pair (0 for retrace)
	sum float64 // the sum of C^K over the pair's uncensored visits
}

// FitTo fits the model on train and writes, for every step of apply
// (which may be train), q_hat = Q_K(o_t, a_t) and v_hat = V_K(o_t) with
// K = sp.Horizon - t + 1 into apply.QHat and apply.VHat, reusing their
// memory; 0 where train never visits the pair (q_hat) or the observation
// (both). Its requirements and errors are Fitter.Fit's, and Retrace needs
// train's Ratio of every step, finite and >= 0; Lambda must be in [0, 1].
// A train without steps gives columns of 0; on error, apply's columns are
// unspecified.
//
// Cost: O(steps) to set up, then H - 1 passes of O(steps + m sp.Actions)
// (each reads and writes every step's Y: see docs/models.md's cost
// section), and O(trajectories of apply with a step t) to write step t.
func (l *TraceLearner) FitTo(train, apply *trajectory.Batch, sp Space, gamma float64) error {
	if !(l.Lambda >= 0 && l.Lambda <= 1) {
		return fmt.Errorf("models: %v: lambda %v is not in [0, 1]", l.Trace, l.Lambda)
	}
	if l.Trace < Retrace || l.Trace > TreeBackup {
		return fmt.Errorf("models: unknown trace %v", l.Trace)
	}
	if err := checkPair(train, apply, sp, gamma); err != nil {
		return err
	}
	if l.Trace == Retrace && len(train.Reward) > 0 && len(train.Ratio) != len(train.Reward) {
		return fmt.Errorf("models: retrace needs the ratio pi_e/pi_b of every step: %d ratios for %d steps", len(train.Ratio), len(train.Reward))
	}
	var err error
	if l.start, l.byLen, err = order(train, sp, l.start, l.byLen); err != nil {
		return err
	}
	if apply != train {
		if l.toStart, l.toByLen, err = order(apply, sp, l.toStart, l.toByLen); err != nil {
			return err
		}
	}
	if l.idx, l.obs, err = compactObs(train, sp, l.idx, l.obs); err != nil {
		return err
	}
	if l.pie, err = policyOf(sp, l.obs, l.pie); err != nil {
		return err
	}
	if err := l.setup(train, sp); err != nil {
		return err
	}
	l.sweep(train, apply, sp, gamma)
	return nil
}

// setup gives every step its pair and first target Y^1 = r (and, for
// retrace, its trace), counts the visits and sums the rewards of every
// pair, and fills the constant part of the pass's table.
func (l *TraceLearner) setup(b *trajectory.Batch, sp Space) error {
	steps, m, na, h := len(b.Reward), len(l.obs), sp.Actions, sp.Horizon
	np := m * na
	if np > math.MaxInt32 { // pair holds p as an int32
		return fmt.Errorf("models: %v: %d observations x %d actions: more than %d pairs", l.Trace, m, na, math.MaxInt32)
	}
	l.nv = grow(l.nv, np)
	clear(l.nv)
	l.nu = grow(l.nu, np)
	clear(l.nu)
	l.r = grow(l.r, np)
	clear(l.r)
	l.pair = grow(l.pair, steps)
	l.y = grow(l.y, steps)
	copy(l.y, b.Reward)
	perStep := l.Trace == Retrace
	if perStep {
		l.c = grow(l.c, steps)
	}
	for i := 0; i+1 < len(b.Offsets); i++ {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		for s := lo; s < hi; s++ {
			p := l.idx[b.Obs[s]]*int32(na) + b.Action[s]
			l.pair[s] = p
			l.nv[p]++
			l.r[p] += b.Reward[s]
			if s-lo+1 < h {
				l.nu[p]++
			}
			if !perStep {
				continue
			}
			rho := b.Ratio[s]
			if !(rho >= 0) || math.IsInf(rho, 0) {
				return fmt.Errorf("models: retrace: step %d (trajectory %d, t = %d): ratio %v is not finite and >= 0", s, i, s-lo+1, rho)
			}
			l.c[s] = l.Lambda * min(1, rho)
		}
	}
	for p := range np {
		if l.nv[p] > 0 {
			l.r[p] /= float64(l.nv[p])
		}
	}
	l.tab = grow(l.tab, np)
	clear(l.tab)
	for p := range l.tab {
		switch l.Trace {
		case QPiLambda:
			l.tab[p].c = l.Lambda
		case TreeBackup:
			l.tab[p].c = l.Lambda * l.pie[p]
		}
	}
	l.kernel = l.pick(b)
	return nil
}

// The kernels of a pass: the same arithmetic, c read from where it is.
const (
	tracePerStep = iota // retrace's c of every step, from c
	tracePerPair        // c a function of the successor's pair, from the table
	traceUnit           // c = 1 at every successor: no product (1 x d = d exactly)
)

// pick returns the kernel of b's traces: only the trace of a step with a
// predecessor is read. Retrace's is a function of the pair when the
// ratio is (both policies functions of the observation, or on-policy
// data), and then moves into the table. Equality is of the bits, so that
// the kernels compute the same numbers.
func (l *TraceLearner) pick(b *trajectory.Batch) int {
	perPair, unit := true, true
	one := math.Float64bits(1)
	if l.Trace == Retrace {
		for p := range l.tab {
			l.tab[p].c = math.NaN() // not read yet: never equal
		}
	}
	for i := 0; i+1 < len(b.Offsets); i++ {
		for s := b.Offsets[i] + 1; s < b.Offsets[i+1]; s++ {
			e := &l.tab[l.pair[s]]
			c := e.c
			if l.Trace == Retrace {
				c = l.c[s]
				if math.IsNaN(e.c) {
					e.c = c
				}
				perPair = perPair && math.Float64bits(e.c) == math.Float64bits(c)
			}
			unit = unit && math.Float64bits(c) == one
		}
	}
	if l.Trace == Retrace {
		for p := range l.tab {
			if math.IsNaN(l.tab[p].c) { // never a successor: never read
				l.tab[p].c = 0
			}
		}
	}
	switch {
	case unit:
		return traceUnit
	case perPair:
		return tracePerPair
	}
	return tracePerStep
}

// sweep computes Q_K for K = 1..H and writes q_hat and v_hat of apply's
// steps t = H - K + 1: another batch's as each Q_K is computed, train's
// in the pass that reads Q_K (K < H) or after the last pass (K = H).
func (l *TraceLearner) sweep(train, apply *trajectory.Batch, sp Space, gamma float64) {
	m, na, h := len(l.obs), sp.Actions, sp.Horizon
	np := m * na
	l.q = grow(l.q, np)
	l.v = grow(l.v, m)
	apply.QHat = grow(apply.QHat, len(apply.Reward))
	apply.VHat = grow(apply.VHat, len(apply.Reward))
	// The passes write train's steps, one pass after their Q_K, where
	// the pass holds their pair (no look-up of the observation).
	self := apply == train
	out := train
	copy(l.q, l.r) // Q_1 = R (0 at a pair never visited)
	l.values(na)
	if !self {
		out = nil
		writeStep(apply, l.idx, l.obs, l.q, l.v, na, 1, h, l.toStart, l.toByLen)
	}
	for k := 2; k <= h; k++ {
		l.pass(train, out, gamma, k, h)
		l.update(gamma)
		l.values(na)
		if !self {
			writeStep(apply, l.idx, l.obs, l.q, l.v, na, 1, h-k+1, l.toStart, l.toByLen)
		}
	}
	if self { // step 1 reads Q_H, which no pass reads
		l.writeFirst(train)
	}
}

// pass computes, from Y^{K-1} and the table of Q_{K-1} and V_{K-1}
// (K = k), the continuation C^K of every step with a successor, sums it
// per pair and overwrites the step's Y^{K-1} with Y^K = r + gamma C^K,
// a trajectory at a time; and writes out's step t = H - K + 2, which
// reads Q_{K-1}, when out is not nil. The last step of a trajectory has
// no successor: its C^K is 0, which adds nothing to its pair's sum (a
// sum starts at +0 and is never -0, so adding +0 would not change it)
// and leaves Y = r if the episode ended (y keeps it; the kernel before
// wrote r + gamma 0, which differs only in the sign of a zero reward,
// and no C sees that sign: it enters as V + c (Y - Q), and V is never
// -0); a censored one's Y^{K-1} is r + (Q_{K-1} - R) (its continuation
// is its pair's mean), r at K = 2. Every C and every sum are those of
// the kernel before its rewrite (traceRef in models/traceref_test.go),
// the same operations in the same order.
func (l *TraceLearner) pass(b, out *trajectory.Batch, gamma float64, k, h int) {
	tab, pair, y, r, rMean := l.tab, l.pair, l.y, b.Reward, l.r
	w := h - k + 1 // out's step t = w + 1
	for i := 0; i+1 < len(b.Offsets); i++ {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		n := hi - lo
		if out != nil && w < n {
			e := &tab[pair[lo+w]]
			out.QHat[lo+w], out.VHat[lo+w] = e.q, e.v
		}
		if n < 2 {
			continue
		}
		last := y[hi-1]
		if n == h && k > 2 {
			p := pair[hi-1]
			last = r[hi-1] + (tab[p].q - rMean[p])
		}
		switch l.kernel {
		case tracePerStep:
			chainStep(tab, pair[lo:hi], l.c[lo:hi], y[lo:hi], r[lo:hi], last, gamma)
		case tracePerPair:
			chainPair(tab, pair[lo:hi], y[lo:hi], r[lo:hi], last, gamma)
		default:
			chainUnit(tab, pair[lo:hi], y[lo:hi], r[lo:hi], last, gamma)
		}
	}
}

// chainPair is the pass over one trajectory of at least 2 steps (ps their
// pairs, ys their targets, rs their rewards, last the target of the last
// step) for a trace that is a function of the pair: step j reads its
// successor j+1 before the successor is overwritten (increasing j).
func chainPair(tab []traceEntry, ps []int32, ys, rs []float64, last, gamma float64) {
	n := len(ps) - 1
	ys, rs = ys[:n], rs[:n]
	own := &tab[ps[0]]
	for j := 1; j < n; j++ {
		e := &tab[ps[j]]
		x := e.v + e.c*(ys[j]-e.q)
		ys[j-1] = rs[j-1] + gamma*x
		own.sum += x
		own = e
	}
	e := &tab[ps[n]]
	x := e.v + e.c*(last-e.q)
	ys[n-1] = rs[n-1] + gamma*x
	own.sum += x
}

// chainUnit is chainPair for c = 1: x = V + (Y - Q), which is
// V + 1 (Y - Q) exactly.
func chainUnit(tab []traceEntry, ps []int32, ys, rs []float64, last, gamma float64) {
	n := len(ps) - 1
	ys, rs = ys[:n], rs[:n]
	own := &tab[ps[0]]
	for j := 1; j < n; j++ {
		e := &tab[ps[j]]
		x := e.v + (ys[j] - e.q)
		ys[j-1] = rs[j-1] + gamma*x
		own.sum += x
		own = e
	}
	e := &tab[ps[n]]
	x := e.v + (last - e.q)
	ys[n-1] = rs[n-1] + gamma*x
	own.sum += x
}

// chainStep is chainPair for a trace given per step (retrace: cs).
func chainStep(tab []traceEntry, ps []int32, cs, ys, rs []float64, last, gamma float64) {
	n := len(ps) - 1
	ys, rs, cs = ys[:n], rs[:n], cs[:n+1]
	own := &tab[ps[0]]
	for j := 1; j < n; j++ {
		e := &tab[ps[j]]
		x := e.v + cs[j]*(ys[j]-e.q)
		ys[j-1] = rs[j-1] + gamma*x
		own.sum += x
		own = e
	}
	e := &tab[ps[n]]
	x := e.v + cs[n]*(last-e.q)
	ys[n-1] = rs[n-1] + gamma*x
	own.sum += x
}

// update turns the sums of C^K into Q_K and clears them.
func (l *TraceLearner) update(gamma float64) {
	q, r, nv, nu, tab := l.q, l.r, l.nv, l.nu, l.tab
	for p := range q {
		sum := &tab[p].sum
		switch {
		case nv[p] == 0:
			q[p] = 0
		case nu[p] == 0: // every visit censored
			q[p] = r[p]
		default:
			q[p] = r[p] + gamma**sum/float64(nu[p])
		}
		*sum = 0
	}
}

// values computes V_K(o) = sum_a pi_e(a|o) Q_K(o, a) and writes V_K and
// Q_K into the pass's table.
func (l *TraceLearner) values(na int) {
	for c := range len(l.obs) {
		x := 0.0
		for a, w := range l.pie[c*na : (c+1)*na] {
			x += w * l.q[c*na+a]
		}
		l.v[c] = x
		for p := c * na; p < (c+1)*na; p++ {
			l.tab[p].v = x
			l.tab[p].q = l.q[p]
		}
	}
}

// writeFirst writes q_hat and v_hat of the first step of every trajectory
// of b, the batch the model is fitted on, from the table of Q_H.
func (l *TraceLearner) writeFirst(b *trajectory.Batch) {
	for i := 0; i+1 < len(b.Offsets); i++ {
		if lo := b.Offsets[i]; lo < b.Offsets[i+1] {
			e := &l.tab[l.pair[lo]]
			b.QHat[lo], b.VHat[lo] = e.q, e.v
		}
	}
}
