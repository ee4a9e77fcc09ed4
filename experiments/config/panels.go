package config

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments/quantity"
	"github.com/ope-lab/longhorizon/internal/yamlcheck"
)

// Panel is one panel of a figure with panels (YAML plot.panels[i]):
// a small view of the run's rows, y against n or against a swept domain
// parameter at one n of the grid.
//
//	plot:
//	  panels:
//	    - title: "A. Theorem 1: n Var(PDIS) grows as 2^H"
//	      series: [chain_pe1, chain_pe09]  # base or full series names; default all
//	      estimators: [pdis]               # default all
//	      x: horizon      # "n" (default), "H" (HorizonX), or a parameter swept in every selected series
//	      at_n: 4096      # with x other than n: which n of the grid
//	      y: n_variance   # a quantity of quantity.Table; default mse
//	      log_x: false    # default true for x = n or H, false otherwise
//	      log_y: true     # default the quantity's (quantity.Quantity.LogY)
//	      y_min: 1e-12    # log y only: the axis starts here; lower values are drawn at it
//	      closed_form: true     # draw the domain's closed form beside the points
//	      x_label: "horizon H"  # optional axis labels (also y_label)
//	      slope: true           # add the panel's lines to slopes.csv
//
// What y can be, what each quantity needs, its default scale and label,
// and how its points and closed forms are computed are one table, package
// quantity; validation here reads it.
//
// Lines of a quantity of source quantity.Curve: with x = n, one per
// (series, estimator); with x a parameter, one per (base series,
// estimator, values of the other swept parameters), through the series of
// the sweep. Points carry +/- 1 standard error of the plotted quantity
// (resultsdir.StatsRow).
//
// With x = HorizonX ("H") the x of a series is its horizon, the longest
// trajectory its domain draws (domains.Spec.MaxSteps: horizon for
// randommdp and chainmdp, 2 x subepisodes for subepisode and drift, the
// cap for noisytaxi), whatever parameter or parameters set it, so that
// one panel draws domains parameterised differently against one axis:
//
//	plot:
//	  panels:
//	    - title: "Relative RMSE against the horizon at n = 1000"
//	      series: [random, chain]   # their series need distinct H per base
//	      x: H
//	      at_n: 1000
//	      y: rel_rmse
//	      weight_reference: true    # y mse or rel_rmse only
//	      slope: true
//
// Lines are one per (base series, estimator), through the selected series
// of that base in increasing H: no two of them may have the same H (select
// the ones a line runs through in series). log_x is true by default and
// the axis label "horizon H"; closed forms, where asked, are joined
// between the series' own points (H is no parameter to sample densely).
//
// weight_reference: true (y of a quantity with a quantity.Quantity.
// WeightRef: mse, rel_rmse) draws, dashed, per line of series (x = H: per
// base series), the importance-sampling scale from each series'
// E_b[W_H^2] (its truth's domains.WeightSecondMoment in meta.json) at n =
// at_n, or at each n with x = n: sqrt(E_b[W_H^2]/n) for rel_rmse,
// V(pi_e)^2 E_b[W_H^2]/n for mse (labelled "IS scale": the second moment
// of IS with every return equal to V(pi_e)). A series whose truth records
// no E_b[W_H^2] has no reference point; the panel's note says so.
// panels.csv gets its points as rows with an empty estimator.
//
// slope: true adds to slopes.csv, per line of the panel (weight
// references included), the ordinary least-squares fit of log10 y on
// log10 x over its points with finite y > 0 and x > 0: slope, its
// standard error and intercept.
//
// A quantity of source quantity.Bounds (lower_bound, coverage; x = n
// only) draws the lower bounds of SPEC 1e (bounds.csv): one line per
// (series, estimator, bound) of the selected series, with a dashed
// reference (V(pi_e), or 1 - delta for a fraction), on linear y axes.
//
// A quantity of source quantity.Baseline (mse_ratio; x = n, or a swept
// parameter at at_n without combine) draws
// each estimator's statistic relative to the best of a baseline set, per
// series:
//
//	plot:
//	  panels:
//	    - title: "Summary: MSE / best of WIS, CWPDIS"
//	      y: mse_ratio
//	      baseline: [wis, cwpdis]  # required; estimators of every selected series
//	      combine: max             # optional: one line per estimator, its worst case over the series
//
// The value at (series s, estimator e, n) is MSE(s, e, n) / min over b in
// baseline of MSE(s, b, n) (quantity.Ratio: 0/0 := 1, x/0 := +Inf for x >
// 0, which the figure draws at the top of the axis and notes under the
// panel's title). Lines are one per (series, estimator), the baseline
// estimators included when the panel draws them (their ratio is >= 1, and
// 1 for the best); a dashed reference line at 1 is labelled "best of
// <baseline labels>". With combine: max there is one line per estimator,
// whose value at n is the largest ratio over the selected series that have
// it (the worst case over domains), labelled "<estimator label> (worst
// over N series)"; panels.csv then names, per point, the series that
// attains it (the first on ties). An estimator's label is plot.labels of
// "<series>/<estimator>" (full or base name, the first selected series
// that has one without {param} placeholders), else its key. The points are
// ratios of aggregates, not means over trials: they have no standard error
// (SE 0 in panels.csv, no error bars), and no closed form.
type Panel struct {
	Title      string   `yaml:"title" json:"title,omitempty"`
	Series     []string `yaml:"series" json:"series,omitempty"`
	Estimators []string `yaml:"estimators" json:"estimators,omitempty"`
	X          string   `yaml:"x" json:"x"`
	AtN        int      `yaml:"at_n" json:"at_n,omitempty"`
	Y          string   `yaml:"y" json:"y"`
	LogX       *bool    `yaml:"log_x" json:"log_x"`
	LogY       *bool    `yaml:"log_y" json:"log_y"`
	// YMin, when set (only on a log y axis), is where the y axis starts:
	// the figure draws every lower value (point, error bar end, line
	// vertex) at YMin and notes it under the panel's title. Drawing only:
	// no number written is changed.
	YMin       *float64 `yaml:"y_min" json:"y_min,omitempty"`
	ClosedForm bool     `yaml:"closed_form" json:"closed_form,omitempty"`
	XLabel     string   `yaml:"x_label" json:"x_label,omitempty"`
	YLabel     string   `yaml:"y_label" json:"y_label,omitempty"`
	// Baseline (a y of source quantity.Baseline only, and required with
	// it) lists the estimators whose smallest MSE (or the quantity's
	// statistic) divides every MSE of the panel.
	Baseline []string `yaml:"baseline" json:"baseline,omitempty"`
	// Combine (a y of source quantity.Baseline only) is "" for one line per (series,
	// estimator) or CombineMax for one line per estimator: its largest
	// ratio over the selected series.
	Combine string `yaml:"combine" json:"combine,omitempty"`
	// WeightReference (a y whose quantity has a WeightRef: mse,
	// rel_rmse) draws the importance-sampling scale beside the points.
	WeightReference bool `yaml:"weight_reference" json:"weight_reference,omitempty"`
	// Slope adds the panel's lines to slopes.csv: the least-squares
	// slope of log10 y on log10 x of each.
	Slope bool `yaml:"slope" json:"slope,omitempty"`
	// Horizons (x = HorizonX only; not a config key) records the horizon
	// H of every selected series by name, filled in by validation from
	// domains.Spec.MaxSteps, so that meta.json redraws the panel without
	// domain code.
	Horizons map[string]int `yaml:"-" json:"horizons,omitempty"`
}

