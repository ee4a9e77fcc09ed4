package report

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/experiments/unit"
)

// Aggregate summarises unit results into curve rows (SPEC 3): per series,
// estimator and n, over trials in trial order, the mean estimate, bias,
// variance (denominator T), MSE = mean squared error, its standard
// error, and the mean effective sample sizes of the data (the same on
// every estimator's row of a series and n: the estimators share the
// data's weights). Results may come in any order; truths[s] is series s's
// V(pi_e).
func Aggregate(r *config.Plan, results []unit.Result, truths []domains.Truth) ([]resultsdir.Row, error) {
	bySeries, err := groupBySeries(r, results)
	if err != nil {
		return nil, err
	}
	var rows []resultsdir.Row
	est := make([]float64, r.Trials)
	sq := make([]float64, r.Trials)
	for s, rs := range r.Series {
		truth := truths[s].Value
		ess, minStep, err := meanESS(rs.Name, bySeries[s], r.N)
		if err != nil {
			return nil, err
		}
		for e, name := range rs.Estimators {
			for j, n := range r.N {
				for t, res := range bySeries[s] {
					est[t] = res.Estimates[e][j]
					d := est[t] - truth
					sq[t] = d * d
				}
				mean, variance := fixedPopMeanVariance(est)
				mse := fixedMean(sq)
				se := 0.0
				if r.Trials > 1 {
					se = fixedStdDev(sq) / math.Sqrt(float64(r.Trials))
				}
				row := resultsdir.Row{Experiment: r.Experiment, Series: rs.Name, Estimator: name, N: n, Trials: r.Trials,
					TrueValue: truth, MeanEstimate: mean, Bias: mean - truth, Variance: variance, MSE: mse, MSESE: se,
					ESS: ess[j], MinStepESS: minStep[j]}
				if bad := nonFinite(row); bad != "" {
					return nil, fmt.Errorf("series %s, estimator %s, n = %d: %s is not finite (estimates overflow float64 when squared)", rs.Name, name, n, bad)
				}
				rows = append(rows, row)
			}
		}
	}
	return rows, nil
}

// meanESS returns the means over trials, in trial order, of the trials'
// effective sample sizes at every n of grid.
func meanESS(series string, trials []*unit.Result, grid []int) (ess, minStep []float64, err error) {
	ess, minStep = make([]float64, len(grid)), make([]float64, len(grid))
	x, y := make([]float64, len(trials)), make([]float64, len(trials))
	for t, res := range trials {
		if len(res.ESS) != len(grid) || len(res.MinStepESS) != len(grid) {
			return nil, nil, fmt.Errorf("series %s, trial %d: %d and %d effective sample sizes, want one per n (%d)", series, t, len(res.ESS), len(res.MinStepESS), len(grid))
		}
	}
	for j := range grid {
		for t, res := range trials {
			x[t], y[t] = res.ESS[j], res.MinStepESS[j]
		}
		ess[j], minStep[j] = fixedMean(x), fixedMean(y)
	}
	return ess, minStep, nil
}

func nonFinite(r resultsdir.Row) string {
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
func groupBySeries(r *config.Plan, results []unit.Result) ([][]*unit.Result, error) {
	out := make([][]*unit.Result, len(r.Series))
	for s := range out {
		out[s] = make([]*unit.Result, r.Trials)
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

// AggregateDiagnostics returns one table per diagnostic name, in order of
// first appearance (series, then estimator order): for every estimator
// that reports it, the mean over trials at each n and index. The mean at
// index i is over the trials whose vector reaches i.
func AggregateDiagnostics(r *config.Plan, results []unit.Result) ([]resultsdir.DiagTable, error) {
	bySeries, err := groupBySeries(r, results)
	if err != nil {
		return nil, err
	}
	var tables []resultsdir.DiagTable
	table := map[string]int{}
	for s, rs := range r.Series {
		for e, name := range rs.Estimators {
			info, _ := rs.Info(name)
			for d, diag := range info.Diagnostics {
				k, ok := table[diag.Name]
				if !ok {
					k = len(tables)
					table[diag.Name] = k
					tables = append(tables, resultsdir.DiagTable{Name: diag.Name, Index: diag.Index})
				}
				rows, err := diagnosticMeans(bySeries[s], e, d, r.N)
				if err != nil {
					return nil, fmt.Errorf("series %s, estimator %s, diagnostic %s: %w", rs.Name, name, diag.Name, err)
				}
				for _, row := range rows {
					row.Series, row.Estimator = rs.Name, name
					tables[k].Rows = append(tables[k].Rows, row)
				}
			}
		}
	}
	return tables, nil
}

// diagnosticMeans averages diagnostic d of estimator e over the trials, at
// every n of grid and index.
func diagnosticMeans(trials []*unit.Result, e, d int, grid []int) ([]resultsdir.DiagRow, error) {
	var rows []resultsdir.DiagRow
	for j, n := range grid {
		h := 0
		for _, res := range trials {
			if len(res.Diagnostics[e]) <= d {
				return nil, fmt.Errorf("trial %d has no value", res.Trial)
			}
			h = max(h, len(res.Diagnostics[e][d][j]))
		}
		for t := 0; t < h; t++ {
			sum, count := 0.0, 0
			for _, res := range trials {
				if v := res.Diagnostics[e][d][j]; t < len(v) {
					sum += v[t]
					count++
				}
			}
			rows = append(rows, resultsdir.DiagRow{N: n, I: t + 1, Mean: sum / float64(count)})
		}
	}
	return rows, nil
}
