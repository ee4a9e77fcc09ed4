package figure

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/resultsdir"
)

// refPanel is a log-log panel of one estimator line with points at y = 1
// and 10 and a weight reference through refY at x = 1 and 10, with the
// report's note.
func refPanel(refY [2]float64, note string) Panel {
	return Panel{Title: "ref", XLabel: "horizon H", YLabel: "relative RMSE", LogX: true, LogY: true, Note: note,
		Lines: []resultsdir.PanelLine{
			{Label: "pdis", Points: []resultsdir.PanelXY{pt(1, 1, 0.1), pt(10, 10, 1)}},
			{Label: "sqrt(E_b[W_H^2]/n)", Reference: true, Dashed: true, Points: []resultsdir.PanelXY{pt(1, refY[0], 0), pt(10, refY[1], 0)}},
		}}
}

// TestWeightReferenceView: a weight reference widens the y axis by at
// most two decades beyond the points (here [1, 10], so up to 1000; a bar
// end reaches 11): beyond, the axis stops and the note says the reference
// is cut; within, the axis holds it and there is no note. A reference
// value a log axis cannot show is left out. The plot's axes are the
// view's (the reference's plotters report no data range), and the note
// under the title is the report's line, then the view's.
func TestWeightReferenceView(t *testing.T) {
	for _, tc := range []struct {
		name        string
		refY        [2]float64
		note        string
		refPts      int
		yMaxAtMost  float64 // the axis top is at most this (padded)
		yMaxAtLeast float64
		wantNote    string
	}{
		{"far above: cut", [2]float64{2, 1e9}, "", 2, 1000 * 1.5, 1000, refCutNote},
		{"far below: cut", [2]float64{1e-9, 5}, "", 2, 11 * 1.5, 11, refCutNote},
		{"within", [2]float64{2, 50}, "", 2, 50 * 1.5, 50, ""},
		{"report's note first", [2]float64{2, 50}, "no E_b[W_H^2] recorded for ch: no reference there", 2, 50 * 1.5, 50,
			"no E_b[W_H^2] recorded for ch: no reference there"},
		{"both notes", [2]float64{2, 1e9}, "no E_b[W_H^2] recorded for ch: no reference there", 2, 1000 * 1.5, 1000,
			"no E_b[W_H^2] recorded for ch: no reference there\n" + refCutNote},
		{"zero left out", [2]float64{0, 5}, "", 1, 11 * 1.5, 11, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pn := refPanel(tc.refY, tc.note)
			v, err := panelView(pn, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(v.lines[1].ref) != tc.refPts || len(v.lines[1].pts) != 0 {
				t.Errorf("reference: %d points drawn, %d markers of a line; want %d, 0", len(v.lines[1].ref), len(v.lines[1].pts), tc.refPts)
			}
			if v.yMax > tc.yMaxAtMost || v.yMax < tc.yMaxAtLeast {
				t.Errorf("y axis top %g, want it in [%g, %g]", v.yMax, tc.yMaxAtLeast, tc.yMaxAtMost)
			}
			pnl, err := buildViewPanel(pn, 0)
			if err != nil {
				t.Fatal(err)
			}
			if pnl.p.Y.Min != v.yMin || pnl.p.Y.Max != v.yMax || pnl.p.X.Min != v.xMin || pnl.p.X.Max != v.xMax {
				t.Errorf("plot axes [%g, %g] x [%g, %g], view's [%g, %g] x [%g, %g]",
					pnl.p.X.Min, pnl.p.X.Max, pnl.p.Y.Min, pnl.p.Y.Max, v.xMin, v.xMax, v.yMin, v.yMax)
			}
			if pnl.note != tc.wantNote {
				t.Errorf("note %q, want %q", pnl.note, tc.wantNote)
			}
		})
	}
	// A reference is no simulated point: a panel of references only has
	// nothing to draw.
	pn := refPanel([2]float64{1, 2}, "")
	pn.Lines = pn.Lines[1:]
	if _, err := panelView(pn, 0); err == nil {
		t.Error("a panel of a reference only: no error")
	}
}

// TestWeightReferenceDraws: a figure with weight references of one and
// of two points draws the same bytes twice, with the references' labels
// in the legend and the notes under the title.
func TestWeightReferenceDraws(t *testing.T) {
	one := refPanel([2]float64{2, 1e9}, "no E_b[W_H^2] recorded for ch: no reference there")
	one.Lines = append(one.Lines, resultsdir.PanelLine{Label: "single reference", Reference: true, Points: []resultsdir.PanelXY{pt(3, 4, 0)}},
		resultsdir.PanelLine{Label: "after the references", Points: []resultsdir.PanelXY{pt(2, 3, 0.3), pt(5, 4, 0.4)}})
	f := Figure{Title: "references", Panels: []Panel{one}}
	png1, svg1, err := render(f)
	if err != nil {
		t.Fatal(err)
	}
	png2, svg2, _ := render(f)
	if !bytes.Equal(png1, png2) || !bytes.Equal(svg1, svg2) {
		t.Error("drawing the same figure twice gives different bytes")
	}
	for _, want := range []string{"sqrt(E_b[W_H^2]/n)", "single reference", "after the references", "no E_b[W_H^2] recorded for ch", refCutNote} {
		if !strings.Contains(string(svg1), want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	drawAndCheck(t, f)
}
