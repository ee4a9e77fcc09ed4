// Package selfig draws the figure of a selection run (package
// selection): per series a column of two panels, Spearman's rank
// correlation and regret@1 of every estimator, each a point (the mean
// over trials) with its 95% bootstrap interval as a bar, one colour per
// n of the grid. PNG and SVG from the same drawing; with
// experiments/figure and experiments/leaderboard it is an importer of
// gonum/plot.
package selfig

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ope-lab/longhorizon/experiments/figure"
	"github.com/ope-lab/longhorizon/experiments/selection"
	"github.com/ope-lab/longhorizon/internal/pngenc"
)

// Geometry, in points; 150 dpi as every figure of the project.
const (
	dpi        = 150
	legendRowH = selection.FigureLegendH * vg.Inch
	titleH     = selection.FigureTitleH * vg.Inch
)

// palette is matplotlib's tab10, one colour per n.
var palette = []color.NRGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff},
}

// panelMetrics are the rows of the figure (selection.FigureRows).
var panelMetrics = [selection.FigureRows]string{selection.Spearman, selection.Regret1}

// Draw returns the figure as PNG and SVG.
func Draw(title string, res *selection.Result) (png, svg []byte, err error) {
	in := res.Input
	cols, rows := len(in.Groups), selection.FigureRows
	if cols == 0 {
		return nil, nil, fmt.Errorf("selection figure: no series")
	}
	plots := make([][]*plot.Plot, rows)
	for r, m := range panelMetrics {
		plots[r] = make([]*plot.Plot, cols)
		for c := range in.Groups {
			p, err := panel(res, &in.Groups[c], m, r == 0)
			if err != nil {
				return nil, nil, err
			}
			plots[r][c] = p
		}
	}
	wIn, hIn := selection.FigureInches(cols)
	w, h := vg.Length(wIn)*vg.Inch, vg.Length(hIn)*vg.Inch
	// a whole number of pixels, so that the PNG is exactly the SVG's size
	w = vg.Length(math.Ceil(float64(w)/vg.Inch.Points()*dpi) / dpi * vg.Inch.Points())
	h = vg.Length(math.Ceil(float64(h)/vg.Inch.Points()*dpi) / dpi * vg.Inch.Points())
	paint := func(dc draw.Canvas) error {
		dc.FillText(titleStyle(), vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - 0.12*vg.Inch}, title)
		body := draw.Crop(dc, 0, 0, legendRowH, -titleH)
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 3, PadY: vg.Millimeter * 3, PadTop: vg.Millimeter * 2}
		canvases := plot.Align(plots, tiles, body)
		for r := range plots {
			for c := range plots[r] {
				plots[r][c].Draw(canvases[r][c])
			}
		}
		return legend(draw.Crop(dc, 0, 0, 0, -(dc.Max.Y-dc.Min.Y)+legendRowH), in.N)
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
	if err := paint(draw.New(img)); err != nil {
		return nil, nil, err
	}
	var pb bytes.Buffer
	if err := pngenc.Encode(&pb, img.Image()); err != nil {
		return nil, nil, fmt.Errorf("selection figure: encoding the PNG: %w", err)
	}
	sc := vgsvg.New(w, h)
	dc := draw.New(sc)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	if err := paint(dc); err != nil {
		return nil, nil, err
	}
	var sb bytes.Buffer
	if _, err := sc.WriteTo(&sb); err != nil {
		return nil, nil, fmt.Errorf("selection figure: encoding the SVG: %w", err)
	}
	return pb.Bytes(), sb.Bytes(), nil
}

// titleStyle is the figure title's text style.
func titleStyle() draw.TextStyle {
	p := plot.New()
	s := p.Title.TextStyle
	s.Font.Size = vg.Points(13)
	s.XAlign = draw.XCenter
	s.YAlign = draw.YTop
	return s
}

