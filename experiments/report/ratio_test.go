package report

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/internal/atomicfile"
)

// ratioTestConfig has a per-series and a combined mse_ratio panel over
// three series: ch[horizon=2] and ch[horizon=4] with is, wis, cwpdis, and
// sub with wis, cwpdis, incris; the baseline is wis and cwpdis, whose
// label on sub is CWPDIS.
const ratioTestConfig = `name: ratio
trials: 4
n: [2, 10]
series:
  - name: ch
    domain: chainmdp
    params: {horizon: [2, 4]}
    estimators: [is, wis, cwpdis]
  - name: sub
    domain: subepisode
    estimators: [wis, cwpdis, incris]
plot:
  labels: {sub/cwpdis: CWPDIS}
  panels:
    - {title: A, y: mse_ratio, baseline: [wis, cwpdis]}
    - {title: B, y: mse_ratio, baseline: [wis, cwpdis], combine: max}
`

// ratioTestMSE are hand-made MSEs at n = 2 and 10, dyadic so that every
// ratio is exact. Per series, the best of wis and cwpdis and the ratios:
//
//	ch[horizon=2]: best = min(0.5, 0.25) = 0.25 at n = 2, min(0, 0) = 0 at 10
//	  is 1/0.25 = 4, 0/0 = 1; wis 0.5/0.25 = 2, 0/0 = 1; cwpdis 1, 1
//	ch[horizon=4]: best = min(0.25, 0.5) = 0.25, min(0, 0.125) = 0
//	  is 0.75/0.25 = 3, 0.5/0 = +Inf; wis 1, 0/0 = 1; cwpdis 2, 0.125/0 = +Inf
//	sub: best = min(2, 1) = 1, min(0.5, 1) = 0.5
//	  wis 2, 1; cwpdis 1, 2; incris 0.5, 2/0.5 = 4
var ratioTestMSE = map[string]map[string][2]float64{
	"ch[horizon=2]": {"is": {1, 0}, "wis": {0.5, 0}, "cwpdis": {0.25, 0}},
	"ch[horizon=4]": {"is": {0.75, 0.5}, "wis": {0.25, 0}, "cwpdis": {0.5, 0.125}},
	"sub":           {"wis": {2, 0.5}, "cwpdis": {1, 1}, "incris": {0.5, 2}},
}

