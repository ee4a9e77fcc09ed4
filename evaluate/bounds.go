package evaluate

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
)

// boundWork is an Evaluator's workspace for the lower bounds: the
// per-trajectory values and a sorted copy, reused by every call, so that
// computing bounds allocates nothing once warm.
type boundWork struct {
	x, sorted []float64
}

// lower returns the 1 - delta lower bound kind (confidence.T,
// confidence.HCOPE) on V(pi_e) of method m from in (SPEC 1e), read as m
// reads it (under gamma). The bound asks m for what it needs: the
// per-trajectory terms of a Termer (T), the scaled returns of a
// ScaledReturner (HCOPE, which also needs the range [lo, hi] of the
// returns; a return outside it is an error wrapping
// estimators.ErrOutOfRange). Too few trajectories (fewer than the bound's
// or the method's MinN) is an error wrapping estimators.ErrTooFew; a
// bound that does not fit a float64 one wrapping
// estimators.ErrNotRepresentable.
func (w *boundWork) lower(m Method, c *Caps, kind string, in Input, delta, lo, hi float64) (float64, error) {
	bi, ok := confidence.Lookup(kind)
	if !ok {
		return 0, fmt.Errorf("unknown lower bound %q (known: %v)", kind, confidence.Names())
	}
	fail := func(err error) (float64, error) { return 0, fmt.Errorf("%s lower bound of %s: %w", kind, c.Name, err) }
	if n, need := in.Batch.N(), max(bi.MinN, c.MinN); n < need {
		return fail(fmt.Errorf("%w: n = %d, needs n >= %d", estimators.ErrTooFew, n, need))
	}
	var v float64
	var err error
	switch kind {
	case confidence.T:
		te, ok := m.(Termer)
		if !ok {
			return fail(fmt.Errorf("the estimator has no per-trajectory terms"))
		}
		if w.x, err = te.Terms(in, w.x); err == nil {
			v = confidence.TLower(w.x, delta)
		}
	case confidence.HCOPE:
		se, ok := m.(ScaledReturner)
		if !ok {
			return fail(fmt.Errorf("the estimator has no scaled returns"))
		}
		if err = confidence.CheckRange(lo, hi); err != nil {
			return fail(fmt.Errorf("return range %w", err))
		}
		if w.x, err = se.ScaledReturns(in, lo, hi, w.x); err == nil {
			var l float64
			l, w.sorted = confidence.HCOPELower(w.x, delta, w.sorted)
			v = lo + (hi-lo)*l
		}
	}
	if err != nil {
		return fail(err)
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return fail(fmt.Errorf("bound %w", estimators.ErrNotRepresentable))
	}
	return v, nil
}
