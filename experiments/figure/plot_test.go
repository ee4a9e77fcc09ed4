package figure

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

var testNs = []int{10, 20, 50, 100, 200, 500, 1000}

// synthRows returns MSE rows that fall as 1/n, one line per estimator.
func synthRows(series string, ests ...string) []resultsdir.Row {
	var rows []resultsdir.Row
	for i, e := range ests {
		for _, n := range testNs {
			mse := float64(100*(i+1)) / float64(n)
			rows = append(rows, resultsdir.Row{Experiment: "t", Series: series, Estimator: e, N: n,
				Trials: 16, MSE: mse, MSESE: 0.3 * mse})
		}
	}
	return rows
}

// synthDiag returns diagnostic rows of series s, estimator incris: for each
// n, indices 1..20 with mean i·n/(n+100), a k*-like curve that grows with
// the index and saturates in n.
func synthDiag(ns ...int) []resultsdir.DiagRow {
	var rows []resultsdir.DiagRow
	for _, n := range ns {
		for i := 1; i <= 20; i++ {
			rows = append(rows, resultsdir.DiagRow{Series: "s", Estimator: "incris", N: n, I: i,
				Mean: float64(i) * float64(n) / float64(n+100)})
		}
	}
	return rows
}

// diagPanel returns a diagnostic side panel of rows drawing the sample
// sizes ns (all of them when ns is empty), labelled as k* panels are.
func diagPanel(rows []resultsdir.DiagRow, ns ...int) resultsdir.DiagnosticPanel {
	return resultsdir.DiagnosticPanel{Title: "mean k*", XLabel: "step t", YLabel: "mean k*", Rows: rows, N: ns}
}

// drawAndCheck draws f into a fresh directory, checks both files exist and
// are well formed and that nothing else is left there, and returns the
// decoded PNG.
func drawAndCheck(t *testing.T, f Figure) image.Image {
	t.Helper()
	dir := t.TempDir()
	base := filepath.Join(dir, "sub", "fig")
	if err := Draw(f, base); err != nil {
		t.Fatalf("Draw: %v", err)
	}
	pngData, err := os.ReadFile(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		t.Fatalf("decoding PNG: %v", err)
	}
	svgData, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	if len(svgData) == 0 || !bytes.Contains(svgData, []byte("<svg")) {
		t.Fatalf("SVG is empty or not SVG (%d bytes)", len(svgData))
	}
	dec := xml.NewDecoder(bytes.NewReader(svgData))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
	}
	assertOnly(t, filepath.Dir(base), "fig.png", "fig.svg")
	return img
}

// assertOnly fails unless dir holds exactly the named files.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Fatalf("directory %s holds %v, want exactly %v (temporary file left?)", dir, got, names)
	}
}

func TestDrawWritesPNGAndSVG(t *testing.T) {
	f := Figure{
		Title:  "test figure",
		Rows:   synthRows("s", "is", "pdis", "wis", "incris", "partitioned-pdis"),
		Dashed: []string{"partitioned-pdis"},
		Labels: map[string]string{"s/incris": "INCRIS"},
	}
	img := drawAndCheck(t, f)
	b := img.Bounds()
	// 7in x 5in at 150 dpi.
	if b.Dx() != 7*dpi || b.Dy() != 5*dpi {
		t.Errorf("PNG is %dx%d, want %dx%d", b.Dx(), b.Dy(), 7*dpi, 5*dpi)
	}
	if !hasColour(img) {
		t.Error("PNG has no coloured pixel: no line was drawn")
	}
}

// hasColour reports whether img has a clearly non-grey pixel.
func hasColour(img image.Image) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			mx, mn := max(r, g, bl), min(r, g, bl)
			if mx-mn > 0x4000 {
				return true
			}
		}
	}
	return false
}

