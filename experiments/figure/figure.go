package figure

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"git.sr.ht/~sbinet/gg"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/internal/atomicfile"
	"github.com/ope-lab/longhorizon/internal/pngenc"
)

// Figure is the data of one figure: package report builds it.
type Figure = resultsdir.Figure

// Figure geometry.
const (
	dpi        = 150
	heightOne  = 5 * vg.Inch  // figure height
	widthOne   = 7 * vg.Inch  // width of a figure with the MSE panel only
	widthTwo   = 12 * vg.Inch // width of a figure with the diagnostic panel
	margin     = 8            // points around the whole figure
	legendGap  = 10           // points between a panel and its legend
	panelGap   = 28           // points between the MSE panel and the diagnostic panel
	bandAlpha  = 0x33         // ≈ 0.2 opacity of the standard error bands
	lowerClamp = 100          // band lower edge is at least MSE/lowerClamp
	rangeFloor = 5            // y axis extends at most this factor below the smallest MSE
	rangeCeil  = 5            // and above the largest MSE
	logPadFrac = 0.04         // padding of log axes, as a fraction of the log range
)

// palette holds the line colours (matplotlib's tab10): distinct, print well.
var palette = []color.NRGBA{
	{0x1f, 0x77, 0xb4, 0xff}, // blue
	{0xff, 0x7f, 0x0e, 0xff}, // orange
	{0x2c, 0xa0, 0x2c, 0xff}, // green
	{0xd6, 0x27, 0x28, 0xff}, // red
	{0x94, 0x67, 0xbd, 0xff}, // purple
	{0x8c, 0x56, 0x4b, 0xff}, // brown
	{0xe3, 0x77, 0xc2, 0xff}, // pink
	{0x7f, 0x7f, 0x7f, 0xff}, // grey
	{0xbc, 0xbd, 0x22, 0xff}, // olive
	{0x17, 0xbe, 0xcf, 0xff}, // cyan
}

// diagPalette colours the diagnostic lines, one per n, dark to light as n
// grows.
var diagPalette = []color.NRGBA{
	{0x44, 0x01, 0x54, 0xff},
	{0x31, 0x68, 0x8e, 0xff},
	{0x35, 0xb7, 0x79, 0xff},
	{0xe6, 0x9f, 0x00, 0xff},
	{0xd5, 0x5e, 0x00, 0xff},
	{0xcc, 0x79, 0xa7, 0xff},
	{0x00, 0x00, 0x00, 0xff},
}

// glyphs are the marker shapes, cycled independently of the colours.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{},
	draw.BoxGlyph{},
	draw.PyramidGlyph{},
	draw.CrossGlyph{},
	draw.RingGlyph{},
	draw.SquareGlyph{},
	draw.TriangleGlyph{},
	draw.PlusGlyph{},
}

// Draw writes the figure to base+".png" and base+".svg" (e.g. base = "results/fig4/fig4").
// Each file is written to a temporary file in the same directory and renamed, so an
// interrupted run never leaves a half-written figure.
//
// Draw creates the directory of base if it is missing. Points that a log
// axis cannot show are skipped; Draw returns an error if no point of the
// MSE panel is left, and never panics.
func Draw(f Figure, base string) error {
	if base == "" {
		return errors.New("figure: empty output base name")
	}
	files, err := Files(f, filepath.Base(base))
	if err != nil {
		return err
	}
	if err := atomicfile.WriteAll(filepath.Dir(base), files); err != nil {
		return fmt.Errorf("figure: %w", err)
	}
	return nil
}

// Files draws f into its two files, name.png and name.svg, in memory, for
// a caller that writes them together with others (atomicfile.WriteAll).
func Files(f Figure, name string) ([]atomicfile.File, error) {
	png, svg, err := render(f)
	if err != nil {
		return nil, err
	}
	names := FileNames(name)
	return []atomicfile.File{{Name: names[0], Data: png}, {Name: names[1], Data: svg}}, nil
}

// FileNames returns the names of the figure's files of base name name:
// name.png, name.svg.
func FileNames(name string) []string { return []string{name + ".png", name + ".svg"} }