// CombineMax is the one value of Panel.Combine: a line per estimator, its
// worst (largest) MSE ratio over the selected series.
const CombineMax = "max"

// Quantity returns the panel's quantity (quantity.Lookup of its y).
func (pc *Panel) Quantity() (*quantity.Quantity, bool) { return quantity.Lookup(pc.Y) }

// PanelSeries returns the indices of the series a panel selects: those
// whose full or base name is listed, all when the list is empty.
func (r *Plan) PanelSeries(names []string) []int {
	var out []int
	for s, rs := range r.Series {
		if len(names) == 0 || slices.Contains(names, rs.Name) || slices.Contains(names, rs.Base) {
			out = append(out, s)
		}
	}
	return out
}

// EstimatorsOf returns the estimators the panel draws for series rs.
func (pc *Panel) EstimatorsOf(rs *Series) []string {
	if len(pc.Estimators) == 0 {
		return rs.Estimators
	}
	var out []string
	for _, e := range rs.Estimators {
		if slices.Contains(pc.Estimators, e) {
			out = append(out, e)
		}
	}
	return out
}

// BoundLine is a line of a panel of a bound quantity: estimator E and
// bound B of a series, indices into its Estimators and Bounds.
type BoundLine struct{ E, B int }

// BoundLines returns the lines a panel of a bound quantity draws for
// series rs: every bound of rs for every estimator the panel draws that
// supports it, in bounds.csv's order (config.Series.BoundPairs).
func (pc *Panel) BoundLines(rs *Series) []BoundLine {
	ests := pc.EstimatorsOf(rs)
	var out []BoundLine
	rs.BoundPairs(func(e, b int) {
		if slices.Contains(ests, rs.Estimators[e]) {
			out = append(out, BoundLine{e, b})
		}
	})
	return out
}

