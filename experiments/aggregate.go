package experiments

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/ope-lab/longhorizon/experiments/curve"
)

// Aggregate summarises unit results into curve rows (SPEC 3): per series,
// estimator and n, over trials in trial order, the mean estimate, bias,
// variance (denominator T), MSE = mean squared error, and its standard
// error. Results may come in any order; truths[s] is series s's V(pi_e).
func Aggregate(r *Resolved, results []UnitResult, truths []Truth) ([]curve.Row, error) {
	bySeries, err := groupBySeries(r, results)
	if err != nil {
		return nil, err
	}
	var rows []curve.Row
	est := make([]float64, r.Trials)
	sq := make([]float64, r.Trials)
	for s, rs := range r.Series {
		truth := truths[s].Value
		for e, name := range rs.Estimators {
			for j, n := range r.N {
				for t, res := range bySeries[s] {
					est[t] = res.Estimates[e][j]
					d := est[t] - truth
					sq[t] = d * d
				}
				mean, variance := stat.PopMeanVariance(est, nil)
				mse := stat.Mean(sq, nil)
				se := 0.0
				if r.Trials > 1 {
					se = stat.StdDev(sq, nil) / math.Sqrt(float64(r.Trials))
				}
				row := curve.Row{Experiment: r.Experiment, Series: rs.Name, Estimator: name, N: n, Trials: r.Trials,
					TrueValue: truth, MeanEstimate: mean, Bias: mean - truth, Variance: variance, MSE: mse, MSESE: se}
				if bad := nonFinite(row); bad != "" {
					return nil, fmt.Errorf("series %s, estimator %s, n = %d: %s is not finite (estimates overflow float64 when squared)", rs.Name, name, n, bad)
				}
				rows = append(rows, row)
			}
		}
	}
	return rows, nil
}

func nonFinite(r curve.Row) string {
	for _, f := range []struct {
		name string
		v    float64
	}{{"mean_estimate", r.MeanEstimate}, {"variance", r.Variance}, {"mse", r.MSE}, {"mse_se", r.MSESE}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return f.name
		}
	}
	return ""
}

// groupBySeries orders results by (series, trial) and checks that every
// unit is present exactly once.
func groupBySeries(r *Resolved, results []UnitResult) ([][]*UnitResult, error) {
	out := make([][]*UnitResult, len(r.Series))
	for s := range out {
		out[s] = make([]*UnitResult, r.Trials)
	}
	for i := range results {
		res := &results[i]
		if res.Series < 0 || res.Series >= len(r.Series) || res.Trial < 0 || res.Trial >= r.Trials {
			return nil, fmt.Errorf("unit (series %d, trial %d) is not part of this config", res.Series, res.Trial)
		}
		if out[res.Series][res.Trial] != nil {
			return nil, fmt.Errorf("unit (series %s, trial %d) appears twice", r.Series[res.Series].Name, res.Trial)
		}
		out[res.Series][res.Trial] = res
	}
	for s := range out {
		for t, res := range out[s] {
			if res == nil {
				return nil, fmt.Errorf("unit (series %s, trial %d) is missing", r.Series[s].Name, t)
			}
		}
	}
	return out, nil
}

// AggregateKStar returns, for every estimator that reports k*, the mean k*
// over trials at each n and step t.
func AggregateKStar(r *Resolved, results []UnitResult) ([]curve.KStarRow, error) {
	bySeries, err := groupBySeries(r, results)
	if err != nil {
		return nil, err
	}
	var rows []curve.KStarRow
	for s, rs := range r.Series {
		for e, name := range rs.Estimators {
			if bySeries[s][0].KStar[e] == nil {
				continue
			}
			for j, n := range r.N {
				h := 0
				for _, res := range bySeries[s] {
					h = max(h, len(res.KStar[e][j]))
				}
				for t := 0; t < h; t++ {
					// mean over the trials whose data reach step t (with
					// variable-length episodes a trial may end earlier)
					sum, count := 0.0, 0
					for _, res := range bySeries[s] {
						if ks := res.KStar[e][j]; t < len(ks) {
							sum += float64(ks[t])
							count++
						}
					}
					rows = append(rows, curve.KStarRow{Series: rs.Name, Estimator: name, N: n, T: t + 1, MeanKStar: sum / float64(count)})
				}
			}
		}
	}
	return rows, nil
}

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
	Claim  ClaimConfig
	Points []ClaimResult
	Holds  bool
}

// CheckClaims evaluates every claim of r on rows: at each n of the grid in
// [n_min, n_max], ratio = MSE(subject) / min_v MSE(v) over the versus
// curves, holding when ratio <= max_ratio; the claim holds at all (or at
// some, per its "at") of those n.
func CheckClaims(r *Resolved, rows []curve.Row) []ClaimSummary {
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
			holds := ratio <= cl.MaxRatio*(1+claimRelTol)
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

// claimRatio is subject / best, with 0/0 := 1 (both estimators exact: equal).
func claimRatio(subject, best float64) float64 {
	if subject == 0 && best == 0 {
		return 1
	}
	return subject / best
}

// Truths computes every series' true value.
func Truths(r *Resolved, progress func(series string, frac float64)) ([]Truth, error) {
	out := make([]Truth, len(r.Series))
	for s, rs := range r.Series {
		var cb func(float64)
		if progress != nil {
			name := rs.Name
			cb = func(f float64) { progress(name, f) }
		}
		t, err := rs.spec.Truth(rs.Params, cb)
		if err != nil {
			return nil, fmt.Errorf("series %s: true value: %w", rs.Name, err)
		}
		out[s] = t
	}
	return slices.Clip(out), nil
}
