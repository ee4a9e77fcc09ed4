package report

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/experiments/unit"
)

// AggregateBounds summarises the lower bounds of every unit into bounds
// rows: per series (plan order), estimator (series order), bound (series
// order, those the estimator supports: config.Series.BoundPairs) and n,
// over the trials in trial order. Results may come in any order; truths[s]
// is series s's V(pi_e). A plan without bounds gives no rows.
func AggregateBounds(p *config.Plan, results []unit.Result, truths []domains.Truth) ([]resultsdir.BoundRow, error) {
	if !p.HasBounds() {
		return nil, nil
	}
	bySeries, err := groupBySeries(p, results)
	if err != nil {
		return nil, err
	}
	var rows []resultsdir.BoundRow
	x := make([]float64, p.Trials)
	t := float64(p.Trials)
	for s := range p.Series {
		rs := &p.Series[s]
		truth := truths[s].Value
		lo, _, hasRange := rs.Range()
		for e, est := range rs.Estimators {
			for k, kind := range rs.Bounds {
				if !config.Supports(est, kind) {
					continue
				}
				for j, n := range p.N {
					covered, vacuous := 0, 0
					for tr, res := range bySeries[s] {
						if len(res.Bounds) <= e || len(res.Bounds[e]) <= k || len(res.Bounds[e][k]) <= j {
							return nil, fmt.Errorf("series %s, trial %d: no %s bound of estimator %s at n = %d", rs.Name, tr, kind, est, n)
						}
						x[tr] = res.Bounds[e][k][j]
						if x[tr] <= truth {
							covered++
						}
						if hasRange && x[tr] <= lo {
							vacuous++
						}
					}
					row := resultsdir.BoundRow{Series: rs.Name, Estimator: est, Bound: kind, N: n, Trials: p.Trials, Delta: p.Delta,
						TrueValue: truth, MeanBound: fixedMean(x), Coverage: float64(covered) / t, Vacuous: math.NaN()}
					if p.Trials > 1 {
						row.BoundSE = fixedStdDev(x) / math.Sqrt(t)
					}
					row.CoverageSE = resultsdir.CoverageSE(row.Coverage, p.Trials)
					if hasRange {
						row.Vacuous = float64(vacuous) / t
					}
					if math.IsNaN(row.MeanBound) || math.IsInf(row.MeanBound, 0) || math.IsNaN(row.BoundSE) || math.IsInf(row.BoundSE, 0) {
						return nil, fmt.Errorf("series %s, estimator %s, bound %s, n = %d: the mean bound or its standard error is not finite", rs.Name, est, kind, n)
					}
					rows = append(rows, row)
				}
			}
		}
	}
	return rows, nil
}
