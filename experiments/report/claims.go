package report

import (
	"math"
	"strings"

	"github.com/ope-lab/longhorizon/experiments/config"
)

// ClaimResult is a claim checked at one n.
type ClaimResult struct {
	Claim string
	N     int
	// Ratio is MSE(subject) / min over versus of MSE(versus); for a claim
	// on bias, subject's bias (curve.csv's); for a claim on a bound
	// quantity, the quantity's value (ClaimValue).
	Ratio float64
	// Holds is the point test: Ratio against the claim's thresholds.
	Holds bool
	// Boot is the paired bootstrap of an MSE claim's ratio (ClaimRule) or
	// the bootstrap of a bias claim's bias (BiasClaimRule), nil for a
	// claim on a bound quantity or without per-trial data.
	Boot *ClaimInterval
}

// ClaimSummary is a claim checked over its n range.
type ClaimSummary struct {
	Claim  config.Claim
	Points []ClaimResult
	// Holds is the point verdict: the point test at all (or some) n.
	Holds bool
	// Verdict is VerdictHolds, VerdictFails or VerdictInconclusive: for
	// an MSE or bias claim with per-trial data, from its bootstrap
	// (ClaimVerdict); else the point verdict. "" for an MSE or bias claim
	// without per-trial data.
	Verdict string
}

// CheckClaims evaluates every claim of r on rows, bounds and the per-trial
// estimates trials: at each n of the grid in [n_min, n_max], for an MSE
// claim ratio = MSE(subject) / min_v MSE(v) over the versus curves,
// holding when ratio <= max_ratio; for a claim on bias subject's bias
// from rows, holding when min <= bias <= max; for a claim on a bound
// quantity its value from subject's bounds row (ClaimValue), holding when
// value >= min (or <= max). The point verdict holds at all (or at some,
// per its "at") of those n. An MSE claim's verdict is that of its paired
// bootstrap over trials (ClaimRule), a bias claim's that of its bootstrap
// over trials (BiasClaimRule), both with B = ClaimReplicates streams keyed
// by r's seed and the claim's name; with no trials (nil) they have none.
func CheckClaims(r *config.Plan, rows []Row, bounds []BoundRow, trials []TrialRow) []ClaimSummary {
	mse := map[string]float64{}
	bias := map[string]float64{}
	truth := map[string]float64{}
	for _, row := range rows {
		k := curveKey(row.Series+"/"+row.Estimator, row.N)
		mse[k], bias[k], truth[k] = row.MSE, row.Bias, row.TrueValue
	}
	est := map[string][]float64{}
	for _, t := range trials {
		k := curveKey(t.Series+"/"+t.Estimator, t.N)
		est[k] = append(est[k], t.Estimate)
	}
	boundOf := boundIndex(bounds)
	var out []ClaimSummary
	for _, cl := range r.Claims {
		sum := ClaimSummary{Claim: cl, Holds: cl.At == "all"}
		var ns []int
		for _, n := range r.N {
			if n < cl.NMin || n > cl.NMax {
				continue
			}
			ns = append(ns, n)
			var ratio float64
			if cl.IsMSE() {
				best := math.Inf(1)
				for _, v := range cl.Versus {
					best = min(best, mse[curveKey(v, n)])
				}
				ratio = claimRatio(mse[curveKey(cl.Subject, n)], best)
			} else if cl.IsBias() {
				k := curveKey(cl.Subject, n)
				ratio = bias[k]
				if cl.Quantity == config.QuantityRelRMSE {
					ratio = relRMSE(mse[k], truth[k])
				}
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
		switch {
		case cl.IsBias():
			e, tv := claimEstimates(cl.Subject, ns, est, truth)
			if boot := BiasBootstrap(uint64(r.Seed), cl.Name, cl.Quantity, e, tv, cl.Min, cl.Max, ClaimReplicates); len(boot) == len(ns) && len(ns) > 0 {
				for j := range sum.Points {
					sum.Points[j].Boot = &boot[j]
				}
				sum.Verdict = verdictOf(&cl, sum.Points)
			}
		case !cl.IsMSE():
			sum.Verdict = pointVerdict(sum.Holds)
		default:
			if sq := claimSquaredErrors(&cl, ns, est, truth); sq != nil && len(ns) > 0 {
				boot := ClaimBootstrap(uint64(r.Seed), cl.Name, cl.MaxRatio, sq, ClaimReplicates)
				for j := range sum.Points {
					sum.Points[j].Boot = &boot[j]
				}
				sum.Verdict = verdictOf(&cl, sum.Points)
			}
		}
		out = append(out, sum)
	}
	return out
}

// verdictOf is the bootstrap verdict of MSE or bias claim cl from its
// points (each with its Boot).
func verdictOf(cl *config.Claim, points []ClaimResult) string {
	ple := make([]float64, len(points))
	pgt := make([]float64, len(points))
	for j, pt := range points {
		ple[j], pgt[j] = pt.Boot.PLE, pt.Boot.PGT
	}
	return ClaimVerdict(cl.At, ple, pgt, ClaimAlpha)
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
// against max_ratio (claimHolds), a bias or a bound quantity against min
// and max (whichever are set; at least one), exactly.
func claimTest(cl *config.Claim, v float64) bool {
	if cl.IsMSE() {
		return claimHolds(v, cl.MaxRatio)
	}
	return (cl.Min != nil || cl.Max != nil) && (cl.Min == nil || v >= *cl.Min) && (cl.Max == nil || v <= *cl.Max)
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