// panels validates plot.panels and returns them with defaults filled in.
func (v *validator) panels(ps []Panel, r *Plan) []Panel {
	if len(ps) == 0 {
		return nil
	}
	out := make([]Panel, 0, len(ps))
	for i, pc := range ps {
		at := func(keys ...any) []any { return append([]any{"plot", "panels", i}, keys...) }
		field := fmt.Sprintf("plot.panels[%d]", i)
		pc.Series = slices.Clone(pc.Series)
		pc.Estimators = slices.Clone(pc.Estimators)
		for j, name := range pc.Series {
			f := fmt.Sprintf("%s.series[%d]", field, j)
			if !slices.ContainsFunc(r.Series, func(rs Series) bool { return rs.Name == name || rs.Base == name }) {
				names := make([]string, 0, len(r.Series))
				for _, rs := range r.Series {
					if !slices.Contains(names, rs.Base) {
						names = append(names, rs.Base)
					}
				}
				v.fail(f, at("series", j), "no series %q (series: %s)", name, strings.Join(names, ", "))
			} else if slices.Index(pc.Series, name) < j {
				v.fail(f, at("series", j), "%q is listed twice", name)
			}
		}
		sel := r.PanelSeries(pc.Series)
		for j, e := range pc.Estimators {
			f := fmt.Sprintf("%s.estimators[%d]", field, j)
			if !r.knows(e) {
				v.fail(f, at("estimators", j), "unknown estimator %q (%s)", e, yamlcheck.KnownList(e, estimators.Names()))
			} else if !slices.ContainsFunc(sel, func(s int) bool { return slices.Contains(r.Series[s].Estimators, e) }) {
				v.fail(f, at("estimators", j), "no selected series has estimator %q", e)
			} else if slices.Index(pc.Estimators, e) < j {
				v.fail(f, at("estimators", j), "%q is listed twice", e)
			}
		}

		if pc.X == "" {
			pc.X = "n"
		}
		if pc.Y == "" {
			pc.Y = "mse"
		}
		q, known := pc.Quantity()
		if !known {
			v.fail(field+".y", at("y"), "%q, want one of %s", pc.Y, strings.Join(quantity.Names(), ", "))
			q = &quantity.Quantity{Name: pc.Y, Source: quantity.Curve}
		}
		switch {
		case pc.X != "n" && q.Source == quantity.Bounds:
			v.fail(field+".x", at("x"), "%q, but y %s is drawn against n only", pc.X, pc.Y)
		case pc.X != "n" && pc.Combine != "":
			v.fail(field+".x", at("x"), "%q, but combine %s is drawn against n only", pc.X, pc.Combine)
		}
		switch pc.X {
		case "n":
		case HorizonX:
			pc.Horizons = v.horizons(field, at, r, sel)
		default:
			for _, s := range sel {
				rs := &r.Series[s]
				if _, ok := rs.Spec().Param(pc.X); !ok {
					v.fail(field+".x", at("x"), "%q is neither n, %s nor a parameter of domain %s (series %s)", pc.X, HorizonX, rs.Domain, rs.Name)
					break
				}
				if _, ok := rs.Sweep[pc.X]; !ok {
					v.fail(field+".x", at("x"), "%s is not swept in series %s (one value); want n, %s or a parameter with a list of values", pc.X, rs.Name, HorizonX)
					break
				}
			}
		}
		if pc.X != "n" {
			if pc.AtN == 0 {
				v.fail(field+".at_n", at(), "missing: x = %s needs at_n, the n of the grid %v at which to read the rows", pc.X, r.N)
			} else if !slices.Contains(r.N, pc.AtN) {
				v.fail(field+".at_n", at("at_n"), "%d is not in the n grid %v", pc.AtN, r.N)
			}
		} else if pc.AtN != 0 {
			v.fail(field+".at_n", at("at_n"), "%d, but at_n applies only when x is H or a swept parameter (x is n)", pc.AtN)
		}

		logY := q.LogY
		bound := q.Source == quantity.Bounds
		logX := DefaultLogX(pc.X)
		if pc.LogX != nil {
			logX = *pc.LogX
		}
		if pc.LogY != nil {
			logY = *pc.LogY
		}
		pc.LogX, pc.LogY = &logX, &logY
		if logY && q.Linear != "" {
			v.fail(field+".log_y", at("log_y"), "%s", q.Linear)
		}
		pc.Baseline = slices.Clone(pc.Baseline)
		v.ratio(field, at, &pc, q, r, sel)
		if pc.WeightReference && known && q.WeightRef == nil {
			v.fail(field+".weight_reference", at("weight_reference"), "applies only with y: %s (y is %s)", quantity.WeightRefNames(), pc.Y)
		}
		if pc.YMin != nil {
			yMin := *pc.YMin
			pc.YMin = &yMin
			v.yMin(field+".y_min", at("y_min"), *pc.YMin, pc.Y, logY)
		}
		if logX && pc.X != "n" {
			for _, s := range sel {
				if x := pc.XOf(&r.Series[s]); !(x > 0) {
					v.fail(field+".log_x", at("log_x"), "series %s has %s = %v, which a log axis cannot show", r.Series[s].Name, pc.X, x)
					break
				}
			}
		}

		lines, closed := 0, false
		n := pc.AtN
		if n == 0 && len(r.N) > 0 {
			n = r.N[0]
		}
		for _, s := range sel {
			rs := &r.Series[s]
			if bound {
				lines += len(pc.BoundLines(rs))
				continue
			}
			for _, e := range pc.EstimatorsOf(rs) {
				lines++
				if pc.ClosedForm {
					if cf, ok := ClosedForm(rs, e, n); ok && q.ClosedKnows(cf) {
						closed = true
					}
				}
			}
		}
		switch {
		case bound && lines == 0:
			v.fail(field+".y", at("y"), "%s, but no selected series has a bound of a selected estimator (series[].bounds)", pc.Y)
		case lines == 0:
			v.fail(field, at(), "selects no (series, estimator) pair")
		case known && q.Closed == nil && pc.ClosedForm:
			v.fail(field+".closed_form", at("closed_form"), "no closed form of %s", pc.Y)
		}
		if pc.ClosedForm && lines > 0 && !closed && q.Closed != nil {
			v.fail(field+".closed_form", at("closed_form"), "no selected series and estimator has a closed form for %s", pc.Y)
		}
		out = append(out, pc)
	}
	return out
}