// render draws f into PNG and SVG bytes.
func render(f Figure) (png, svg []byte, err error) {
	return renderLayout(f.Title, func() (figureLayout, error) {
		switch {
		case len(f.Published) > 0:
			return buildPublished(f)
		case len(f.Panels) > 0:
			return buildGrid(f)
		}
		return build(f)
	})
}

// renderLayout builds the layout of the figure titled title and draws it
// into PNG and SVG bytes; a panic of gonum/plot is returned as an error.
func renderLayout(title string, build func() (figureLayout, error)) (png, svg []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			png, svg = nil, nil
			err = fmt.Errorf("figure: drawing %q: %v", title, r)
		}
	}()
	lay, err := build()
	if err != nil {
		return nil, nil, err
	}
	return encode(lay)
}

// encode draws a layout into PNG and SVG bytes, each on a white
// background.
func encode(lay figureLayout) (png, svg []byte, err error) {
	w, h := lay.size()

	img := newImageCanvas(w, h)
	var vc vg.CanvasSizer = img
	if rgba, ok := img.Image().(*image.RGBA); ok {
		vc = newPNGCanvas(img, rgba)
	}
	c := draw.New(vc)
	c.SetColor(color.White) // the canvas is white already: no fill
	lay.draw(c)
	var pb bytes.Buffer
	if err := pngenc.Encode(&pb, img.Image()); err != nil { // png.Encode's bytes, faster
		return nil, nil, fmt.Errorf("figure: encoding PNG: %w", err)
	}

	sc := vgsvg.New(w, h)
	c = draw.New(sc)
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	lay.draw(c)
	var sb bytes.Buffer
	if _, err := sc.WriteTo(&sb); err != nil {
		return nil, nil, fmt.Errorf("figure: encoding SVG: %w", err)
	}
	return pb.Bytes(), sb.Bytes(), nil
}

// newImageCanvas returns a white image canvas of w x h at dpi, the one
// vgimg.NewWith(UseWH(w, h), UseDPI(dpi), UseBackgroundColor(white))
// returns, drawn on one RGBA image: NewWith draws on a copy of the image it
// allocates (gg.NewContextForImage), which cost a second image's memory
// and a copy of it. A size that is not a whole number of pixels keeps
// NewWith's way, which rounds it.
func newImageCanvas(w, h vg.Length) *vgimg.Canvas {
	px, py := int(w/vg.Inch*dpi+0.5), int(h/vg.Inch*dpi+0.5)
	if vg.Length(float64(px)/dpi)*vg.Inch != w || vg.Length(float64(py)/dpi)*vg.Inch != h {
		return vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
	}
	rgba := image.NewRGBA(image.Rect(0, 0, px, py))
	ctx := gg.NewContextForRGBA(rgba)
	ctx.SetLineCapButt() // as NewWith sets up the context it makes
	ctx.InvertY()
	// NewWith reads the size back from the image, and paints it white
	return vgimg.NewWith(vgimg.UseImageWithContext(rgba, ctx), vgimg.UseDPI(dpi))
}

// panel is a plot with its legend drawn outside the data: to the right
// of it, or under it (below).
type panel struct {
	p      *plot.Plot
	legend *legend
	// below draws the legend under the x axis, in as many columns side by
	// side as fit the panel's width.
	below bool
	// yLabel, when set, is drawn by panel.draw itself, centred on the data
	// area, instead of by gonum/plot (whose label box sits near the top of
	// a log axis and pushes the data area down when the label is long).
	yLabel text.Style
	yText  string
	// note, when set, is a line of small text under the title (a panel
	// whose values were drawn at its y_min says so).
	note string
}

// panelNoteStyle is the style of a panel's note.
var panelNoteStyle = text.Style{Color: color.Gray{Y: 0x40}, Font: font.From(sans, vg.Points(panelNote)), Handler: text.Plain{Fonts: font.DefaultCache}}

// legendWidth is the width the panel's legend needs to its right.
func (pn *panel) legendWidth() vg.Length {
	if pn.below {
		return 0
	}
	return pn.legend.width()
}