func TestDrawBadPointsDoNotPanic(t *testing.T) {
	rows := synthRows("s", "is", "wis")
	rows = append(rows,
		resultsdir.Row{Series: "s", Estimator: "is", N: 2000, MSE: 0, MSESE: 1},
		resultsdir.Row{Series: "s", Estimator: "is", N: 5000, MSE: -3, MSESE: 1},
		resultsdir.Row{Series: "s", Estimator: "wis", N: 2000, MSE: math.NaN(), MSESE: 1},
		resultsdir.Row{Series: "s", Estimator: "wis", N: 5000, MSE: math.Inf(1), MSESE: 1},
		resultsdir.Row{Series: "s", Estimator: "wis", N: 0, MSE: 1, MSESE: 1},
		resultsdir.Row{Series: "s", Estimator: "wis", N: -10, MSE: 1, MSESE: 1},
		// Standard error above the MSE: the band's lower edge must be clamped.
		resultsdir.Row{Series: "s", Estimator: "is", N: 10000, MSE: 0.5, MSESE: 7},
		// Unusable standard errors.
		resultsdir.Row{Series: "s", Estimator: "wis", N: 10000, MSE: 0.5, MSESE: math.NaN()},
		resultsdir.Row{Series: "s", Estimator: "wis", N: 20000, MSE: 0.4, MSESE: -1},
		resultsdir.Row{Series: "s", Estimator: "wis", N: 50000, MSE: 0.3, MSESE: math.Inf(1)},
		// A line with a single plottable point and one with none.
		resultsdir.Row{Series: "s", Estimator: "one", N: 100, MSE: 2, MSESE: 3},
		resultsdir.Row{Series: "s", Estimator: "none", N: 100, MSE: 0, MSESE: 0},
	)
	for i := range rows {
		if rows[i].Estimator == "is" && rows[i].N < 100 {
			rows[i].MSESE = 2 * rows[i].MSE
		}
	}
	drawAndCheck(t, Figure{Title: "bad points", Rows: rows})
}

func TestDrawTinyAndDegenerateRanges(t *testing.T) {
	for name, rows := range map[string][]resultsdir.Row{
		"single point": {{Series: "s", Estimator: "is", N: 100, MSE: 3, MSESE: 1}},
		"one decade":   {{Series: "s", Estimator: "is", N: 100, MSE: 3}, {Series: "s", Estimator: "is", N: 200, MSE: 7}},
		"huge range":   {{Series: "s", Estimator: "is", N: 1, MSE: 1e-30}, {Series: "s", Estimator: "is", N: 1e9, MSE: 1e30}},
		"same n":       {{Series: "s", Estimator: "is", N: 100, MSE: 3}, {Series: "s", Estimator: "is", N: 100, MSE: 30}},
		"extreme":      {{Series: "s", Estimator: "is", N: 1, MSE: 1e300, MSESE: 1e308}, {Series: "s", Estimator: "is", N: 2, MSE: 5e-324, MSESE: 1}},
	} {
		t.Run(name, func(t *testing.T) { drawAndCheck(t, Figure{Title: name, Rows: rows}) })
	}
}

func TestDrawNothingPlottableIsError(t *testing.T) {
	dir := t.TempDir()
	for name, rows := range map[string][]resultsdir.Row{
		"no rows":   nil,
		"all zero":  {{Series: "s", Estimator: "is", N: 10, MSE: 0}, {Series: "s", Estimator: "is", N: 20, MSE: math.NaN()}},
		"bad n":     {{Series: "s", Estimator: "is", N: 0, MSE: 1}},
		"neg infty": {{Series: "s", Estimator: "is", N: 10, MSE: math.Inf(-1)}},
	} {
		// Errors of the package start with its name, "figure".
		if err := Draw(Figure{Title: name, Rows: rows}, filepath.Join(dir, "fig")); err == nil {
			t.Errorf("%s: Draw succeeded, want an error", name)
		} else if !strings.HasPrefix(err.Error(), "figure") {
			t.Errorf("%s: error %q does not start with \"figure\"", name, err)
		}
	}
	if err := Draw(Figure{Rows: synthRows("s", "is")}, ""); err == nil {
		t.Error("Draw with empty base succeeded, want an error")
	}
	assertOnly(t, dir)
}

