package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/experiments/claims"
)

// Kind returns the entry of claims.Table the claim is about (its
// Quantity; "" is claims.Default), nil for a quantity the table does not
// have (which validation refuses).
func (c *Claim) Kind() *claims.Quantity {
	q, _ := claims.Lookup(c.Quantity)
	return q
}

// Thresholds returns what the claim states about its quantity.
func (c *Claim) Thresholds() claims.Thresholds {
	return claims.Thresholds{MaxRatio: c.MaxRatio, Min: c.Min, Max: c.Max}
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// checkQuantity checks the claim's quantity, bound and thresholds against
// plan p (whose series are resolved) and the quantity's entry in
// claims.Table, returning the offending key. An unknown subject is left to
// the caller (curveRef).
func (c *Claim) checkQuantity(p *Plan) (key string, err error) {
	q := c.Kind()
	if q == nil {
		return "quantity", fmt.Errorf("%q, want one of %s", c.Quantity, strings.Join(claims.Names(), ", "))
	}
	bounds, curves, ratios := claims.NamesOf(claims.Bounds), claims.NamesOf(claims.Curve), claims.NamesOf(claims.Ratio)
	if q.Source == claims.Ratio {
		switch {
		case c.Bound != "":
			return "bound", fmt.Errorf("%q, but bound applies only to a claim on a bound quantity (quantity: %s)", c.Bound, orList(bounds))
		case c.Min != nil:
			return "min", fmt.Errorf("%v, but min applies only to a claim on a bound quantity or on %s; a claim on %s tests max_ratio", *c.Min, orList(curves), q.Name)
		case c.Max != nil:
			return "max", fmt.Errorf("%v, but max applies only to a claim on a bound quantity or on %s; a claim on %s tests max_ratio", *c.Max, orList(curves), q.Name)
		}
		return "", nil
	}
	switch {
	case len(c.Versus) > 0:
		return "versus", fmt.Errorf("%v, but versus applies only to quantity %s: a claim on %s tests subject's value against min or max", c.Versus, orList(ratios), c.Quantity)
	case c.MaxRatio != 0:
		return "max_ratio", fmt.Errorf("%v, but max_ratio applies only to quantity %s: a claim on %s tests min or max", c.MaxRatio, orList(ratios), c.Quantity)
	}
	if q.Source == claims.Curve {
		return c.checkRange(bounds)
	}
	return c.checkBound(p, q, curves)
}

// checkRange checks the bound and thresholds of a claim on a Curve
// quantity (whose versus and max_ratio are checked): no bound; min, max or
// both, with min <= max. It returns the offending key.
func (c *Claim) checkRange(bounds []string) (key string, err error) {
	switch {
	case c.Bound != "":
		return "bound", fmt.Errorf("%q, but a claim on %s is about subject's estimates, not a bound: bound applies only to a bound quantity (%s)", c.Bound, c.Quantity, strings.Join(bounds, ", "))
	case c.Min == nil && c.Max == nil:
		return "min", fmt.Errorf("missing: a claim on %s needs min, max or both (it states min <= %s <= max)", c.Quantity, c.Quantity)
	case c.Min != nil && c.Max != nil && *c.Min > *c.Max:
		return "max", fmt.Errorf("%v is below min %v: a claim on %s states min <= %s <= max", *c.Max, *c.Min, c.Quantity, c.Quantity)
	}
	return "", nil
}

// checkBound checks the bound and threshold of a claim on a Bounds
// quantity q (whose versus and max_ratio are checked): one of min and max
// (a fraction for a Fraction quantity), a bound of the subject's series
// that its estimator has, and the series' return_range where q needs it.
// It returns the offending key.
func (c *Claim) checkBound(p *Plan, q *claims.Quantity, curves []string) (key string, err error) {
	switch {
	case c.Min == nil && c.Max == nil:
		return "min", fmt.Errorf("missing: a claim on %s needs min (it holds at n when the value is >= min) or max (when it is <= max)", c.Quantity)
	case c.Min != nil && c.Max != nil:
		return "max", fmt.Errorf("%v, and min %v: want one of min and max (only a claim on %s takes both)", *c.Max, *c.Min, orList(curves))
	}
	thr, thrKey := c.Min, "min"
	if c.Max != nil {
		thr, thrKey = c.Max, "max"
	}
	if q.Fraction && !(*thr >= 0 && *thr <= 1) {
		return thrKey, fmt.Errorf("%v, want a fraction in [0, 1] (%s is a fraction of trials)", *thr, c.Quantity)
	}
	series, est, _ := strings.Cut(c.Subject, "/")
	i := slices.IndexFunc(p.Series, func(s Series) bool { return s.Name == series })
	if i < 0 || !slices.Contains(p.Series[i].Estimators, est) {
		return "", nil // curveRef names it
	}
	s := &p.Series[i]
	switch {
	case c.Bound == "":
		return "bound", fmt.Errorf("missing: a claim on %s names the bound it is about (series %s has: %s)", c.Quantity, s.Name, boundsList(s.Bounds))
	case !slices.Contains(s.Bounds, c.Bound):
		return "bound", fmt.Errorf("%q is not a bound of series %s (its bounds: %s)", c.Bound, s.Name, boundsList(s.Bounds))
	case !Supports(est, c.Bound):
		return "bound", fmt.Errorf("estimator %s has no %s bound (runexp help estimators lists each estimator's bounds)", est, c.Bound)
	}
	if _, _, ok := s.Range(); q.NeedsRange && !ok {
		return "quantity", fmt.Errorf("%s needs series %s's return_range (g_lo, the trivial bound); it has none", c.Quantity, s.Name)
	}
	return "", nil
}

// boundsList lists bounds for an error message ("none" when empty).
func boundsList(b []string) string {
	if len(b) == 0 {
		return "none"
	}
	return strings.Join(b, ", ")
}

// checkClaims checks the quantities of a plan's claims (Check): a claim
// on a Curve or Bounds quantity names a curve of the plan, one on a bound
// one of its bounds.
func (p *Plan) checkClaims() error {
	for _, c := range p.Claims {
		if q := c.Kind(); q != nil && q.Source != claims.Ratio {
			series, est, _ := strings.Cut(c.Subject, "/")
			if !slices.ContainsFunc(p.Series, func(s Series) bool { return s.Name == series && slices.Contains(s.Estimators, est) }) {
				return fmt.Errorf("claim %s: subject %q is not a curve of the plan", c.Name, c.Subject)
			}
		}
		if key, err := c.checkQuantity(p); err != nil {
			return fmt.Errorf("claim %s: %s: %w", c.Name, key, err)
		}
	}
	return nil
}
