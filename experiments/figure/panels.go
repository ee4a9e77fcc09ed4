package figure

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Panel is one panel of a figure with panels (resultsdir.Panel): one colour
// and marker per line; points drawn as markers with +/- SE error bars;
// Closed, when non-empty, as a solid line of the same colour (the points
// are then left unconnected, else a thin line joins them, dashed for a
// reference line).
type Panel = resultsdir.Panel

// panelYMin is the y_min of pn (config plot.panels[].y_min): where its log
// y axis starts, 0 for none.
func panelYMin(pn Panel) float64 { return pn.YMin }

// clipNote is the note under a panel's title when a value was drawn at
// its y_min, which it writes as in a config ("1e-12", "0.001", "2.5e-30").
func clipNote(yMin float64) string {
	s := strconv.FormatFloat(yMin, 'g', -1, 64)
	if m, e, ok := strings.Cut(s, "e"); ok {
		neg := strings.HasPrefix(e, "-")
		e = strings.TrimLeft(e, "+-0")
		if neg {
			e = "-" + e
		}
		s = m + "e" + e
	}
	return "values below " + s + " drawn at the axis"
}

// Grid geometry.
const (
	cellWidth    = 7 * vg.Inch   // width of one panel, legend included
	cellHeight   = 4.6 * vg.Inch // height of one panel, title included
	cellGapX     = 22            // points between panel columns
	cellGapY     = 16            // points between panel rows
	figTitleSize = 16
	noteSize     = 11.5
	panelNote    = 10.5 // size of a panel's note under its title
	noteGap      = 2    // points between a panel's title and its note
	barCapWidth  = 5    // points
)

// gridLayout is a figure with panels: title, note, and the panels in
// rows of cols.
type gridLayout struct {
	title, note string
	panels      []*panel
	cols, rows  int
	// width and height are a panel's size; 0: cellWidth and cellHeight.
	width, height vg.Length
}

// cell returns the size of one panel.
func (g *gridLayout) cell() (w, h vg.Length) {
	w, h = g.width, g.height
	if w == 0 {
		w, h = cellWidth, cellHeight
	}
	return w, h
}

func gridShape(k int) (cols, rows int) {
	cols = int(math.Ceil(math.Sqrt(float64(k))))
	rows = (k + cols - 1) / cols
	return cols, rows
}

var (
	titleStyle = text.Style{Color: color.Black, Font: font.From(sans, vg.Points(figTitleSize)), Handler: text.Plain{Fonts: font.DefaultCache}}
	noteStyle  = text.Style{Color: color.Gray{Y: 0x40}, Font: font.From(sans, vg.Points(noteSize)), Handler: text.Plain{Fonts: font.DefaultCache}}
)

func (g *gridLayout) header() vg.Length {
	h := vg.Length(0)
	if g.title != "" {
		h += titleStyle.Rectangle(g.title).Size().Y + vg.Points(4)
	}
	if g.note != "" {
		h += noteStyle.Rectangle(g.note).Size().Y + vg.Points(4)
	}
	if h > 0 {
		h += vg.Points(8)
	}
	return h
}

func (g *gridLayout) size() (w, h vg.Length) {
	cw, ch := g.cell()
	w = vg.Length(g.cols)*cw + vg.Length(g.cols-1)*vg.Points(cellGapX) + 2*vg.Points(margin)
	h = vg.Length(g.rows)*ch + vg.Length(g.rows-1)*vg.Points(cellGapY) + 2*vg.Points(margin) + g.header()
	return w, h
}

func (g *gridLayout) draw(c draw.Canvas) {
	c = draw.Crop(c, vg.Points(margin), -vg.Points(margin), vg.Points(margin), -vg.Points(margin))
	y := c.Max.Y
	for _, t := range []struct {
		s   string
		sty text.Style
	}{{g.title, titleStyle}, {g.note, noteStyle}} {
		if t.s == "" {
			continue
		}
		sty := t.sty
		sty.XAlign = draw.XLeft
		sty.YAlign = draw.YTop
		c.FillText(sty, vg.Point{X: c.Min.X, Y: y}, t.s)
		y -= sty.Rectangle(t.s).Size().Y + vg.Points(4)
	}
	top := c.Max.Y - g.header()
	cw, ch := g.cell()
	for i, pn := range g.panels {
		row, col := i/g.cols, i%g.cols
		cell := c
		cell.Min.X = c.Min.X + vg.Length(col)*(cw+vg.Points(cellGapX))
		cell.Max.X = cell.Min.X + cw
		cell.Max.Y = top - vg.Length(row)*(ch+vg.Points(cellGapY))
		cell.Min.Y = cell.Max.Y - ch
		pn.draw(cell)
	}
}

