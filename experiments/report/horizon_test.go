package report

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/internal/atomicfile"
)

// horizonTestConfig has panels against H over two domains that set H
// differently (chainmdp: horizon; subepisode: 2 x subepisodes) and a
// series with V(pi_e) = 0, a panel against n with the MSE's weight
// reference, and a ratio panel against H.
const horizonTestConfig = `name: hz
trials: 4
n: [4, 16, 64]
series:
  - name: ch
    domain: chainmdp
    params: {horizon: [2, 4], p_e: 0.5}
    estimators: [pdis, wis]
  - name: sub
    domain: subepisode
    params: {subepisodes: [1, 3]}
    estimators: [pdis]
  - name: zero
    domain: chainmdp
    params: {horizon: 3, p_e: 0}
    estimators: [pdis]
plot:
  panels:
    - {title: A, x: H, at_n: 16, y: rel_rmse, weight_reference: true, slope: true}
    - {title: B, series: [sub], y: mse, weight_reference: true, slope: true}
    - {title: C, series: [ch], x: H, at_n: 4, y: mse_ratio, baseline: [wis]}
`

// horizonTestRows are hand-made curve rows of horizonTestConfig: MSE and
// mse_se at n = 16 chosen so that the relative RMSE is round, 1 elsewhere;
// true values: ch[horizon=2] 0.25, ch[horizon=4] 0.0625, sub 2, zero 0.
// Their relative RMSE sqrt(MSE)/|V| and se mse_se/(2 sqrt(MSE) |V|):
//
//	ch[horizon=2]  pdis: sqrt(0.0625)/0.25 = 1,     se 0.05/(2 0.25 0.25) = 0.4
//	               wis:  sqrt(0.01)/0.25 = 0.4,     se 0
//	ch[horizon=4]  pdis: sqrt(0.015625)/0.0625 = 2, se 0.01/(2 0.125 0.0625) = 0.64
//	               wis:  sqrt(0.0025)/0.0625 = 0.8, se 0
//	sub[s=1]       pdis: sqrt(1)/2 = 0.5,           se 0.2/(2 1 2) = 0.05
//	sub[s=3]       pdis: sqrt(4)/2 = 1,             se 0.8/(2 2 2) = 0.1
//	zero           undefined (V = 0)
//
// and their truths: sub[subepisodes=1] records E_b[W_H^2] = 4,
// sub[subepisodes=3] 64, the chains none.
func horizonTestRows(t *testing.T) (*config.Plan, []resultsdir.Row, []domains.Truth) {
	t.Helper()
	p, err := config.Parse([]byte(horizonTestConfig), "hz.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type cell struct{ mse, se float64 }
	at16 := map[string]cell{
		"ch[horizon=2]/pdis": {0.0625, 0.05}, "ch[horizon=2]/wis": {0.01, 0},
		"ch[horizon=4]/pdis": {0.015625, 0.01}, "ch[horizon=4]/wis": {0.0025, 0},
		"sub[subepisodes=1]/pdis": {1, 0.2}, "sub[subepisodes=3]/pdis": {4, 0.8},
		"zero/pdis": {1, 0.1},
	}
	v := map[string]float64{"ch[horizon=2]": 0.25, "ch[horizon=4]": 0.0625, "sub[subepisodes=1]": 2, "sub[subepisodes=3]": 2, "zero": 0}
	w2 := map[string]float64{"sub[subepisodes=1]": 4, "sub[subepisodes=3]": 64}
	var rows []resultsdir.Row
	var truths []domains.Truth
	for _, s := range p.Series {
		tr := domains.Truth{Value: v[s.Name], Method: "hand-made"}
		if w, ok := w2[s.Name]; ok {
			tr.Extra = map[string]float64{domains.WeightSecondMoment: w}
		}
		truths = append(truths, tr)
		for _, e := range s.Estimators {
			for _, n := range p.N {
				c := cell{1, 0.1}
				if n == 16 {
					c = at16[s.Name+"/"+e]
				}
				rows = append(rows, resultsdir.Row{Series: s.Name, Estimator: e, N: n, Trials: p.Trials, TrueValue: v[s.Name], MSE: c.mse, Variance: c.mse, MSESE: c.se})
			}
		}
	}
	return p, rows, truths
}

// near compares to 1e-12 relative (NaN equals NaN).
func near(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b))
}

