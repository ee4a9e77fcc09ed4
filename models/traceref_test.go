package models

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/trajectory"
)

// traceRef is TraceLearner as it was before its kernel was rewritten
// (commit 27a9e2f, models/trace.go): one pass over all the steps as a
// single sequence per K, the pair of every step packed with a
// first-step flag into link. It is kept, renamed and otherwise
// unchanged, as the reference the new kernel must equal bit for bit
// (TestTraceKernelBits): the committed results/benchmarks and
// results/benchsuite hold estimates computed by it.
type traceRef struct {
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
func (l *traceRef) FitTo(train, apply *trajectory.Batch, sp Space, gamma float64) error {
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
func (l *traceRef) setup(b *trajectory.Batch, sp Space) error {
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
func (l *traceRef) sweep(train, apply *trajectory.Batch, sp Space, gamma float64, start, byLen []int32) {
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
func (l *traceRef) passStep(reward []float64, gamma float64) {
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
func (l *traceRef) passPair(reward []float64, gamma float64) {
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
func (l *traceRef) update(b *trajectory.Batch, gamma float64, h int) {
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
func (l *traceRef) values(na int) {
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