// ratioTestRows are the curve rows of ratioTestConfig with ratioTestMSE,
// in the order Aggregate writes them.
func ratioTestRows(t *testing.T) (*config.Plan, []resultsdir.Row) {
	t.Helper()
	p, err := config.Parse([]byte(ratioTestConfig), "ratio.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var rows []resultsdir.Row
	for _, s := range p.Series {
		for _, e := range s.Estimators {
			for j, n := range p.N {
				mse := ratioTestMSE[s.Name][e][j]
				rows = append(rows, resultsdir.Row{Series: s.Name, Estimator: e, N: n, Trials: p.Trials, MSE: mse, Variance: mse})
			}
		}
	}
	return p, rows
}

// TestRatioPanels: the per-series panel has one line per (series,
// estimator) with the ratios derived on ratioTestMSE; the combined panel
// one line per estimator with the largest ratio over the series that have
// it; points have SE 0, the reference line is at 1; panels.csv lists every
// point, +Inf included, with the series attaining the maximum.
func TestRatioPanels(t *testing.T) {
	p, rows := ratioTestRows(t)
	panels, points, err := BuildPanels(p, rows, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	inf := math.Inf(1)
	type line struct {
		label string
		ys    [2]float64
	}
	check := func(pn resultsdir.Panel, want []line) {
		t.Helper()
		if len(pn.Lines) != len(want) {
			t.Fatalf("panel %s: %d lines, want %d", pn.Title, len(pn.Lines), len(want))
		}
		for i, w := range want {
			ln := pn.Lines[i]
			got := [2]float64{}
			for j, pt := range ln.Points {
				if pt.X != float64(p.N[j]) || pt.SE != 0 {
					t.Errorf("panel %s, %s: point %+v, want x = %d and SE 0", pn.Title, ln.Label, pt, p.N[j])
				}
				got[j] = pt.Y
			}
			if ln.Label != w.label || len(ln.Points) != 2 || got != w.ys {
				t.Errorf("panel %s, line %d: %q %v, want %q %v", pn.Title, i, ln.Label, got, w.label, w.ys)
			}
		}
		if len(pn.Refs) != 1 || pn.Refs[0] != (resultsdir.RefLine{Label: "best of wis, CWPDIS", Y: 1}) {
			t.Errorf("panel %s: references %+v, want best of wis, CWPDIS at 1", pn.Title, pn.Refs)
		}
		if !pn.LogX || !pn.LogY || pn.YLabel != "MSE / min MSE(wis, CWPDIS)" {
			t.Errorf("panel %s: log x %v, log y %v, y label %q", pn.Title, pn.LogX, pn.LogY, pn.YLabel)
		}
	}
	// The ratios of ratioTestMSE's comment.
	check(panels[0], []line{
		{"ch, horizon = 2, is", [2]float64{4, 1}},
		{"ch, horizon = 2, wis", [2]float64{2, 1}},
		{"ch, horizon = 2, cwpdis", [2]float64{1, 1}},
		{"ch, horizon = 4, is", [2]float64{3, inf}},
		{"ch, horizon = 4, wis", [2]float64{1, 1}},
		{"ch, horizon = 4, cwpdis", [2]float64{2, inf}},
		{"sub, wis", [2]float64{2, 1}},
		{"CWPDIS", [2]float64{1, 2}},
		{"sub, incris", [2]float64{0.5, 4}},
	})
	// The maxima over series: is max(4, 3) = 4, max(1, +Inf) = +Inf; wis
	// max(2, 1, 2) = 2, max(1, 1, 1) = 1; cwpdis max(1, 2, 1) = 2,
	// max(1, +Inf, 2) = +Inf; incris is on sub only.
	check(panels[1], []line{
		{"is (worst over 2 series)", [2]float64{4, inf}},
		{"wis (worst over 3 series)", [2]float64{2, 1}},
		{"CWPDIS (worst over 3 series)", [2]float64{2, inf}},
		{"incris (worst over 1 series)", [2]float64{0.5, 4}},
	})
	if len(points) != (9+4)*2 {
		t.Errorf("%d points, want (9 + 4 lines) x 2 n", len(points))
	}
	var buf bytes.Buffer
	if err := resultsdir.WritePanelsCSV(&buf, p, points); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\n1,A,ch[horizon=4],is,\"ch, horizon = 4, is\",10,10,+Inf,0,,\n",
		"\n1,A,sub,incris,\"sub, incris\",2,2,0.5,0,,\n",
		// The series attaining the maximum; the first of ties (wis: 2 on
		// ch[horizon=2] and sub; 1 on all three).
		"\n2,B,ch[horizon=2],is,is (worst over 2 series),2,2,4,0,,\n",
		"\n2,B,ch[horizon=4],is,is (worst over 2 series),10,10,+Inf,0,,\n",
		"\n2,B,ch[horizon=2],wis,wis (worst over 3 series),2,2,2,0,,\n",
		"\n2,B,ch[horizon=2],wis,wis (worst over 3 series),10,10,1,0,,\n",
		"\n2,B,ch[horizon=4],cwpdis,CWPDIS (worst over 3 series),2,2,2,0,,\n",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("panels.csv lacks %q:\n%s", want, buf.String())
		}
	}

	// A missing baseline row is an error naming it.
	missing := slices.DeleteFunc(slices.Clone(rows), func(r resultsdir.Row) bool { return r.Series == "sub" && r.Estimator == "cwpdis" && r.N == 10 })
	if _, _, err := BuildPanels(p, missing, nil, nil, nil); err == nil || !strings.Contains(err.Error(), "plot.panels[0] (A): no curve row for baseline sub/cwpdis at n = 10") {
		t.Errorf("panels without a baseline row: %v", err)
	}
	// A plan read back from a meta.json that config would refuse is an
	// error, not a guess.
	p.Plot.Panels[1].Combine = "min"
	if _, _, err := BuildPanels(p, rows, nil, nil, nil); err == nil || !strings.Contains(err.Error(), `plot.panels[1] (B): combine "min", want max`) {
		t.Errorf("combine min: %v", err)
	}
	p.Plot.Panels[0].Baseline = nil
	if _, _, err := BuildPanels(p, rows, nil, nil, nil); err == nil || !strings.Contains(err.Error(), "plot.panels[0] (A): y mse_ratio without a baseline") {
		t.Errorf("no baseline: %v", err)
	}
}