// TestHorizonPanels: against H, one line per (base series, estimator)
// through its series in order of H (chain: horizon; subepisode: 2 x
// subepisodes), the values of horizonTestRows' comment; zero's points are
// left out and noted; the weight reference sqrt(E_b[W_H^2]/n) is drawn
// for sub only (sqrt(4/16) = 0.5 at H = 2, sqrt(64/16) = 2 at H = 6), the
// chains noted; against n, the MSE's reference V^2 E_b[W_H^2]/n per
// series (4 * 4/n and 4 * 64/n); a ratio panel against H runs through H.
func TestHorizonPanels(t *testing.T) {
	p, rows, truths := horizonTestRows(t)
	panels, points, err := BuildPanels(p, rows, nil, nil, truths)
	if err != nil {
		t.Fatal(err)
	}
	type line struct {
		label, group, est string
		ref               bool
		pts               []resultsdir.PanelXY
	}
	for _, tc := range []struct {
		panel  int
		xLabel string
		logX   bool
		note   string
		lines  []line
	}{
		{0, "horizon H", true,
			"rel_rmse undefined where V(pi_e) = 0: 1 point of zero left out\nno E_b[W_H^2] recorded for ch, zero: no reference there",
			[]line{
				{"ch, pdis", "ch", "pdis", false, []resultsdir.PanelXY{{X: 2, Y: 1, SE: 0.4}, {X: 4, Y: 2, SE: 0.64}}},
				{"ch, wis", "ch", "wis", false, []resultsdir.PanelXY{{X: 2, Y: 0.4, SE: 0}, {X: 4, Y: 0.8, SE: 0}}},
				{"sub, pdis", "sub", "pdis", false, []resultsdir.PanelXY{{X: 2, Y: 0.5, SE: 0.05}, {X: 6, Y: 1, SE: 0.1}}},
				{"zero, pdis", "zero", "pdis", false, nil},
				{"sqrt(E_b[W_H^2]/n), sub", "sub", "", true, []resultsdir.PanelXY{{X: 2, Y: 0.5, SE: 0}, {X: 6, Y: 2, SE: 0}}},
			}},
		{1, "n (trajectories)", true, "",
			[]line{
				{"subepisodes = 1", "sub[subepisodes=1]", "pdis", false, []resultsdir.PanelXY{{X: 4, Y: 1, SE: 0.1}, {X: 16, Y: 1, SE: 0.2}, {X: 64, Y: 1, SE: 0.1}}},
				{"subepisodes = 3", "sub[subepisodes=3]", "pdis", false, []resultsdir.PanelXY{{X: 4, Y: 1, SE: 0.1}, {X: 16, Y: 4, SE: 0.8}, {X: 64, Y: 1, SE: 0.1}}},
				{"IS scale V(pi_e)^2 E_b[W_H^2]/n, sub[subepisodes=1]", "sub[subepisodes=1]", "", true, []resultsdir.PanelXY{{X: 4, Y: 4, SE: 0}, {X: 16, Y: 1, SE: 0}, {X: 64, Y: 0.25, SE: 0}}},
				{"IS scale V(pi_e)^2 E_b[W_H^2]/n, sub[subepisodes=3]", "sub[subepisodes=3]", "", true, []resultsdir.PanelXY{{X: 4, Y: 64, SE: 0}, {X: 16, Y: 16, SE: 0}, {X: 64, Y: 4, SE: 0}}},
			}},
		// MSE 1 everywhere at n = 4: every ratio is 1.
		{2, "horizon H", true, "",
			[]line{
				{"pdis", "ch", "pdis", false, []resultsdir.PanelXY{{X: 2, Y: 1, SE: 0}, {X: 4, Y: 1, SE: 0}}},
				{"wis", "ch", "wis", false, []resultsdir.PanelXY{{X: 2, Y: 1, SE: 0}, {X: 4, Y: 1, SE: 0}}},
			}},
	} {
		pn := panels[tc.panel]
		if pn.XLabel != tc.xLabel || pn.LogX != tc.logX || pn.Note != tc.note {
			t.Errorf("panel %s: x label %q, log x %v, note %q; want %q, %v, %q", pn.Title, pn.XLabel, pn.LogX, pn.Note, tc.xLabel, tc.logX, tc.note)
		}
		if len(pn.Lines) != len(tc.lines) {
			t.Errorf("panel %s: %d lines, want %d: %+v", pn.Title, len(pn.Lines), len(tc.lines), pn.Lines)
			continue
		}
		for i, w := range tc.lines {
			ln := pn.Lines[i]
			ok := ln.Label == w.label && ln.Group == w.group && ln.Estimator == w.est && ln.Reference == w.ref && ln.Dashed == w.ref && len(ln.Points) == len(w.pts)
			for j := 0; ok && j < len(w.pts); j++ {
				g := ln.Points[j]
				ok = g.X == w.pts[j].X && near(g.Y, w.pts[j].Y) && near(g.SE, w.pts[j].SE)
			}
			if !ok {
				t.Errorf("panel %s, line %d: %q (group %q, estimator %q, reference %v) %v\nwant %q (%q, %q, %v) %v",
					pn.Title, i, ln.Label, ln.Group, ln.Estimator, ln.Reference, ln.Points, w.label, w.group, w.est, w.ref, w.pts)
			}
		}
	}

	// panels.csv: the reference's points follow the panel's points, with
	// an empty estimator and empty se, closed_form and z.
	var buf bytes.Buffer
	if err := resultsdir.WritePanelsCSV(&buf, p, points); err != nil {
		t.Fatal(err)
	}
	csv := buf.String()
	for _, want := range []string{
		"1,A,ch[horizon=4],pdis,\"ch, pdis\",16,4,2,0.64,,\n",
		"1,A,sub[subepisodes=3],pdis,\"sub, pdis\",16,6,1,0.1,,\n",
		"1,A,sub[subepisodes=1],,\"sqrt(E_b[W_H^2]/n), sub\",16,2,0.5,,,\n1,A,sub[subepisodes=3],,\"sqrt(E_b[W_H^2]/n), sub\",16,6,2,,,\n2,B,",
		"2,B,sub[subepisodes=3],,\"IS scale V(pi_e)^2 E_b[W_H^2]/n, sub[subepisodes=3]\",64,64,4,,,\n3,C,",
	} {
		if !strings.Contains(csv, want) {
			t.Errorf("panels.csv lacks %q:\n%s", want, csv)
		}
	}
	if strings.Contains(csv, "zero,pdis") || strings.Contains(csv, "NaN") || strings.Contains(csv, "Inf") {
		t.Errorf("panels.csv has an undefined point:\n%s", csv)
	}
}

