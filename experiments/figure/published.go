package figure

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ope-lab/longhorizon/experiments/resultsdir"
)

// Geometry of a figure of published tables.
const (
	publishedWidth  = 14 * vg.Inch  // the figure's width
	publishedHeight = 4.8 * vg.Inch // one table's panel, title and rotated labels included
)

// publishedColor marks the published values (red), ourColor our
// replicates' band and median (blue).
var (
	publishedColor = palette[3]
	ourColor       = palette[0]
)

// buildPublished lays out a figure of published tables: one panel per
// table, stacked, each cell at its own x position (labelled row/column),
// the central 95% of our replicates' relative MSE as a bar with caps, its
// median as a dot, and the published value as a red cross; log y. A
// bound at +Inf (replicates whose estimates were not finite) is cut at
// the axis, as a bar without its cap.
func buildPublished(f Figure) (*gridLayout, error) {
	g := &gridLayout{title: f.Title, note: "Bars: the central 95% of our replicates' relative MSE; dots: their median; crosses: the published value", cols: 1, rows: len(f.Published),
		width: publishedWidth, height: publishedHeight}
	for i, t := range f.Published {
		pn, err := publishedPanel(t)
		if err != nil {
			return nil, fmt.Errorf("figure %q, table %d (%s): %w", f.Title, i+1, t.Title, err)
		}
		g.panels = append(g.panels, pn)
	}
	return g, nil
}

// publishedPanel draws one table.
func publishedPanel(t resultsdir.PublishedTable) (*panel, error) {
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("no cells")
	}
	p := newPlot(t.Title, "", "relative MSE")
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	p.Y.Tick.Label.Handler = powerText{text.Plain{Fonts: font.DefaultCache}}
	p.X.Tick.Label.Rotation = math.Pi / 2
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	p.X.Tick.Label.Font.Size = vg.Points(9)
	var ticks []plot.Tick
	var meds, pubs plotter.XYs
	bars := &errBars{color: ourColor}
	lo, hi := math.Inf(1), math.Inf(-1)
	pointLo := math.Inf(1) // the lowest dot or cross: where the axis' decades start
	for i, r := range t.Rows {
		x := float64(i + 1)
		ticks = append(ticks, plot.Tick{Value: x, Label: r.Row + " " + r.Column})
		for j, v := range []float64{r.Median, r.Published, r.Lo, r.Hi} {
			if v > 0 && finite(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
				if j < 2 {
					pointLo = math.Min(pointLo, v)
				}
			}
		}
		if r.Median > 0 && finite(r.Median) {
			meds = append(meds, plotter.XY{X: x, Y: r.Median})
		}
		pubs = append(pubs, plotter.XY{X: x, Y: r.Published})
		bars.xys = append(bars.xys, plotter.XY{X: x, Y: r.Median})
		bars.lo, bars.hi = append(bars.lo, r.Lo), append(bars.hi, r.Hi)
	}
	if !(lo <= hi) {
		return nil, fmt.Errorf("no positive finite value to draw")
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = 0.3, float64(len(t.Rows))+0.7
	p.Y.Min, p.Y.Max = logAxis(lo, hi, pointLo)
	p.Add(bars)
	ours, err := plotter.NewScatter(meds)
	if err != nil {
		return nil, err
	}
	ours.GlyphStyle = draw.GlyphStyle{Color: ourColor, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	pub, err := plotter.NewScatter(pubs)
	if err != nil {
		return nil, err
	}
	pub.GlyphStyle = draw.GlyphStyle{Color: publishedColor, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}
	p.Add(ours, pub)
	lg := newLegend()
	lg.Add("published", pub)
	lg.Add("ours: median", ours)
	lg.Add("ours: 2.5% to 97.5%", barThumb{color: ourColor})
	return &panel{p: p, legend: lg}, nil
}

// barThumb is the legend entry of the bars: a vertical bar with caps.
type barThumb struct{ color color.Color }

// Thumbnail implements plot.Thumbnailer.
func (b barThumb) Thumbnail(c *draw.Canvas) {
	sty := draw.LineStyle{Color: b.color, Width: vg.Points(1)}
	x := (c.Min.X + c.Max.X) / 2
	half := vg.Points(barCapWidth) / 2
	c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
	c.StrokeLine2(sty, x-half, c.Min.Y, x+half, c.Min.Y)
	c.StrokeLine2(sty, x-half, c.Max.Y, x+half, c.Max.Y)
}
