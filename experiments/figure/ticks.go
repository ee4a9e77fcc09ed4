package figure

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// logTicks is the tick marker used on log axes. It replaces plot.LogTicks,
// whose labels come out as "1e+03" and which returns ticks outside the axis
// range (widening the axis for labels that are never drawn) and panics on
// non-positive bounds.
//
// logTicks labels each power of ten inside [min, max] and puts unlabelled
// minor ticks at its multiples 2..9. When the range holds fewer than three
// powers of ten, the multiples 2 and 5 (or, if that still makes fewer than
// two labels, all of them) are labelled too; when it holds more than
// twelve, only every second (third, ...) power of ten is labelled, as more
// labels would crowd a panel's height (a grid panel's data area is about
// 230 points high: twelve 11-point labels leave 8 points between two). Labels are plain numbers ("0.001", "10", "10000", at
// most five characters) when every label lies in [1e-3, 1e4], else powers
// of ten written "10^5", "10^−4", which the powerText handler of the
// axis's tick labels draws with a superscript exponent: "100000" is not
// read at a glance.
//
// logTicks labels only powers of ten inside the range; logAxis widens a
// data range so that the power of ten below its lowest point is inside.
type logTicks struct{}

var _ plot.Ticker = logTicks{}

// Ticks returns the ticks of a log axis spanning [min, max]; it returns no
// ticks, rather than panicking, if the range is not positive and finite.
func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 0) {
		return nil
	}
	const tol = 1e-9
	in := func(v float64) bool { return v >= min*(1-tol) && v <= max*(1+tol) }
	lo := int(math.Floor(math.Log10(min)))
	hi := int(math.Ceil(math.Log10(max)))

	type cand struct {
		m, e int
		v    float64
	}
	var all []cand
	for e := lo; e <= hi; e++ {
		for m := 1; m <= 9; m++ {
			v := tickValue(m, e)
			if in(v) {
				all = append(all, cand{m, e, v})
			}
		}
	}

	countLabels := func(label func(c cand) bool) int {
		n := 0
		for _, c := range all {
			if label(c) {
				n++
			}
		}
		return n
	}
	label := func(c cand) bool { return c.m == 1 }
	minor := func(c cand) bool { return true }
	switch decades := countLabels(label); {
	case decades < 3:
		label = func(c cand) bool { return c.m == 1 || c.m == 2 || c.m == 5 }
		if countLabels(label) < 2 {
			label = func(c cand) bool { return true }
		}
	case decades > 12:
		step := (decades + 7) / 8
		label = func(c cand) bool { return c.m == 1 && mod(c.e, step) == 0 }
		// Minor ticks at 2..9 would merge into a smear.
		minor = func(c cand) bool { return c.m == 1 }
	}

	plain := true
	for _, c := range all {
		if label(c) && (c.v < plainLo*(1-tol) || c.v > plainHi*(1+tol)) {
			plain = false
		}
	}
	var ticks []plot.Tick
	for _, c := range all {
		switch {
		case label(c):
			ticks = append(ticks, plot.Tick{Value: c.v, Label: tickLabel(c.m, c.e, c.v, plain)})
		case minor(c):
			ticks = append(ticks, plot.Tick{Value: c.v})
		}
	}
	return ticks
}

// Labels are plain numbers when every label lies in [plainLo, plainHi].
const (
	plainLo = 1e-3
	plainHi = 1e4
)

// logAxis returns the range of a log axis showing the positive range
// [lo, hi] of what a panel draws (points, their bands or bars, lines),
// whose points start at pointLo >= lo: from the power of ten at or below
// pointLo (or lo, if lower), so that every decade [10^k, 10^(k+1)) the
// points reach has its label 10^k on the axis (points reaching 0.23 get
// a label at 0.1, not only at 1), to hi, padded by logPad so that
// nothing sits on the frame. The floor is taken of the points, not of a
// band reaching below them, which would add up to a decade of nothing.
func logAxis(lo, hi, pointLo float64) (float64, float64) {
	if d := decadeFloor(pointLo); d > 0 && d < lo {
		lo = d
	}
	return logPad(lo, hi)
}

// decadeFloor returns the largest power of ten at or below the positive
// x (0 if x is not positive and finite, or the power underflows).
func decadeFloor(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return 0
	}
	e := int(math.Floor(math.Log10(x)))
	d := tickValue(1, e)
	if d > x { // Log10 rounded up across a power of ten
		d = tickValue(1, e-1)
	}
	return d
}

