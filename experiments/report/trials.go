package report

import (
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/experiments/unit"
)

// TrialEstimates lists every estimate of the results of p (in any order)
// ordered by series, estimator and n (the plan's order, as curve.csv),
// then trial: the per-trial data behind every curve row, and what the
// claims' bootstrap resamples.
func TrialEstimates(p *config.Plan, results []unit.Result) ([]resultsdir.TrialRow, error) {
	bySeries, err := groupBySeries(p, results)
	if err != nil {
		return nil, err
	}
	rows := make([]resultsdir.TrialRow, 0, trialRows(p))
	for s, rs := range p.Series {
		for e, name := range rs.Estimators {
			for j, n := range p.N {
				for t, res := range bySeries[s] {
					rows = append(rows, resultsdir.TrialRow{Series: rs.Name, Estimator: name, N: n, Trial: t, Estimate: res.Estimates[e][j]})
				}
			}
		}
	}
	return rows, nil
}

// trialRows is the number of lines of trials.csv of p.
func trialRows(p *config.Plan) int { return resultsdir.CurveRows(p) * p.Trials }
