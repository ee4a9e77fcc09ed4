package config

import (
	"fmt"
	"slices"
	"strings"
)

// The quantities a claim can be about (config claims[].quantity).
const (
	// QuantityMSE: MSE(subject) / min MSE(versus) <= max_ratio (the
	// default, the paper's claims).
	QuantityMSE = "mse"
	// QuantityBias: the mean over trials of subject's estimate - V(pi_e),
	// in [min, max] (either or both given), with a bootstrap over trials.
	QuantityBias = "bias"
	// QuantityRelRMSE: subject's relative RMSE, sqrt(MSE) / |V(pi_e)|, in
	// [min, max] (either or both given), with a bootstrap over trials.
	QuantityRelRMSE = "rel_rmse"
	// QuantityLowerBound: the mean over trials of subject's bound.
	QuantityLowerBound = "lower_bound"
	// QuantityBoundGap: V(pi_e) minus the mean bound.
	QuantityBoundGap = "bound_gap"
	// QuantityCoverage: the fraction of trials whose bound is <= V(pi_e).
	QuantityCoverage = "coverage"
	// QuantityVacuous: the fraction of trials whose bound is <= g_lo.
	QuantityVacuous = "vacuous"
)

// ClaimQuantities documents every claim quantity, in the order errors
// list them. A claim on a bound quantity reads its value from the row of
// bounds.csv of subject's bound at n, and holds at n when value >= min
// (or value <= max), compared exactly. A claim on bias reads subject's
// curve.csv bias at n; its point test is min <= bias <= max (either bound
// may be absent), compared exactly, and its verdict comes from a bootstrap
// over the trials (report.BiasClaimRule).
var ClaimQuantities = []struct{ Name, Doc string }{
	{QuantityMSE, "MSE(subject) / min MSE(versus), tested against max_ratio"},
	{QuantityBias, "the mean over trials of subject's estimate - V(pi_e) (curve.csv bias), tested against [min, max] (min, max or both) with a bootstrap over trials"},
	{QuantityRelRMSE, "subject's relative RMSE, sqrt(MSE) / |V(pi_e)| (curve.csv mse and true_value; V(pi_e) = 0 leaves it undefined: no verdict), tested against [min, max] (min, max or both) with a bootstrap over trials"},
	{QuantityLowerBound, "the mean over trials of subject's bound (bounds.csv mean_bound)"},
	{QuantityBoundGap, "V(pi_e) - the mean bound (true_value - mean_bound): how far below the true value the bound is on average"},
	{QuantityCoverage, "the fraction of trials whose bound is <= V(pi_e) (bounds.csv coverage)"},
	{QuantityVacuous, "the fraction of trials whose bound is <= g_lo, no better than the trivial bound (bounds.csv vacuous; needs the series' return_range)"},
}

func claimQuantityNames() string {
	names := make([]string, len(ClaimQuantities))
	for i, q := range ClaimQuantities {
		names[i] = q.Name
	}
	return strings.Join(names, ", ")
}

// IsMSE reports whether the claim is about the MSE ratio (quantity
// absent or mse) rather than the bias or a bound.
func (c *Claim) IsMSE() bool { return c.Quantity == "" || c.Quantity == QuantityMSE }

// IsBias reports whether the claim is about a statistic of subject's
// estimates tested against [min, max]: its bias (quantity bias) or its
// relative RMSE (rel_rmse).
func (c *Claim) IsBias() bool { return c.Quantity == QuantityBias || c.Quantity == QuantityRelRMSE }

// IsBound reports whether the claim is about a quantity of subject's
// bound (lower_bound, bound_gap, coverage, vacuous): neither the MSE ratio
// nor a statistic of the estimates.
func (c *Claim) IsBound() bool { return !c.IsMSE() && !c.IsBias() }

