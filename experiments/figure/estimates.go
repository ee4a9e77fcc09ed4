package figure

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ope-lab/longhorizon/internal/atomicfile"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/outdir"
)

// EstimateRow is one estimator's estimate of V(pi_e) and its interval,
// as runexp estimate reports them.
type EstimateRow struct {
	Name string
	// Value is the estimate; NaN (or infinite) when it failed: the row is
	// then named "(failed)" and has no point.
	Value float64
	// Lo and Hi are its interval; NaN when there is none (-bootstrap 0,
	// or every replicate failed): the point is drawn alone.
	Lo, Hi float64
}

// Estimates is the figure of runexp estimate -plot: one row per
// estimator, top to bottom in the order given, its estimate as a dot and
// its interval as a horizontal bar with caps (a forest plot, as
// SCOPE-RL's and OBP's visualize_off_policy_estimates draw them, turned
// so that long names read), and the true value as a dashed vertical line
// when there is one.
type Estimates struct {
	Title string
	// Note is the line under the title saying what the intervals are
	// (e.g. "bars: 95% percentile bootstrap intervals over episodes (B =
	// 2000)"): the caller knows how they were computed.
	Note string
	Rows []EstimateRow
	// Truth is V(pi_e) when known, NaN when not.
	Truth float64
}

// Geometry of the estimates figure.
const (
	estWidth   = 7 * vg.Inch
	estRow     = 0.32 * vg.Inch // height per estimator
	estChrome  = 1.6 * vg.Inch  // title, note, x axis and margins
	estMinRows = 4              // the figure is at least this many rows high
)

// CheckEstimatesPath checks, before anything is computed, that path can
// take the estimates figure: a name ending in .png or .svg (the format)
// in a directory that is one, or can be created, and may be written.
// Errors are bad input (package inputerr).
func CheckEstimatesPath(path string) error {
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case path == "" || strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)):
		return inputerr.Errorf("%q: want a file name ending in .png or .svg", path)
	case ext != ".png" && ext != ".svg":
		return inputerr.Errorf("%q: want a file name ending in .png or .svg, not %q", path, ext)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return inputerr.Errorf("%q is a directory: want a file name ending in .png or .svg", path)
	}
	if err := outdir.Check(filepath.Dir(path)); err != nil {
		return fmt.Errorf("%q: %w", path, err)
	}
	return nil
}

// WriteEstimates draws e into path, a PNG (150 dpi) or an SVG by its
// extension, written whole (a temporary file renamed), creating its
// directory if missing. The same e gives the same bytes.
func WriteEstimates(e Estimates, path string) error {
	return writeSingle(e.Title, path, func() (figureLayout, error) { return buildEstimates(e) })
}

// writeSingle renders the figure build lays out and writes it to path as
// WriteEstimates says.
func writeSingle(title, path string, build func() (figureLayout, error)) error {
	if err := CheckEstimatesPath(path); err != nil {
		return err
	}
	png, svg, err := renderLayout(title, build)
	if err != nil {
		return err
	}
	data := png
	if strings.ToLower(filepath.Ext(path)) == ".svg" {
		data = svg
	}
	if err := atomicfile.WriteAll(filepath.Dir(path), []atomicfile.File{{Name: filepath.Base(path), Data: data}}); err != nil {
		return fmt.Errorf("figure: %w", err)
	}
	return nil
}

// single is a figure of one panel at a fixed size.
type single struct {
	pn   *panel
	w, h vg.Length
}

func (s *single) size() (w, h vg.Length) { return s.w, s.h }

func (s *single) draw(c draw.Canvas) {
	s.pn.draw(draw.Crop(c, vg.Points(margin), -vg.Points(margin), vg.Points(margin), -vg.Points(margin)))
}