// tickValue returns m·10^e as the float64 nearest to it, so that labels
// print cleanly (3·0.1 would print as 0.30000000000000004).
func tickValue(m, e int) float64 {
	v, err := strconv.ParseFloat(fmt.Sprintf("%de%d", m, e), 64)
	if err != nil {
		return float64(m) * math.Pow10(e)
	}
	return v
}

func tickLabel(m, e int, v float64, plain bool) string {
	if plain {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	exp := strings.Replace(strconv.Itoa(e), "-", "−", 1) // U+2212 minus sign
	if m == 1 {
		return "10^" + exp
	}
	return strconv.Itoa(m) + "×10^" + exp
}

// powerText is the text.Handler of log-axis tick labels: in "base^exp" it
// draws exp as a superscript (smaller and raised). The bundled Liberation
// fonts lack the Unicode superscripts ⁰, ⁹ and ⁻, and gonum's LaTeX
// handler does not support "^". Other text is handled as by text.Plain.
// The box of a power is that of plain text (the superscript fits within
// the font's ascent), so axis layout is unchanged.
type powerText struct{ text.Plain }

var _ text.Handler = powerText{}

const (
	supScale = 0.7  // superscript size relative to the font size
	supRaise = 0.38 // superscript baseline shift, in font sizes
)

// splitPower splits "base^exp" on a single line; ok is false for other text.
func splitPower(txt string) (base, exp string, ok bool) {
	base, exp, ok = strings.Cut(txt, "^")
	if !ok || base == "" || exp == "" || strings.Contains(txt, "\n") || strings.Contains(exp, "^") {
		return "", "", false
	}
	return base, exp, true
}

// Box implements text.Handler.
func (h powerText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	base, exp, ok := splitPower(txt)
	if !ok {
		return h.Plain.Box(txt, fnt)
	}
	face := h.Fonts.Lookup(fnt, fnt.Size)
	small := h.Fonts.Lookup(fnt, fnt.Size*supScale)
	ext := face.Extents()
	return face.Width(base) + small.Width(exp), ext.Ascent, ext.Descent
}

// Draw implements text.Handler.
func (h powerText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	base, exp, ok := splitPower(txt)
	if !ok || sty.Rotation != 0 {
		h.Plain.Draw(c, txt, sty, pt)
		return
	}
	face := h.Fonts.Lookup(sty.Font, sty.Font.Size)
	small := h.Fonts.Lookup(sty.Font, sty.Font.Size*supScale)
	w, ht, dp := h.Box(txt, sty.Font)
	// Same anchoring as text.Plain for a single line.
	x := pt.X + vg.Length(sty.XAlign)*w
	y := pt.Y + (ht+dp)*vg.Length(sty.YAlign) - face.Extents().Ascent + sty.Font.Size
	c.SetColor(sty.Color)
	c.FillString(face, vg.Point{X: x, Y: y}, base)
	c.FillString(small, vg.Point{X: x + face.Width(base), Y: y + supRaise*sty.Font.Size}, exp)
}

func mod(a, b int) int {
	r := a % b
	if r < 0 {
		r += b
	}
	return r
}

// LinTicks is the tick marker of the figures' linear axes: about five
// labelled ticks at steps of 1, 2, 2.5 or 5 times a power of ten, printed
// with just the decimals the step needs ("0", "25", "50"; "0.5", "1", "1.5"), and a
// minor tick halfway between labels. plot.DefaultTicks prints every label
// with the same, often excessive, precision ("0.00", "25.00").
type LinTicks struct{}

var _ plot.Ticker = LinTicks{}

// Ticks returns the ticks of a linear axis spanning [min, max]; it returns
// no ticks if the range is empty or its width is not finite.
func (LinTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(max-min, 0) { // a width beyond float64 has no step
		return nil
	}
	const want = 5
	raw := (max - min) / want
	mag := math.Pow10(int(math.Floor(math.Log10(raw))))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	decimals := 0 // as many as the step needs: 2.5 needs 1, 0.25 needs 2
	for decimals < 17 {
		if r := step * math.Pow10(decimals); math.Abs(r-math.Round(r)) <= 1e-6*r {
			break
		}
		decimals++
	}
	half := step / 2
	tol := 1e-9 * step
	var ticks []plot.Tick
	for i := math.Ceil((min - tol) / half); ; i++ {
		v := i * half
		if v > max+tol || math.IsInf(v, 0) { // max+tol is +Inf near MaxFloat64
			break
		}
		if math.Abs(v) < tol {
			v = 0 // not -0
		}
		if math.Mod(i, 2) == 0 {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
		} else {
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}
