package figure

import (
	"bytes"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/report"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
)

// boundPanels are the two panels of lower bounds (report.buildBoundPanel
// makes them from bounds.csv), with literal values: the mean bounds of two
// lines against n below V(pi_e) = 0.6561 (one below 0: t at small n),
// with their standard errors, and their coverages with binomial standard
// errors sqrt(c (1 - c) / 30) under 1 - delta = 0.95, on a y axis fixed
// at [0, 1].
func boundPanels() []Panel {
	lower := Panel{Title: "A. Mean lower bound", XLabel: "n (trajectories)", YLabel: "mean lower bound", LogX: true,
		Lines: []resultsdir.PanelLine{
			{Label: "IS t bound", Points: []resultsdir.PanelXY{pt(10, -0.37, 0.073), pt(100, 0.24, 0.031), pt(1000, 0.55, 0.01)}},
			{Label: "IS hcope bound", Points: []resultsdir.PanelXY{pt(10, 0, 0), pt(100, 0.1, 0.02), pt(1000, 0.4, 0.008)}},
		},
		Refs: []resultsdir.RefLine{{Label: "V(pi_e)", Y: 0.6561}}}
	coverage := Panel{Title: "B. Coverage", XLabel: "n (trajectories)", YLabel: "coverage", LogX: true, YLo: 0, YHi: 1,
		Lines: []resultsdir.PanelLine{
			// 27/30 = 0.9: se sqrt(0.9 x 0.1 / 30) = 0.0548; 30/30: se 0.
			{Label: "IS t bound", Points: []resultsdir.PanelXY{pt(10, 0.9, 0.0548), pt(100, 0.9333, 0.0455), pt(1000, 1, 0)}},
			{Label: "IS hcope bound", Points: []resultsdir.PanelXY{pt(10, 1, 0), pt(100, 1, 0), pt(1000, 1, 0)}},
		},
		Refs: []resultsdir.RefLine{{Label: "1 - delta = 0.95", Y: 0.95}}}
	return []Panel{lower, coverage}
}

// TestBoundPanelsDraw: a figure of a lower-bound and a coverage panel
// draws the same bytes twice; its reference lines are drawn and named in
// the legend; the coverage axis shows [0, 1] whatever the points, and the
// lower-bound axis reaches V(pi_e) above every point.
func TestBoundPanelsDraw(t *testing.T) {
	f := Figure{Title: "bounds (synthetic)", Note: report.PanelsNote + ".", Panels: boundPanels()}
	p1, s1, err := render(f)
	if err != nil {
		t.Fatal(err)
	}
	p2, s2, _ := render(f)
	if !bytes.Equal(p1, p2) || !bytes.Equal(s1, s2) {
		t.Error("rendering the same figure twice gives different bytes")
	}
	drawAndCheck(t, f)
	for _, label := range []string{"V(pi_e)", "1 - delta = 0.95", "IS hcope bound"} {
		if !bytes.Contains(s1, []byte(label)) {
			t.Errorf("the SVG has no %q", label)
		}
	}
	noRefs := Figure{Title: f.Title, Note: f.Note, Panels: boundPanels()}
	noRefs.Panels[0].Refs, noRefs.Panels[1].Refs = nil, nil
	if p, _, err := render(noRefs); err != nil || bytes.Equal(p, p1) {
		t.Errorf("the reference lines change nothing (%v)", err)
	}

	lower, err := panelView(f.Panels[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	// Points and bars span [-0.443, 0.581]; V(pi_e) = 0.6561 is above:
	// the axis, padded by 5% of its range, ends above it.
	if !(lower.yMax > 0.6561) || !(lower.yMin < -0.443) {
		t.Errorf("lower-bound axis [%v, %v], want it to hold [-0.443, 0.6561]", lower.yMin, lower.yMax)
	}
	cov, err := panelView(f.Panels[1], 0)
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := linPad(0, 1); cov.yMin != lo || cov.yMax != hi {
		t.Errorf("coverage axis [%v, %v], want [0, 1] padded: [%v, %v]", cov.yMin, cov.yMax, lo, hi)
	}
}
