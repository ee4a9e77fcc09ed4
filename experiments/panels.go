package experiments

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments/curve"
	"github.com/ope-lab/longhorizon/experiments/plot"
)

// PanelConfig is one panel of a figure with panels (YAML plot.panels[i]):
// a small view of the run's rows, y against n or against a swept domain
// parameter at one n of the grid.
//
//	plot:
//	  panels:
//	    - title: "A. Theorem 1: n Var(PDIS) grows as 2^H"
//	      series: [chain_pe1, chain_pe09]  # base or full series names; default all
//	      estimators: [pdis]               # default all
//	      x: horizon      # "n" (default) or a parameter swept in every selected series
//	      at_n: 4096      # with x other than n: which n of the grid
//	      y: n_variance   # mse (default) | variance | n_variance | bias | abs_bias | mean_estimate
//	      log_x: false    # default true for x = n, false otherwise
//	      log_y: true     # default true for mse, variance, n_variance, abs_bias
//	      closed_form: true     # draw the domain's closed form beside the points
//	      x_label: "horizon H"  # optional axis labels (also y_label)
//
// Lines: with x = n, one per (series, estimator); with x a parameter, one
// per (base series, estimator, values of the other swept parameters),
// through the series of the sweep. Points carry +/- 1 standard error of
// the plotted quantity (see StatsRow).
type PanelConfig struct {
	Title      string   `yaml:"title" json:"title,omitempty"`
	Series     []string `yaml:"series" json:"series,omitempty"`
	Estimators []string `yaml:"estimators" json:"estimators,omitempty"`
	X          string   `yaml:"x" json:"x"`
	AtN        int      `yaml:"at_n" json:"at_n,omitempty"`
	Y          string   `yaml:"y" json:"y"`
	LogX       *bool    `yaml:"log_x" json:"log_x"`
	LogY       *bool    `yaml:"log_y" json:"log_y"`
	ClosedForm bool     `yaml:"closed_form" json:"closed_form,omitempty"`
	XLabel     string   `yaml:"x_label" json:"x_label,omitempty"`
	YLabel     string   `yaml:"y_label" json:"y_label,omitempty"`
}

// panelYs are the quantities a panel can plot, in the order error messages
// list them.
var panelYs = []struct {
	name, label string
	logDefault  bool
}{
	{"mse", "MSE", true},
	{"variance", "Var(estimate)", true},
	{"n_variance", "n × Var(estimate)", true},
	{"bias", "bias", false},
	{"abs_bias", "|bias|", true},
	{"mean_estimate", "mean estimate", false},
}

func panelY(name string) (label string, logDefault, ok bool) {
	for _, y := range panelYs {
		if y.name == name {
			return y.label, y.logDefault, true
		}
	}
	return "", false, false
}

func panelYNames() string {
	names := make([]string, len(panelYs))
	for i, y := range panelYs {
		names[i] = y.name
	}
	return strings.Join(names, ", ")
}

// panelSeries returns the indices of the series a panel selects: those
// whose full or base name is listed, all when the list is empty.
func panelSeries(r *Resolved, names []string) []int {
	var out []int
	for s, rs := range r.Series {
		if len(names) == 0 || slices.Contains(names, rs.Name) || slices.Contains(names, rs.Base) {
			out = append(out, s)
		}
	}
	return out
}

