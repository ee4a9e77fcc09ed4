package quantity

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/domains"
)

// Source is what a quantity is computed from; it decides the lines of a
// panel, what the panel needs from the config and which builder of
// package report draws it.
type Source int

const (
	// Curve: one curve row (curve.csv) of a (series, estimator, n) with
	// its standard errors (stats.csv). One line per (series, estimator),
	// against n or a swept parameter; closed forms possible.
	Curve Source = iota
	// Bounds: one bounds row (bounds.csv) of a (series, estimator,
	// bound, n): needs series[].bounds. One line per (series, estimator,
	// bound), against n only, on a linear axis, with reference lines.
	Bounds
	// Baseline: a statistic of a curve row divided by its smallest value
	// over a baseline set of estimators of the same series and n: needs
	// plot.panels[].baseline (and allows combine). One line per (series,
	// estimator), or per estimator with combine: max, against n; or
	// against a swept parameter at one n (without combine); no standard
	// error, no closed form.
	Baseline
)

// String names the files a quantity of source s is read from, as the
// help text does.
func (s Source) String() string {
	switch s {
	case Curve:
		return "curve.csv, stats.csv"
	case Bounds:
		return "bounds.csv"
	case Baseline:
		return "curve.csv"
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

// CurveStats is what a Curve or Baseline quantity reads of one curve row
// (series, estimator, n) over T trials: curve.csv's columns and stats.csv's
// standard errors (resultsdir.Row, resultsdir.StatsRow).
type CurveStats struct {
	N, Trials    int
	TrueValue    float64
	MeanEstimate float64
	Bias         float64
	Variance     float64 // denominator T: MSE = Bias^2 + Variance
	MSE, MSESE   float64
	// BiasSE and VarianceSE are stats.csv's (NaN where a quantity with
	// NoStats is computed without it).
	BiasSE, VarianceSE float64
}

// BoundStats is what a Bounds quantity reads of one bounds row (series,
// estimator, bound, n; resultsdir.BoundRow).
type BoundStats struct {
	TrueValue            float64
	MeanBound, BoundSE   float64
	Coverage, CoverageSE float64
	Vacuous              float64
}

// Quantity is one entry of Table.
type Quantity struct {
	// Name is the value of plot.panels[].y.
	Name string
	// Doc says what the quantity is, for the help text.
	Doc string
	// Label is the default y axis label (plot.panels[].y_label overrides
	// it). In a Baseline quantity's label, {baseline} is replaced by the
	// labels of the baseline estimators.
	Label string
	// Source is what the quantity is computed from.
	Source Source
	// LogY is the default of plot.panels[].log_y.
	LogY bool
	// Linear, when not empty, is why log_y: true is refused (the quantity
	// can be negative or 0): the whole error message.
	Linear string
	// SE documents panels.csv's se column for this quantity.
	SE string

	// Value (Source Curve) is the value of the quantity at a curve row
	// and its standard error.
	Value func(c CurveStats) (y, se float64)
	// NoStats (Source Curve): Value reads curve.csv only, so a missing
	// stats.csv row is no error.
	NoStats bool
	// SEOfMean (Source Curve): se is the standard error of the mean
	// estimate, so when it is 0 (every trial gave the same estimate) the
	// deviation from the closed form is measured in the standard error
	// the closed form implies, sqrt(Var / T).
	SEOfMean bool
	// Closed (Source Curve; nil: no closed form) is the quantity from a
	// domain's closed-form moments of an estimator over data sets of n
	// trajectories; truth, when haveTruth, is V(pi_e), which converts
	// between bias and mean. ok is false when the moments do not
	// determine it.
	Closed func(m domains.Moments, n int, truth float64, haveTruth bool) (y float64, ok bool)

	// Bound (Source Bounds) is the value of the quantity at a bounds row
	// and its standard error.
	Bound func(b BoundStats) (y, se float64)
	// Fraction (Source Bounds): the quantity is a fraction of trials:
	// the y axis shows [0, 1] and the reference line is 1 - delta;
	// otherwise the reference lines are V(pi_e).
	Fraction bool

	// Of (Source Baseline) is the statistic of a curve row that is
	// divided by its smallest value over the baseline (Ratio).
	Of func(c CurveStats) float64
	// Note, when not empty, is appended to the note under the figure's
	// title when a panel draws the quantity.
	Note string

	// Undefined (Source Curve; nil: always defined) says why the quantity
	// has no value at a curve row, "" when it has one (rel_rmse at
	// V(pi_e) = 0). Package report leaves such a point out of the panel
	// and of panels.csv and says so under the panel's title: never a NaN
	// or an Inf drawn or written in its place.
	Undefined func(c CurveStats) string

	// WeightRef (Source Curve; nil: none) is the importance-sampling
	// scale that plot.panels[].weight_reference draws beside the points:
	// the quantity computed from w2 = E_b[W_H^2], the second moment of the
	// full importance weight under the behavior policy (a domain's truth
	// records it as domains.WeightSecondMoment), V(pi_e) v and n.
	WeightRef func(w2, v float64, n int) float64
	// WeightRefLabel is the legend label of WeightRef, WeightRefDoc what
	// it is (for the help text).
	WeightRefLabel, WeightRefDoc string
}

// ClosedKnows reports whether closed-form moments m determine q (given
// the true value).
func (q *Quantity) ClosedKnows(m domains.Moments) bool {
	if q.Closed == nil {
		return false
	}
	_, ok := q.Closed(m, 1, 0, true)
	return ok
}

// Ratio is the value of a Baseline quantity: x / best, where best is the
// smallest statistic of the baseline, with 0/0 := 1 (a value equal to
// the best is 1 whatever it is) and x/0 := +Inf for x > 0. NaN stays NaN.
func Ratio(x, best float64) float64 {
	switch {
	case x == best:
		return 1
	case best == 0 && x > 0:
		return math.Inf(1)
	}
	return x / best
}

// closedBias is the bias of closed-form moments m: Bias, or Mean - truth.
func closedBias(m domains.Moments, truth float64, haveTruth bool) (float64, bool) {
	if !math.IsNaN(m.Bias) {
		return m.Bias, true
	}
	if !math.IsNaN(m.Mean) && haveTruth {
		return m.Mean - truth, true
	}
	return 0, false
}

func closedVariance(m domains.Moments) (float64, bool) { return m.Variance, !math.IsNaN(m.Variance) }

// relRMSE is the relative RMSE sqrt(MSE)/|V| of a curve row and its
// standard error by the delta method: d sqrt(m)/dm = 1/(2 sqrt(m)), so
// se = mse_se / (2 sqrt(MSE) |V|); 0 when MSE = 0 (every squared error
// was 0, hence so is mse_se).
func relRMSE(c CurveStats) (float64, float64) {
	v := math.Abs(c.TrueValue)
	rmse := math.Sqrt(c.MSE)
	if rmse == 0 {
		return 0, 0
	}
	return rmse / v, c.MSESE / (2 * rmse * v)
}

// relUndefined: a relative quantity has no value where V(pi_e) = 0.
func relUndefined(c CurveStats) string {
	if c.TrueValue == 0 {
		return "V(pi_e) = 0"
	}
	return ""
}

const (
	negativeBias = "a bias can be negative: use y: abs_bias, or log_y: false"
	linearBound  = "is drawn on a linear axis (a bound can be negative, a coverage 0)"
)

// Table returns every panel quantity, in the order help and error
// messages list them: a fresh copy (its functions are shared).
func Table() []Quantity { return slices.Clone(table) }

// table is what Table returns.
var table = []Quantity{
	{
		Name: "mse", Doc: "the mean squared error of the estimates, bias^2 + variance (curve.csv's mse)",
		Label: "MSE", Source: Curve, LogY: true, SE: "mse_se",
		Value:   func(c CurveStats) (float64, float64) { return c.MSE, c.MSESE },
		NoStats: true,
		Closed: func(m domains.Moments, _ int, truth float64, haveTruth bool) (float64, bool) {
			b, okB := closedBias(m, truth, haveTruth)
			v, okV := closedVariance(m)
			return v + b*b, okV && okB
		},
		WeightRef:      func(w2, v float64, n int) float64 { return v * v * w2 / float64(n) },
		WeightRefLabel: "IS scale V(pi_e)^2 E_b[W_H^2]/n",
		WeightRefDoc: "the second moment of the IS estimate when every return equals V(pi_e): the scale of IS's variance with a constant return, V^2 (E_b[W_H^2] - 1)/n, " +
			"which it approaches when E_b[W_H^2] >> 1; not IS's MSE on the domain's own returns",
	},
	{
		Name: "rel_rmse", Doc: "the relative RMSE sqrt(MSE)/|V(pi_e)|; undefined where V(pi_e) = 0 (the point is left out and noted under the panel's title)",
		Label: "relative RMSE", Source: Curve, LogY: true, SE: "mse_se / (2 sqrt(MSE) |V(pi_e)|) (delta method; 0 when MSE = 0)",
		Value:          relRMSE,
		NoStats:        true,
		Undefined:      relUndefined,
		WeightRef:      func(w2, _ float64, n int) float64 { return math.Sqrt(w2 / float64(n)) },
		WeightRefLabel: "sqrt(E_b[W_H^2]/n)",
		WeightRefDoc: "the relative RMSE scale of IS: with every return equal to V(pi_e), IS's relative RMSE is sqrt((E_b[W_H^2] - 1)/n), " +
			"which it approaches when E_b[W_H^2] >> 1",
	},
	{
		Name: "variance", Doc: "the variance of the estimates over the trials (denominator T)",
		Label: "Var(estimate)", Source: Curve, LogY: true, SE: "variance_se",
		Value: func(c CurveStats) (float64, float64) { return c.Variance, c.VarianceSE },
		Closed: func(m domains.Moments, _ int, _ float64, _ bool) (float64, bool) {
			return closedVariance(m)
		},
	},
	{
		Name: "n_variance", Doc: "n times the variance: flat in n for an estimator whose variance is O(1/n)",
		Label: "n × Var(estimate)", Source: Curve, LogY: true, SE: "n variance_se",
		Value: func(c CurveStats) (float64, float64) {
			return float64(c.N) * c.Variance, float64(c.N) * c.VarianceSE
		},
		Closed: func(m domains.Moments, n int, _ float64, _ bool) (float64, bool) {
			v, ok := closedVariance(m)
			return float64(n) * v, ok
		},
	},
	{
		Name: "bias", Doc: "the mean estimate minus V(pi_e)",
		Label: "bias", Source: Curve, Linear: negativeBias, SE: "bias_se", SEOfMean: true,
		Value: func(c CurveStats) (float64, float64) { return c.Bias, c.BiasSE },
		Closed: func(m domains.Moments, _ int, truth float64, haveTruth bool) (float64, bool) {
			return closedBias(m, truth, haveTruth)
		},
	},
	{
		Name: "abs_bias", Doc: "the absolute bias |mean estimate - V(pi_e)|",
		Label: "|bias|", Source: Curve, LogY: true, SE: "bias_se", SEOfMean: true,
		Value: func(c CurveStats) (float64, float64) { return math.Abs(c.Bias), c.BiasSE },
		Closed: func(m domains.Moments, _ int, truth float64, haveTruth bool) (float64, bool) {
			b, ok := closedBias(m, truth, haveTruth)
			return math.Abs(b), ok
		},
	},
	{
		Name: "mean_estimate", Doc: "the mean of the estimates over the trials",
		Label: "mean estimate", Source: Curve, SE: "bias_se", SEOfMean: true,
		Value: func(c CurveStats) (float64, float64) { return c.MeanEstimate, c.BiasSE },
		Closed: func(m domains.Moments, _ int, truth float64, haveTruth bool) (float64, bool) {
			if !math.IsNaN(m.Mean) {
				return m.Mean, true
			}
			if !math.IsNaN(m.Bias) && haveTruth {
				return truth + m.Bias, true
			}
			return 0, false
		},
	},
	{
		Name: "lower_bound", Doc: "the mean lower bound over the trials (bounds.csv's mean_bound); V(pi_e) dashed",
		Label: "mean lower bound", Source: Bounds, Linear: "y lower_bound " + linearBound, SE: "bound_se",
		Bound: func(b BoundStats) (float64, float64) { return b.MeanBound, b.BoundSE },
	},
	{
		Name: "coverage", Doc: "the fraction of trials whose bound is <= V(pi_e) (bounds.csv's coverage); 1 - delta dashed, y axis [0, 1]",
		Label: "coverage", Source: Bounds, Linear: "y coverage " + linearBound, SE: "coverage_se", Fraction: true,
		Bound: func(b BoundStats) (float64, float64) { return b.Coverage, b.CoverageSE },
	},
	{
		Name: "mse_ratio", Doc: "MSE / min MSE of the baseline estimators, per series and n (0/0 := 1; x/0 := +Inf, drawn at the top of the axis and noted); the baseline estimators are drawn too, with a dashed reference at 1 labelled \"best of <baseline labels>\"; ratios of aggregates, so no error bars",
		Label: "MSE / min MSE({baseline})", Source: Baseline, LogY: true, SE: "0 (no standard error)",
		Of:   func(c CurveStats) float64 { return c.MSE },
		Note: "; MSE ratios: no error bars",
	},
}

// Lookup returns the quantity called name, a copy.
func Lookup(name string) (*Quantity, bool) {
	for i := range table {
		if table[i].Name == name {
			q := table[i]
			return &q, true
		}
	}
	return nil, false
}

// NamesOf lists the names of the quantities of source src, joined by
// " or " (for help texts and errors).
func NamesOf(src Source) string {
	var out []string
	for _, q := range table {
		if q.Source == src {
			out = append(out, q.Name)
		}
	}
	return strings.Join(out, " or ")
}

// Names returns the quantities' names, in Table's order.
func Names() []string {
	out := make([]string, len(table))
	for i, q := range table {
		out[i] = q.Name
	}
	return out
}

// Needs says what a panel of a quantity of source s needs and draws, for
// the help text.
func (s Source) Needs() string {
	switch s {
	case Curve:
		return "x: n, H (the series' horizon) or a swept parameter; a line per series and estimator (against H: per base series and estimator)"
	case Bounds:
		return "x: n only; series[].bounds; a line per series, estimator and bound"
	case Baseline:
		return "x: n, or H or a swept parameter at at_n (without combine); baseline (and optionally combine); a line per series and estimator (per line of series differing only in x; against H per base series), or per estimator with combine: max"
	}
	return ""
}

// WeightRefNames lists the quantities that draw a weight reference
// (WeightRef), joined by " or ".
func WeightRefNames() string {
	var out []string
	for _, q := range table {
		if q.WeightRef != nil {
			out = append(out, q.Name)
		}
	}
	return strings.Join(out, " or ")
}

// LogDefault lists the quantities drawn on a log y axis by default and
// those never drawn on one, for config.Keys' plot.panels[].log_y.
func LogDefault() (logY, never string) {
	var l, n []string
	for _, q := range table {
		if q.LogY {
			l = append(l, q.Name)
		}
		if q.Linear != "" {
			n = append(n, q.Name)
		}
	}
	return strings.Join(l, ", "), strings.Join(n, ", ")
}