func TestDiagnosticPanelWidensImage(t *testing.T) {
	rows := synthRows("s", "is", "incris")
	one := drawAndCheck(t, Figure{Title: "one panel", Rows: rows}).Bounds()
	two := drawAndCheck(t, Figure{Title: "two panels", Rows: rows,
		Diagnostic: diagPanel(synthDiag(100, 1000, 10000), 100, 10000)}).Bounds()
	if two.Dx() <= one.Dx() {
		t.Errorf("diagnostic panel did not widen the image: %d <= %d", two.Dx(), one.Dx())
	}
	// The two legends go under their panels, which keep the height of one
	// panel's data area: the image grows by the legends' rows only (two
	// of "is", "incris" side by side: one row of about 15 points, 31
	// pixels at 150 dpi, with its gap).
	if d := two.Dy() - one.Dy(); d < 20 || d > 60 {
		t.Errorf("diagnostic panel changed the height by %d pixels, want the legend's row, 20..60", d)
	}
	// All n, non-finite means, and several (series, estimator) pairs.
	ds := append(synthDiag(100, 1000), resultsdir.DiagRow{Series: "s", Estimator: "incris", N: 100, I: 21, Mean: math.NaN()})
	ds = append(ds, resultsdir.DiagRow{Series: "other", Estimator: "incris", N: 100, I: 1, Mean: 1},
		resultsdir.DiagRow{Series: "other", Estimator: "incris", N: 100, I: 2, Mean: 2})
	drawAndCheck(t, Figure{Title: "all n", Rows: rows, Diagnostic: diagPanel(ds)})
	// A flat diagnostic line (all equal) and a single index.
	drawAndCheck(t, Figure{Title: "flat", Rows: rows, Diagnostic: diagPanel([]resultsdir.DiagRow{{Series: "s", Estimator: "incris", N: 10, I: 1, Mean: 0}})})
	// A panel without title or axis labels (they come only from the struct).
	drawAndCheck(t, Figure{Title: "bare", Rows: rows, Diagnostic: resultsdir.DiagnosticPanel{Rows: synthDiag(100)}})
}

func TestDiagnosticNoMatchingNIsError(t *testing.T) {
	dir := t.TempDir()
	// synthDiag(100) has rows for n = 100 only; the panel asks for n = 5.
	err := Draw(Figure{Rows: synthRows("s", "is"), Diagnostic: diagPanel(synthDiag(100), 5)}, filepath.Join(dir, "fig"))
	if err == nil {
		t.Fatal("Draw succeeded with no diagnostic row for the requested n, want an error")
	}
	if !strings.HasPrefix(err.Error(), "figure") {
		t.Errorf("error %q does not start with \"figure\"", err)
	}
	assertOnly(t, dir)
}

func TestDrawReplacesAndIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "fig")
	f := Figure{Title: "det", Rows: synthRows("a", "is", "wis")}
	f.Rows = append(f.Rows, synthRows("b", "is")...)
	if err := os.WriteFile(base+".png", []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	var first [2][]byte
	for i := range 2 {
		if err := Draw(f, base); err != nil {
			t.Fatal(err)
		}
		for j, ext := range []string{".png", ".svg"} {
			b, err := os.ReadFile(base + ext)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first[j] = b
			} else if !bytes.Equal(b, first[j]) {
				t.Errorf("second Draw wrote a different %s", ext)
			}
		}
	}
	if string(first[0]) == "old" {
		t.Error("Draw did not replace the existing PNG")
	}
	assertOnly(t, dir, "fig.png", "fig.svg")
}

func TestLabelsAndDashed(t *testing.T) {
	f := Figure{Labels: map[string]string{"a/pdis": "PDIS (a)"}, Dashed: []string{"b/is", "pdis"}}
	for _, c := range []struct {
		k      lineKey
		multi  bool
		label  string
		dashed bool
	}{
		{lineKey{"a", "is"}, true, "a: is", false},
		{lineKey{"a", "is"}, false, "is", false},
		{lineKey{"a", "pdis"}, true, "PDIS (a)", true},
		{lineKey{"a", "pdis"}, false, "PDIS (a)", true},
		{lineKey{"b", "pdis"}, true, "b: pdis", true},
		{lineKey{"b", "is"}, true, "b: is", true},
	} {
		// Expected: f.Labels["a/pdis"] wins; else "series: estimator" with
		// several series, the bare estimator with one. Dashed by key
		// ("b/is") or by bare estimator name ("pdis", any series).
		if got := labelOf(&f, c.k, c.multi); got != c.label {
			t.Errorf("label(%v, multi=%v) = %q, want %q", c.k, c.multi, got, c.label)
		}
		if got := dashed(&f, c.k); got != c.dashed {
			t.Errorf("dashed(%v) = %v, want %v", c.k, got, c.dashed)
		}
	}
	// Several series and labels go through a full draw too.
	f.Rows = append(synthRows("a", "is", "pdis"), synthRows("b", "is", "pdis")...)
	drawAndCheck(t, f)
}

