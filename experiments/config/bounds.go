package config

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/evaluate"
	"github.com/ope-lab/longhorizon/internal/yamlcheck"
)

// DefaultDelta is delta, 1 - the confidence of the lower bounds (SPEC 1e),
// when a config with bounds does not set it.
const DefaultDelta = 0.05

// Supports reports whether estimator est computes lower bound kind: its
// registry entry lists kind in estimators.Info.Bounds.
func Supports(est, kind string) bool {
	info, ok := estimators.Lookup(est)
	return ok && slices.Contains(info.Bounds, kind)
}

// HasBounds reports whether some series of the plan computes lower
// bounds.
func (p *Plan) HasBounds() bool {
	return slices.ContainsFunc(p.Series, func(s Series) bool { return len(s.Bounds) > 0 })
}

// Range returns the series' range of the returns [g_lo, g_hi] and whether
// it has one (config series[].return_range).
func (s *Series) Range() (lo, hi float64, ok bool) {
	if len(s.ReturnRange) != 2 {
		return 0, 0, false
	}
	return s.ReturnRange[0], s.ReturnRange[1], true
}

// BoundPairs calls f for every (estimator, bound) pair of the series
// whose estimator supports the bound, in the order of bounds.csv:
// estimators in series order, then bounds in series order; e and b index
// Estimators and Bounds.
func (s *Series) BoundPairs(f func(e, b int)) {
	for e, est := range s.Estimators {
		info, _ := s.Info(est)
		for b, kind := range s.Bounds {
			if slices.Contains(info.Bounds, kind) {
				f(e, b)
			}
		}
	}
}

// boundError is a problem with a series' bounds: key is the field it is
// about ("bounds", "return_range", or "n" for the grid), index the list
// item (-1 for the whole field).
type boundError struct {
	key   string
	index int
	err   error
}

func (e *boundError) Error() string { return e.err.Error() }

// checkBounds checks the series' bounds and return range against the
// registry, its estimators and the grid's first n0 (evaluate.CheckBounds:
// every bound known, listed once, supported by an estimator of the
// series, with n0 >= its MinN), and a finite return range with lo < hi
// exactly when a bound needs one.
func (s *Series) checkBounds(n0 int) *boundError {
	fail := func(key string, index int, format string, args ...any) *boundError {
		return &boundError{key, index, fmt.Errorf(format, args...)}
	}
	caps := make([]evaluate.Caps, 0, len(s.Estimators))
	for _, e := range s.Estimators {
		if info, ok := s.Info(e); ok {
			caps = append(caps, evaluate.CapsOf(info))
		}
	}
	if p := evaluate.CheckBounds(caps, s.Bounds, n0); p != nil {
		switch p.Kind {
		case evaluate.UnknownBound:
			return fail("bounds", p.Index, "unknown bound %q (%s)", p.Bound, yamlcheck.KnownList(p.Bound, confidence.Names()))
		case evaluate.RepeatedBound:
			return fail("bounds", p.Index, "%q is listed twice", p.Bound)
		case evaluate.Unsupported:
			return fail("bounds", p.Index, "%s is a bound of no estimator of the series (%s); estimators with it: %s",
				p.Bound, strings.Join(s.Estimators, ", "), strings.Join(p.Supporters, ", "))
		default:
			return fail("n", 0, "%d, but bound %s (series %s) needs n >= %d", n0, p.Bound, s.Name, p.MinN)
		}
	}
	needs := evaluate.NeedingRange(s.Bounds)
	switch {
	case len(needs) == 0 && s.ReturnRange != nil:
		return fail("return_range", -1, "%v, but no bound of the series needs the range of the returns (bounds that do: %s)",
			s.ReturnRange, strings.Join(evaluate.NeedingRange(confidence.Names()), ", "))
	case len(needs) == 0:
		return nil
	case s.ReturnRange == nil:
		return fail("return_range", -1, "missing: bound %s needs [g_lo, g_hi], a range holding every return of the series (under its gamma)", strings.Join(needs, ", "))
	case len(s.ReturnRange) != 2:
		return fail("return_range", -1, "%d values, want two: [g_lo, g_hi]", len(s.ReturnRange))
	}
	lo, hi := s.ReturnRange[0], s.ReturnRange[1]
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(lo < hi) {
		return fail("return_range", -1, "[%v, %v], want finite g_lo < g_hi", lo, hi)
	}
	return nil
}

// seriesBounds validates series[i].bounds and series[i].return_range as
// written (sc) and records them in rs.
func (v *validator) seriesBounds(sc *seriesYAML, rs *Series, field string, at func(...any) []any, r *Plan) {
	rs.Bounds = slices.Clone(sc.Bounds)
	rs.ReturnRange = slices.Clone(sc.ReturnRange)
	if len(rs.Bounds) == 0 {
		rs.Bounds = nil
	}
	n0 := math.MaxInt
	if len(r.N) > 0 {
		n0 = r.N[0]
	}
	be := rs.checkBounds(n0)
	if be == nil {
		return
	}
	switch {
	case be.key == "n":
		v.fail("n[0]", []any{"n", 0}, "%v", be.err)
	case be.key == "return_range" && sc.ReturnRange == nil:
		v.fail(field+".return_range", at("bounds"), "%v", be.err)
	case be.index >= 0:
		v.fail(fmt.Sprintf("%s.%s[%d]", field, be.key, be.index), at(be.key, be.index), "%v", be.err)
	default:
		v.fail(field+"."+be.key, at(be.key), "%v", be.err)
	}
}

// delta resolves the top-level delta: DefaultDelta when a series has
// bounds, refused when none has, and in (0, 1).
func (v *validator) delta(c *file, r *Plan) {
	if !r.HasBounds() {
		if c.Delta != nil {
			v.fail("delta", []any{"delta"}, "%v, but no series has bounds (series[].bounds): delta is their 1 - confidence", *c.Delta)
		}
		return
	}
	r.Delta = DefaultDelta
	if c.Delta != nil {
		r.Delta = *c.Delta
		if !(r.Delta > 0 && r.Delta < 1) {
			v.fail("delta", []any{"delta"}, "%v, want a number in (0, 1): the bounds hold with probability 1 - delta", r.Delta)
		}
	}
}

// checkBounds checks the plan's delta and every series' bounds (Check).
func (p *Plan) checkBounds() error {
	if p.HasBounds() {
		if !(p.Delta > 0 && p.Delta < 1) {
			return fmt.Errorf("plan %q: delta %v, want a number in (0, 1)", p.Name, p.Delta)
		}
	} else if p.Delta != 0 {
		return fmt.Errorf("plan %q: delta %v, but no series has bounds", p.Name, p.Delta)
	}
	for i := range p.Series {
		s := &p.Series[i]
		if err := s.checkBounds(p.N[0]); err != nil {
			return fmt.Errorf("series %s: %s: %w", s.Name, err.key, err.err)
		}
	}
	return nil
}