// panelEstimators returns the estimators a panel draws for series rs.
func panelEstimators(pc *PanelConfig, rs *ResolvedSeries) []string {
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

// panels validates plot.panels and returns them with defaults filled in.
func (v *validator) panels(ps []PanelConfig, r *Resolved) []PanelConfig {
	if len(ps) == 0 {
		return nil
	}
	out := make([]PanelConfig, 0, len(ps))
	for i, pc := range ps {
		at := func(keys ...any) []any { return append([]any{"plot", "panels", i}, keys...) }
		field := fmt.Sprintf("plot.panels[%d]", i)
		pc.Series = slices.Clone(pc.Series)
		pc.Estimators = slices.Clone(pc.Estimators)
		for j, name := range pc.Series {
			f := fmt.Sprintf("%s.series[%d]", field, j)
			if !slices.ContainsFunc(r.Series, func(rs ResolvedSeries) bool { return rs.Name == name || rs.Base == name }) {
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
		sel := panelSeries(r, pc.Series)
		for j, e := range pc.Estimators {
			f := fmt.Sprintf("%s.estimators[%d]", field, j)
			if _, ok := estimators.Lookup(e); !ok {
				v.fail(f, at("estimators", j), "unknown estimator %q (known: %s)", e, strings.Join(estimators.Names(), ", "))
			} else if !slices.ContainsFunc(sel, func(s int) bool { return slices.Contains(r.Series[s].Estimators, e) }) {
				v.fail(f, at("estimators", j), "no selected series has estimator %q", e)
			} else if slices.Index(pc.Estimators, e) < j {
				v.fail(f, at("estimators", j), "%q is listed twice", e)
			}
		}

		if pc.X == "" {
			pc.X = "n"
		}
		if pc.X != "n" {
			for _, s := range sel {
				rs := &r.Series[s]
				if _, ok := rs.spec.param(pc.X); !ok {
					v.fail(field+".x", at("x"), "%q is neither n nor a parameter of domain %s (series %s)", pc.X, rs.Domain, rs.Name)
					break
				}
				if _, ok := rs.Sweep[pc.X]; !ok {
					v.fail(field+".x", at("x"), "%s is not swept in series %s (one value); want n or a parameter with a list of values", pc.X, rs.Name)
					break
				}
			}
			if pc.AtN == 0 {
				v.fail(field+".at_n", at(), "missing: x = %s needs at_n, the n of the grid %v at which to read the rows", pc.X, r.N)
			} else if !slices.Contains(r.N, pc.AtN) {
				v.fail(field+".at_n", at("at_n"), "%d is not in the n grid %v", pc.AtN, r.N)
			}
		} else if pc.AtN != 0 {
			v.fail(field+".at_n", at("at_n"), "%d, but at_n applies only when x is a swept parameter (x is n)", pc.AtN)
		}

		if pc.Y == "" {
			pc.Y = "mse"
		}
		_, logY, ok := panelY(pc.Y)
		if !ok {
			v.fail(field+".y", at("y"), "%q, want one of %s", pc.Y, panelYNames())
		}
		logX := pc.X == "n"
		if pc.LogX != nil {
			logX = *pc.LogX
		}
		if pc.LogY != nil {
			logY = *pc.LogY
		}
		pc.LogX, pc.LogY = &logX, &logY
		if logY && pc.Y == "bias" {
			v.fail(field+".log_y", at("log_y"), "a bias can be negative: use y: abs_bias, or log_y: false")
		}
		if logX && pc.X != "n" {
			for _, s := range sel {
				if x := r.Series[s].Params[pc.X]; !(x > 0) {
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
			for _, e := range panelEstimators(&pc, rs) {
				lines++
				if pc.ClosedForm && rs.spec.ClosedForm != nil {
					if cf, ok := rs.spec.ClosedForm(rs.Params, e, n); ok && closedKnows(pc.Y, cf) {
						closed = true
					}
				}
			}
		}
		if lines == 0 {
			v.fail(field, at(), "selects no (series, estimator) pair")
		}
		if pc.ClosedForm && lines > 0 && !closed {
			v.fail(field+".closed_form", at("closed_form"), "no selected series and estimator has a closed form for %s", pc.Y)
		}
		out = append(out, pc)
	}
	return out
}

// labelRef checks a plot.labels key of a config with panels: a
// "series/estimator" curve whose series part is a full or a base name.
func (v *validator) labelRef(r *Resolved, field string, at []any, ref string) {
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

// closedKnows reports whether a closed form's values determine y, given
// the true value.
func closedKnows(y string, cf map[string]float64) bool {
	_, hasVar := cf["variance"]
	_, hasBias := cf["bias"]
	_, hasMean := cf["mean_estimate"]
	switch y {
	case "variance", "n_variance":
		return hasVar
	case "bias", "abs_bias", "mean_estimate":
		return hasBias || hasMean
	case "mse":
		return hasVar && (hasBias || hasMean)
	}
	return false
}

// closedValue returns quantity y from closed-form values cf at n; truth
// (when known, haveTruth) converts between bias and mean estimate.
func closedValue(y string, cf map[string]float64, n int, truth float64, haveTruth bool) (float64, bool) {
	bias := func() (float64, bool) {
		if b, ok := cf["bias"]; ok {
			return b, true
		}
		if m, ok := cf["mean_estimate"]; ok && haveTruth {
			return m - truth, true
		}
		return 0, false
	}
	switch y {
	case "variance":
		v, ok := cf["variance"]
		return v, ok
	case "n_variance":
		v, ok := cf["variance"]
		return float64(n) * v, ok
	case "bias":
		return bias()
	case "abs_bias":
		b, ok := bias()
		return math.Abs(b), ok
	case "mean_estimate":
		if m, ok := cf["mean_estimate"]; ok {
			return m, true
		}
		if b, ok := cf["bias"]; ok && haveTruth {
			return truth + b, true
		}
	case "mse":
		v, okV := cf["variance"]
		b, okB := bias()
		return v + b*b, okV && okB
	}
	return 0, false
}

// simulatedValue returns quantity y of a curve row and its standard error:
// mse with mse_se; variance with variance_se; n_variance = n variance with
// n variance_se; bias, |bias| and the mean estimate with bias_se.
func simulatedValue(y string, row curve.Row, st StatsRow) (value, se float64) {
	switch y {
	case "mse":
		return row.MSE, row.MSESE
	case "variance":
		return row.Variance, st.VarianceSE
	case "n_variance":
		return float64(row.N) * row.Variance, float64(row.N) * st.VarianceSE
	case "bias":
		return row.Bias, st.BiasSE
	case "abs_bias":
		return math.Abs(row.Bias), st.BiasSE
	case "mean_estimate":
		return row.MeanEstimate, st.BiasSE
	}
	return math.NaN(), math.NaN()
}

// PanelPoint is one simulated point of a panel with its closed form, as
// written to panels.csv.
type PanelPoint struct {
	Panel     int // 1-based
	Series    string
	Estimator string
	Label     string
	N         int
	X, Y, SE  float64
	// Closed is the closed-form value (NaN if none); Z = (Y - Closed)/SE,
	// the deviation in standard errors (NaN if no closed form). When SE is
	// 0 (all trials gave the same estimate) a bias or mean is measured by
	// the closed form's sqrt(variance/T) instead; failing that Z is 0 if Y
	// equals Closed to 1e-12, else +/-Inf.
	Closed, Z float64
}

// statsKey indexes rows by series, estimator and n.
type statsKey struct {
	series, estimator string
	n                 int
}

// panelLine is a line of a panel under construction.
type panelLine struct {
	group     string // series name with x = n; base name plus other swept values otherwise
	base      string
	estimator string
	members   []int // series indices: one with x = n, one per x value otherwise
}

// BuildPanels computes the panels of r from its curve rows and stats rows:
// the figure's plot.Panel views and every simulated point with its closed
// form and deviation.
func BuildPanels(r *Resolved, rows []curve.Row, stats []StatsRow) ([]plot.Panel, []PanelPoint, error) {
	if err := r.relink(); err != nil {
		return nil, nil, err
	}
	rowOf := map[statsKey]curve.Row{}
	for _, row := range rows {
		rowOf[statsKey{row.Series, row.Estimator, row.N}] = row
	}
	statOf := map[statsKey]StatsRow{}
	for _, st := range stats {
		statOf[statsKey{st.Series, st.Estimator, st.N}] = st
	}
	var panels []plot.Panel
	var points []PanelPoint
	for i := range r.Plot.Panels {
		pc := &r.Plot.Panels[i]
		pn, pts, err := buildPanel(r, i, pc, rowOf, statOf)
		if err != nil {
			return nil, nil, fmt.Errorf("plot.panels[%d] (%s): %w", i, pc.Title, err)
		}
		panels = append(panels, pn)
		points = append(points, pts...)
	}
	return panels, points, nil
}

func buildPanel(r *Resolved, idx int, pc *PanelConfig, rowOf map[statsKey]curve.Row, statOf map[statsKey]StatsRow) (plot.Panel, []PanelPoint, error) {
	ylabel, logY, _ := panelY(pc.Y)
	logX := pc.X == "n"
	if pc.LogX != nil {
		logX = *pc.LogX
	}
	if pc.LogY != nil {
		logY = *pc.LogY
	}
	xlabel := pc.X
	if pc.X == "n" {
		xlabel = "n (trajectories)"
	}
	if pc.XLabel != "" {
		xlabel = pc.XLabel
	}
	if pc.YLabel != "" {
		ylabel = pc.YLabel
	}
	pn := plot.Panel{Title: pc.Title, XLabel: xlabel, YLabel: ylabel, LogX: logX, LogY: logY}

	// Group the selected series into lines.
	var lines []*panelLine
	byKey := map[string]*panelLine{}
	bases := map[string]bool{}
	ests := map[string]bool{}
	for _, s := range panelSeries(r, pc.Series) {
		rs := &r.Series[s]
		group := rs.Name
		if pc.X != "n" {
			group = sweepName(rs, pc.X)
		}
		for _, e := range panelEstimators(pc, rs) {
			key := group + "/" + e
			ln := byKey[key]
			if ln == nil {
				ln = &panelLine{group: group, base: rs.Base, estimator: e}
				byKey[key] = ln
				lines = append(lines, ln)
			}
			ln.members = append(ln.members, s)
			bases[rs.Base] = true
			ests[e] = true
		}
	}

	var points []PanelPoint
	for _, ln := range lines {
		first := &r.Series[ln.members[0]]
		pl := plot.PanelLine{Label: lineLabel(r, pc, ln, first, len(bases) > 1, len(ests) > 1),
			Dashed: slices.Contains(r.Plot.Dashed, ln.estimator) || slices.Contains(r.Plot.Dashed, ln.base+"/"+ln.estimator)}
		type sim struct {
			x     float64
			n     int
			row   curve.Row
			value float64
			se    float64
			rs    *ResolvedSeries
		}
		var sims []sim
		for _, s := range ln.members {
			rs := &r.Series[s]
			for _, n := range r.N {
				if pc.X != "n" && n != pc.AtN {
					continue
				}
				k := statsKey{rs.Name, ln.estimator, n}
				row, ok := rowOf[k]
				if !ok {
					return pn, nil, fmt.Errorf("no curve row for %s/%s at n = %d", rs.Name, ln.estimator, n)
				}
				st, ok := statOf[k]
				if !ok && pc.Y != "mse" {
					return pn, nil, fmt.Errorf("no stats row for %s/%s at n = %d (stats.csv missing or stale?)", rs.Name, ln.estimator, n)
				}
				y, se := simulatedValue(pc.Y, row, st)
				x := float64(n)
				if pc.X != "n" {
					x = rs.Params[pc.X]
				}
				sims = append(sims, sim{x: x, n: n, row: row, value: y, se: se, rs: rs})
			}
		}
		slices.SortStableFunc(sims, func(a, b sim) int { return cmp.Compare(a.x, b.x) })
		for _, sm := range sims {
			pl.Points = append(pl.Points, plot.PanelPoint{X: sm.x, Y: sm.value, SE: sm.se})
			pt := PanelPoint{Panel: idx + 1, Series: sm.rs.Name, Estimator: ln.estimator, Label: pl.Label, N: sm.n,
				X: sm.x, Y: sm.value, SE: sm.se, Closed: math.NaN(), Z: math.NaN()}
			if pc.ClosedForm && sm.rs.spec.ClosedForm != nil {
				if cf, ok := sm.rs.spec.ClosedForm(sm.rs.Params, ln.estimator, sm.n); ok {
					if c, ok := closedValue(pc.Y, cf, sm.n, sm.row.TrueValue, true); ok {
						se := sm.se
						if v, ok := cf["variance"]; ok && se == 0 && (pc.Y == "bias" || pc.Y == "abs_bias" || pc.Y == "mean_estimate") {
							// Every trial gave the same estimate (e.g. WIS = 1 in
							// all of them while P(WIS = 0) = 1e-4): the sample has
							// no spread, so measure the deviation by the standard
							// error the closed form implies, sqrt(Var / T).
							se = math.Sqrt(v / float64(sm.row.Trials))
						}
						pt.Closed, pt.Z = c, deviation(sm.value, c, se)
					}
				}
			}
			points = append(points, pt)
		}
		if pc.ClosedForm && first.spec.ClosedForm != nil && len(sims) > 0 {
			pl.Closed = closedCurve(pc, first, ln.estimator, sims[0].x, sims[len(sims)-1].x, logX)
		}
		pn.Lines = append(pn.Lines, pl)
	}
	return pn, points, nil
}

// deviation returns (y - c)/se, treating se = 0 as exact agreement when y
// equals c to 1e-12 (relative).
func deviation(y, c, se float64) float64 {
	d := y - c
	if se > 0 {
		return d / se
	}
	if math.Abs(d) <= 1e-12*math.Max(1, math.Abs(c)) {
		return 0
	}
	return math.Copysign(math.Inf(1), d)
}

// sweepName is the series' base name with its swept values other than x,
// e.g. "chain[p_e=0.9]" for "chain[horizon=4,p_e=0.9]" and x = horizon.
func sweepName(rs *ResolvedSeries, x string) string {
	var parts []string
	for _, ps := range rs.spec.Params {
		if v, ok := rs.Sweep[ps.Name]; ok && ps.Name != x {
			parts = append(parts, ps.Name+"="+formatParam(ps, v))
		}
	}
	if len(parts) == 0 {
		return rs.Base
	}
	return rs.Base + "[" + strings.Join(parts, ",") + "]"
}

// lineLabel is the legend label of a line: plot.labels of its
// "series/estimator" (full, group or base name), with {param} placeholders
// replaced by the line's parameter values; by default its base name (when
// the panel has several), the swept values other than x, and the estimator
// (when the panel has several).
func lineLabel(r *Resolved, pc *PanelConfig, ln *panelLine, rs *ResolvedSeries, multiBase, multiEst bool) string {
	for _, key := range []string{ln.group, ln.base} {
		// A label naming the panel's x parameter would show one point's
		// value for a whole line: such a panel uses the default label.
		if l, ok := r.Plot.Labels[key+"/"+ln.estimator]; ok && (pc.X == "n" || !strings.Contains(l, "{"+pc.X+"}")) {
			return expandLabel(l, rs)
		}
	}
	var parts []string
	if multiBase {
		parts = append(parts, ln.base)
	}
	for _, ps := range rs.spec.Params {
		if v, ok := rs.Sweep[ps.Name]; ok && ps.Name != pc.X {
			parts = append(parts, ps.Name+" = "+formatParam(ps, v))
		}
	}
	if multiEst || len(parts) == 0 {
		parts = append(parts, ln.estimator)
	}
	return strings.Join(parts, ", ")
}

// expandLabel replaces {name} by the series' value of parameter name.
func expandLabel(l string, rs *ResolvedSeries) string {
	if !strings.Contains(l, "{") {
		return l
	}
	for _, ps := range rs.spec.Params {
		l = strings.ReplaceAll(l, "{"+ps.Name+"}", formatParam(ps, rs.Params[ps.Name]))
	}
	return l
}

// closedCurve evaluates the closed form of y along the panel's x axis
// between lo and hi, densely: with x = n at about 160 sizes (log-spaced on
// a log axis); with x a parameter at every integer (integer parameters) or
// at 160 values, the other parameters those of rs. Values the domain does
// not know (e.g. a horizon that is not a multiple of the option length)
// are left out.
func closedCurve(pc *PanelConfig, rs *ResolvedSeries, est string, lo, hi float64, logX bool) []plot.XY {
	const dense = 160
	var xs []float64
	kind := Int
	if pc.X != "n" {
		ps, _ := rs.spec.param(pc.X)
		kind = ps.Kind
	}
	switch {
	case kind == Bool:
		xs = []float64{lo, hi}
	case kind == Int && hi-lo <= 2*dense:
		for x := math.Ceil(lo); x <= hi; x++ {
			xs = append(xs, x)
		}
	default:
		for i := 0; i <= dense; i++ {
			f := float64(i) / dense
			x := lo + f*(hi-lo)
			if logX && lo > 0 {
				x = lo * math.Pow(hi/lo, f)
			}
			if kind == Int {
				x = math.Round(x)
			}
			if len(xs) == 0 || x != xs[len(xs)-1] {
				xs = append(xs, x)
			}
		}
	}
	var out []plot.XY
	params := maps.Clone(rs.Params)
	for _, x := range xs {
		n := pc.AtN
		if pc.X == "n" {
			n = int(x)
		} else {
			params[pc.X] = x
		}
		cf, ok := rs.spec.ClosedForm(params, est, n)
		if !ok {
			continue
		}
		if y, ok := closedValue(pc.Y, cf, n, 0, false); ok && !math.IsNaN(y) && !math.IsInf(y, 0) {
			out = append(out, plot.XY{X: x, Y: y})
		}
	}
	return out
}

// formatZ writes a deviation for panels.csv (empty when there is none).
func formatZ(z float64) string {
	if math.IsNaN(z) {
		return ""
	}
	return strconv.FormatFloat(z, 'f', 3, 64)
}
