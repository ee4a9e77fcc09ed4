package pngenc

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// sameAsStdlib fails t unless Encode writes png.Encode's bytes for m.
func sameAsStdlib(t *testing.T, name string, m image.Image) {
	t.Helper()
	var want, got bytes.Buffer
	if err := png.Encode(&want, m); err != nil {
		t.Fatalf("%s: png.Encode: %v", name, err)
	}
	if err := Encode(&got, m); err != nil {
		t.Fatalf("%s: Encode: %v", name, err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("%s: Encode wrote %d bytes that differ from png.Encode's %d", name, got.Len(), want.Len())
	}
}

// opaqueRGBA returns a w x h opaque RGBA image whose pixel (x, y) is
// px(x, y).
func opaqueRGBA(w, h int, px func(x, y int) color.RGBA) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := px(x, y)
			c.A = 0xff
			m.SetRGBA(x, y, c)
		}
	}
	return m
}

// TestEncodeIsStdlib compares Encode with png.Encode on images chosen so
// that every filter wins some rows (noise: none or Paeth; a horizontal
// gradient: sub; a vertical gradient: up; smooth blends: average and
// Paeth), rows shorter than a pixel's three bytes and than one block,
// sub-images, images that are not opaque RGBA (handed to png.Encode), and
// sizes whose IDAT data spans several 32 KiB chunks.
func TestEncodeIsStdlib(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	noise := func(x, y int) color.RGBA {
		return color.RGBA{uint8(rng.Uint32()), uint8(rng.Uint32()), uint8(rng.Uint32()), 0}
	}
	white := func(x, y int) color.RGBA { return color.RGBA{0xff, 0xff, 0xff, 0} }
	hgrad := func(x, y int) color.RGBA { return color.RGBA{uint8(3 * x), uint8(5 * x), uint8(7 * x), 0} }
	vgrad := func(x, y int) color.RGBA { return color.RGBA{uint8(3 * y), uint8(y), uint8(200 - y), 0} }
	blend := func(x, y int) color.RGBA { return color.RGBA{uint8((x + y) / 2), uint8(x * y / 64), uint8(x ^ y), 0} }
	// lines on white, as a figure: sparse rows and columns of colour,
	// with a random pixel of noise here and there
	figure := func(x, y int) color.RGBA {
		switch {
		case y%37 == 0, x%53 == 0:
			return color.RGBA{0x1f, 0x77, 0xb4, 0}
		case (x+2*y)%97 < 2:
			return color.RGBA{0xd6, 0x27, 0x28, 0}
		case rng.IntN(500) == 0:
			return noise(x, y)
		}
		return white(x, y)
	}
	cases := []struct {
		name string
		w, h int
		px   func(x, y int) color.RGBA
	}{
		{"1x1", 1, 1, noise},
		{"2x3", 2, 3, noise},
		{"noise", 67, 41, noise},
		{"noise-wide", 700, 90, noise},
		{"white", 300, 200, white},
		{"hgrad", 200, 30, hgrad},
		{"vgrad", 30, 200, vgrad},
		{"blend", 130, 120, blend},
		{"figure", 1000, 400, figure},
		{"one-column", 1, 100, blend},
		{"one-row", 1000, 1, figure},
	}
	for _, c := range cases {
		sameAsStdlib(t, c.name, opaqueRGBA(c.w, c.h, c.px))
	}
	big := opaqueRGBA(200, 150, blend)
	sameAsStdlib(t, "sub-image", big.SubImage(image.Rect(13, 7, 181, 140)))

	translucent := opaqueRGBA(40, 30, noise)
	translucent.SetRGBA(3, 4, color.RGBA{10, 20, 30, 40})
	sameAsStdlib(t, "translucent RGBA (png.Encode)", translucent)
	gray := image.NewGray(image.Rect(0, 0, 50, 20))
	draw.Draw(gray, gray.Bounds(), opaqueRGBA(50, 20, blend), image.Point{}, draw.Src)
	sameAsStdlib(t, "gray (png.Encode)", gray)
}

// TestEncodeCommittedFigures re-encodes two committed figures (Figure 4:
// two panels side by side; theory: a grid of panels), decoded into an RGBA
// image as the figures are drawn: Encode writes the bytes png.Encode
// writes. (experiments' TestRedrawCommittedResults redraws every committed
// figure through Encode and compares it with the committed bytes.)
func TestEncodeCommittedFigures(t *testing.T) {
	files := []string{"../../results/fig4/fig4.png", "../../results/theory/theory.png"}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		rgba := image.NewRGBA(m.Bounds())
		draw.Draw(rgba, rgba.Bounds(), m, m.Bounds().Min, draw.Src)
		sameAsStdlib(t, f, rgba)
	}
}

// TestFilterChoosesEveryType: the cases of TestEncodeIsStdlib reach every
// filter type, so that the comparison covers each residual's arithmetic.
func TestFilterChoosesEveryType(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	seen := [nFilter]bool{}
	for _, w := range []int{1, 5, 64, 300} {
		var rows filterRows
		rows.init(3 * w)
		for y := range 60 {
			cur := rows.cur()
			for i := range cur {
				x := i / 3
				switch (y / 10) % 5 {
				case 0: // noise
					cur[i] = byte(rng.Uint32())
				case 1: // constant rows
					cur[i] = 100
				case 2: // horizontal ramp
					cur[i] = byte(7 * x)
				case 3: // vertical ramp
					cur[i] = byte(9*y + i%3)
				default: // diagonal blend
					cur[i] = byte(x*y/3 + i%3)
				}
			}
			seen[rows.filter()[0]] = true
			rows.next()
		}
	}
	for f, ok := range seen {
		if !ok {
			t.Errorf("filter type %d never chosen", f)
		}
	}
}

// BenchmarkEncode encodes an 1800 x 750 figure-like image, the size of
// Figure 4, with this package and with image/png.
func BenchmarkEncode(b *testing.B) {
	files, _ := filepath.Glob("../../results/fig4/fig4.png")
	if len(files) == 0 {
		b.Skip("no results/fig4/fig4.png")
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		b.Fatal(err)
	}
	m, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	rgba := image.NewRGBA(m.Bounds())
	draw.Draw(rgba, rgba.Bounds(), m, m.Bounds().Min, draw.Src)
	for _, enc := range []struct {
		name string
		f    func(w *bytes.Buffer) error
	}{
		{"pngenc", func(w *bytes.Buffer) error { return Encode(w, rgba) }},
		{"image-png", func(w *bytes.Buffer) error { return png.Encode(w, rgba) }},
	} {
		b.Run(enc.name, func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := enc.f(&buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