// TestHorizonPanelSlopes: slopes.csv fits log10 y on log10 x per line of
// the panels with slope: true, by hand from TestHorizonPanels' points:
// ch pdis (2, 1), (4, 2): slope 1, intercept log10 1 - log10 2; ch wis
// (2, 0.4), (4, 0.8): slope 1, intercept log10 0.2; sub pdis (2, 0.5),
// (6, 1): slope log10 2 / log10 3; zero: no point; the reference (2,
// 0.5), (6, 2): slope log10 4 / log10 3; against n the MSE of
// sub[subepisodes=1] is 1 at every n (slope 0, se 0) and its reference
// 16/n (slope -1, intercept log10 16, se 0); panel C asks for none.
func TestHorizonPanelSlopes(t *testing.T) {
	p, rows, truths := horizonTestRows(t)
	panels, _, err := BuildPanels(p, rows, nil, nil, truths)
	if err != nil {
		t.Fatal(err)
	}
	nan, l2, l3 := math.NaN(), math.Log10(2), math.Log10(3)
	want := []resultsdir.SlopeRow{
		{Panel: 1, Series: "ch", Estimator: "pdis", Points: 2, Slope: 1, SE: nan, Intercept: -l2},
		{Panel: 1, Series: "ch", Estimator: "wis", Points: 2, Slope: 1, SE: nan, Intercept: math.Log10(0.2)},
		{Panel: 1, Series: "sub", Estimator: "pdis", Points: 2, Slope: l2 / l3, SE: nan, Intercept: math.Log10(0.5) - l2/l3*l2},
		{Panel: 1, Series: "zero", Estimator: "pdis", Points: 0, Slope: nan, SE: nan, Intercept: nan},
		{Panel: 1, Series: "sub", Estimator: "", Points: 2, Slope: 2 * l2 / l3, SE: nan, Intercept: math.Log10(0.5) - 2*l2/l3*l2},
		{Panel: 2, Series: "sub[subepisodes=1]", Estimator: "pdis", Points: 3, Slope: 0, SE: 0, Intercept: 0},
		// u = log10 n = 2 l2, 4 l2, 6 l2; v = log10 MSE = 0, 2 l2, 0: Suu =
		// 8 l2^2, Suv = 0, so slope 0 and intercept v0 = 2 l2/3; residuals
		// -2 l2/3, 4 l2/3, -2 l2/3, SSR = 24/9 l2^2, se = sqrt(SSR/1/Suu)
		// = sqrt(1/3).
		{Panel: 2, Series: "sub[subepisodes=3]", Estimator: "pdis", Points: 3, Slope: 0, SE: math.Sqrt(1.0 / 3), Intercept: 2 * l2 / 3},
		{Panel: 2, Series: "sub[subepisodes=1]", Estimator: "", Points: 3, Slope: -1, SE: 0, Intercept: 4 * l2},
		{Panel: 2, Series: "sub[subepisodes=3]", Estimator: "", Points: 3, Slope: -1, SE: 0, Intercept: 8 * l2},
	}
	got := Slopes(p, panels)
	if len(got) != len(want) {
		t.Fatalf("%d slope rows, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Panel != w.Panel || g.Series != w.Series || g.Estimator != w.Estimator || g.Points != w.Points ||
			!near(g.Slope, w.Slope) || !(near(g.SE, w.SE) || math.Abs(g.SE-w.SE) < 1e-15) || !near(g.Intercept, w.Intercept) {
			t.Errorf("row %d: %+v, want %+v", i, g, w)
		}
	}
	var buf bytes.Buffer
	if err := resultsdir.WriteSlopesCSV(&buf, p, got); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	if lines[0] != strings.Join(resultsdir.SlopesHeader(), ",") || lines[4] != "1,A,zero,pdis,H,rel_rmse,16,0,,," ||
		!strings.HasPrefix(lines[1], "1,A,ch,pdis,H,rel_rmse,16,2,1,,-0.30102999566398") ||
		!strings.HasPrefix(lines[6], "2,B,sub[subepisodes=1],pdis,n,mse,,3,0,0,0") {
		t.Errorf("slopes.csv:\n%s", buf.String())
	}
}

// TestLogLogFit: the least-squares fit of log10 y on log10 x, by hand.
func TestLogLogFit(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name                 string
		xs, ys               []float64
		points               int
		slope, se, intercept float64
	}{
		// y = 3 x^2: exact, so se 0.
		{"power law", []float64{1, 10, 100}, []float64{3, 300, 30000}, 3, 2, 0, math.Log10(3)},
		// u = 0, 1, 2; v = 0, 1, 1: u0 = 1, v0 = 2/3, Suu = 2, Suv = 1, slope
		// 1/2, intercept 1/6, residuals -1/6, 1/3, -1/6, SSR 1/6, se
		// sqrt(1/6 / 1 / 2).
		{"noisy", []float64{1, 10, 100}, []float64{1, 10, 10}, 3, 0.5, math.Sqrt(1.0 / 12), 1.0 / 6},
		// Points a log-log fit cannot use are left out: y <= 0, NaN, +Inf,
		// x <= 0; what is left is the power law.
		{"filtered", []float64{1, 10, 100, 0, -1, 10, 10, 10}, []float64{3, 300, 30000, 5, 5, 0, nan, inf}, 3, 2, 0, math.Log10(3)},
		// y = x/2.
		{"two points: no se", []float64{2, 8}, []float64{1, 4}, 2, 1, nan, -math.Log10(2)},
		{"one point", []float64{2}, []float64{1}, 1, nan, nan, nan},
		{"one x", []float64{2, 2, 2}, []float64{1, 2, 3}, 3, nan, nan, nan},
		{"none", nil, nil, 0, nan, nan, nan},
	} {
		m, slope, se, icpt := LogLogFit(tc.xs, tc.ys)
		if m != tc.points || !near(slope, tc.slope) || !(near(se, tc.se) || math.Abs(se-tc.se) < 1e-15) || !near(icpt, tc.intercept) {
			t.Errorf("%s: %d points, slope %v, se %v, intercept %v; want %d, %v, %v, %v", tc.name, m, slope, se, icpt, tc.points, tc.slope, tc.se, tc.intercept)
		}
	}
}