// buildGrid turns a figure with panels into its layout.
func buildGrid(f Figure) (*gridLayout, error) {
	g := &gridLayout{title: f.Title, note: f.Note}
	g.cols, g.rows = gridShape(len(f.Panels))
	for i, pn := range f.Panels {
		p, err := buildViewPanel(pn, panelYMin(pn))
		if err != nil {
			return nil, fmt.Errorf("figure %q, panel %d (%s): %w", f.Title, i+1, pn.Title, err)
		}
		g.panels = append(g.panels, p)
	}
	return g, nil
}

// axisRange accumulates a data range.
type axisRange struct{ lo, hi float64 }

func newRange() axisRange { return axisRange{math.Inf(1), math.Inf(-1)} }

func (r *axisRange) add(v float64) {
	if finite(v) {
		r.lo, r.hi = math.Min(r.lo, v), math.Max(r.hi, v)
	}
}

func (r axisRange) empty() bool { return r.lo > r.hi }

// linPad widens [lo, hi] by 5% on each side (by 1, or 10% of |lo|, if
// lo == hi).
func linPad(lo, hi float64) (float64, float64) {
	if !(hi > lo) {
		d := math.Max(math.Abs(lo)*0.1, 1)
		return lo - d, hi + d
	}
	d := 0.05 * (hi - lo)
	return lo - d, hi + d
}

// viewLine is one line of a panel as drawn: its points (at the panel's
// y_min when below it), their error bars' ends (cut at the axis when
// drawn) and its closed form (vertices below y_min at y_min).
type viewLine struct {
	pts    plotter.XYs
	lo, hi []float64
	closed plotter.XYs
	// ref holds the points of a weight reference (resultsdir.PanelLine.
	// Reference), whose pts are empty.
	ref plotter.XYs
	// top indexes the points of pts whose value is +Inf: drawn at the top
	// of the y axis, without an error bar.
	top []int
}

// view is what a panel draws: its lines, its axis ranges, and the note
// under its title.
type view struct {
	lines                  []viewLine
	xMin, xMax, yMin, yMax float64
	// note is clipNote when some value was drawn at y_min, and infNote
	// when some point was +Inf (joined by "; "), else empty.
	note string
}

// infNote is the note under a panel's title when some point's value is
// +Inf (an MSE ratio over a best MSE of 0): it is drawn at the top of the
// y axis, never left out.
const infNote = "+Inf drawn at the top of the axis"

// refCutNote is the note under a panel's title when a weight reference
// runs beyond the y axis (more than two decades from the points): its
// values are in panels.csv.
const refCutNote = "reference cut at the axis (values in panels.csv)"

// infHeadroom widens a y axis that shows +Inf points at its top, as a
// fraction of its (log) range, above the padding of its finite values.
const infHeadroom = 0.1

