package figure

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"gonum.org/v1/plot/plotter"
)

// ratioPanels are the two panels of MSE ratios (report.buildRatioPanel
// makes them, config y mse_ratio) of the report package's ratio test, with
// literal values: per (series, estimator) the MSE over the best of WIS and
// CWPDIS at n = 10, 100, 1000, and combined, each estimator's worst ratio
// over three series. Two points are +Inf (a positive MSE over a best MSE
// of 0). Points have SE 0; the reference line is at 1.
func ratioPanels() []Panel {
	inf := math.Inf(1)
	line := func(label string, ys ...float64) resultsdir.PanelLine {
		ln := resultsdir.PanelLine{Label: label}
		for i, y := range ys {
			ln.Points = append(ln.Points, pt([]float64{10, 100, 1000}[i], y, 0))
		}
		return ln
	}
	refs := []resultsdir.RefLine{{Label: "best of WIS, CWPDIS", Y: 1}}
	perSeries := Panel{Title: "A. MSE / best of WIS, CWPDIS, per domain", XLabel: "n (trajectories)", YLabel: "MSE / min MSE(WIS, CWPDIS)",
		LogX: true, LogY: true, Refs: refs, Lines: []resultsdir.PanelLine{
			line("chain, IS", 40, 120, 900),
			line("chain, WIS", 1, 1, 1),
			line("chain, CWPDIS", 1.3, 1.1, 1.02),
			line("gridworld, INCRIS-LD", 3, 12, 25),
			line("gridworld, adaptive", 1.1, 1.2, inf),
			line("sub-episode, adaptive", 0.3, 0.12, 0.09),
		}}
	combined := Panel{Title: "B. Worst case over domains", XLabel: "n (trajectories)", YLabel: "MSE / min MSE(WIS, CWPDIS)",
		LogX: true, LogY: true, Refs: refs, Lines: []resultsdir.PanelLine{
			line("IS (worst over 3 series)", 40, 120, 900),
			line("WIS (worst over 3 series)", 1.6, 1.3, 1.1),
			line("CWPDIS (worst over 3 series)", 1.3, 1.1, 1.02),
			line("INCRIS-LD (worst over 2 series)", 3, 12, 25),
			line("adaptive (worst over 2 series)", 1.1, 1.2, inf),
		}}
	return []Panel{perSeries, combined}
}

// ratioFigure is the figure of ratioPanels, under the note a run with
// ratio panels writes (literal, as report.PanelsNote +
// report.PanelsRatioNote read today, so that rewording those does not
// change this golden figure).
func ratioFigure() Figure {
	return Figure{Title: "Golden: MSE ratios (synthetic)",
		Note:   "Points: simulated, with error bars of ±1 standard error over the trials; MSE ratios: no error bars.",
		Panels: ratioPanels()}
}

// TestRatioPanelsDraw: a figure of ratio panels, per series and combined,
// draws the same bytes twice; its legend names the lines and the
// reference line, and the +Inf points are drawn at the top of the y axis
// (not left out) and noted under the panel's title.
func TestRatioPanelsDraw(t *testing.T) {
	f := ratioFigure()
	p1, s1, err := render(f)
	if err != nil {
		t.Fatal(err)
	}
	p2, s2, _ := render(f)
	if !bytes.Equal(p1, p2) || !bytes.Equal(s1, s2) {
		t.Error("rendering the same figure twice gives different bytes")
	}
	drawAndCheck(t, f)
	for _, label := range []string{"best of WIS, CWPDIS", "adaptive (worst over 2 series)", "gridworld, INCRIS-LD", infNote, "MSE ratios: no error bars"} {
		if !bytes.Contains(s1, []byte(label)) {
			t.Errorf("the SVG has no %q", label)
		}
	}
	for i, pn := range f.Panels {
		v, err := panelView(pn, 0)
		if err != nil {
			t.Fatal(err)
		}
		if v.note != infNote {
			t.Errorf("panel %d: note %q, want %q", i, v.note, infNote)
		}
		// The data span [0.09, 900] (per series) or [1.02, 900]; the axis
		// holds them and the reference at 1.
		if !(v.yMin < math.Min(0.09+float64(i), 1)) || !(v.yMax > 900) {
			t.Errorf("panel %d: y axis [%g, %g]", i, v.yMin, v.yMax)
		}
		inf := 4 // the gridworld adaptive line, +Inf at n = 1000, in both panels
		got := v.lines[inf]
		if len(got.pts) != 3 || len(got.top) != 1 || got.pts[2] != (plotter.XY{X: 1000, Y: v.yMax}) {
			t.Errorf("panel %d, line %q drawn at %v (top %v), want its third point at (1000, %g)", i, pn.Lines[inf].Label, got.pts, got.top, v.yMax)
		}
		if got.lo[2] != v.yMax || got.hi[2] != v.yMax {
			t.Errorf("panel %d: the +Inf point has a bar [%g, %g]", i, got.lo[2], got.hi[2])
		}
	}
	// Without the +Inf points there is no note.
	finite := ratioPanels()[1]
	finite.Lines = finite.Lines[:4]
	if v, err := panelView(finite, 0); err != nil || v.note != "" {
		t.Errorf("finite panel: note %q (%v), want none", v.note, err)
	}
	// A y_min that clips and a +Inf: both notes.
	if v, err := panelView(ratioPanels()[0], 0.5); err != nil || v.note != clipNote(0.5)+"; "+infNote {
		t.Errorf("clipped panel: note %q (%v)", v.note, err)
	}
}

// TestRatioPanelOnlyInfinite: a panel whose every point is +Inf still
// draws them, at the top of an axis around 1 (the reference line's
// value, also without one).
func TestRatioPanelOnlyInfinite(t *testing.T) {
	pn := Panel{Title: "all +Inf", LogX: true, LogY: true, Refs: []resultsdir.RefLine{{Label: "best of WIS", Y: 1}},
		Lines: []resultsdir.PanelLine{{Label: "IS", Points: []resultsdir.PanelXY{pt(10, math.Inf(1), 0), pt(100, math.Inf(1), 0)}}}}
	v, err := panelView(pn, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The axis of 1 alone, [0.5, 2] (logPad), with the headroom of +Inf
	// points above: 2 (2/0.5)^infHeadroom.
	lo, hi := logPad(1, 1)
	top := hi * math.Pow(hi/lo, infHeadroom)
	if v.yMin != lo || v.yMax != top || len(v.lines[0].top) != 2 || v.lines[0].pts[1].Y != top || !strings.Contains(v.note, infNote) {
		t.Errorf("view %+v, want the points at the top of [%g, %g]", v, lo, top)
	}
	drawAndCheck(t, Figure{Title: "inf", Panels: []Panel{pn}})
	pn.Refs = nil
	if v, err := panelView(pn, 0); err != nil || v.yMax != top {
		t.Errorf("without a reference: %v, %v", v, err)
	}
}
