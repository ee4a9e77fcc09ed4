package figure

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// synthPanel returns a panel of exponential points 2^x - 1 with 10%
// standard errors and the closed form through them.
func synthPanel(title string, logY bool, lines int) Panel {
	pn := Panel{Title: title, XLabel: "horizon H", YLabel: "n × Var(options-PDIS)", LogY: logY}
	for l := 0; l < lines; l++ {
		ln := resultsdir.PanelLine{Label: "line " + string(rune('a'+l))}
		for x := 1.0; x <= 16; x++ {
			y := (math.Pow(2, x/float64(l+1)) - 1)
			ln.Points = append(ln.Points, resultsdir.PanelXY{X: x, Y: y * 1.05, SE: 0.1 * y})
			ln.Closed = append(ln.Closed, resultsdir.XY{X: x, Y: y})
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
func pt(x, y, se float64) resultsdir.PanelXY { return resultsdir.PanelXY{X: x, Y: y, SE: se} }
func xy(x, y float64) resultsdir.XY          { return resultsdir.XY{X: x, Y: y} }

// TestPanelsBadPointsDoNotPanic: NaN, infinite, zero and negative values
// on log axes, error bars reaching below zero or far beyond the data, and
// single points are skipped or cut, never passed to a log axis.
func TestPanelsBadPointsDoNotPanic(t *testing.T) {
	pn := Panel{Title: "bad", LogX: true, LogY: true, Lines: []resultsdir.PanelLine{
		{Label: "a", Points: []resultsdir.PanelXY{pt(1, 1, 5), pt(2, 0, 1), pt(4, -1, 1), pt(math.NaN(), 1, 1), pt(8, math.Inf(1), 1), pt(16, 3, math.NaN()), pt(32, 2, 1e300)},
			Closed: []resultsdir.XY{xy(1, 1), xy(2, 0), xy(4, 1e-300), xy(8, math.NaN()), xy(32, 2)}},
		{Label: "single", Points: []resultsdir.PanelXY{pt(0, 5, 1), pt(3, 5, 0)}},
		{Label: "closed only", Closed: []resultsdir.XY{xy(1, 2), xy(32, 3)}},
	}}
	drawAndCheck(t, Figure{Title: "bad", Panels: []Panel{pn, {Title: "linear", Lines: []resultsdir.PanelLine{{Label: "x", Points: []resultsdir.PanelXY{pt(1, -1, 2)}}}}}})
}

func TestPanelNothingDrawableIsError(t *testing.T) {
	pn := Panel{Title: "empty", LogY: true, Lines: []resultsdir.PanelLine{{Label: "a", Points: []resultsdir.PanelXY{pt(1, 0, 1), pt(2, -3, 1)}}}}
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
	pnl, err := buildViewPanel(synthPanel("", true, 1), 0)
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

// exactModelPanel is an MSE panel where a doubly robust estimator with an
// exact model has an MSE of rounding errors (~1e-29, once exactly 0)
// beside IS, whose MSE falls from 1 to 0.01.
func exactModelPanel() Panel {
	return Panel{Title: "exact model", XLabel: "n", YLabel: "MSE", LogX: true, LogY: true, Lines: []resultsdir.PanelLine{
		{Label: "DR (exact model)", Points: []resultsdir.PanelXY{pt(10, 1e-29, 1e-30), pt(100, 0, 0), pt(1000, 3e-30, 0)},
			Closed: []resultsdir.XY{xy(10, 1e-31), xy(1000, 1e-31)}},
		{Label: "IS", Points: []resultsdir.PanelXY{pt(10, 1, 0.2), pt(100, 0.1, 0.02), pt(1000, 0.01, 0.002)}},
	}}
}

// TestPanelYMin: a y_min starts a log y axis there and draws every lower
// value (point, including an MSE of exactly 0, error bar end, closed-form
// vertex) at it, noting it under the title only when it did; the panel's
// data are not changed, and y_min does nothing on a linear axis.
func TestPanelYMin(t *testing.T) {
	ys := func(xys []plotter.XY) []float64 {
		var out []float64
		for _, p := range xys {
			out = append(out, p.Y)
		}
		return out
	}
	onlyIS := exactModelPanel()
	onlyIS.Lines = onlyIS.Lines[1:]
	wideBar := exactModelPanel()
	wideBar.Lines = wideBar.Lines[1:]
	wideBar.Lines[0].Points[2].SE = 0.0095 // 0.01 - SE is below 1e-3
	linear := exactModelPanel()
	linear.LogY = false
	for _, tc := range []struct {
		name     string
		pn       Panel
		yMin     float64
		wantMin  float64     // the axis minimum; 0: below 1e-28 (no y_min)
		hi       float64     // the highest value to show: IS's bar 1 + 0.2, or y_min
		wantYs   [][]float64 // drawn y of each line's points
		wantNote string
	}{
		{"no y_min: 30 decades", exactModelPanel(), 0, 0, 1.2,
			[][]float64{{1e-29, 3e-30}, {1, 0.1, 0.01}}, ""},
		{"y_min clips", exactModelPanel(), 1e-6, 1e-6, 1.2,
			[][]float64{{1e-6, 1e-6, 1e-6}, {1, 0.1, 0.01}}, "values below 1e-6 drawn at the axis"},
		{"nothing below", onlyIS, 1e-3, 1e-3, 1.2,
			[][]float64{{1, 0.1, 0.01}}, ""},
		{"bar end below", wideBar, 1e-3, 1e-3, 1.2,
			[][]float64{{1, 0.1, 0.01}}, "values below 0.001 drawn at the axis"},
		{"y_min above every value", onlyIS, 10, 10, 10,
			[][]float64{{10, 10, 10}}, "values below 10 drawn at the axis"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := fmt.Sprintf("%#v", tc.pn)
			v, err := panelView(tc.pn, tc.yMin)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%#v", tc.pn) != before {
				t.Error("panelView changed the panel's data")
			}
			if tc.wantMin == 0 && !(v.yMin < 1e-28) || tc.wantMin != 0 && v.yMin != tc.wantMin {
				t.Errorf("y axis starts at %g, want %g", v.yMin, tc.wantMin)
			}
			// With y_min the axis is padded above only, as from y_min.
			if _, want := logPad(tc.wantMin, tc.hi); tc.wantMin != 0 && v.yMax != want || !(v.yMax > tc.hi) {
				t.Errorf("y axis ends at %g, want %g (above %g without y_min)", v.yMax, want, tc.hi)
			}
			for i, want := range tc.wantYs {
				if got := ys(v.lines[i].pts); !slices.Equal(got, want) {
					t.Errorf("line %d drawn at y = %v, want %v", i, got, want)
				}
				// Bars keep their ends (errBars cuts them at the axis).
				for j, p := range v.lines[i].pts {
					src := tc.pn.Lines[i].Points
					if k := slices.IndexFunc(src, func(s resultsdir.PanelXY) bool { return s.X == p.X }); v.lines[i].lo[j] != src[k].Y-src[k].SE {
						t.Errorf("line %d, x = %g: bar from %g, want %g", i, p.X, v.lines[i].lo[j], src[k].Y-src[k].SE)
					}
				}
			}
			if v.note != tc.wantNote {
				t.Errorf("note %q, want %q", v.note, tc.wantNote)
			}
		})
	}
	// The closed form's vertices below y_min are drawn at it.
	v, err := panelView(exactModelPanel(), 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if got := ys(v.lines[0].closed); !slices.Equal(got, []float64{1e-6, 1e-6}) {
		t.Errorf("closed form drawn at %v, want at 1e-6", got)
	}
	// On a linear axis (which config refuses) and for a y_min that is not
	// positive and finite, the view is that without a y_min.
	for _, c := range []struct {
		pn   Panel
		yMin float64
	}{{linear, 1e-6}, {exactModelPanel(), -1}, {exactModelPanel(), math.Inf(1)}, {exactModelPanel(), math.NaN()}} {
		want, _ := panelView(c.pn, 0)
		if got, _ := panelView(c.pn, c.yMin); !reflect.DeepEqual(got, want) {
			t.Errorf("log_y %v, y_min %g: view differs from no y_min", c.pn.LogY, c.yMin)
		}
	}
}

// TestPanelYMinDraws: a panel with a clipped y_min draws, its note under
// the title, the same bytes twice; without y_min there is no note.
func TestPanelYMinDraws(t *testing.T) {
	lay := func(yMin float64) (*gridLayout, *panel) {
		t.Helper()
		p, err := buildViewPanel(exactModelPanel(), yMin)
		if err != nil {
			t.Fatal(err)
		}
		g := &gridLayout{title: "y_min", panels: []*panel{p}}
		g.cols, g.rows = gridShape(1)
		return g, p
	}
	g, p := lay(1e-6)
	if p.p.Y.Min != 1e-6 {
		t.Errorf("plot's y axis starts at %g, want 1e-6", p.p.Y.Min)
	}
	png1, svg1, err := encode(g)
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := lay(1e-6)
	png2, svg2, err := encode(g2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(png1, png2) || !bytes.Equal(svg1, svg2) {
		t.Error("drawing the same panel twice gives different bytes")
	}
	if !bytes.Contains(svg1, []byte("values below 1e-6 drawn at the axis")) {
		t.Error("the SVG has no note")
	}
	_, plain := lay(0)
	_, noted := lay(1e-6)
	if plain.note != "" || noted.note == "" {
		t.Errorf("notes %q and %q", plain.note, noted.note)
	}
}

// TestClipNote: the note writes y_min as a config would.
func TestClipNote(t *testing.T) {
	for yMin, want := range map[float64]string{1e-12: "1e-12", 1e-6: "1e-6", 0.001: "0.001", 2.5e-30: "2.5e-30", 3: "3", 1e21: "1e21", 1.5e300: "1.5e300"} {
		if got := clipNote(yMin); got != "values below "+want+" drawn at the axis" {
			t.Errorf("clipNote(%g) = %q", yMin, got)
		}
	}
}