// panelView computes the lines and axis ranges of Panel pn. Points a log
// axis cannot show are left out.
//
// yMin > 0 on a log y axis (config plot.panels[].y_min; ignored otherwise)
// is where the y axis starts: every finite value below it, a point, an
// error bar end or a vertex of a line, is drawn at yMin (a bar is cut
// there, without a cap), and when some value was, the note says so. A
// point of value +Inf (at a drawable x) is drawn at the top of the y axis,
// without an error bar, and noted: never a silent gap. Only the drawing
// changes: pn is not modified.
func panelView(pn Panel, yMin float64) (*view, error) {
	if !pn.LogY || !(yMin > 0) || !finite(yMin) {
		yMin = 0
	}
	okX := func(x float64) bool { return finite(x) && (!pn.LogX || x > 0) }
	okY := func(y float64) bool { return finite(y) && (!pn.LogY || y > 0 || yMin > 0) }
	// clip draws y below yMin at yMin, and records that it did; atMin does
	// the same for a range bound, which is not itself drawn.
	clipped := false
	clip := func(y float64) float64 {
		if yMin > 0 && y < yMin {
			clipped = true
			return yMin
		}
		return y
	}
	atMin := func(y float64) float64 {
		if yMin > 0 {
			return math.Max(y, yMin)
		}
		return y
	}

	v := &view{lines: make([]viewLine, len(pn.Lines))}
	xr, yr, barR := newRange(), newRange(), newRange()
	for i, ln := range pn.Lines {
		pr := &v.lines[i]
		if ln.Reference {
			continue // drawn once the points' range is known
		}
		for _, pt := range ln.Points {
			if okX(pt.X) && math.IsInf(pt.Y, 1) {
				// Placed at the top once the axis is known.
				pr.top = append(pr.top, len(pr.pts))
				pr.pts = append(pr.pts, plotter.XY{X: pt.X, Y: pt.Y})
				pr.lo = append(pr.lo, pt.Y)
				pr.hi = append(pr.hi, pt.Y)
				xr.add(pt.X)
				continue
			}
			if !okX(pt.X) || !okY(pt.Y) {
				continue
			}
			se := pt.SE
			if !(se > 0) || !finite(se) {
				se = 0
			}
			y := clip(pt.Y)
			pr.pts = append(pr.pts, plotter.XY{X: pt.X, Y: y})
			// Bars keep their ends: errBars cuts them at the axis, which
			// starts at yMin when there is one.
			pr.lo = append(pr.lo, pt.Y-se)
			pr.hi = append(pr.hi, pt.Y+se)
			if se > 0 {
				clip(pt.Y - se) // a bar end below yMin is drawn at it
			}
			xr.add(pt.X)
			yr.add(y)
			if pn.LogY {
				// Bars count towards the range within a factor of the point.
				barR.add(atMin(math.Max(pt.Y-se, pt.Y/rangeFloor)))
				barR.add(atMin(math.Min(pt.Y+se, pt.Y*rangeCeil)))
			} else {
				barR.add(pt.Y - se)
				barR.add(pt.Y + se)
			}
		}
	}
	anyTop := slices.ContainsFunc(v.lines, func(l viewLine) bool { return len(l.top) > 0 })
	if yr.empty() && !anyTop {
		return nil, errors.New("no simulated point can be drawn on these axes")
	}
	pointY := yr
	for i, ln := range pn.Lines {
		pr := &v.lines[i]
		if ln.Reference {
			// A weight reference may run far above the data (E_b[W_H^2]
			// grows exponentially in H): like a closed form, it widens
			// the axis by at most two decades; beyond, the line leaves
			// the panel.
			for _, pt := range ln.Points {
				if !okX(pt.X) || !okY(pt.Y) {
					continue
				}
				y := clip(pt.Y)
				pr.ref = append(pr.ref, plotter.XY{X: pt.X, Y: y})
				xr.add(pt.X)
				if pn.LogY {
					yr.add(math.Min(math.Max(y, pointY.lo/100), pointY.hi*100))
				} else {
					yr.add(y)
				}
			}
			continue
		}
		for _, c := range ln.Closed {
			if !okX(c.X) || !okY(c.Y) {
				continue
			}
			y := clip(c.Y)
			pr.closed = append(pr.closed, plotter.XY{X: c.X, Y: y})
			xr.add(c.X)
			if pn.LogY {
				// A closed form may run far below the data (a bias decaying
				// like exp(-n/2^H)); show at most two decades more.
				yr.add(math.Max(y, pointY.lo/100))
				yr.add(math.Min(y, pointY.hi*100))
			} else {
				yr.add(y)
			}
		}
	}
	if !barR.empty() {
		yr.add(barR.lo)
		yr.add(barR.hi)
	}
	for _, ref := range pn.Refs {
		if okY(ref.Y) {
			yr.add(atMin(ref.Y))
		}
	}
	if yr.empty() {
		// Every drawable point is +Inf: an axis around 1 (or y_min).
		yr.add(atMin(1))
	}
	if pn.LogX {
		v.xMin, v.xMax = logPad(xr.lo, xr.hi)
	} else {
		v.xMin, v.xMax = linPad(xr.lo, xr.hi)
	}
	switch {
	case !pn.LogY && pn.YHi > pn.YLo:
		// A fixed range (a coverage: [0, 1]), padded as data are.
		v.yMin, v.yMax = linPad(pn.YLo, pn.YHi)
	case yMin > 0:
		// The axis starts at yMin, padded only above.
		_, v.yMax = logPad(yMin, math.Max(yr.hi, yMin))
		v.yMin = yMin
	case pn.LogY:
		v.yMin, v.yMax = logAxis(yr.lo, yr.hi, pointY.lo)
	default:
		v.yMin, v.yMax = linPad(yr.lo, yr.hi)
	}
	if anyTop && !yr.empty() {
		// Room above the finite values, so that the +Inf points on the
		// top edge stand apart from them.
		if pn.LogY {
			if f := math.Pow(v.yMax/v.yMin, infHeadroom); finite(f) {
				v.yMax = math.Min(v.yMax*f, math.MaxFloat64)
			}
		} else {
			v.yMax += infHeadroom * (v.yMax - v.yMin)
		}
	}
	var notes []string
	if clipped {
		notes = append(notes, clipNote(yMin))
	}
	for i := range v.lines {
		pr := &v.lines[i]
		for _, j := range pr.top {
			pr.pts[j].Y, pr.lo[j], pr.hi[j] = v.yMax, v.yMax, v.yMax
		}
	}
	if anyTop {
		notes = append(notes, infNote)
	}
	if slices.ContainsFunc(v.lines, func(l viewLine) bool {
		return slices.ContainsFunc(l.ref, func(p plotter.XY) bool { return p.Y > v.yMax || p.Y < v.yMin })
	}) {
		notes = append(notes, refCutNote)
	}
	v.note = strings.Join(notes, "; ")
	return v, nil
}