// TestRatioPanelsRedrawn: a run with ratio panels writes its files, and the
// figure ReadFigure rebuilds from them alone equals the one built at run
// time, its note saying that ratios have no error bars.
func TestRatioPanelsRedrawn(t *testing.T) {
	p, rows := ratioTestRows(t)
	panels, points, err := BuildPanels(p, rows, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{Plan: p, Rows: rows, Panels: panels, Points: points}
	files, err := rep.Files(RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := atomicfile.WriteAll(dir, files); err != nil {
		t.Fatal(err)
	}
	f, name, err := ReadFigure(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := rep.Figure()
	if name != "ratio" || f.Note != want.Note || len(f.Panels) != 2 {
		t.Fatalf("redrawn %q: note %q, %d panels; want ratio, %q, 2", name, f.Note, len(f.Panels), want.Note)
	}
	if wantNote := PanelsNote + "; MSE ratios: no error bars."; f.Note != wantNote {
		t.Errorf("note %q, want %q", f.Note, wantNote)
	}
	for i := range f.Panels {
		g, w := f.Panels[i], want.Panels[i]
		if g.Title != w.Title || g.YLabel != w.YLabel || !slices.Equal(g.Refs, w.Refs) || len(g.Lines) != len(w.Lines) {
			t.Errorf("panel %d redrawn differs: %+v\nwant %+v", i, g, w)
			continue
		}
		for j := range g.Lines {
			if g.Lines[j].Label != w.Lines[j].Label || !slices.Equal(g.Lines[j].Points, w.Lines[j].Points) {
				t.Errorf("panel %d, line %d redrawn: %+v, want %+v", i, j, g.Lines[j], w.Lines[j])
			}
		}
	}
	// Ratios have no closed form: no closedform.csv is written or needed.
	if _, err := os.Stat(filepath.Join(dir, resultsdir.ClosedFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: %v, want it absent", resultsdir.ClosedFile, err)
	}
}

// TestRatioPanelAgainstParameter: a ratio panel against the swept horizon
// at n = 2 draws one line per estimator over ch[horizon=2] and
// ch[horizon=4], in order of x, each point the series' ratio at n = 2 of
// ratioTestMSE's comment: is 4 then 3, wis 2 then 1, cwpdis 1 then 2.
func TestRatioPanelAgainstParameter(t *testing.T) {
	cfg := strings.Replace(ratioTestConfig, "    - {title: B, y: mse_ratio, baseline: [wis, cwpdis], combine: max}\n",
		"    - {title: B, series: [ch], x: horizon, at_n: 2, y: mse_ratio, baseline: [wis, cwpdis]}\n", 1)
	p, err := config.Parse([]byte(cfg), "ratio.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, rows := ratioTestRows(t)
	panels, points, err := BuildPanels(p, rows, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pn := panels[1]
	want := map[string][2]float64{"is": {4, 3}, "wis": {2, 1}, "cwpdis": {1, 2}}
	if len(pn.Lines) != 3 {
		t.Fatalf("%d lines, want 3 (one per estimator)", len(pn.Lines))
	}
	for _, ln := range pn.Lines {
		w := want[ln.Estimator]
		if len(ln.Points) != 2 || ln.Points[0].X != 2 || ln.Points[1].X != 4 || ln.Points[0].Y != w[0] || ln.Points[1].Y != w[1] {
			t.Errorf("%s: points %+v, want (2, %v), (4, %v)", ln.Estimator, ln.Points, w[0], w[1])
		}
	}
	if pn.LogX || len(pn.Refs) != 1 || pn.Refs[0].Y != 1 {
		t.Errorf("log x %v, references %+v; want a linear x and the line at 1", pn.LogX, pn.Refs)
	}
	n := 0
	for _, pt := range points {
		if pt.Panel == 2 {
			n++
			if pt.N != 2 {
				t.Errorf("panels.csv point %+v, want n = 2", pt)
			}
		}
	}
	if n != 6 {
		t.Errorf("%d panels.csv points for panel B, want 6", n)
	}
}
