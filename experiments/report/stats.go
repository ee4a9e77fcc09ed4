package report

import (
	"math"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/experiments/unit"
)

// AggregateStats computes the stats rows of every curve row, in curve.csv's
// order, from unit results ordered by (series, trial).
func AggregateStats(r *config.Plan, results []unit.Result) ([]resultsdir.StatsRow, error) {
	bySeries, err := groupBySeries(r, results)
	if err != nil {
		return nil, err
	}
	var rows []resultsdir.StatsRow
	est := make([]float64, r.Trials)
	t := float64(r.Trials)
	for s, rs := range r.Series {
		for e, name := range rs.Estimators {
			for j, n := range r.N {
				for tr, res := range bySeries[s] {
					est[tr] = res.Estimates[e][j]
				}
				mean, v := fixedPopMeanVariance(est)
				m4 := 0.0
				for _, x := range est {
					d := x - mean
					m4 += d * d * d * d
				}
				m4 /= t
				row := resultsdir.StatsRow{Series: rs.Name, Estimator: name, N: n, VarianceSE: math.Sqrt(math.Max(m4-v*v, 0) / t)}
				if r.Trials > 1 {
					row.BiasSE = math.Sqrt(v / (t - 1))
				}
				rows = append(rows, row)
			}
		}
	}
	return rows, nil
}