func TestLogTicks(t *testing.T) {
	labels := func(min, max float64) []string {
		var out []string
		for _, tk := range (logTicks{}).Ticks(min, max) {
			if tk.Value < min*(1-1e-9) || tk.Value > max*(1+1e-9) {
				t.Errorf("[%g, %g]: tick %g outside the range", min, max, tk.Value)
			}
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, c := range []struct {
		min, max float64
		want     string
	}{
		// Expected labels follow the rules in logTicks's doc comment.
		// 3..10 powers of ten inside: only they are labelled, plainly
		// (all within [1e-3, 1e5]).
		{8, 12000, "10,100,1000,10000"},
		{0.05, 20000, "0.1,1,10,100,1000,10000"},
		// No power of ten inside: the multiples 2 and 5 as well.
		{2, 8, "2,5"},
		// 1, 2, 5 would label only 2 (< two labels): every multiple.
		{2, 4.5, "2,3,4"},
		// Labels below 1e-3 (or above 1e5) turn all labels into powers.
		{1e-7, 1e-5, "10^−7,10^−6,10^−5"},
		{0.3, 3e6, "10^0,10^1,10^2,10^3,10^4,10^5,10^6"},
		// Two powers of ten (< 3): 1, 2 and 5 times them.
		{20, 2000, "20,50,100,200,500,1000,2000"},
	} {
		got := strings.Join(labels(c.min, c.max), ",")
		if got != c.want {
			t.Errorf("logTicks(%g, %g) labels %q, want %q", c.min, c.max, got, c.want)
		}
	}
	// 61 powers of ten (> 10): every step = (61+7)/8 = 8th is labelled,
	// 10^−24 ... 10^24, i.e. 7; any count of 4..10 stays readable.
	if n := len(labels(1e-30, 1e30)); n < 4 || n > 10 {
		t.Errorf("logTicks over 60 decades gives %d labels, want 4..10", n)
	}
	for _, r := range [][2]float64{{0, 1}, {-1, 10}, {math.NaN(), 1}, {1, math.Inf(1)}, {5, 1}} {
		if ticks := (logTicks{}).Ticks(r[0], r[1]); ticks != nil {
			t.Errorf("logTicks(%g, %g) = %v, want none", r[0], r[1], ticks)
		}
	}
}

func TestLinTicks(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     string
	}{
		// Expected labels: step = the first of 1, 2, 2.5, 5, 10 times
		// 10^floor(log10(raw)) that is >= raw = (max-min)/5, labels at
		// the multiples of step inside [min, max], with the decimals the
		// step needs (LinTicks's doc comment).
		{0, 31, "0,10,20,30"},                // raw 6.2: step 10
		{1, 100, "20,40,60,80,100"},          // raw 19.8: step 20; 0 < min
		{0, 1.2, "0.00,0.25,0.50,0.75,1.00"}, // raw 0.24: step 0.25, 2 decimals
		{0, 0.9, "0.0,0.2,0.4,0.6,0.8"},      // raw 0.18: step 0.2
		{0, 12, "0.0,2.5,5.0,7.5,10.0"},      // raw 2.4: step 2.5, 1 decimal
		{-5, 5, "-4,-2,0,2,4"},               // raw 2: step 2
	} {
		var got []string
		for _, tk := range (LinTicks{}).Ticks(c.min, c.max) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if s := strings.Join(got, ","); s != c.want {
			t.Errorf("LinTicks(%g, %g) labels %q, want %q", c.min, c.max, s, c.want)
		}
	}
	// An axis up to MaxFloat64 (a huge error bar): max + tolerance
	// overflows to +Inf, and the ticks must still end.
	if n := len((LinTicks{}).Ticks(0, math.MaxFloat64)); n < 4 || n > 20 {
		t.Errorf("LinTicks(0, MaxFloat64): %d ticks, want a few", n)
	}
}

func TestPowerText(t *testing.T) {
	h := powerText{text.Plain{Fonts: font.DefaultCache}}
	fnt := font.From(sans, vg.Points(11))
	pw, ph, pd := h.Plain.Box("10", fnt)
	w, hh, d := h.Box("10^−3", fnt)
	if w <= pw || hh != ph || d != pd {
		t.Errorf("Box(10^−3) = %v,%v,%v; want wider than %v with height %v, depth %v", w, hh, d, pw, ph, pd)
	}
	for _, s := range []string{"10", "^3", "10^", "a^b^c", "1\n2"} {
		if _, _, ok := splitPower(s); ok {
			t.Errorf("splitPower(%q) ok, want plain text", s)
		}
	}
	if b, e, ok := splitPower("2×10^−4"); !ok || b != "2×10" || e != "−4" {
		t.Errorf("splitPower(2×10^−4) = %q, %q, %v", b, e, ok)
	}
}