// belowLayout lays out the legend under a panel of width w (legend
// below): its indent from the panel's left edge (that of the data area,
// so that the legend lines up with the x axis), its rows per column, the
// columns' widths, and the height it takes, its gap to the axis included;
// zeros without a legend below.
func (pn *panel) belowLayout(w vg.Length) (indent vg.Length, rows int, widths []vg.Length, h vg.Length) {
	if !pn.below || len(pn.legend.entries) == 0 {
		return 0, 0, nil, 0
	}
	// The data area's left edge depends on the y axis only (its label and
	// tick labels), not on the height: a nominal canvas of the width.
	data := pn.p.DataCanvas(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: heightOne}}})
	indent = data.Min.X
	rows, widths, h = pn.legend.rows(w - indent)
	return indent, rows, widths, h + vg.Points(legendBelow)
}

// draw draws the plot into c, leaving room for the legend on the right, and
// the legend top-aligned with the data area.
//
// The title is drawn left-aligned over the whole panel, legend included,
// rather than centred over the data: a long title then never runs off the
// left edge of the image. The note, if any, follows under it.
func (pn *panel) draw(c draw.Canvas) {
	if title := pn.p.Title.Text; title != "" {
		sty := pn.p.Title.TextStyle
		sty.XAlign = draw.XLeft
		c.FillText(sty, vg.Point{X: c.Min.X, Y: c.Max.Y + sty.FontExtents().Descent}, title)
		gap := pn.p.Title.Padding
		if pn.note != "" {
			gap = vg.Points(noteGap) // the note follows closely
		}
		c.Max.Y -= sty.Rectangle(title).Size().Y + gap
		pn.p.Title.Text = ""
		defer func() { pn.p.Title.Text = title }()
	}
	if pn.note != "" {
		// Drawn as the title is, top-aligned at the top of what is left.
		sty := panelNoteStyle
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
		c.FillText(sty, vg.Point{X: c.Min.X, Y: c.Max.Y + sty.FontExtents().Descent}, pn.note)
		c.Max.Y -= sty.Rectangle(pn.note).Size().Y + pn.p.Title.Padding
	}
	lw := pn.legendWidth()
	pc := c
	indent, rows, widths, below := pn.belowLayout(c.Max.X - c.Min.X)
	if pn.below {
		pc.Min.Y += below
	} else {
		pc.Max.X -= lw + vg.Points(legendGap)
	}
	var labelX vg.Length // baseline of the own y label, placed as gonum/plot places it
	if pn.yText != "" {
		descent := pn.yLabel.FontExtents().Descent
		labelX = pc.Min.X + pn.yLabel.Height(pn.yText) - descent
		pc.Min.X += pn.yLabel.Height(pn.yText) + descent + pn.p.Y.Label.Padding
	}
	pn.p.Draw(pc)
	data := pn.p.DataCanvas(pc)
	if pn.yText != "" {
		sty := pn.yLabel
		sty.Rotation += math.Pi / 2
		c.FillText(sty, vg.Point{X: labelX, Y: (data.Min.Y + data.Max.Y) / 2}, pn.yText)
	}
	if pn.below {
		// Left-aligned with the data, under the x axis label.
		pn.legend.drawBelow(c, c.Min.X+indent, pc.Min.Y-vg.Points(legendBelow), rows, widths)
		return
	}
	lc := c
	lc.Min.X = c.Max.X - lw
	lc.Max.Y = data.Max.Y
	lc.Min.Y = data.Min.Y
	leg := pn.legend.column(0, len(pn.legend.entries))
	leg.Draw(lc)
}

// figureLayout is a whole figure, ready to draw at its size.
type figureLayout interface {
	size() (w, h vg.Length)
	draw(c draw.Canvas)
}

// layout is the whole figure: the MSE panel and, optionally, the
// diagnostic panel.
type layout struct {
	mse  *panel
	diag *panel // nil without a diagnostic panel
}

