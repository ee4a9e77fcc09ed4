package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/quantity"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
)

// curveStats is what a panel quantity reads of curve row row and its
// stats row st (quantity.CurveStats); haveStats false leaves the standard
// errors of stats.csv NaN.
func curveStats(row resultsdir.Row, st resultsdir.StatsRow, haveStats bool) quantity.CurveStats {
	c := quantity.CurveStats{N: row.N, Trials: row.Trials, TrueValue: row.TrueValue, MeanEstimate: row.MeanEstimate,
		Bias: row.Bias, Variance: row.Variance, MSE: row.MSE, MSESE: row.MSESE, BiasSE: math.NaN(), VarianceSE: math.NaN()}
	if haveStats {
		c.BiasSE, c.VarianceSE = st.BiasSE, st.VarianceSE
	}
	return c
}

// boundStats is what a panel quantity reads of a bounds row
// (quantity.BoundStats).
func boundStats(b resultsdir.BoundRow) quantity.BoundStats {
	return quantity.BoundStats{TrueValue: b.TrueValue, MeanBound: b.MeanBound, BoundSE: b.BoundSE,
		Coverage: b.Coverage, CoverageSE: b.CoverageSE, Vacuous: b.Vacuous}
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

// closedSource gives the closed forms a panel draws: computed from the
// domains at run time, read back from closedform.csv by ReadFigure.
type closedSource interface {
	// at returns the closed-form moments of est on rs at n (points).
	at(rs *config.Series, est string, n int) (domains.Moments, bool)
	// curve returns the dense closed-form line of quantity q of est over
	// the panel's x axis between lo and hi, the other parameters those of
	// rs.
	curve(panel int, pc *config.Panel, q *quantity.Quantity, rs *config.Series, est string, lo, hi float64, logX bool) []resultsdir.XY
	// joined returns the closed-form line of est of a line whose first
	// series is rs drawn through its points (x = H), given the closed
	// form at the points as computed (atPoints).
	joined(panel int, rs *config.Series, est string, atPoints []resultsdir.XY) []resultsdir.XY
}

// BuildPanels computes the panels of r from its curve rows, stats rows,
// bounds rows and the series' truths (truths[s] of r.Series[s]; read for
// weight references, nil for none): the figure's Panel views and every
// simulated point with its closed form (from the domains) and deviation,
// and every weight reference point.
func BuildPanels(r *config.Plan, rows []resultsdir.Row, stats []resultsdir.StatsRow, bounds []resultsdir.BoundRow, truths []domains.Truth) ([]resultsdir.Panel, []resultsdir.PanelPoint, error) {
	return buildPanels(r, rows, stats, computedClosed{}, bounds, truths)
}

func buildPanels(r *config.Plan, rows []resultsdir.Row, stats []resultsdir.StatsRow, cs closedSource, bounds []resultsdir.BoundRow, truths []domains.Truth) ([]resultsdir.Panel, []resultsdir.PanelPoint, error) {
	rowOf := map[statsKey]resultsdir.Row{}
	for _, row := range rows {
		rowOf[statsKey{row.Series, row.Estimator, row.N}] = row
	}
	statOf := map[statsKey]resultsdir.StatsRow{}
	for _, st := range stats {
		statOf[statsKey{st.Series, st.Estimator, st.N}] = st
	}
	boundOf := resultsdir.BoundIndex(bounds)
	var panels []resultsdir.Panel
	var points []resultsdir.PanelPoint
	for i := range r.Plot.Panels {
		pc := &r.Plot.Panels[i]
		var pn resultsdir.Panel
		var pts []resultsdir.PanelPoint
		var err error
		if pc.X == config.HorizonX {
			err = pc.CheckHorizons(r) // as validation records them
		}
		q, ok := pc.Quantity()
		switch {
		case err != nil:
		case !ok:
			// config checks y when it parses a config; a plan read back
			// from meta.json is checked here.
			err = fmt.Errorf("y %q, want one of %s", pc.Y, strings.Join(quantity.Names(), ", "))
		case pc.WeightReference && q.WeightRef == nil:
			err = fmt.Errorf("weight_reference with y %s, which has none", pc.Y)
		case q.Source == quantity.Bounds:
			pn, pts, err = buildBoundPanel(r, i, pc, q, boundOf)
		case q.Source == quantity.Baseline:
			pn, pts, err = buildRatioPanel(r, i, pc, q, rowOf)
		default:
			pn, pts, err = buildPanel(r, i, pc, q, rowOf, statOf, cs, truths)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("plot.panels[%d] (%s): %w", i, pc.Title, err)
		}
		panels = append(panels, pn)
		points = append(points, pts...)
	}
	return panels, points, nil
}

// panelFrame returns panel pc's title, axis labels and scales (the
// defaults of its quantity q), without lines.
func panelFrame(pc *config.Panel, q *quantity.Quantity) resultsdir.Panel {
	ylabel, logY := q.Label, q.LogY
	logX := config.DefaultLogX(pc.X)
	if pc.LogX != nil {
		logX = *pc.LogX
	}
	if pc.LogY != nil {
		logY = *pc.LogY
	}
	xlabel := pc.X
	switch pc.X {
	case "n":
		xlabel = "n (trajectories)"
	case config.HorizonX:
		xlabel = config.HorizonLabel
	}
	if pc.XLabel != "" {
		xlabel = pc.XLabel
	}
	if pc.YLabel != "" {
		ylabel = pc.YLabel
	}
	pn := resultsdir.Panel{Title: pc.Title, XLabel: xlabel, YLabel: ylabel, LogX: logX, LogY: logY}
	if pc.YMin != nil {
		pn.YMin = *pc.YMin
	}
	return pn
}

// buildPanel builds a panel of a quantity of source quantity.Curve: its
// points are q.Value of the curve rows (those where q.Undefined says why
// there is none are left out, and noted), its closed forms q.Closed, and
// with weight_reference its weight references (weightRefLines).
func buildPanel(r *config.Plan, idx int, pc *config.Panel, q *quantity.Quantity, rowOf map[statsKey]resultsdir.Row, statOf map[statsKey]resultsdir.StatsRow, cs closedSource, truths []domains.Truth) (resultsdir.Panel, []resultsdir.PanelPoint, error) {
	pn := panelFrame(pc, q)
	logX := pn.LogX

	// Group the selected series into lines.
	var lines []*panelLine
	byKey := map[string]*panelLine{}
	bases := map[string]bool{}
	ests := map[string]bool{}
	for _, s := range r.PanelSeries(pc.Series) {
		rs := &r.Series[s]
		group := lineGroup(pc, rs)
		for _, e := range pc.EstimatorsOf(rs) {
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

	var points []resultsdir.PanelPoint
	var undefined skipped
	for _, ln := range lines {
		first := &r.Series[ln.members[0]]
		pl := resultsdir.PanelLine{Series: first.Name, Estimator: ln.estimator, Label: lineLabel(r, pc, ln, first, len(bases) > 1, len(ests) > 1),
			Dashed: slices.Contains(r.Plot.Dashed, ln.estimator) || slices.Contains(r.Plot.Dashed, ln.base+"/"+ln.estimator),
			Group:  ln.group}
		type sim struct {
			x     float64
			n     int
			row   resultsdir.Row
			value float64
			se    float64
			rs    *config.Series
		}
		var sims []sim
		var atPoints []resultsdir.XY // the closed form at the points, in order of x
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
				if !ok && !q.NoStats {
					return pn, nil, fmt.Errorf("no stats row for %s/%s at n = %d (stats.csv missing or stale?)", rs.Name, ln.estimator, n)
				}
				c := curveStats(row, st, ok)
				if q.Undefined != nil {
					if why := q.Undefined(c); why != "" {
						undefined.add(why, ln.base)
						continue
					}
				}
				y, se := q.Value(c)
				x := float64(n)
				if pc.X != "n" {
					x = pc.XOf(rs)
				}
				sims = append(sims, sim{x: x, n: n, row: row, value: y, se: se, rs: rs})
			}
		}
		slices.SortStableFunc(sims, func(a, b sim) int { return cmp.Compare(a.x, b.x) })
		for _, sm := range sims {
			pl.Points = append(pl.Points, resultsdir.PanelXY{X: sm.x, Y: sm.value, SE: sm.se})
			pt := resultsdir.PanelPoint{Panel: idx + 1, Series: sm.rs.Name, Estimator: ln.estimator, Label: pl.Label, N: sm.n,
				X: sm.x, Y: sm.value, SE: sm.se, Closed: math.NaN(), Z: math.NaN()}
			if pc.ClosedForm && q.Closed != nil {
				if cf, ok := cs.at(sm.rs, ln.estimator, sm.n); ok {
					if c, ok := q.Closed(cf, sm.n, sm.row.TrueValue, true); ok {
						se := sm.se
						if v := cf.Variance; !math.IsNaN(v) && se == 0 && q.SEOfMean {
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
			if !math.IsNaN(pt.Closed) && !math.IsInf(pt.Closed, 0) {
				atPoints = append(atPoints, resultsdir.XY{X: pt.X, Y: pt.Closed})
			}
		}
		switch {
		case !pc.ClosedForm || q.Closed == nil || len(sims) == 0:
		case pc.X == config.HorizonX:
			// H is no parameter to sample between the series: the closed
			// form is drawn through its values at the points.
			pl.Closed = cs.joined(idx, first, ln.estimator, atPoints)
		default:
			pl.Closed = cs.curve(idx, pc, q, first, ln.estimator, sims[0].x, sims[len(sims)-1].x, logX)
		}
		pn.Lines = append(pn.Lines, pl)
	}
	var notes []string
	if why := undefined.note(pc.Y); why != "" {
		notes = append(notes, why)
	}
	if pc.WeightReference {
		refs, pts, missing := weightRefLines(r, idx, pc, q, lines, truths)
		pn.Lines = append(pn.Lines, refs...)
		points = append(points, pts...)
		if missing != "" {
			notes = append(notes, missing)
		}
	}
	pn.Note = strings.Join(notes, "\n")
	return pn, points, nil
}

// buildBoundPanel builds a panel of a quantity of source quantity.Bounds
// (lower_bound, coverage; against n): one line per (series, estimator,
// bound) the panel selects (config.Panel.BoundLines), labelled
// "<estimator label> <bound> bound", its points q.Bound of the rows of
// bounds.csv; and the reference lines: 1 - delta under a fraction
// (q.Fraction: coverage), whose y axis shows [0, 1], else V(pi_e) (one per
// distinct true value, named by series when there are several).
func buildBoundPanel(r *config.Plan, idx int, pc *config.Panel, q *quantity.Quantity, boundOf map[resultsdir.BoundKey]resultsdir.BoundRow) (resultsdir.Panel, []resultsdir.PanelPoint, error) {
	pn := panelFrame(pc, q)
	type line struct {
		rs     *config.Series
		est    string
		bound  string
		member *panelLine
	}
	var lines []line
	bases, ests := map[string]bool{}, map[string]bool{}
	for _, s := range r.PanelSeries(pc.Series) {
		rs := &r.Series[s]
		for _, bl := range pc.BoundLines(rs) {
			est := rs.Estimators[bl.E]
			lines = append(lines, line{rs, est, rs.Bounds[bl.B], &panelLine{group: rs.Name, base: rs.Base, estimator: est, members: []int{s}}})
			bases[rs.Base], ests[est] = true, true
		}
	}
	var points []resultsdir.PanelPoint
	var truths []resultsdir.RefLine
	truthSeries := map[float64][]string{}
	for _, ln := range lines {
		pl := resultsdir.PanelLine{Series: ln.rs.Name, Estimator: ln.est,
			Label:  lineLabel(r, pc, ln.member, ln.rs, len(bases) > 1, len(ests) > 1) + " " + ln.bound + " bound",
			Dashed: slices.Contains(r.Plot.Dashed, ln.est) || slices.Contains(r.Plot.Dashed, ln.rs.Base+"/"+ln.est),
			Group:  ln.rs.Name}
		for _, n := range r.N {
			row, ok := boundOf[resultsdir.BoundKey{Series: ln.rs.Name, Estimator: ln.est, Bound: ln.bound, N: n}]
			if !ok {
				return pn, nil, fmt.Errorf("no bounds row for %s/%s %s at n = %d (bounds.csv missing or stale?)", ln.rs.Name, ln.est, ln.bound, n)
			}
			y, se := q.Bound(boundStats(row))
			pl.Points = append(pl.Points, resultsdir.PanelXY{X: float64(n), Y: y, SE: se})
			points = append(points, resultsdir.PanelPoint{Panel: idx + 1, Series: ln.rs.Name, Estimator: ln.est, Label: pl.Label, N: n,
				X: float64(n), Y: y, SE: se, Closed: math.NaN(), Z: math.NaN()})
			if n == r.N[0] {
				v := row.TrueValue
				if _, seen := truthSeries[v]; !seen {
					truths = append(truths, resultsdir.RefLine{Y: v})
				}
				if !slices.Contains(truthSeries[v], ln.rs.Name) {
					truthSeries[v] = append(truthSeries[v], ln.rs.Name)
				}
			}
		}
		pn.Lines = append(pn.Lines, pl)
	}
	if q.Fraction {
		pn.YLo, pn.YHi = 0, 1
		pn.Refs = []resultsdir.RefLine{{Label: "1 - delta = " + resultsdir.FormatFloat(1-r.Delta), Y: 1 - r.Delta}}
		return pn, points, nil
	}
	for i := range truths {
		truths[i].Label = "V(pi_e)"
		if len(truths) > 1 {
			truths[i].Label += " of " + strings.Join(truthSeries[truths[i].Y], ", ")
		}
	}
	pn.Refs = truths
	return pn, points, nil
}

// best returns the smallest statistic of (q.Of) of the baseline
// estimators of series rs at n (NaN if one of them is NaN).
func best(rs *config.Series, baseline []string, n int, of func(quantity.CurveStats) float64, rowOf map[statsKey]resultsdir.Row) (float64, error) {
	best := math.Inf(1)
	for _, b := range baseline {
		row, ok := rowOf[statsKey{rs.Name, b, n}]
		if !ok {
			return 0, fmt.Errorf("no curve row for baseline %s/%s at n = %d", rs.Name, b, n)
		}
		x := of(curveStats(row, resultsdir.StatsRow{}, false))
		if math.IsNaN(x) {
			return math.NaN(), nil
		}
		best = math.Min(best, x)
	}
	return best, nil
}

// estimatorLabel is an estimator's label in a panel across series (the
// reference line of a ratio panel, a combined line): plot.labels of
// "<series>/<est>" (full, then base name) of the first series of members
// that has one without {param} placeholders, else est.
func estimatorLabel(r *config.Plan, members []int, est string) string {
	for _, s := range members {
		rs := &r.Series[s]
		for _, key := range []string{rs.Name, rs.Base} {
			if l, ok := r.Plot.Labels[key+"/"+est]; ok && !strings.Contains(l, "{") {
				return l
			}
		}
	}
	return est
}

// buildRatioPanel builds a panel of a quantity of source
// quantity.Baseline (against n; config.Panel), e.g. mse_ratio: at each n
// of the grid, quantity.Ratio of q.Of(s, e, n) over the smallest q.Of(s,
// b, n) of b in pc.Baseline, one line per (series, estimator) labelled as
// an mse panel's; or, with combine max, one line per estimator, its
// largest ratio over the selected series that have it, labelled
// "<estimator label> (worst over N series)", each point's series the one
// attaining it (the first on ties). Points have SE 0 and no closed form.
// The reference line at 1 is "best of <baseline labels>"; {baseline} in
// the quantity's label is replaced by those labels.
func buildRatioPanel(r *config.Plan, idx int, pc *config.Panel, q *quantity.Quantity, rowOf map[statsKey]resultsdir.Row) (resultsdir.Panel, []resultsdir.PanelPoint, error) {
	pn := panelFrame(pc, q)
	// config checks both when it parses a config; a plan read back from
	// meta.json is checked here.
	if len(pc.Baseline) == 0 {
		return pn, nil, fmt.Errorf("y %s without a baseline", pc.Y)
	}
	if pc.Combine != "" && pc.Combine != config.CombineMax {
		return pn, nil, fmt.Errorf("combine %q, want %s", pc.Combine, config.CombineMax)
	}
	sel := r.PanelSeries(pc.Series)
	if pc.X != "n" && pc.Combine != "" {
		return pn, nil, fmt.Errorf("x %q with combine %s (combine is drawn against n only)", pc.X, pc.Combine)
	}
	baseLabels := make([]string, len(pc.Baseline))
	for i, b := range pc.Baseline {
		baseLabels[i] = estimatorLabel(r, sel, b)
	}
	if pc.YLabel == "" {
		pn.YLabel = strings.ReplaceAll(q.Label, "{baseline}", strings.Join(baseLabels, ", "))
	}
	pn.Refs = []resultsdir.RefLine{{Label: "best of " + strings.Join(baseLabels, ", "), Y: 1}}
	if pc.X != "n" {
		pts, err := ratioParamLines(r, idx, pc, q, sel, rowOf, &pn)
		return pn, pts, err
	}

	// ratios holds the ratios of (series, estimator) over the grid.
	type lineKey struct {
		s int
		e string
	}
	ratios := map[lineKey][]float64{}
	var lines []*panelLine
	var order []string // estimators in order of first appearance
	members := map[string][]int{}
	bases := map[string]bool{}
	for _, s := range sel {
		rs := &r.Series[s]
		bests := make([]float64, len(r.N))
		for j, n := range r.N {
			b, err := best(rs, pc.Baseline, n, q.Of, rowOf)
			if err != nil {
				return pn, nil, err
			}
			bests[j] = b
		}
		for _, e := range pc.EstimatorsOf(rs) {
			rv := make([]float64, len(r.N))
			for j, n := range r.N {
				row, ok := rowOf[statsKey{rs.Name, e, n}]
				if !ok {
					return pn, nil, fmt.Errorf("no curve row for %s/%s at n = %d", rs.Name, e, n)
				}
				rv[j] = quantity.Ratio(q.Of(curveStats(row, resultsdir.StatsRow{}, false)), bests[j])
			}
			ratios[lineKey{s, e}] = rv
			lines = append(lines, &panelLine{group: rs.Name, base: rs.Base, estimator: e, members: []int{s}})
			if members[e] == nil {
				order = append(order, e)
			}
			members[e] = append(members[e], s)
			bases[rs.Base] = true
		}
	}

	var points []resultsdir.PanelPoint
	add := func(pl *resultsdir.PanelLine, j int, series string, y float64) {
		n := r.N[j]
		pl.Points = append(pl.Points, resultsdir.PanelXY{X: float64(n), Y: y})
		points = append(points, resultsdir.PanelPoint{Panel: idx + 1, Series: series, Estimator: pl.Estimator, Label: pl.Label, N: n,
			X: float64(n), Y: y, Closed: math.NaN(), Z: math.NaN()})
	}
	if pc.Combine == config.CombineMax {
		for _, e := range order {
			ms := members[e]
			pl := resultsdir.PanelLine{Series: r.Series[ms[0]].Name, Estimator: e,
				Label:  fmt.Sprintf("%s (worst over %d series)", estimatorLabel(r, ms, e), len(ms)),
				Dashed: slices.Contains(r.Plot.Dashed, e)}
			for j := range r.N {
				worst, arg := math.NaN(), -1
				for _, s := range ms {
					v := ratios[lineKey{s, e}][j]
					// The first series, a larger ratio, or a NaN (which stays).
					if arg < 0 || v > worst || math.IsNaN(v) && !math.IsNaN(worst) {
						worst, arg = v, s
					}
				}
				add(&pl, j, r.Series[arg].Name, worst)
			}
			pn.Lines = append(pn.Lines, pl)
		}
		return pn, points, nil
	}
	for _, ln := range lines {
		s := ln.members[0]
		rs := &r.Series[s]
		pl := resultsdir.PanelLine{Series: rs.Name, Estimator: ln.estimator, Label: lineLabel(r, pc, ln, rs, len(bases) > 1, len(order) > 1),
			Dashed: slices.Contains(r.Plot.Dashed, ln.estimator) || slices.Contains(r.Plot.Dashed, ln.base+"/"+ln.estimator),
			Group:  rs.Name}
		for j, y := range ratios[lineKey{s, ln.estimator}] {
			add(&pl, j, rs.Name, y)
		}
		pn.Lines = append(pn.Lines, pl)
	}
	return pn, points, nil
}

// ratioParamLines adds to pn the lines of a ratio panel against a swept
// parameter pc.X at n = pc.AtN: the selected series grouped into lines as
// buildPanel groups them (one per estimator and value of the other swept
// parameters), each point quantity.Ratio of q.Of(s, e, AtN) over the
// smallest q.Of(s, b, AtN) of b in pc.Baseline in the same series, in
// order of x.
func ratioParamLines(r *config.Plan, idx int, pc *config.Panel, q *quantity.Quantity, sel []int, rowOf map[statsKey]resultsdir.Row, pn *resultsdir.Panel) ([]resultsdir.PanelPoint, error) {
	var lines []*panelLine
	byKey := map[string]*panelLine{}
	bases, ests := map[string]bool{}, map[string]bool{}
	for _, s := range sel {
		rs := &r.Series[s]
		group := lineGroup(pc, rs)
		for _, e := range pc.EstimatorsOf(rs) {
			ln := byKey[group+"/"+e]
			if ln == nil {
				ln = &panelLine{group: group, base: rs.Base, estimator: e}
				byKey[group+"/"+e] = ln
				lines = append(lines, ln)
			}
			ln.members = append(ln.members, s)
			bases[rs.Base], ests[e] = true, true
		}
	}
	var points []resultsdir.PanelPoint
	for _, ln := range lines {
		first := &r.Series[ln.members[0]]
		pl := resultsdir.PanelLine{Series: first.Name, Estimator: ln.estimator, Label: lineLabel(r, pc, ln, first, len(bases) > 1, len(ests) > 1),
			Dashed: slices.Contains(r.Plot.Dashed, ln.estimator) || slices.Contains(r.Plot.Dashed, ln.base+"/"+ln.estimator),
			Group:  ln.group}
		members := slices.Clone(ln.members)
		slices.SortStableFunc(members, func(a, b int) int { return cmp.Compare(pc.XOf(&r.Series[a]), pc.XOf(&r.Series[b])) })
		for _, s := range members {
			rs := &r.Series[s]
			b, err := best(rs, pc.Baseline, pc.AtN, q.Of, rowOf)
			if err != nil {
				return nil, err
			}
			row, ok := rowOf[statsKey{rs.Name, ln.estimator, pc.AtN}]
			if !ok {
				return nil, fmt.Errorf("no curve row for %s/%s at n = %d", rs.Name, ln.estimator, pc.AtN)
			}
			x, y := pc.XOf(rs), quantity.Ratio(q.Of(curveStats(row, resultsdir.StatsRow{}, false)), b)
			pl.Points = append(pl.Points, resultsdir.PanelXY{X: x, Y: y})
			points = append(points, resultsdir.PanelPoint{Panel: idx + 1, Series: rs.Name, Estimator: ln.estimator, Label: pl.Label, N: pc.AtN,
				X: x, Y: y, Closed: math.NaN(), Z: math.NaN()})
		}
		pn.Lines = append(pn.Lines, pl)
	}
	return points, nil
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
func sweepName(rs *config.Series, x string) string {
	var parts []string
	for _, ps := range rs.Spec().Params {
		if v, ok := rs.Sweep[ps.Name]; ok && ps.Name != x {
			parts = append(parts, ps.Name+"="+ps.Format(v))
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
func lineLabel(r *config.Plan, pc *config.Panel, ln *panelLine, rs *config.Series, multiBase, multiEst bool) string {
	for _, key := range []string{ln.group, ln.base} {
		// A label naming the panel's x parameter would show one point's
		// value for a whole line: such a panel uses the default label
		// (with x = H, a label naming any swept parameter).
		if l, ok := r.Plot.Labels[key+"/"+ln.estimator]; ok && (pc.X == "n" || !namesX(l, pc, rs)) {
			return expandLabel(l, rs)
		}
	}
	var parts []string
	if multiBase {
		parts = append(parts, ln.base)
	}
	for _, ps := range rs.Spec().Params {
		if v, ok := rs.Sweep[ps.Name]; ok && ps.Name != pc.X && pc.X != config.HorizonX {
			parts = append(parts, ps.Name+" = "+ps.Format(v))
		}
	}
	if multiEst || len(parts) == 0 {
		parts = append(parts, ln.estimator)
	}
	return strings.Join(parts, ", ")
}

// expandLabel replaces {name} by the series' value of parameter name.
func expandLabel(l string, rs *config.Series) string {
	if !strings.Contains(l, "{") {
		return l
	}
	for _, ps := range rs.Spec().Params {
		l = strings.ReplaceAll(l, "{"+ps.Name+"}", ps.Format(rs.Params[ps.Name]))
	}
	return l
}

// computedClosed computes closed forms from the series' domains (by the
// estimators' classes).
type computedClosed struct{}

func (computedClosed) at(rs *config.Series, est string, n int) (domains.Moments, bool) {
	return config.ClosedForm(rs, est, n)
}

func (computedClosed) joined(_ int, _ *config.Series, _ string, atPoints []resultsdir.XY) []resultsdir.XY {
	return atPoints
}

// curve evaluates the closed form of q along the panel's x axis between lo
// and hi, densely: with x = n at about 160 sizes (log-spaced on a log
// axis); with x a parameter at every integer (integer parameters) or at
// 160 values, the other parameters those of rs. Values the domain does not
// know (e.g. a horizon that is not a multiple of the option length) are
// left out.
func (computedClosed) curve(_ int, pc *config.Panel, q *quantity.Quantity, rs *config.Series, est string, lo, hi float64, logX bool) []resultsdir.XY {
	spec := rs.Spec()
	info, ok := rs.Info(est)
	if spec.ClosedForm == nil || !ok || info.Class == "" {
		return nil
	}
	const dense = 160
	var xs []float64
	kind := domains.Int
	if pc.X != "n" {
		ps, _ := spec.Param(pc.X)
		kind = ps.Kind
	}
	switch {
	case kind == domains.Bool:
		xs = []float64{lo, hi}
	case kind == domains.Int && hi-lo <= 2*dense:
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
			if kind == domains.Int {
				x = math.Round(x)
			}
			if len(xs) == 0 || x != xs[len(xs)-1] {
				xs = append(xs, x)
			}
		}
	}
	var out []resultsdir.XY
	params := maps.Clone(rs.Params)
	for _, x := range xs {
		n := pc.AtN
		if pc.X == "n" {
			n = int(x)
		} else {
			params[pc.X] = x
		}
		cf, ok := spec.ClosedForm(params, string(info.Class), n)
		if !ok {
			continue
		}
		if y, ok := q.Closed(cf, n, 0, false); ok && !math.IsNaN(y) && !math.IsInf(y, 0) {
			out = append(out, resultsdir.XY{X: x, Y: y})
		}
	}
	return out
}

// storedClosed is closedform.csv read back: the dense lines only (a
// redrawn figure shows no closed value at the points).
type storedClosed map[resultsdir.ClosedKey][]resultsdir.XY

func (storedClosed) at(*config.Series, string, int) (domains.Moments, bool) {
	return domains.Moments{}, false
}

func (s storedClosed) joined(panel int, rs *config.Series, est string, _ []resultsdir.XY) []resultsdir.XY {
	return s[resultsdir.ClosedKey{Panel: panel + 1, Series: rs.Name, Estimator: est}]
}

func (s storedClosed) curve(panel int, _ *config.Panel, _ *quantity.Quantity, rs *config.Series, est string, _, _ float64, _ bool) []resultsdir.XY {
	return s[resultsdir.ClosedKey{Panel: panel + 1, Series: rs.Name, Estimator: est}]
}