// ratio checks a panel's baseline and combine: both only with a quantity
// of source quantity.Baseline, which needs a baseline of distinct known
// estimators, each an estimator of every selected series (sel), and
// combine "" or max.
func (v *validator) ratio(field string, at func(keys ...any) []any, pc *Panel, q *quantity.Quantity, r *Plan, sel []int) {
	if q.Source != quantity.Baseline {
		if pc.Baseline != nil {
			v.fail(field+".baseline", at("baseline"), "applies only with y: %s (y is %s)", quantity.NamesOf(quantity.Baseline), pc.Y)
		}
		if pc.Combine != "" {
			v.fail(field+".combine", at("combine"), "%q, but combine applies only with y: %s (y is %s)", pc.Combine, quantity.NamesOf(quantity.Baseline), pc.Y)
		}
		return
	}
	if len(pc.Baseline) == 0 {
		v.fail(field+".baseline", at("baseline"), "missing: y %s needs baseline, the estimators whose smallest value divides every value of the panel (e.g. [wis, cwpdis])", pc.Y)
	}
	for j, b := range pc.Baseline {
		f := fmt.Sprintf("%s.baseline[%d]", field, j)
		if !r.knows(b) {
			v.fail(f, at("baseline", j), "unknown estimator %q (%s)", b, yamlcheck.KnownList(b, estimators.Names()))
			continue
		}
		if slices.Index(pc.Baseline, b) < j {
			v.fail(f, at("baseline", j), "%q is listed twice", b)
		}
		for _, s := range sel {
			if !slices.Contains(r.Series[s].Estimators, b) {
				v.fail(f, at("baseline", j), "series %s has no estimator %q (each baseline estimator must be one of every selected series)", r.Series[s].Name, b)
				break
			}
		}
	}
	if pc.Combine != "" && pc.Combine != CombineMax {
		v.fail(field+".combine", at("combine"), "%q, want %s (or no combine: a line per series)", pc.Combine, CombineMax)
	}
}