// buildEstimates lays out the estimates figure.
func buildEstimates(e Estimates) (*single, error) {
	k := len(e.Rows)
	if k == 0 {
		return nil, fmt.Errorf("figure %q: no estimates to draw", e.Title)
	}
	p := newPlot(e.Title, "estimate of V(pi_e)", "")
	p.Y.Tick.Label.Font = font.From(sans, vg.Points(11))
	xr := newRange()
	var ticks []plot.Tick
	f := &forest{color: ourColor}
	for i, r := range e.Rows {
		y := float64(k - 1 - i) // the first row on top
		name := r.Name
		if !finite(r.Value) {
			name += " (failed)"
		}
		ticks = append(ticks, plot.Tick{Value: y, Label: name})
		f.rows = append(f.rows, forestRow{y: y, v: r.Value, lo: r.Lo, hi: r.Hi})
		for _, v := range []float64{r.Value, r.Lo, r.Hi} {
			xr.add(v)
		}
	}
	if finite(e.Truth) {
		xr.add(e.Truth)
	}
	if xr.empty() {
		xr.add(0) // every estimate failed: an axis around 0 for the names
	}
	if !finite(xr.hi - xr.lo) {
		// A width beyond float64 has no scale: the axis shows the middle
		// half of it, and what lies beyond is cut at the axis.
		xr.lo, xr.hi = xr.lo/2, xr.hi/2
	}
	p.X.Min, p.X.Max = linPad(xr.lo, xr.hi)
	if !finite(p.X.Max - p.X.Min) {
		p.X.Min, p.X.Max = xr.lo, xr.hi // padding would overflow
	}
	p.Y.Min, p.Y.Max = -0.6, float64(k)-0.4
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Add(f)
	leg := newLegend()
	leg.Add("estimate", forestThumb{color: f.color, dot: true})
	if f.anyInterval() {
		leg.Add("interval", forestThumb{color: f.color})
	}
	if finite(e.Truth) {
		l, err := plotter.NewLine(plotter.XYs{{X: e.Truth, Y: p.Y.Min}, {X: e.Truth, Y: p.Y.Max}})
		if err != nil {
			return nil, fmt.Errorf("figure: true value: %w", err)
		}
		l.Color = refColor
		l.Width = vg.Points(1.2)
		l.Dashes = refDashes[0]
		p.Add(l)
		leg.Add(fmt.Sprintf("true value %.6g", e.Truth), l)
	}
	h := estChrome + vg.Length(max(k, estMinRows))*estRow
	return &single{pn: &panel{p: p, legend: leg, note: e.Note}, w: estWidth, h: wholePixels(h)}, nil
}

// forestRow is one row of a forest plot: a point at (v, y) and its
// interval [lo, hi].
type forestRow struct{ y, v, lo, hi float64 }

// forest draws the rows of a forest plot: an interval as a horizontal bar
// with caps, cut at the axis without its cap there; the estimate as a
// dot. Non-finite values are left out.
type forest struct {
	rows  []forestRow
	color color.Color
	shape draw.GlyphDrawer // the estimate's glyph; nil: a circle
}

// glyphOr returns g, or a circle when g is nil.
func glyphOr(g draw.GlyphDrawer) draw.GlyphDrawer {
	if g == nil {
		return draw.CircleGlyph{}
	}
	return g
}

func (f *forest) anyInterval() bool {
	for _, r := range f.rows {
		if finite(r.lo) && finite(r.hi) {
			return true
		}
	}
	return false
}

// Plot implements plot.Plotter.
func (f *forest) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	sty := draw.LineStyle{Color: f.color, Width: vg.Points(1.4)}
	half := vg.Points(barCapWidth) / 2
	dot := draw.GlyphStyle{Color: f.color, Radius: vg.Points(3.5), Shape: glyphOr(f.shape)}
	for _, r := range f.rows {
		y := trY(r.y)
		if finite(r.lo) && finite(r.hi) && r.hi >= r.lo {
			lo, hi := math.Max(r.lo, plt.X.Min), math.Min(r.hi, plt.X.Max)
			if hi >= lo {
				x0, x1 := trX(lo), trX(hi)
				c.StrokeLine2(sty, x0, y, x1, y)
				if lo == r.lo {
					c.StrokeLine2(sty, x0, y-half, x0, y+half)
				}
				if hi == r.hi {
					c.StrokeLine2(sty, x1, y-half, x1, y+half)
				}
			}
		}
		if finite(r.v) && r.v >= plt.X.Min && r.v <= plt.X.Max {
			c.DrawGlyph(dot, vg.Point{X: trX(r.v), Y: y})
		}
	}
}

// forestThumb is a legend entry of the forest plot: the dot, or the bar
// with its caps.
type forestThumb struct {
	color color.Color
	dot   bool
	shape draw.GlyphDrawer // nil: a circle
}

// Thumbnail implements plot.Thumbnailer.
func (t forestThumb) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	if t.dot {
		c.DrawGlyph(draw.GlyphStyle{Color: t.color, Radius: vg.Points(3.5), Shape: glyphOr(t.shape)}, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: y})
		return
	}
	sty := draw.LineStyle{Color: t.color, Width: vg.Points(1.4)}
	half := vg.Points(barCapWidth) / 2
	c.StrokeLine2(sty, c.Min.X, y, c.Max.X, y)
	c.StrokeLine2(sty, c.Min.X, y-half, c.Min.X, y+half)
	c.StrokeLine2(sty, c.Max.X, y-half, c.Max.X, y+half)
}
