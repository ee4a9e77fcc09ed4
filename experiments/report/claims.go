package report

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/experiments/config"
)

// ClaimResult is a claim checked at one n.
type ClaimResult struct {
	Claim string
	N     int
	// Ratio is MSE(subject) / min over versus of MSE(versus).
	Ratio float64
	Holds bool
}

// ClaimSummary is a claim checked over its n range.
type ClaimSummary struct {
	Claim  config.Claim
	Points []ClaimResult
	Holds  bool
}

// CheckClaims evaluates every claim of r on rows: at each n of the grid in
// [n_min, n_max], ratio = MSE(subject) / min_v MSE(v) over the versus
// curves, holding when ratio <= max_ratio; the claim holds at all (or at
// some, per its "at") of those n.
func CheckClaims(r *config.Plan, rows []Row) []ClaimSummary {
	mse := map[string]float64{}
	for _, row := range rows {
		mse[fmt.Sprintf("%s/%s/%d", row.Series, row.Estimator, row.N)] = row.MSE
	}
	var out []ClaimSummary
	for _, cl := range r.Claims {
		sum := ClaimSummary{Claim: cl, Holds: cl.At == "all"}
		for _, n := range r.N {
			if n < cl.NMin || n > cl.NMax {
				continue
			}
			best := math.Inf(1)
			for _, v := range cl.Versus {
				best = min(best, mse[fmt.Sprintf("%s/%d", v, n)])
			}
			ratio := claimRatio(mse[fmt.Sprintf("%s/%d", cl.Subject, n)], best)
			holds := claimHolds(ratio, cl.MaxRatio)
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