// yMin checks a panel's y_min: a positive finite number, on a log y axis.
func (v *validator) yMin(field string, at []any, yMin float64, y string, logY bool) {
	s := strconv.FormatFloat(yMin, 'g', -1, 64)
	switch {
	case math.IsNaN(yMin) || math.IsInf(yMin, 0):
		v.fail(field, at, "%s, want a positive finite number", s)
	case yMin <= 0:
		v.fail(field, at, "%s, want a positive number: the lowest value of the log y axis", s)
	case !logY:
		v.fail(field, at, "%s, but y_min applies only to a log y axis (y is %s, log_y false)", s, y)
	}
}

// labelRef checks a plot.labels key of a config with panels: a
// "series/estimator" curve whose series part is a full or a base name.
func (v *validator) labelRef(r *Plan, field string, at []any, ref string) {
	series, est, ok := strings.Cut(ref, "/")
	if !ok {
		v.fail(field, at, "%q, want series/estimator", ref)
		return
	}
	found := false
	for _, s := range r.Series {
		if s.Name == series || s.Base == series {
			found = true
			if slices.Contains(s.Estimators, est) {
				return
			}
		}
	}
	if found {
		v.fail(field, at, "series %s has no estimator %q", series, est)
		return
	}
	v.fail(field, at, "no series %q", series)
}

// ClosedForm returns the domain's closed form of the statistics of
// estimator est on series rs over data sets of n trajectories, by the
// estimator's class (domains speak of classes, never of names).
func ClosedForm(rs *Series, est string, n int) (domains.Moments, bool) {
	spec := rs.Spec()
	info, ok := rs.Info(est)
	if spec == nil || spec.ClosedForm == nil || !ok || info.Class == "" {
		return domains.Moments{}, false
	}
	return spec.ClosedForm(rs.Params, string(info.Class), n)
}