func (l *layout) size() (w, h vg.Length) {
	if l.diag == nil {
		return widthOne, heightOne
	}
	// The legends go under the panels: the figure grows by the taller one,
	// so that the data areas keep the height of a figure without.
	lw, rw := l.split(widthTwo - 2*vg.Points(margin))
	_, _, _, hl := l.mse.belowLayout(lw)
	_, _, _, hr := l.diag.belowLayout(rw)
	return widthTwo, wholePixels(heightOne + max(hl, hr))
}

// wholePixels rounds a length up to a whole number of pixels at dpi, so
// that the PNG is exactly the SVG's size.
func wholePixels(x vg.Length) vg.Length {
	return vg.Length(math.Ceil(float64(x/vg.Inch)*dpi)/dpi) * vg.Inch
}

// split shares width w between the MSE panel (58%) and the diagnostic
// panel, less the gap between them.
func (l *layout) split(w vg.Length) (left, right vg.Length) {
	free := w - vg.Points(panelGap)
	return 0.58 * free, 0.42 * free
}

// draw draws l on c, whose background encode has painted.
//
// With a diagnostic panel, both legends go under their panels: to the
// right of the MSE panel its legend (long labels, few rows) left a wide
// empty column between it and the diagnostic panel.
func (l *layout) draw(c draw.Canvas) {
	c = draw.Crop(c, vg.Points(margin), -vg.Points(margin), vg.Points(margin), -vg.Points(margin))
	if l.diag == nil {
		l.mse.draw(c)
		return
	}
	lw, _ := l.split(c.Max.X - c.Min.X)
	left := c
	left.Max.X = c.Min.X + lw
	right := c
	right.Min.X = left.Max.X + vg.Points(panelGap)
	l.mse.draw(left)
	l.diag.draw(right)
}

// lineKey identifies one line of the MSE panel.
type lineKey struct{ series, estimator string }

func (k lineKey) String() string { return k.series + "/" + k.estimator }

// build turns the figure description into panels, validating the data.
func build(f Figure) (*layout, error) {
	mse, err := buildMSE(f)
	if err != nil {
		return nil, err
	}
	lay := &layout{mse: mse}
	if len(f.Diagnostic.Rows) > 0 {
		lay.diag, err = buildDiagnostic(f)
		if err != nil {
			return nil, err
		}
		mse.below, lay.diag.below = true, true
	}
	return lay, nil
}

// labelOf returns the legend label of line k: f.Labels[k] if set, else the
// estimator name, prefixed by the series when the figure has several.
func labelOf(f *Figure, k lineKey, multiSeries bool) string {
	if l, ok := f.Labels[k.String()]; ok {
		return l
	}
	if multiSeries {
		return k.series + ": " + k.estimator
	}
	return k.estimator
}

// dashed reports whether line k is a reference line: its key or its bare
// estimator name is listed in f.Dashed.
func dashed(f *Figure, k lineKey) bool {
	return slices.Contains(f.Dashed, k.String()) || slices.Contains(f.Dashed, k.estimator)
}

// sans is the typeface of all text (bundled with gonum/plot).
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// newPlot returns a plot with the figure's fonts, linear axes with LinTicks
// and a light grid.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, vg.Points(14))
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, vg.Points(13))
		a.Tick.Label.Font = font.From(sans, vg.Points(11))
		a.Tick.Marker = LinTicks{}
		a.Padding = vg.Points(4)
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xe0}
	grid.Horizontal.Color = color.Gray{Y: 0xe0}
	grid.Vertical.Width = vg.Points(0.5)
	grid.Horizontal.Width = vg.Points(0.5)
	p.Add(grid)
	return p
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// msePoint is one plottable point of the MSE panel.
type msePoint struct {
	n, mse float64
	lo, hi float64 // standard error band
}

// mseLine is one line of the MSE panel.
type mseLine struct {
	key lineKey
	pts []msePoint // sorted by n
}