// TestHorizonPanelsRedrawn: the run's files hold slopes.csv (some panel
// asks for slopes) and the horizons in meta.json; ReadFigure rebuilds the
// same panels from the files alone, weight references (from meta.json's
// truths) and notes included; without slope: true no slopes.csv is
// written.
func TestHorizonPanelsRedrawn(t *testing.T) {
	p, rows, truths := horizonTestRows(t)
	panels, points, err := BuildPanels(p, rows, nil, nil, truths)
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{Plan: p, Truths: truths, Rows: rows, Panels: panels, Points: points, Slopes: Slopes(p, panels)}
	files, err := rep.Files(RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(files, func(f atomicfile.File) bool { return f.Name == resultsdir.SlopesFile }) {
		t.Errorf("no %s written", resultsdir.SlopesFile)
	}
	dir := t.TempDir()
	if err := atomicfile.WriteAll(dir, files); err != nil {
		t.Fatal(err)
	}
	f, _, err := ReadFigure(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := rep.Figure()
	if len(f.Panels) != len(want.Panels) {
		t.Fatalf("%d panels redrawn, want %d", len(f.Panels), len(want.Panels))
	}
	for i := range f.Panels {
		g, w := f.Panels[i], want.Panels[i]
		if g.Note != w.Note || g.XLabel != w.XLabel || len(g.Lines) != len(w.Lines) {
			t.Errorf("panel %d redrawn: note %q, x label %q, %d lines; want %q, %q, %d", i, g.Note, g.XLabel, len(g.Lines), w.Note, w.XLabel, len(w.Lines))
			continue
		}
		for j := range g.Lines {
			gl, wl := g.Lines[j], w.Lines[j]
			if gl.Label != wl.Label || gl.Reference != wl.Reference || gl.Group != wl.Group || !slices.Equal(gl.Points, wl.Points) {
				t.Errorf("panel %d, line %d redrawn: %+v, want %+v", i, j, gl, wl)
			}
		}
	}

	for i := range p.Plot.Panels {
		p.Plot.Panels[i].Slope = false
	}
	files, err = rep.Files(RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(files, func(f atomicfile.File) bool { return f.Name == resultsdir.SlopesFile }) {
		t.Errorf("%s written, but no panel asks for slopes", resultsdir.SlopesFile)
	}
}

// TestHorizonPanelReadBackChecked: a plan read back whose panel against H
// lacks a horizon, or whose truths do not match its series, is refused.
func TestHorizonPanelReadBackChecked(t *testing.T) {
	p, rows, truths := horizonTestRows(t)
	delete(p.Plot.Panels[0].Horizons, "sub[subepisodes=3]")
	if _, _, err := BuildPanels(p, rows, nil, nil, truths); err == nil || !strings.Contains(err.Error(), "plot.panels[0] (A): x H, but no horizon >= 1 is recorded for series sub[subepisodes=3]") {
		t.Errorf("missing horizon: %v", err)
	}
	p, rows, truths = horizonTestRows(t)
	rep := &Report{Plan: p, Truths: truths[:2], Rows: rows}
	files, err := rep.Files(RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := atomicfile.WriteAll(dir, files); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFigure(dir); err == nil || !strings.Contains(err.Error(), "meta.json: 2 truths for 5 series") {
		t.Errorf("truths of 2 series: %v", err)
	}
}
