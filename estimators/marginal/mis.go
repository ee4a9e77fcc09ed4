package marginal

import (
	"errors"
	"fmt"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ErrNoIDs reports a batch without the observation and action ids of SPEC
// 1f, which mis and drl cannot run without.
var ErrNoIDs = errors.New("the data has no observation and action ids")

// ErrNoProbs reports a batch without the per-step action probabilities
// pi_b and pi_e, which drl cannot run without.
var ErrNoProbs = errors.New("the data has no action probabilities pi_b and pi_e")

// checkIDs returns an error naming the estimator when b has steps but not
// one observation and one action id per step, each >= 0, and when b has
// fewer than minN trajectories.
func checkIDs(name string, b *trajectory.Batch, minN int) error {
	if n := b.N(); n < minN {
		return fmt.Errorf("%s: %w: n = %d, needs n >= %d", name, estimators.ErrTooFew, n, minN)
	}
	m := b.Steps()
	if m == 0 {
		return nil
	}
	if len(b.Obs) != m || len(b.Action) != m {
		return fmt.Errorf("%s: %w", name, ErrNoIDs)
	}
	for s := range m {
		if b.Obs[s] < 0 || b.Action[s] < 0 {
			return fmt.Errorf("%s: step %d: negative id (observation %d, action %d)", name, s, b.Obs[s], b.Action[s])
		}
	}
	return nil
}

// MIS is tabular, time-indexed marginalized importance sampling (Xie, Ma
// & Wang 2019; SPEC 1f, key "mis"): with n_t(o) the number of trajectories
// that have a step t with observation o,
//
//	d_1(o) = n_1(o)/n,
//	r_t(o) = (1/n_t(o)) sum_{i: o^i_t = o} rho^i_t r^i_t,
//	P_t(o'|o) = (1/n_t(o)) sum_{i: o^i_t = o, o^i_{t+1} = o'} rho^i_t,
//	d_{t+1}(o') = sum_o d_t(o) P_t(o'|o),
//	MIS = sum_{t=1..H} sum_o d_t(o) r_t(o),
//
// a trajectory that ended at t contributing to no o'. Rewards are taken
// as already discounted (trajectory.Discounted, SPEC 1c). It reads the
// observation ids (Batch.Obs) and the action ratios (Batch.Ratio); on
// every trajectory's own observations it is PDIS, with pi_e = pi_b the
// on-policy mean return.
//
// Cost O(n H + H |O|): one pass over the steps, step t by step t,
// accumulates the sufficient statistics (per (t, o): n_t(o) and sum rho r;
// per (t, o, o'): sum rho, each in data order), and one pass over them
// propagates d_t (misStats, misgrid.go). EstimateGrid shares the first
// pass between the prefixes of a grid. The workspace (compact ids of every
// step, the statistics, and a few numbers per distinct observation) is
// kept between calls: a warm MIS allocates nothing.
type MIS struct {
	st misStats
}

// NewMIS returns a MIS estimator.
func NewMIS() *MIS { return &MIS{} }

// Name returns "mis".
func (*MIS) Name() string { return "mis" }

// Estimate returns the MIS estimate from b, which must carry observation
// ids (ErrNoIDs otherwise).
func (e *MIS) Estimate(b *trajectory.Batch) (float64, error) {
	if err := checkIDs("mis", b, 1); err != nil {
		return 0, err
	}
	if b.Steps() == 0 {
		return 0, nil
	}
	n := b.N()
	e.st.reset(b)
	e.st.add(b, 0, n)
	return estimators.Finite("mis", e.st.estimate(n))
}