func buildMSE(f Figure) (*panel, error) {
	var bands bandCount
	var order []lineKey
	lines := map[lineKey]*mseLine{}
	series := map[string]bool{}
	for _, r := range f.Rows {
		k := lineKey{r.Series, r.Estimator}
		ln := lines[k]
		if ln == nil {
			ln = &mseLine{key: k}
			lines[k] = ln
			order = append(order, k)
			series[r.Series] = true
		}
		if r.N <= 0 || !(r.MSE > 0) || !finite(r.MSE) {
			continue // a log axis cannot show it
		}
		s := r.MSESE
		if !(s > 0) || !finite(s) {
			s = 0 // no usable standard error: the band collapses to the point
		}
		pt := msePoint{
			n:   float64(r.N),
			mse: r.MSE,
			lo:  max(r.MSE-s, r.MSE/lowerClamp, math.SmallestNonzeroFloat64),
			hi:  math.Min(r.MSE+s, math.MaxFloat64),
		}
		bands.add(r, s, pt.lo > r.MSE-s)
		ln.pts = append(ln.pts, pt)
	}

	var (
		minMSE, maxMSE = math.Inf(1), math.Inf(-1)
		minN, maxN     = math.Inf(1), math.Inf(-1)
	)
	for _, k := range order {
		ln := lines[k]
		slices.SortStableFunc(ln.pts, func(a, b msePoint) int { return cmpFloat(a.n, b.n) })
		for _, pt := range ln.pts {
			minMSE, maxMSE = math.Min(minMSE, pt.mse), math.Max(maxMSE, pt.mse)
			minN, maxN = math.Min(minN, pt.n), math.Max(maxN, pt.n)
		}
	}
	if math.IsInf(minMSE, 1) {
		return nil, fmt.Errorf("figure %q: no point with a positive finite MSE and n > 0 among %d rows", f.Title, len(f.Rows))
	}

	p := newPlot(f.Title, "n (trajectories)", "MSE")
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{}, logTicks{}
	// logTicks writes large or small powers of ten as "10^k".
	p.X.Tick.Label.Handler = powerText{text.Plain{Fonts: font.DefaultCache}}
	p.Y.Tick.Label.Handler = powerText{text.Plain{Fonts: font.DefaultCache}}
	leg := newLegend()

	yLo, yHi := minMSE, maxMSE
	var bandPolys, curves []plot.Plotter
	for i, k := range order {
		ln := lines[k]
		if len(ln.pts) == 0 {
			continue
		}
		col := palette[i%len(palette)]
		xy := make(plotter.XYs, len(ln.pts))
		for j, pt := range ln.pts {
			xy[j] = plotter.XY{X: pt.n, Y: pt.mse}
			yLo = math.Min(yLo, pt.lo)
			yHi = math.Max(yHi, pt.hi)
		}
		if len(ln.pts) >= 2 {
			ring := make(plotter.XYs, 0, 2*len(ln.pts))
			for _, pt := range ln.pts {
				ring = append(ring, plotter.XY{X: pt.n, Y: pt.hi})
			}
			for j := len(ln.pts) - 1; j >= 0; j-- {
				ring = append(ring, plotter.XY{X: ln.pts[j].n, Y: ln.pts[j].lo})
			}
			band, err := plotter.NewPolygon(ring)
			if err != nil {
				return nil, fmt.Errorf("figure: band of %s: %w", k, err)
			}
			band.Color = color.NRGBA{col.R, col.G, col.B, bandAlpha}
			band.LineStyle.Width = 0
			bandPolys = append(bandPolys, band)
		}
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, fmt.Errorf("figure: line of %s: %w", k, err)
		}
		line.Color = col
		line.Width = vg.Points(1.6)
		if dashed(&f, k) {
			line.Dashes = []vg.Length{vg.Points(7), vg.Points(4)}
		}
		points.Color = col
		points.Shape = glyphs[i%len(glyphs)]
		points.Radius = vg.Points(3.2)
		curves = append(curves, line, points)

		leg.Add(labelOf(&f, k, len(series) > 1), line, points)
	}
	p.Add(bandPolys...)
	p.Add(curves...)

	// Axis ranges: the data, the bands within a factor of the data, and a
	// little padding in log space so that nothing sits on the frame.
	yLo = max(yLo, minMSE/rangeFloor, math.SmallestNonzeroFloat64)
	yHi = math.Min(yHi, maxMSE*rangeCeil)
	p.X.Min, p.X.Max = logPad(minN, maxN)
	p.Y.Min, p.Y.Max = logAxis(yLo, yHi, minMSE)
	return &panel{p: p, legend: leg, note: bands.note()}, nil
}

