package figure

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legend is a panel's legend: its entries, drawn as one gonum/plot legend
// (a column to the right of the data) or, under the data, as columns side
// by side (legendBelow). plot.Legend keeps its entries to itself, so they
// are kept here to be split into columns.
type legend struct {
	entries []legendEntry
}

// legendEntry is one entry of a legend: its text and thumbnails.
type legendEntry struct {
	text   string
	thumbs []plot.Thumbnailer
}

// Geometry of legends, in points.
const (
	legendColGap = 14 // between two columns of a legend under the data
	legendBelow  = 6  // between the x axis label and a legend under the data
)

func newLegend() *legend { return &legend{} }

// Add adds an entry, as plot.Legend.Add does.
func (l *legend) Add(text string, thumbs ...plot.Thumbnailer) {
	l.entries = append(l.entries, legendEntry{text, thumbs})
}

// column returns entries [from, to) as a gonum/plot legend in the
// figure's style, top-left aligned in the canvas it is drawn into.
func (l *legend) column(from, to int) plot.Legend {
	pl := plot.NewLegend()
	pl.Top = true
	pl.Left = true
	pl.TextStyle.Font = font.From(sans, vg.Points(11))
	pl.ThumbnailWidth = vg.Points(26)
	pl.Padding = vg.Points(3)
	for _, e := range l.entries[from:to] {
		pl.Add(e.text, e.thumbs...)
	}
	return pl
}

// size returns the width and height of a legend as one column.
func size(pl plot.Legend) (w, h vg.Length) {
	r := pl.Rectangle(draw.Canvas{})
	return r.Max.X - r.Min.X, r.Max.Y - r.Min.Y
}

// width returns the width of the legend as one column.
func (l *legend) width() vg.Length {
	w, _ := size(l.column(0, len(l.entries)))
	return w
}

// rows returns the fewest rows per column with which the legend's columns
// fit side by side in width w (one column if none do), and the columns'
// widths and the height they take.
func (l *legend) rows(w vg.Length) (rows int, widths []vg.Length, height vg.Length) {
	n := len(l.entries)
	if n == 0 {
		return 0, nil, 0
	}
	for rows = 1; rows <= n; rows++ {
		widths, height = widths[:0], 0
		total := vg.Length(0)
		for from := 0; from < n; from += rows {
			cw, ch := size(l.column(from, min(from+rows, n)))
			widths = append(widths, cw)
			height = max(height, ch)
			total += cw
		}
		total += vg.Length(len(widths)-1) * vg.Points(legendColGap)
		if total <= w || rows == n {
			return rows, widths, height
		}
	}
	return n, widths, height // not reached
}

// drawBelow draws the legend as columns of rows entries from the top-left
// corner (x, top).
func (l *legend) drawBelow(c draw.Canvas, x, top vg.Length, rows int, widths []vg.Length) {
	for i, from := 0, 0; from < len(l.entries); i, from = i+1, from+rows {
		pl := l.column(from, min(from+rows, len(l.entries)))
		_, h := size(pl)
		lc := c
		lc.Min.X, lc.Max.X = x, x+widths[i]
		lc.Max.Y, lc.Min.Y = top, top-h
		pl.Draw(lc)
		x += widths[i] + vg.Points(legendColGap)
	}
}
