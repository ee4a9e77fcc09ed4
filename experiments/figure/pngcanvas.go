package figure

import (
	"bytes"
	"image"
	"image/color"
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// pngCanvas is the image canvas of a figure with one shortcut: it does not
// fill in opaque white a polygon whose pixels are all opaque white already
// (its bounding box, a pixel wider on every side). The image keeps the
// same bytes: freetype's painter blends opaque white over a white pixel
// at any coverage a into (255·0x101·(m−a) + 0xffff·a)/m >> 8 = 255 (m =
// 0xffff), and does not touch a pixel outside the polygon's cells.
// gonum/plot paints every plot's background white before drawing the
// plot, where the canvas is still white: a tenth of drawing Figure 4.
//
// The shortcut is taken only while no transform is in effect (none at the
// top level, none pushed), so that a path's points are its pixels at the
// canvas's resolution, y turned over.
type pngCanvas struct {
	*vgimg.Canvas
	img    *image.RGBA
	white  []bool // per Push level: the colour is opaque white
	moved  bool   // a transform was applied at the top level
	skips  int    // fills skipped (for the tests)
	rowBuf []byte // a row of white pixels, to compare with
}

// newPNGCanvas returns the shortcut canvas over c, which draws on img.
func newPNGCanvas(c *vgimg.Canvas, img *image.RGBA) *pngCanvas {
	return &pngCanvas{Canvas: c, img: img, white: []bool{false}}
}

func (c *pngCanvas) SetColor(clr color.Color) {
	c.Canvas.SetColor(clr)
	r, g, b, a := color.Black.RGBA()
	if clr != nil { // vgimg: nil is black
		r, g, b, a = clr.RGBA()
	}
	c.white[len(c.white)-1] = r == 0xffff && g == 0xffff && b == 0xffff && a == 0xffff
}

func (c *pngCanvas) Push() {
	c.Canvas.Push()
	c.white = append(c.white, c.white[len(c.white)-1])
}

func (c *pngCanvas) Pop() {
	c.Canvas.Pop()
	c.white = c.white[:len(c.white)-1]
}

func (c *pngCanvas) Rotate(t float64) {
	c.Canvas.Rotate(t)
	c.moved = c.moved || len(c.white) == 1
}

func (c *pngCanvas) Translate(pt vg.Point) {
	c.Canvas.Translate(pt)
	c.moved = c.moved || len(c.white) == 1
}

func (c *pngCanvas) Scale(x, y float64) {
	c.Canvas.Scale(x, y)
	c.moved = c.moved || len(c.white) == 1
}

func (c *pngCanvas) Fill(p vg.Path) {
	if len(c.white) == 1 && !c.moved && c.white[0] && c.allWhite(p) {
		c.skips++
		return
	}
	c.Canvas.Fill(p)
}

// allWhite reports whether every pixel of the bounding box of polygon p,
// one pixel wider on every side, is opaque white. A path with arcs or
// curves is not a polygon: false.
func (c *pngCanvas) allWhite(p vg.Path) bool {
	if len(p) == 0 {
		return false
	}
	dpi := c.DPI()
	h := float64(c.img.Rect.Dy())
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp, vg.LineComp:
			x, y := comp.Pos.X.Dots(dpi), h-comp.Pos.Y.Dots(dpi)
			x0, x1, y0, y1 = min(x0, x), max(x1, x), min(y0, y), max(y1, y)
		case vg.CloseComp:
		default:
			return false
		}
	}
	if !(x0 <= x1 && y0 <= y1) { // NaN
		return false
	}
	r := image.Rect(int(math.Floor(x0))-1, int(math.Floor(y0))-1, int(math.Ceil(x1))+1, int(math.Ceil(y1))+1).Intersect(c.img.Rect)
	if r.Empty() {
		return true
	}
	n := 4 * r.Dx()
	if len(c.rowBuf) < n {
		c.rowBuf = bytes.Repeat([]byte{0xff}, n)
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		i := c.img.PixOffset(r.Min.X, y)
		if !bytes.Equal(c.img.Pix[i:i+n], c.rowBuf[:n]) {
			return false
		}
	}
	return true
}
