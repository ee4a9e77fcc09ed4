package figure

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/ope-lab/longhorizon/experiments/report"
)

// synthPanel returns a panel of exponential points 2^x - 1 with 10%
// standard errors and the closed form through them.
func synthPanel(title string, logY bool, lines int) Panel {
	pn := Panel{Title: title, XLabel: "horizon H", YLabel: "n × Var(options-PDIS)", LogY: logY}
	for l := 0; l < lines; l++ {
		ln := report.PanelLine{Label: "line " + string(rune('a'+l))}
		for x := 1.0; x <= 16; x++ {
			y := (math.Pow(2, x/float64(l+1)) - 1)
			ln.Points = append(ln.Points, report.PanelXY{X: x, Y: y * 1.05, SE: 0.1 * y})
			ln.Closed = append(ln.Closed, report.XY{X: x, Y: y})
		}
		pn.Lines = append(pn.Lines, ln)
	}
	return pn
}

// TestGridShape: cols = ceil(sqrt(k)) and rows = ceil(k/cols) (doc.go).
func TestGridShape(t *testing.T) {
	for k, want := range map[int][2]int{1: {1, 1}, 2: {2, 1}, 3: {2, 2}, 4: {2, 2}, 5: {3, 2}, 9: {3, 3}} {
		if c, r := gridShape(k); c != want[0] || r != want[1] {
			t.Errorf("%d panels: %d x %d, want %d x %d", k, c, r, want[0], want[1])
		}
	}
}

// TestPanelsGrid: four panels make a 2 x 2 figure (two 7 in x 4.6 in
// cells per row and column, plus gaps, margins and the title lines), drawn
// in colour.
func TestPanelsGrid(t *testing.T) {
	f := Figure{Title: "theory", Note: "points: simulated; lines: closed forms", Panels: []Panel{
		synthPanel("A", true, 2), synthPanel("B", false, 3), synthPanel("C", true, 3), synthPanel("D", true, 1),
	}}
	img := drawAndCheck(t, f)
	b := img.Bounds()
	// minW, minH: two cells of cellWidth x cellHeight (7 in x 4.6 in) at
	// dpi. Beyond them come one column gap and the margins (22 + 2·8 pt ≈
	// 79 px), and one row gap, the margins and the title and note lines
	// (16 + 2·8 + ≈47 pt ≈ 165 px): the slack of 150 and 250 px allows
	// those with room to spare, but not a third column or row.
	if minW, minH := int(2*7*dpi), int(2*4.6*dpi); b.Dx() < minW || b.Dx() > minW+150 || b.Dy() < minH || b.Dy() > minH+250 {
		t.Errorf("PNG is %dx%d, want about %dx%d (2 x 2 panels)", b.Dx(), b.Dy(), minW, minH)
	}
	if !hasColour(img) {
		t.Error("no coloured pixel")
	}
	one := drawAndCheck(t, Figure{Title: "one", Panels: []Panel{synthPanel("A", true, 1)}})
	if one.Bounds().Dx() >= b.Dx()*2/3 {
		t.Errorf("one panel is %d px wide, four are %d", one.Bounds().Dx(), b.Dx())
	}
}

// pt and xy build panel points briefly (go vet wants keyed fields in
// literals of another package's structs).
func pt(x, y, se float64) report.PanelXY { return report.PanelXY{X: x, Y: y, SE: se} }
func xy(x, y float64) report.XY          { return report.XY{X: x, Y: y} }

// TestPanelsBadPointsDoNotPanic: NaN, infinite, zero and negative values
// on log axes, error bars reaching below zero or far beyond the data, and
// single points are skipped or cut, never passed to a log axis.
func TestPanelsBadPointsDoNotPanic(t *testing.T) {
	pn := Panel{Title: "bad", LogX: true, LogY: true, Lines: []report.PanelLine{
		{Label: "a", Points: []report.PanelXY{pt(1, 1, 5), pt(2, 0, 1), pt(4, -1, 1), pt(math.NaN(), 1, 1), pt(8, math.Inf(1), 1), pt(16, 3, math.NaN()), pt(32, 2, 1e300)},
			Closed: []report.XY{xy(1, 1), xy(2, 0), xy(4, 1e-300), xy(8, math.NaN()), xy(32, 2)}},
		{Label: "single", Points: []report.PanelXY{pt(0, 5, 1), pt(3, 5, 0)}},
		{Label: "closed only", Closed: []report.XY{xy(1, 2), xy(32, 3)}},
	}}
	drawAndCheck(t, Figure{Title: "bad", Panels: []Panel{pn, {Title: "linear", Lines: []report.PanelLine{{Label: "x", Points: []report.PanelXY{pt(1, -1, 2)}}}}}})
}

func TestPanelNothingDrawableIsError(t *testing.T) {
	pn := Panel{Title: "empty", LogY: true, Lines: []report.PanelLine{{Label: "a", Points: []report.PanelXY{pt(1, 0, 1), pt(2, -3, 1)}}}}
	err := Draw(Figure{Title: "f", Panels: []Panel{synthPanel("ok", true, 1), pn}}, t.TempDir()+"/x")
	if err == nil || !strings.Contains(err.Error(), `panel 2 (empty)`) {
		t.Errorf("error %v, want it to name panel 2", err)
	}
}

// TestPanelsDeterministic: the same panels give the same bytes.
func TestPanelsDeterministic(t *testing.T) {
	f := Figure{Title: "d", Note: "n", Panels: []Panel{synthPanel("A", true, 2), synthPanel("B", false, 2)}}
	p1, s1, err := render(f)
	if err != nil {
		t.Fatal(err)
	}
	p2, s2, _ := render(f)
	if !bytes.Equal(p1, p2) || !bytes.Equal(s1, s2) {
		t.Error("rendering the same figure twice gives different bytes")
	}
}

// TestPanelLongYLabelOnLogAxis: gonum/plot centres a y label's layout box
// at the arithmetic middle of the axis range, near the top of a log axis,
// so a long label pushes the data area down; a panel draws its y label
// itself and keeps the data area up to the top of its canvas.
func TestPanelLongYLabelOnLogAxis(t *testing.T) {
	pnl, err := buildViewPanel(synthPanel("", true, 1))
	if err != nil {
		t.Fatal(err)
	}
	c := draw.New(vgimg.New(7*vg.Inch, 4.6*vg.Inch))
	data := pnl.p.DataCanvas(c)
	// Without a title, the data area's top sits about 2 pt below the
	// canvas top (room for half the top tick label); 12 pt is about one
	// line of 11-point tick labels. A long y label drawn by gonum/plot
	// would push it down by a good part of the label's length, ~150 pt.
	if gap := c.Max.Y - data.Max.Y; gap > vg.Points(12) {
		t.Errorf("data area starts %v below the top of the panel", gap)
	}
	if pnl.yText != "n × Var(options-PDIS)" {
		t.Errorf("y label %q", pnl.yText)
	}
}
