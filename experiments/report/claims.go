package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/ope-lab/longhorizon/experiments/config"
)

// ClaimResult is a claim checked at one n.
type ClaimResult struct {
	Claim string
	N     int
	// Ratio is MSE(subject) / min over versus of MSE(versus); for a claim
	// on a bound quantity, the quantity's value (ClaimValue).
	Ratio float64
	Holds bool
}

// ClaimSummary is a claim checked over its n range.
type ClaimSummary struct {
	Claim  config.Claim
	Points []ClaimResult
	Holds  bool
}

// CheckClaims evaluates every claim of r on rows and bounds: at each n of
// the grid in [n_min, n_max], for an MSE claim ratio = MSE(subject) /
// min_v MSE(v) over the versus curves, holding when ratio <= max_ratio;
// for a claim on a bound quantity its value from subject's bounds row
// (ClaimValue), holding when value >= min (or <= max). The claim holds at
// all (or at some, per its "at") of those n.
func CheckClaims(r *config.Plan, rows []Row, bounds []BoundRow) []ClaimSummary {
	mse := map[string]float64{}
	for _, row := range rows {
		mse[fmt.Sprintf("%s/%s/%d", row.Series, row.Estimator, row.N)] = row.MSE
	}
	boundOf := boundIndex(bounds)
	var out []ClaimSummary
	for _, cl := range r.Claims {
		sum := ClaimSummary{Claim: cl, Holds: cl.At == "all"}
		for _, n := range r.N {
			if n < cl.NMin || n > cl.NMax {
				continue
			}
			var ratio float64
			if cl.IsMSE() {
				best := math.Inf(1)
				for _, v := range cl.Versus {
					best = min(best, mse[fmt.Sprintf("%s/%d", v, n)])
				}
				ratio = claimRatio(mse[fmt.Sprintf("%s/%d", cl.Subject, n)], best)
			} else {
				series, est, _ := strings.Cut(cl.Subject, "/")
				ratio = ClaimValue(cl.Quantity, boundOf[boundKey{series, est, cl.Bound, n}])
			}
			holds := claimTest(&cl, ratio)
			sum.Points = append(sum.Points, ClaimResult{Claim: cl.Name, N: n, Ratio: ratio, Holds: holds})
			if cl.At == "all" {
				sum.Holds = sum.Holds && holds
			} else {
				sum.Holds = sum.Holds || holds
			}
		}
		if len(sum.Points) == 0 {
			sum.Holds = false
		}
		out = append(out, sum)
	}
	return out
}

// ClaimValue returns claim quantity q (config.QuantityLowerBound,
// QuantityBoundGap, QuantityCoverage, QuantityVacuous) of a bounds row:
// the mean bound, the true value minus the mean bound, the coverage, the
// vacuous fraction; NaN for any other q.
func ClaimValue(q string, b BoundRow) float64 {
	switch q {
	case config.QuantityLowerBound:
		return b.MeanBound
	case config.QuantityBoundGap:
		return b.TrueValue - b.MeanBound
	case config.QuantityCoverage:
		return b.Coverage
	case config.QuantityVacuous:
		return b.Vacuous
	}
	return math.NaN()
}

// claimTest is the test of claim cl at one point of value v: an MSE ratio
// against max_ratio (claimHolds), a bound quantity against min or max,
// exactly.
func claimTest(cl *config.Claim, v float64) bool {
	switch {
	case cl.IsMSE():
		return claimHolds(v, cl.MaxRatio)
	case cl.Min != nil:
		return v >= *cl.Min
	case cl.Max != nil:
		return v <= *cl.Max
	}
	return false
}

// claimRelTol lets a ratio that meets its threshold up to floating-point
// rounding count as meeting it: two estimators that are the same number in
// exact arithmetic ("no worse than" claims, max_ratio 1) differ in the last
// bits of their MSE.
const claimRelTol = 1e-9

// claimHolds is the test of one point: ratio <= maxRatio, to claimRelTol.
func claimHolds(ratio, maxRatio float64) bool { return ratio <= maxRatio*(1+claimRelTol) }

// claimRatio is subject / best, with 0/0 := 1 (both estimators exact: equal).
func claimRatio(subject, best float64) float64 {
	if subject == 0 && best == 0 {
		return 1
	}
	return subject / best
}
