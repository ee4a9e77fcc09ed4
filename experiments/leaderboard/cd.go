package leaderboard

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ope-lab/longhorizon/internal/pngenc"
)

// Geometry of the critical-difference diagrams, in points.
const (
	cdDPI      = 150             // as experiments/figure's PNGs
	cdWidth    = 9 * vg.Inch     // room for two columns of names
	cdPad      = vg.Length(10)   // around a panel
	cdRowGap   = vg.Length(13)   // between two names' rows
	cdBarGap   = vg.Length(5)    // between two group bars
	cdTickGap  = vg.Length(14)   // the least space between two tick labels
	cdLabelGap = vg.Length(8)    // between a name's line and its text
	cdTitle    = vg.Length(11.5) // title size
	cdText     = vg.Length(9.5)  // names and ticks
)

// cdSans is experiments/figure's typeface, from gonum/plot's font cache
// (font.DefaultCache, which every text.Plain handler shares).
var cdSans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// cdStyle returns the text style of size pt, colour clr, aligned.
func cdStyle(pt vg.Length, clr color.Color, x text.XAlignment, y text.YAlignment) text.Style {
	return text.Style{Color: clr, Font: font.From(cdSans, pt), XAlign: x, YAlign: y, Handler: text.Plain{Fonts: font.DefaultCache}}
}

var (
	cdInk      = color.Gray{Y: 0x20}
	cdBaseline = color.NRGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff} // the baseline's name (tab10 blue)
	cdLine     = draw.LineStyle{Color: cdInk, Width: 0.8}
	cdBar      = draw.LineStyle{Color: color.Black, Width: 2.6}
)

// cdPanel is one comparison's diagram, laid out.
type cdPanel struct {
	title  string
	c      *Comparison
	base   string
	labelW vg.Length // the widest name with its rank
	height vg.Length
	nRight int // the best ceil(k/2) names go to the right
}

// label is an entry's text in the diagram: its name and average rank.
func label(e Entry) string { return fmt.Sprintf("%s (%.2f)", e.Estimator, e.MeanRank) }

// newCDPanel lays out comparison i of b.
func newCDPanel(b *Board, i int) *cdPanel {
	c := &b.Comparisons[i]
	p := &cdPanel{c: c, base: b.Baseline, nRight: (len(c.Entries) + 1) / 2,
		title: fmt.Sprintf("%d. %s: Friedman p = %s, Nemenyi CD = %.2f", i+1, c, pValue(c.P), c.CD)}
	sty := cdStyle(cdText, cdInk, text.XLeft, text.YCenter)
	for _, e := range c.Entries {
		p.labelW = max(p.labelW, sty.Width(label(e)))
	}
	rows := max(p.nRight, len(c.Entries)-p.nRight)
	p.height = 2*cdPad + cdTitle + 56 + vg.Length(len(c.Groups))*cdBarGap + 12 + vg.Length(rows)*cdRowGap
	return p
}

// draw draws the panel in the strip of c from top down to top - height.
func (p *cdPanel) draw(c draw.Canvas, top vg.Length) {
	c.FillText(cdStyle(cdTitle, color.Black, text.XLeft, text.YTop), vg.Point{X: cdPad, Y: top - cdPad}, p.title)
	k := len(p.c.Entries)
	xl := cdPad + p.labelW + 2*cdLabelGap
	xr := cdWidth - xl
	unit := (xr - xl) / vg.Length(k-1)
	x := func(r float64) vg.Length { return xr - vg.Length(r-1)*unit }
	axis := top - cdPad - cdTitle - 52

	// the critical difference, above the axis at its left end
	cd := min(vg.Length(p.c.CD)*unit, xr-xl)
	cdY := axis + 28
	c.StrokeLine2(cdLine, xl, cdY, xl+cd, cdY)
	c.StrokeLine2(cdLine, xl, cdY-3, xl, cdY+3)
	c.StrokeLine2(cdLine, xl+cd, cdY-3, xl+cd, cdY+3)
	note := fmt.Sprintf("CD = %.2f", p.c.CD)
	if vg.Length(p.c.CD)*unit > xr-xl {
		note += " (wider than the axis)"
	}
	c.FillText(cdStyle(cdText, cdInk, text.XCenter, text.YBottom), vg.Point{X: xl + cd/2, Y: cdY + 4}, note)

	// the axis: ranks k (left) to 1 (right), Demšar's orientation
	c.StrokeLine2(cdLine, xl, axis, xr, axis)
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20} {
		step = s
		if vg.Length(s)*unit >= cdTickGap {
			break
		}
	}
	tick := cdStyle(cdText, cdInk, text.XCenter, text.YBottom)
	for r := 1; r <= k; r++ {
		h := vg.Length(2)
		if (r-1)%step == 0 || r == k {
			h = 4
			c.FillText(tick, vg.Point{X: x(float64(r)), Y: axis + 6}, fmt.Sprint(r))
		}
		c.StrokeLine2(cdLine, x(float64(r)), axis, x(float64(r)), axis+h)
	}

	// the groups not significantly different, under the axis
	y := axis - 8
	for _, g := range p.c.Groups {
		c.StrokeLine2(cdBar, x(p.c.Entries[g[1]].MeanRank)-3, y, x(p.c.Entries[g[0]].MeanRank)+3, y)
		y -= cdBarGap
	}

	// the names: the best half to the right, best on top; the rest to the
	// left, worst on top, so that no two lines cross
	rowTop := y - 8
	for i, e := range p.c.Entries {
		right := i < p.nRight
		row := i
		if !right {
			row = k - 1 - i
		}
		ry := rowTop - vg.Length(row)*cdRowGap
		ex := x(e.MeanRank)
		end, align, tx := xr+cdLabelGap/2, text.XLeft, xr+cdLabelGap
		if !right {
			end, align, tx = xl-cdLabelGap/2, text.XRight, xl-cdLabelGap
		}
		c.StrokeLines(cdLine, []vg.Point{{X: ex, Y: axis}, {X: ex, Y: ry}, {X: end, Y: ry}})
		clr := color.Color(cdInk)
		if e.Estimator == p.base {
			clr = cdBaseline
		}
		c.FillText(cdStyle(cdText, clr, align, text.YCenter), vg.Point{X: tx, Y: ry}, label(e))
	}
}