// checkQuantity checks the claim's quantity, bound and thresholds against
// plan p (whose series are resolved), returning the offending key. An
// unknown subject is left to the caller (curveRef).
func (c *Claim) checkQuantity(p *Plan) (key string, err error) {
	if !slices.ContainsFunc(ClaimQuantities, func(q struct{ Name, Doc string }) bool { return q.Name == c.Quantity }) && c.Quantity != "" {
		return "quantity", fmt.Errorf("%q, want one of %s", c.Quantity, claimQuantityNames())
	}
	if c.IsMSE() {
		switch {
		case c.Bound != "":
			return "bound", fmt.Errorf("%q, but bound applies only to a claim on a bound quantity (quantity: %s, %s, %s or %s)", c.Bound, QuantityLowerBound, QuantityBoundGap, QuantityCoverage, QuantityVacuous)
		case c.Min != nil:
			return "min", fmt.Errorf("%v, but min applies only to a claim on a bound quantity or on %s; an MSE claim tests max_ratio", *c.Min, QuantityBias)
		case c.Max != nil:
			return "max", fmt.Errorf("%v, but max applies only to a claim on a bound quantity or on %s; an MSE claim tests max_ratio", *c.Max, QuantityBias)
		}
		return "", nil
	}
	switch {
	case len(c.Versus) > 0:
		return "versus", fmt.Errorf("%v, but versus applies only to quantity %s: a claim on %s tests subject's value against min or max", c.Versus, QuantityMSE, c.Quantity)
	case c.MaxRatio != 0:
		return "max_ratio", fmt.Errorf("%v, but max_ratio applies only to quantity %s: a claim on %s tests min or max", c.MaxRatio, QuantityMSE, c.Quantity)
	}
	if c.IsBias() {
		return c.checkBias()
	}
	switch {
	case c.Min == nil && c.Max == nil:
		return "min", fmt.Errorf("missing: a claim on %s needs min (it holds at n when the value is >= min) or max (when it is <= max)", c.Quantity)
	case c.Min != nil && c.Max != nil:
		return "max", fmt.Errorf("%v, and min %v: want one of min and max (only a claim on %s takes both)", *c.Max, *c.Min, QuantityBias)
	}
	thr, thrKey := c.Min, "min"
	if c.Max != nil {
		thr, thrKey = c.Max, "max"
	}
	if (c.Quantity == QuantityCoverage || c.Quantity == QuantityVacuous) && !(*thr >= 0 && *thr <= 1) {
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
	if _, _, ok := s.Range(); c.Quantity == QuantityVacuous && !ok {
		return "quantity", fmt.Errorf("%s needs series %s's return_range (g_lo, the trivial bound); it has none", c.Quantity, s.Name)
	}
	return "", nil
}

// boundQuantities lists the bound quantities, for error messages.
var boundQuantities = strings.Join([]string{QuantityLowerBound, QuantityBoundGap, QuantityCoverage, QuantityVacuous}, ", ")

// checkBias checks the bound and thresholds of a claim on bias (whose
// versus and max_ratio are checked): no bound; min, max or both, with
// min <= max. It returns the offending key.
func (c *Claim) checkBias() (key string, err error) {
	switch {
	case c.Bound != "":
		return "bound", fmt.Errorf("%q, but a claim on %s is about subject's estimates, not a bound: bound applies only to a bound quantity (%s)", c.Bound, c.Quantity, boundQuantities)
	case c.Min == nil && c.Max == nil:
		return "min", fmt.Errorf("missing: a claim on %s needs min, max or both (it states min <= %s <= max)", c.Quantity, c.Quantity)
	case c.Min != nil && c.Max != nil && *c.Min > *c.Max:
		return "max", fmt.Errorf("%v is below min %v: a claim on %s states min <= %s <= max", *c.Max, *c.Min, c.Quantity, c.Quantity)
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
// on the bias or a bound names a curve of the plan, one on a bound one of
// its bounds.
func (p *Plan) checkClaims() error {
	for _, c := range p.Claims {
		if !c.IsMSE() {
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
