package figure

import (
	"bytes"
	"image"
	"image/color"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TestPNGCanvasSameImage draws the same sequence on a plain image canvas
// and on the shortcut canvas: white fills over white (skipped), over a
// line (drawn), with a transform in effect, with a colour pushed and popped,
// of a path with an arc, partly outside the image. The images must be the
// same bytes, and exactly the fills over white at the top level, without
// a transform, skipped.
func TestPNGCanvasSameImage(t *testing.T) {
	w, h := 3*vg.Inch, 2*vg.Inch
	rect := func(x0, y0, x1, y1 vg.Length) vg.Path {
		var p vg.Path
		p.Move(vg.Point{X: x0, Y: y0})
		p.Line(vg.Point{X: x1, Y: y0})
		p.Line(vg.Point{X: x1, Y: y1})
		p.Line(vg.Point{X: x0, Y: y1})
		p.Close()
		return p
	}
	blue := color.RGBA{0x1f, 0x77, 0xb4, 0xff}
	drawAll := func(c vg.Canvas) {
		c.SetColor(color.White)
		c.Fill(rect(10.3, 10.7, 100.2, 80.9)) // over white: skipped
		c.SetColor(blue)
		c.SetLineWidth(2)
		var line vg.Path
		line.Move(vg.Point{X: 5, Y: 50})
		line.Line(vg.Point{X: 200, Y: 60})
		c.Stroke(line)
		c.SetColor(color.White)
		c.Fill(rect(50.5, 40.5, 120, 70)) // over the line: drawn
		c.Fill(rect(150, 100, 190, 130))  // over white: skipped
		c.Push()
		c.SetColor(blue)
		c.Pop()                           // white again
		c.Fill(rect(-20, -20, 30, 8.5))   // partly outside, over white: skipped
		c.Fill(rect(130, 45, 130.4, 200)) // thin, across the line: drawn
		c.Push()
		c.Translate(vg.Point{X: 5, Y: 5})
		c.Fill(rect(150, 100, 190, 130)) // pushed transform: drawn
		c.Pop()
		var arc vg.Path
		arc.Move(vg.Point{X: 170, Y: 20})
		arc.Arc(vg.Point{X: 170, Y: 20}, 10, 0, 3)
		arc.Close()
		c.Fill(arc) // not a polygon: drawn
		c.SetColor(color.RGBA{0xff, 0xff, 0xff, 0x80})
		c.Fill(rect(10, 10, 20, 20)) // not opaque: drawn
		c.SetColor(color.White)
		c.Translate(vg.Point{X: 1, Y: 1})
		c.Fill(rect(150, 100, 190, 130)) // a top-level transform: drawn, from now on
	}
	plain := newImageCanvas(w, h)
	drawAll(plain)
	img := newImageCanvas(w, h)
	pc := newPNGCanvas(img, img.Image().(*image.RGBA))
	drawAll(pc)
	if !bytes.Equal(plain.Image().(*image.RGBA).Pix, img.Image().(*image.RGBA).Pix) {
		t.Fatal("the shortcut canvas drew another image")
	}
	if pc.skips != 3 {
		t.Errorf("%d fills skipped, want the 3 over white", pc.skips)
	}
}

// TestPNGCanvasFigure: a golden figure drawn on the shortcut canvas is the
// image drawn on a plain one, and its plot's background fill is skipped.
func TestPNGCanvasFigure(t *testing.T) {
	for _, f := range []Figure{goldenMSE(), goldenDiagnostic()} {
		lay, err := build(f)
		if err != nil {
			t.Fatal(err)
		}
		w, h := lay.size()
		plain := newImageCanvas(w, h)
		lay.draw(draw.New(plain))
		img := newImageCanvas(w, h)
		pc := newPNGCanvas(img, img.Image().(*image.RGBA))
		lay.draw(draw.New(pc))
		if !bytes.Equal(plain.Image().(*image.RGBA).Pix, img.Image().(*image.RGBA).Pix) {
			t.Errorf("%s: the shortcut canvas drew another image", f.Title)
		}
		if pc.skips == 0 {
			t.Errorf("%s: no fill skipped, want the plots' backgrounds", f.Title)
		}
	}
}
