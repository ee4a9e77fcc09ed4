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
//	                      per pair and for a pair standing for "no successor"
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

	idx []int32   // observation id -> compact index, valid if obs[idx[o]] == o
	obs []int32   // compact index -> observation id
	v   []float64 // per compact observation: V_K(o)
	pie []float64 // per pair: pi_e(a|o)
	nv  []int32   // per pair: its visits
	nu  []int32   // per pair: its uncensored visits
	r   []float64 // per pair: reward sum, then the mean reward R(o, a)
	q   []float64 // per pair: Q_K(o, a)
	// tab holds what the pass reads and sums, for pair p at
	// tab[4(p+1):4(p+2)]: V_K(o), Q_K(o, a), c (the trace when it is a
	// function of the pair) and the sum of C^K over the pair's uncensored
	// visits; and zeros at its start, which a trajectory's first step
	// lends its predecessor (the previous trajectory's last step) so that
	// it gets no successor.
	tab []float64

	link []int32   // per step: 4(p+1) for its pair p, ^(4(p+1)) < 0 at a trajectory's first step
	c    []float64 // per step, retrace only: its trace c_s (0 at a first step)
	y    []float64 // per step: its target Y^K

	start, byLen     []int32 // train's trajectories by length (order)
	toStart, toByLen []int32 // apply's, when it is another batch
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
// Cost: O(steps) to set up, then H passes of O(steps + m sp.Actions),
// and O(trajectories of apply with a step t) to write step t.
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
	start, byLen := l.start, l.byLen
	if apply != train {
		if l.toStart, l.toByLen, err = order(apply, sp, l.toStart, l.toByLen); err != nil {
			return err
		}
		start, byLen = l.toStart, l.toByLen
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
	l.sweep(train, apply, sp, gamma, start, byLen)
	return nil
}

// setup gives every step its pair and first target Y^1 = r (and, for
// retrace, its trace), counts the visits and sums the rewards of every
// pair, and fills the constant part of the pass's table.
func (l *TraceLearner) setup(b *trajectory.Batch, sp Space) error {
	steps, m, na, h := len(b.Reward), len(l.obs), sp.Actions, sp.Horizon
	np := m * na
	if np >= math.MaxInt32>>2 { // link holds 4(p+1) as an int32
		return fmt.Errorf("models: %v: %d observations x %d actions: %d pairs or more", l.Trace, m, na, math.MaxInt32>>2)
	}
	l.nv = grow(l.nv, np)
	clear(l.nv)
	l.nu = grow(l.nu, np)
	clear(l.nu)
	l.r = grow(l.r, np)
	clear(l.r)
	l.link = grow(l.link, steps)
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
			l.link[s] = (p + 1) << 2
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
		if hi > lo { // the trace of a first step is never read: it has no predecessor
			l.link[lo] = ^l.link[lo]
			if perStep {
				l.c[lo] = 0
			}
		}
	}
	for p := range np {
		if l.nv[p] > 0 {
			l.r[p] /= float64(l.nv[p])
		}
	}
	l.tab = grow(l.tab, 4*(np+1))
	clear(l.tab)
	for p := range np {
		switch l.Trace {
		case QPiLambda:
			l.tab[4*p+6] = l.Lambda
		case TreeBackup:
			l.tab[4*p+6] = l.Lambda * l.pie[p]
		}
	}
	return nil
}

// sweep computes Q_K for K = 1..H and writes q_hat and v_hat of apply's
// steps t = H - K + 1 as each is computed.
func (l *TraceLearner) sweep(train, apply *trajectory.Batch, sp Space, gamma float64, start, byLen []int32) {
	m, na, h := len(l.obs), sp.Actions, sp.Horizon
	np := m * na
	l.q = grow(l.q, np)
	l.v = grow(l.v, m)
	apply.QHat = grow(apply.QHat, len(apply.Reward))
	apply.VHat = grow(apply.VHat, len(apply.Reward))
	copy(l.q, l.r) // Q_1 = R (0 at a pair never visited)
	l.values(na)
	writeStep(apply, l.idx, l.obs, l.q, l.v, na, 1, h, start, byLen)
	for k := 2; k <= h; k++ {
		if l.Trace == Retrace {
			l.passStep(train.Reward, gamma)
		} else {
			l.passPair(train.Reward, gamma)
		}
		l.update(train, gamma, h)
		l.values(na)
		writeStep(apply, l.idx, l.obs, l.q, l.v, na, 1, h-k+1, start, byLen)
	}
}

// The passes compute, from Y^{K-1} and the table of Q_{K-1} and V_{K-1},
// the continuation C^K of every step with a successor, sum it per pair and
// overwrite the step's Y^{K-1} with Y^K = r + gamma C^K. Step s-1 reads
// step s, its successor, before s is overwritten (increasing order). The
// steps run as one sequence, without a branch at the trajectories'
// boundaries: a trajectory's first step lends its predecessor (the
// previous trajectory's last step) the zeros at the table's start, so
// that C = 0 there, which leaves Y = r for an episode that ended (update
// resets a censored one). link[s] = 4(p + 1) for pair p, complemented
// (< 0) at a trajectory's first step: with m = link >> 31 (-1 there, 0
// elsewhere), link &^ m is the entry the step lends its predecessor (0 at
// a first step) and link ^ m its own.

// passStep is the pass of a trace given per step (retrace).
func (l *TraceLearner) passStep(reward []float64, gamma float64) {
	link, tab := l.link, l.tab
	n := len(link)
	if n == 0 {
		return
	}
	y, r, c := l.y[:n], reward[:n], l.c[:n]
	own := int(link[0] ^ link[0]>>31)
	for s := 1; s < n; s++ {
		lk := link[s]
		m := lk >> 31
		g := int(lk &^ m)
		x := tab[g] + c[s]*(y[s]-tab[g+1])
		y[s-1] = r[s-1] + gamma*x
		tab[own+3] += x
		own = int(lk ^ m)
	}
}

// passPair is the pass of a trace that is a function of the pair
// (q-pi-lambda, tree-backup): the same arithmetic, c read from the table.
func (l *TraceLearner) passPair(reward []float64, gamma float64) {
	link, tab := l.link, l.tab
	n := len(link)
	if n == 0 {
		return
	}
	y, r := l.y[:n], reward[:n]
	own := int(link[0] ^ link[0]>>31)
	for s := 1; s < n; s++ {
		lk := link[s]
		m := lk >> 31
		g := int(lk &^ m)
		x := tab[g] + tab[g+2]*(y[s]-tab[g+1])
		y[s-1] = r[s-1] + gamma*x
		tab[own+3] += x
		own = int(lk ^ m)
	}
}

// update turns the sums of C^K into Q_K and gives every censored step its
// Y^K = r + Q_K - R, so that Y^K - Q_K = r - R (its continuation is its
// pair's mean).
func (l *TraceLearner) update(b *trajectory.Batch, gamma float64, h int) {
	q, r, nv, nu := l.q, l.r, l.nv, l.nu
	for p := range q {
		sum := &l.tab[4*p+7]
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
	// The trajectories of length h are the first byLen[h] of start (order).
	for _, lo := range l.start[:l.byLen[h]] {
		s := int(lo) + h - 1
		lk := l.link[s]
		p := int((lk^lk>>31)>>2) - 1 // a first step when h = 1
		l.y[s] = b.Reward[s] + (q[p] - r[p])
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
			l.tab[4*p+4] = x // pair p's entry is the (p+1)-th
			l.tab[4*p+5] = l.q[p]
		}
	}
}