// buildViewPanel draws one Panel: error bars, markers and closed-form
// lines, on log or linear axes, from its panelView (yMin: its y_min, 0 for
// none). Error bars are cut at the axis range (no cap where cut).
func buildViewPanel(pn Panel, yMin float64) (*panel, error) {
	v, err := panelView(pn, yMin)
	if err != nil {
		return nil, err
	}
	p := newPlot(pn.Title, pn.XLabel, pn.YLabel)
	p.Title.TextStyle.Font = font.From(sans, vg.Points(13))
	for _, ax := range []struct {
		a   *plot.Axis
		log bool
	}{{&p.X, pn.LogX}, {&p.Y, pn.LogY}} {
		if ax.log {
			ax.a.Scale = plot.LogScale{}
			ax.a.Tick.Marker = logTicks{}
			ax.a.Tick.Label.Handler = powerText{text.Plain{Fonts: font.DefaultCache}}
		}
	}
	p.X.Min, p.X.Max = v.xMin, v.xMax
	p.Y.Min, p.Y.Max = v.yMin, v.yMax

	leg := newLegend()
	var closedLines, bars, marks []plot.Plotter
	k, refs := 0, 0 // estimator lines and weight references so far
	for i, ln := range pn.Lines {
		pr := &v.lines[i]
		if ln.Reference {
			thumbs, err := referenceLine(pr.ref, refs, &closedLines, &marks)
			if err != nil {
				return nil, fmt.Errorf("reference %s: %w", ln.Label, err)
			}
			refs++
			if len(thumbs) > 0 {
				leg.Add(ln.Label, thumbs...)
			}
			continue
		}
		c := k // colours and glyphs count estimator lines only
		k++
		col := palette[c%len(palette)]
		var thumbs []plot.Thumbnailer
		if len(pr.closed) >= 2 {
			l, err := plotter.NewLine(pr.closed)
			if err != nil {
				return nil, fmt.Errorf("closed form of %s: %w", ln.Label, err)
			}
			l.Color = col
			l.Width = vg.Points(1.6)
			closedLines = append(closedLines, l)
			thumbs = append(thumbs, l)
		} else if len(pr.pts) >= 2 {
			l, err := plotter.NewLine(pr.pts)
			if err != nil {
				return nil, fmt.Errorf("line of %s: %w", ln.Label, err)
			}
			l.Color = col
			l.Width = vg.Points(0.8)
			if ln.Dashed {
				l.Width = vg.Points(1.4)
				l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
			}
			closedLines = append(closedLines, l)
			thumbs = append(thumbs, l)
		}
		if len(pr.pts) > 0 {
			bars = append(bars, &errBars{xys: pr.pts, lo: pr.lo, hi: pr.hi, color: col})
			sc, err := plotter.NewScatter(pr.pts)
			if err != nil {
				return nil, fmt.Errorf("points of %s: %w", ln.Label, err)
			}
			sc.Color = col
			sc.Shape = glyphs[c%len(glyphs)]
			sc.Radius = vg.Points(3)
			marks = append(marks, sc)
			thumbs = append(thumbs, sc)
		}
		if len(thumbs) > 0 {
			leg.Add(ln.Label, thumbs...)
		}
	}
	for i, ref := range pn.Refs {
		if !finite(ref.Y) || pn.LogY && !(ref.Y > 0) {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: v.xMin, Y: ref.Y}, {X: v.xMax, Y: ref.Y}})
		if err != nil {
			return nil, fmt.Errorf("reference line %s: %w", ref.Label, err)
		}
		l.Color = refColor
		l.Width = vg.Points(1.2)
		l.Dashes = refDashes[i%len(refDashes)]
		closedLines = append(closedLines, l)
		leg.Add(ref.Label, l)
	}
	p.Add(closedLines...)
	p.Add(bars...)
	p.Add(marks...)
	// The y label is drawn by panel.draw, centred on the data area.
	pnl := &panel{p: p, legend: leg, yLabel: p.Y.Label.TextStyle, yText: p.Y.Label.Text}
	var notes []string
	for _, n := range []string{pn.Note, v.note} {
		if n != "" {
			notes = append(notes, n)
		}
	}
	pnl.note = strings.Join(notes, "\n") // a line each: the report's, then the view's
	p.Y.Label.Text = ""
	return pnl, nil
}