// cdCaption returns the figure's caption, a line each, drawn above the
// diagrams: what the numbers, the colour and the thick bars are (Demšar
// 2006, Fig. 1; the bars are Comparison.Groups).
func cdCaption(baseline string) []string {
	return []string{
		"In parentheses: the average rank over the domains (1 = best; the axis runs from the worst, left, to 1, right); in blue: the baseline, " + baseline + ".",
		fmt.Sprintf("Thick bars join estimators whose average ranks differ by less than the Nemenyi critical difference CD (alpha = %g): not significantly different.", Alpha),
	}
}

// cdCaptionHeight is the height of cdCaption with its padding.
const cdCaptionHeight = cdPad + 2*(cdText+3) + 2

// Figure draws the critical-difference diagram of every comparison, one
// under the other (Rule), as PNG (150 dpi) and SVG bytes, under a caption
// saying what the numbers and bars are.
func (b *Board) Figure() (png, svg []byte, err error) {
	var panels []*cdPanel
	h := vg.Length(cdCaptionHeight)
	for i := range b.Comparisons {
		p := newCDPanel(b, i)
		panels = append(panels, p)
		h += p.height
	}
	if len(panels) == 0 {
		h = 2*cdPad + cdTitle
	}
	// a whole number of pixels, so that the PNG is exactly the SVG's size
	px := math.Ceil(float64(h) / vg.Inch.Points() * cdDPI)
	h = vg.Length(px / cdDPI * vg.Inch.Points())
	paint := func(c draw.Canvas) {
		top := h
		if len(panels) > 0 {
			for i, line := range cdCaption(b.Baseline) {
				c.FillText(cdStyle(cdText, cdInk, text.XLeft, text.YTop), vg.Point{X: cdPad, Y: top - cdPad - vg.Length(i)*(cdText+3)}, line)
			}
			top -= cdCaptionHeight
		}
		if len(panels) == 0 {
			c.FillText(cdStyle(cdTitle, color.Black, text.XLeft, text.YTop), vg.Point{X: cdPad, Y: top - cdPad},
				fmt.Sprintf("No comparison has %d domains or more: nothing to rank.", MinDomains))
		}
		for i, p := range panels {
			if i > 0 {
				c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 0xc0}, Width: 0.5}, cdPad, top, cdWidth-cdPad, top)
			}
			p.draw(c, top)
			top -= p.height
		}
	}
	img := vgimg.NewWith(vgimg.UseWH(cdWidth, h), vgimg.UseDPI(cdDPI), vgimg.UseBackgroundColor(color.White))
	paint(draw.New(img))
	var pb bytes.Buffer
	if err := pngenc.Encode(&pb, img.Image()); err != nil {
		return nil, nil, fmt.Errorf("leaderboard: encoding the PNG: %w", err)
	}
	sc := vgsvg.New(cdWidth, h)
	c := draw.New(sc)
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	paint(c)
	var sb bytes.Buffer
	if _, err := sc.WriteTo(&sb); err != nil {
		return nil, nil, fmt.Errorf("leaderboard: encoding the SVG: %w", err)
	}
	return pb.Bytes(), sb.Bytes(), nil
}
