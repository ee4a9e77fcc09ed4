package claims

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Source is what a claim quantity is computed from; it decides the keys
// a claim on it takes, the rows it reads and how its verdict is reached.
type Source int

const (
	// Ratio: a statistic of the subject's curve row over its smallest
	// value among the versus curves at the same n (0/0 := 1). Keys versus
	// and max_ratio; the point test is value <= max_ratio to 1e-9
	// relative; the verdict a paired bootstrap over trials (RatioRule).
	Ratio Source = iota
	// Curve: a statistic of the subject's curve row (curve.csv). Keys min,
	// max or both (min <= max); the point test is min <= value <= max,
	// exactly; the verdict a bootstrap over trials (CurveRule).
	Curve
	// Bounds: a statistic of the subject's bounds row (bounds.csv) of the
	// claim's bound. Keys bound and one of min and max; the point test is
	// value >= min (or <= max), exactly; the verdict is the point
	// verdict: trials.csv holds estimates, not bounds.
	Bounds
)

// String names the files a quantity of source s is read from.
func (s Source) String() string {
	switch s {
	case Ratio:
		return "curve.csv (subject and versus), trials.csv"
	case Curve:
		return "curve.csv (subject), trials.csv"
	case Bounds:
		return "bounds.csv (subject's bound)"
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

// Keys says which keys a claim on a quantity of source s takes and what
// its point test is, for the help text.
func (s Source) Keys() string {
	switch s {
	case Ratio:
		return "versus, max_ratio: holds at n when value <= max_ratio (to 1e-9 relative; 0/0 counts as 1)"
	case Curve:
		return "min, max or both (min <= max): holds at n when min <= value <= max, exactly"
	case Bounds:
		return "bound, and min or max: holds at n when value >= min (or <= max), exactly"
	}
	return ""
}

// VerdictDoc says how the verdict of a claim on a quantity of source s is
// reached, for the help text.
func (s Source) VerdictDoc() string {
	switch s {
	case Ratio:
		return "paired bootstrap over trials, B = 2000 (`runexp help files`: claims.csv)"
	case Curve:
		return "bootstrap over trials, B = 2000 (`runexp help files`: claims.csv)"
	case Bounds:
		return "the point verdict (no bootstrap: trials.csv holds estimates, not bounds)"
	}
	return ""
}

// Rule is the verdict rule of claims on quantities of source s (RatioRule,
// CurveRule), "" for Bounds (point verdict).
func (s Source) Rule() string {
	switch s {
	case Ratio:
		return RatioRule
	case Curve:
		return CurveRule
	}
	return ""
}

// CurveStats is what a Ratio or Curve quantity reads of one curve row
// (series, estimator, n; curve.csv's columns, resultsdir.Row).
type CurveStats struct {
	TrueValue    float64
	MeanEstimate float64
	Bias         float64
	Variance     float64 // denominator T: MSE = Bias^2 + Variance
	MSE          float64
}

// BoundStats is what a Bounds quantity reads of one bounds row (series,
// estimator, bound, n; bounds.csv's columns, resultsdir.BoundRow).
type BoundStats struct {
	TrueValue            float64
	MeanBound, BoundSE   float64
	Coverage, CoverageSE float64
	// Vacuous is NaN for a series without a return range.
	Vacuous float64
}

// Quantity is one entry of Table.
type Quantity struct {
	// Name is the value of claims[].quantity.
	Name string
	// Doc says what the quantity is and where its value is read from, for
	// the help text.
	Doc string
	// Source is what the quantity is computed from.
	Source Source
	// What describes the value in claims.md and `runexp claims`, with
	// {subject}, {versus} (Ratio) and {bound} (Bounds) replaced by the
	// claim's; the threshold follows it (Quantity.Test).
	What string

	// Value (Ratio, Curve) is the statistic of a curve row; a Ratio
	// quantity divides the subject's by the smallest of the versus
	// curves'.
	Value func(c CurveStats) float64
	// Replicate (Ratio, Curve) recomputes Value from one bootstrap
	// resample of the trials: est holds a curve's estimates at one n, one
	// per trial, idx the resampled trials' indices, truth V(pi_e).
	Replicate func(est []float64, idx []int, truth float64) float64
	// ReplicateDoc says what Replicate computes, for the help text.
	ReplicateDoc string
	// NonNegative (Ratio, Curve): the value is >= 0 or +Inf, and so are
	// the ends of its interval (claims.csv is read back so).
	NonNegative bool

	// Bound (Bounds) is the value at a bounds row.
	Bound func(b BoundStats) float64
	// Fraction (Bounds): the value is a fraction of trials, so the
	// claim's threshold must lie in [0, 1].
	Fraction bool
	// NeedsRange (Bounds): the value needs the series' return_range.
	NeedsRange bool
}

// Default is the quantity of a claim that names none (the paper's claims).
const Default = "mse"

// Thresholds are what a claim states about its quantity: MaxRatio for a
// Ratio quantity; Min, Max or both (nil: absent) for the others.
type Thresholds struct {
	MaxRatio float64
	Min, Max *float64
}

// Input is what Point reads at one n: the subject's curve row and the
// versus curves' rows (Ratio, Curve), or the subject's bounds row
// (Bounds).
type Input struct {
	Subject CurveStats
	Versus  []CurveStats
	Bound   BoundStats
}

// Point is the value of q at one n: Value of the subject's row (Curve),
// over the smallest Value of the versus rows (Ratio, with 0/0 := 1), or
// Bound of the bounds row (Bounds).
func (q *Quantity) Point(in Input) float64 {
	switch q.Source {
	case Ratio:
		best := math.Inf(1)
		for _, v := range in.Versus {
			best = min(best, q.Value(v))
		}
		return ratio(q.Value(in.Subject), best)
	case Curve:
		return q.Value(in.Subject)
	}
	return q.Bound(in.Bound)
}

// Holds is the point test of value v against th: v <= MaxRatio to
// relTol (Ratio), min <= v <= max exactly, over the thresholds given (at
// least one; none holds nothing).
func (q *Quantity) Holds(v float64, th Thresholds) bool {
	if q.Source == Ratio {
		return ratioHolds(v, th.MaxRatio)
	}
	return (th.Min != nil || th.Max != nil) && (th.Min == nil || v >= *th.Min) && (th.Max == nil || v <= *th.Max)
}

// Test states the test of a claim on q, e.g. "MSE(s/is) / min MSE(s/wis)
// <= 1", "bias (mean estimate - V(pi_e)) of s/wis in [-0.01, 0.01]",
// "bound_gap (V(pi_e) - mean hcope bound) of s/is <= 0.1".
func (q *Quantity) Test(subject string, versus []string, bound string, th Thresholds) string {
	what := strings.NewReplacer("{subject}", subject, "{versus}", strings.Join(versus, ", "), "{bound}", bound).Replace(q.What)
	var thr string
	switch {
	case q.Source == Ratio:
		thr = fmt.Sprintf("<= %v", th.MaxRatio)
	case th.Min != nil && th.Max != nil:
		thr = fmt.Sprintf("in [%v, %v]", *th.Min, *th.Max)
	case th.Min != nil:
		thr = fmt.Sprintf(">= %v", *th.Min)
	case th.Max != nil:
		thr = fmt.Sprintf("<= %v", *th.Max)
	}
	return what + " " + thr
}

// relTol lets a ratio that meets its threshold up to floating-point
// rounding count as meeting it: two estimators that are the same number in
// exact arithmetic ("no worse than" claims, max_ratio 1) differ in the last
// bits of their MSE.
const relTol = 1e-9

// ratioHolds is the test of one ratio: ratio <= maxRatio, to relTol.
func ratioHolds(r, maxRatio float64) bool { return r <= maxRatio*(1+relTol) }

// ratio is subject / best, with 0/0 := 1 (both estimators exact: equal).
func ratio(subject, best float64) float64 {
	if subject == 0 && best == 0 {
		return 1
	}
	return subject / best
}

// relRMSE is sqrt(mse) / |v|, with v = 0: 0 when mse is 0, else +Inf
// (CurveRule).
func relRMSE(mse, v float64) float64 {
	if v == 0 {
		if mse == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return math.Sqrt(mse) / math.Abs(v)
}

// resampledMean is the mean of x at the indices idx, summed in idx's order.
func resampledMean(x []float64, idx []int) float64 {
	s := 0.0
	for _, i := range idx {
		s += x[i]
	}
	return s / float64(len(idx))
}

// resampledSquaredError is the mean of (e[i] - v)^2 over the indices idx,
// summed in idx's order (each square rounded before it is added).
func resampledSquaredError(e []float64, idx []int, v float64) float64 {
	s := 0.0
	for _, i := range idx {
		d := e[i] - v
		s += float64(d * d)
	}
	return s / float64(len(idx))
}

// table lists every claim quantity, in the order help and error messages
// list them (Table returns a copy).
var table = []Quantity{
	{
		Name: "mse", Source: Ratio, NonNegative: true,
		Doc:          "MSE(subject) / min MSE(versus): the subject's MSE over the smallest MSE of the versus curves at the same n (curve.csv's mse)",
		What:         "MSE({subject}) / min MSE({versus})",
		Value:        func(c CurveStats) float64 { return c.MSE },
		Replicate:    resampledSquaredError,
		ReplicateDoc: "the mean of the resampled squared errors (estimate - true value)^2, the subject's over the smallest of the versus curves'",
	},
	{
		Name: "bias", Source: Curve,
		Doc:          "the mean over trials of subject's estimate - V(pi_e) (curve.csv's bias)",
		What:         "bias (mean estimate - V(pi_e)) of {subject}",
		Value:        func(c CurveStats) float64 { return c.Bias },
		Replicate:    func(est []float64, idx []int, truth float64) float64 { return resampledMean(est, idx) - truth },
		ReplicateDoc: "the mean of the subject's resampled estimates minus V(pi_e)",
	},
	{
		Name: "rel_rmse", Source: Curve, NonNegative: true,
		Doc:  "subject's relative RMSE, sqrt(MSE) / |V(pi_e)| (curve.csv's mse and true_value; with V(pi_e) = 0: 0 when the MSE is 0, else +Inf)",
		What: "relative RMSE (sqrt(MSE) / |V(pi_e)|) of {subject}",
		Value: func(c CurveStats) float64 {
			return relRMSE(c.MSE, c.TrueValue)
		},
		Replicate: func(est []float64, idx []int, truth float64) float64 {
			return relRMSE(resampledSquaredError(est, idx, truth), truth)
		},
		ReplicateDoc: "the root of the mean of the subject's resampled squared errors divided by |V(pi_e)| (the same convention at V(pi_e) = 0)",
	},
	{
		Name: "lower_bound", Source: Bounds,
		Doc:   "the mean over trials of subject's bound (bounds.csv's mean_bound)",
		What:  "lower_bound (mean {bound} bound) of {subject}",
		Bound: func(b BoundStats) float64 { return b.MeanBound },
	},
	{
		Name: "bound_gap", Source: Bounds,
		Doc:   "V(pi_e) - the mean bound (true_value - mean_bound): how far below the true value the bound is on average",
		What:  "bound_gap (V(pi_e) - mean {bound} bound) of {subject}",
		Bound: func(b BoundStats) float64 { return b.TrueValue - b.MeanBound },
	},
	{
		Name: "coverage", Source: Bounds, Fraction: true,
		Doc:   "the fraction of trials whose bound is <= V(pi_e) (bounds.csv's coverage)",
		What:  "coverage (fraction of trials with {bound} bound <= V(pi_e)) of {subject}",
		Bound: func(b BoundStats) float64 { return b.Coverage },
	},
	{
		Name: "vacuous", Source: Bounds, Fraction: true, NeedsRange: true,
		Doc:   "the fraction of trials whose bound is <= g_lo, no better than the trivial bound (bounds.csv's vacuous; needs the series' return_range)",
		What:  "vacuous (fraction of trials with {bound} bound <= g_lo) of {subject}",
		Bound: func(b BoundStats) float64 { return b.Vacuous },
	},
}

// Table returns every claim quantity, in the order help and error
// messages list them: a fresh copy (its functions are shared).
func Table() []Quantity { return slices.Clone(table) }

// Lookup returns the quantity called name ("" is Default), a copy.
func Lookup(name string) (*Quantity, bool) {
	if name == "" {
		name = Default
	}
	for i := range table {
		if table[i].Name == name {
			q := table[i]
			return &q, true
		}
	}
	return nil, false
}

// Names returns the quantities' names, in Table's order.
func Names() []string {
	out := make([]string, len(table))
	for i, q := range table {
		out[i] = q.Name
	}
	return out
}

// NamesOf lists the names of the quantities of source src, in Table's
// order (for help texts and errors).
func NamesOf(src Source) []string {
	var out []string
	for _, q := range table {
		if q.Source == src {
			out = append(out, q.Name)
		}
	}
	return out
}