// logPad widens the positive range [lo, hi] by logPadFrac of its log width
// on each side (by a factor 2 if lo == hi).
func logPad(lo, hi float64) (float64, float64) {
	if !(hi > lo) {
		return math.Max(lo/2, math.SmallestNonzeroFloat64), math.Min(hi*2, math.MaxFloat64)
	}
	f := math.Pow(hi/lo, logPadFrac)
	if !finite(f) {
		return lo, hi
	}
	return math.Max(lo/f, math.SmallestNonzeroFloat64), math.Min(hi*f, math.MaxFloat64)
}

// diagKey identifies one line of the diagnostic panel.
type diagKey struct {
	series, estimator string
	n                 int
}

// buildDiagnostic draws the diagnostic panel: the mean of a diagnostic
// against its index, one line per (series, estimator) and n.
func buildDiagnostic(f Figure) (*panel, error) {
	d := &f.Diagnostic
	wantN := map[int]bool{}
	for _, n := range d.N {
		wantN[n] = true
	}
	var order []diagKey
	pts := map[diagKey]plotter.XYs{}
	pairs := map[lineKey]int{} // (series, estimator) -> order of first appearance
	for _, r := range d.Rows {
		if len(wantN) > 0 && !wantN[r.N] {
			continue
		}
		if !finite(r.Mean) {
			continue
		}
		k := diagKey{r.Series, r.Estimator, r.N}
		if _, ok := pts[k]; !ok {
			order = append(order, k)
			if _, ok := pairs[lineKey{r.Series, r.Estimator}]; !ok {
				pairs[lineKey{r.Series, r.Estimator}] = len(pairs)
			}
		}
		pts[k] = append(pts[k], plotter.XY{X: float64(r.I), Y: r.Mean})
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("figure %q: no finite diagnostic point for n in %v among %d rows", f.Title, d.N, len(d.Rows))
	}
	// Lines grouped by (series, estimator) in order of first appearance,
	// then in N order if given, else in increasing n.
	rank := func(n int) int {
		if i := slices.Index(d.N, n); i >= 0 {
			return i
		}
		return n
	}
	slices.SortStableFunc(order, func(a, b diagKey) int {
		pa, pb := pairs[lineKey{a.series, a.estimator}], pairs[lineKey{b.series, b.estimator}]
		if pa != pb {
			return pa - pb
		}
		return rank(a.n) - rank(b.n)
	})

	p := newPlot(d.Title, d.XLabel, d.YLabel)
	leg := newLegend()
	yMax := 0.0
	yMin := 0.0
	for i, k := range order {
		xy := pts[k]
		slices.SortStableFunc(xy, func(a, b plotter.XY) int { return cmpFloat(a.X, b.X) })
		for _, pt := range xy {
			yMax = math.Max(yMax, pt.Y)
			yMin = math.Min(yMin, pt.Y)
		}
		line, err := plotter.NewLine(xy)
		if err != nil {
			return nil, fmt.Errorf("figure: diagnostic line n=%d: %w", k.n, err)
		}
		line.Color = diagPalette[i%len(diagPalette)]
		line.Width = vg.Points(1.8)
		p.Add(line)
		label := "n = " + strconv.Itoa(k.n)
		if len(pairs) > 1 {
			label = labelOf(&f, lineKey{k.series, k.estimator}, true) + ", " + label
		}
		leg.Add(label, line)
	}
	// The axis starts at 0 (or below: a diagnostic may be negative) and
	// leaves headroom; k*, the diagnostic of today's estimators, counts
	// weights.
	p.Y.Min = yMin
	if yMax > yMin {
		p.Y.Max = yMax + 0.05*(yMax-yMin)
	} else {
		p.Y.Max = yMin + 1
	}
	return &panel{p: p, legend: leg, note: diagNote(f.Rows)}, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