// refColor and refDashes draw a panel's reference lines (resultsdir.RefLine):
// dark grey, each with its own dash pattern.
var (
	refColor  = color.Gray{Y: 0x30}
	refDashes = [][]vg.Length{
		{vg.Points(6), vg.Points(4)},
		{vg.Points(2), vg.Points(3)},
		{vg.Points(10), vg.Points(3), vg.Points(2), vg.Points(3)},
	}
)

// referenceLine adds the plotters of a weight reference (the refs-th of
// its panel) with points pts: a dashed grey line through them (with two
// or more), in its own dash pattern, and small grey rings at the points,
// so that a reference of one point shows too. It returns the legend's
// thumbnails. The plotters report no data range (unranged): the panel's
// axes stay those of panelView, which lets a reference leave the panel
// two decades beyond the points (the line is clipped, markers outside are
// not drawn).
func referenceLine(pts plotter.XYs, refs int, lines, marks *[]plot.Plotter) ([]plot.Thumbnailer, error) {
	var thumbs []plot.Thumbnailer
	if len(pts) >= 2 {
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = refColor
		l.Width = vg.Points(1.4)
		l.Dashes = refDashes[refs%len(refDashes)]
		*lines = append(*lines, unranged{l})
		thumbs = append(thumbs, l)
	}
	if len(pts) > 0 {
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color = refColor
		sc.Shape = draw.RingGlyph{}
		sc.Radius = vg.Points(2)
		*marks = append(*marks, unranged{sc})
		if len(thumbs) == 0 {
			thumbs = append(thumbs, sc)
		}
	}
	return thumbs, nil
}

// unranged is a plotter without a data range or glyph boxes: plot.Add
// leaves the axes as set.
type unranged struct{ p plot.Plotter }

// Plot implements plot.Plotter.
func (u unranged) Plot(c draw.Canvas, p *plot.Plot) { u.p.Plot(c, p) }

// errBars draws vertical +/- SE bars with caps, cut at the axis range
// (a cut end has no cap). Unlike plotter.YErrorBars it never hands a
// non-positive value to a log axis.
type errBars struct {
	xys    plotter.XYs
	lo, hi []float64
	color  color.Color
}

// Plot implements plot.Plotter.
func (e *errBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	sty := draw.LineStyle{Color: e.color, Width: vg.Points(1)}
	half := vg.Points(barCapWidth) / 2
	for i, pt := range e.xys {
		if pt.X < plt.X.Min || pt.X > plt.X.Max {
			continue
		}
		lo, hi := e.lo[i], e.hi[i]
		cutLo, cutHi := lo < plt.Y.Min, hi > plt.Y.Max
		lo, hi = math.Max(lo, plt.Y.Min), math.Min(hi, plt.Y.Max)
		if !(hi > lo) {
			continue
		}
		x := trX(pt.X)
		ylo, yhi := trY(lo), trY(hi)
		c.StrokeLine2(sty, x, ylo, x, yhi)
		if !cutLo {
			c.StrokeLine2(sty, x-half, ylo, x+half, ylo)
		}
		if !cutHi {
			c.StrokeLine2(sty, x-half, yhi, x+half, yhi)
		}
	}
}