// panel is metric m of every estimator of g, one point with its interval
// bar per n, offset sideways so that the n do not overlap.
func panel(res *selection.Result, g *selection.Group, m string, top bool) (*plot.Plot, error) {
	p := plot.New()
	if top {
		p.Title.Text = fmt.Sprintf("%s (%s, by %s)", g.Name, g.Domain, g.Param)
		p.Title.TextStyle.Font.Size = vg.Points(11)
	}
	for _, mt := range selection.Metrics() {
		if mt.Name == m {
			p.Y.Label.Text = mt.Label
		}
	}
	if m == selection.Spearman {
		p.Y.Min, p.Y.Max = -1, 1
		p.Add(zeroLine(len(g.Estimators)))
	} else {
		// A regret is at least 0: the axis starts there, and a panel whose
		// every regret is 0 still shows a unit range above it.
		p.Y.Label.Text += " (value units)"
		p.Y.Min = 0
	}
	p.Y.Tick.Marker = figure.LinTicks{}
	p.Add(plotter.NewGrid())
	N := res.Input.N
	for j, n := range N {
		xys := make(plotter.XYs, 0, len(g.Estimators))
		errs := make(plotter.YErrors, 0, len(g.Estimators))
		for e := range g.Estimators {
			r, ok := find(res.Rows, g.Name, g.Estimators[e], n, m)
			if !ok || r.NA || math.IsNaN(r.Value) {
				continue
			}
			off := 0.0
			if len(N) > 1 {
				off = 0.3 * (float64(j)/float64(len(N)-1) - 0.5)
			}
			xys = append(xys, plotter.XY{X: float64(e) + off, Y: r.Value})
			errs = append(errs, struct{ Low, High float64 }{r.Value - r.Lo, r.Hi - r.Value})
		}
		if len(xys) == 0 {
			continue
		}
		clr := palette[j%len(palette)]
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, fmt.Errorf("selection figure: %s: %w", g.Name, err)
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Radius, sc.GlyphStyle.Shape = clr, vg.Points(2.6), draw.CircleGlyph{}
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYer
			plotter.YErrorer
		}{xys, errs})
		if err != nil {
			return nil, fmt.Errorf("selection figure: %s: %w", g.Name, err)
		}
		eb.LineStyle.Color, eb.LineStyle.Width, eb.CapWidth = clr, vg.Points(1.2), vg.Points(4)
		p.Add(eb, sc)
	}
	if m != selection.Spearman && p.Y.Max <= 0 {
		p.Y.Max = 1
	}
	p.NominalX(g.Labels...)
	p.X.Tick.Label.Rotation = math.Pi / 5
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	p.X.Min, p.X.Max = -0.6, float64(len(g.Estimators))-0.4
	return p, nil
}

// zeroLine is a thin horizontal line at 0 across the panel.
func zeroLine(k int) plot.Plotter {
	l, _ := plotter.NewLine(plotter.XYs{{X: -0.6, Y: 0}, {X: float64(k) - 0.4, Y: 0}})
	l.LineStyle.Color, l.LineStyle.Width = color.Gray{Y: 0x80}, vg.Points(0.6)
	return l
}

// find returns the row of (series, estimator, n, metric).
func find(rows []selection.Row, s, e string, n int, m string) (selection.Row, bool) {
	for _, r := range rows {
		if r.Series == s && r.Estimator == e && r.N == n && r.Metric == m {
			return r, true
		}
	}
	return selection.Row{}, false
}

// legend draws one entry per n along the bottom strip c.
func legend(c draw.Canvas, ns []int) error {
	l := plot.NewLegend()
	l.Top, l.Left = true, false
	for j, n := range ns {
		sc, err := plotter.NewScatter(plotter.XYs{{}})
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Radius, sc.GlyphStyle.Shape = palette[j%len(palette)], vg.Points(3), draw.CircleGlyph{}
		l.Add(fmt.Sprintf("n = %d trajectories (point: mean over trials; bar: 95%% bootstrap interval)", n), sc)
	}
	l.Draw(c)
	return nil
}
