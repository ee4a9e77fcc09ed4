package figure

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"gonum.org/v1/plot/cmpimg"
)

// regen is gonum/plot's own -regen flag (cmpimg.GenerateTestData): with
// it, TestGolden rewrites the golden images in testdata/ (do it on
// purpose, and look at them).
var regen = cmpimg.GenerateTestData

// goldenDelta is the tolerance of the golden-image comparison, per pixel,
// in the normalised YIQ colour distance of cmpimg.EqualApprox (0:
// identical, 0.966: black against white).
//
// Measured on these figures when the test was written (amd64): drawing
// the whole figure shifted by 1e-6 pixel changes no pixel at all, by 0.001
// or 0.01 pixel changes edge pixels by at most 0.023 and 0.033, by 0.05
// pixel by about 0.10. Floating-point rounding that differs between
// machines (fused multiply-add, math functions in assembly) moves edges by
// ~1e-12 pixel, so 0.05 leaves room for anti-aliasing differences ten
// billion times larger. Changes a reader would see go well past it: the
// core of text or a line against white is 0.49-0.97; the line colours of
// these figures against each other ≥ 0.19; their SE bands against white
// ≥ 0.10; a grid line against white 0.12; one point's MSE 2% higher gives
// 0.28, one standard error 10% wider 0.09 (its band's edge moves).
const goldenDelta = 0.05

// goldenCase is one figure compared with testdata/golden_<name>.png and
// .svg.
type goldenCase struct {
	name string
	fig  Figure
}

// goldenMSERows are the MSE points of the golden MSE figures: one series,
// four n, three estimators and a 1/n reference. The values are literal
// (no math.Pow), so the input is the same on every machine; they span
// 10^−6 .. 1 so that the y axis labels powers of ten with superscripts.
func goldenMSERows() []resultsdir.Row {
	ns := []int{10, 100, 1000, 10000}
	lines := []struct {
		est     string
		mse     [4]float64
		seRatio float64 // MSESE / MSE
	}{
		// SE above the MSE: the band's lower edge is clamped.
		{"is", [4]float64{0.8, 0.3, 0.09, 0.03}, 1.2},
		{"pdis", [4]float64{0.2, 0.03, 0.004, 0.0005}, 0.3},
		{"incris", [4]float64{0.05, 0.006, 6e-4, 6e-5}, 0.3},
		// No SE: the band collapses onto the (dashed) line.
		{"oracle", [4]float64{1e-3, 1e-4, 1e-5, 1e-6}, 0},
	}
	var rows []resultsdir.Row
	for _, l := range lines {
		for i, n := range ns {
			rows = append(rows, resultsdir.Row{Experiment: "golden", Series: "chain", Estimator: l.est, N: n,
				Trials: 64, MSE: l.mse[i], MSESE: l.seRatio * l.mse[i]})
		}
	}
	return rows
}

// goldenMSE is case (a): several lines, a relabelled one, a dashed
// reference line and SE bands, on log-log axes.
func goldenMSE() Figure {
	return Figure{
		Title:  "Golden: chain MDP, H = 8 (synthetic, 64 trials)",
		Rows:   goldenMSERows(),
		Labels: map[string]string{"chain/incris": "INCRIS (ours)", "chain/oracle": "reference 1/n"},
		Dashed: []string{"oracle"},
	}
}

// goldenDiagnostic is case (b): case (a) with a diagnostic side panel.
// Its rows have four n, of which N selects three (n = 10 is left out),
// each a k*-like curve i·n/(n+100) over the indices 1..8.
func goldenDiagnostic() Figure {
	f := goldenMSE()
	var rows []resultsdir.DiagRow
	for _, n := range []int{10, 100, 1000, 10000} {
		for i := 1; i <= 8; i++ {
			rows = append(rows, resultsdir.DiagRow{Series: "chain", Estimator: "incris", N: n, I: i,
				Mean: float64(i) * float64(n) / float64(n+100)})
		}
	}
	f.Diagnostic = resultsdir.DiagnosticPanel{Title: "INCRIS: mean k* per step", XLabel: "step t", YLabel: "mean k*",
		Rows: rows, N: []int{100, 1000, 10000}}
	return f
}

// goldenPanels is case (c): a figure with two panels under a title and
// note. The first has log-log axes, error bars and a closed-form line
// (y = x²/2, sampled every 0.5) beside a line without one (its points
// joined by a thin line); the second has linear axes, a closed-form line
// (y = 100/x) and a dashed reference line.
func goldenPanels() Figure {
	var quad, quadPts, other []resultsdir.XY
	for x := 1.0; x <= 16; x += 0.5 {
		quad = append(quad, resultsdir.XY{X: x, Y: x * x / 2})
	}
	for _, x := range []float64{1, 2, 4, 8, 16} {
		quadPts = append(quadPts, resultsdir.XY{X: x, Y: x * x / 2})
		other = append(other, resultsdir.XY{X: x, Y: 3 * x})
	}
	logPanel := Panel{Title: "Variance against horizon (log-log)", XLabel: "horizon H", YLabel: "n × Var", LogX: true, LogY: true,
		Lines: []resultsdir.PanelLine{
			{Label: "PDIS", Closed: quad, Points: withSE(quadPts, 1.1, 0.2)},
			{Label: "INCRIS", Points: withSE(other, 1, 0.3)},
		}}

	var inv []resultsdir.XY
	for x := 10.0; x <= 50; x += 2 {
		inv = append(inv, resultsdir.XY{X: x, Y: 100 / x})
	}
	var invPts, flat []resultsdir.XY
	for _, x := range []float64{10, 20, 30, 40, 50} {
		invPts = append(invPts, resultsdir.XY{X: x, Y: 100 / x})
		flat = append(flat, resultsdir.XY{X: x, Y: 4})
	}
	linPanel := Panel{Title: "Bias against n (linear)", XLabel: "n (trajectories)", YLabel: "bias",
		Lines: []resultsdir.PanelLine{
			{Label: "WIS", Closed: inv, Points: withSE(invPts, 0.95, 0.15)},
			{Label: "reference", Dashed: true, Points: withSE(flat, 1, 0)},
		}}
	// The note is literal (it reads as report.PanelsNote +
	// report.PanelsClosedNote today) so that rewording those does not
	// change this figure.
	return Figure{Title: "Golden: panels (synthetic)",
		Note:   "Points: simulated, with error bars of ±1 standard error over the trials; lines: closed forms",
		Panels: []Panel{logPanel, linPanel}}
}

// withSE turns points into simulated points at scale·Y with a standard
// error of seRatio·Y.
func withSE(xys []resultsdir.XY, scale, seRatio float64) []resultsdir.PanelXY {
	pts := make([]resultsdir.PanelXY, len(xys))
	for i, p := range xys {
		pts[i] = resultsdir.PanelXY{X: p.X, Y: scale * p.Y, SE: seRatio * p.Y}
	}
	return pts
}

func goldenCases() []goldenCase {
	return []goldenCase{
		{"mse", goldenMSE()},
		{"diagnostic", goldenDiagnostic()},
		{"panels", goldenPanels()},
		{"bounds", Figure{Title: "Golden: lower bounds (synthetic, 30 trials)",
			Note: "Points: simulated, with error bars of ±1 standard error over the trials", Panels: boundPanels()}},
		{"ratio", ratioFigure()},
	}
}

// TestGolden draws each golden case and compares its PNG with the
// committed testdata/golden_<name>.png, pixel by pixel to goldenDelta, and
// its SVG with testdata/golden_<name>.svg byte for byte (the SVG is text
// with coordinates rounded to 5 digits, deterministic, and a reviewable
// diff). On a mismatch it writes what it drew, and for the PNG a
// difference image, to testdata/failed_<name>_* (ignored by git). Run with
// -regen to rewrite the golden files after an intended change, and look
// at the PNGs before committing: they are the expected values.
func TestGolden(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.name, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), c.name)
			if err := Draw(c.fig, base); err != nil {
				t.Fatalf("Draw: %v", err)
			}
			checkGoldenPNG(t, c.name, readFile(t, base+".png"))
			checkGoldenSVG(t, c.name, readFile(t, base+".svg"))
		})
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readGolden returns the golden file, or with -regen writes got to it,
// removes the failure files a previous run left and returns nil.
func readGolden(t *testing.T, golden string, got []byte, failed ...string) []byte {
	t.Helper()
	if *regen {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		removeStale(t, failed...)
		t.Logf("-regen: wrote %s (%d bytes); look at it before committing", golden, len(got))
		return nil
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("reading the golden file: %v (create it with go test -run Golden -regen)", err)
	}
	return want
}

func checkGoldenPNG(t *testing.T, name string, got []byte) {
	t.Helper()
	golden := filepath.Join("testdata", "golden_"+name+".png")
	gotPath := filepath.Join("testdata", "failed_"+name+"_got.png")
	diffPath := filepath.Join("testdata", "failed_"+name+"_diff.png")
	want := readGolden(t, golden, got, gotPath, diffPath)
	if want == nil {
		return
	}
	ok, err := cmpimg.EqualApprox("png", got, want, goldenDelta)
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		removeStale(t, gotPath, diffPath)
		return
	}
	if err := os.WriteFile(gotPath, got, 0o644); err != nil {
		t.Fatalf("%s differs from the drawn image; writing it failed: %v", golden, err)
	}
	written := gotPath
	msg, err := writeDiff(diffPath, got, want)
	if err != nil {
		t.Logf("no difference image: %v", err)
	} else {
		written += " and " + diffPath
	}
	t.Errorf("%s differs from the drawn image: %s.\nWrote %s; if the change is intended, look at them and rerun with -regen.",
		golden, msg, written)
}

func checkGoldenSVG(t *testing.T, name string, got []byte) {
	t.Helper()
	golden := filepath.Join("testdata", "golden_"+name+".svg")
	gotPath := filepath.Join("testdata", "failed_"+name+"_got.svg")
	want := readGolden(t, golden, got, gotPath)
	if want == nil {
		return
	}
	if bytes.Equal(got, want) {
		removeStale(t, gotPath)
		return
	}
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	line := 0
	for line < min(len(gl), len(wl)) && bytes.Equal(gl[line], wl[line]) {
		line++
	}
	msg := fmt.Sprintf("first at line %d of %d (golden has %d)", line+1, len(gl), len(wl))
	if err := os.WriteFile(gotPath, got, 0o644); err != nil {
		t.Fatalf("%s differs from the drawn SVG (%s); writing it failed: %v", golden, msg, err)
	}
	t.Errorf("%s differs from the drawn SVG, %s.\nWrote %s (diff it against the golden file); if the change is intended, rerun with -regen.",
		golden, msg, gotPath)
}

// removeStale removes failure images a previous run left.
func removeStale(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Logf("removing %s: %v", p, err)
		}
	}
}

func decodePair(got, want []byte) (g, w image.Image, err error) {
	if g, err = png.Decode(bytes.NewReader(got)); err != nil {
		return nil, nil, fmt.Errorf("decoding the drawn PNG: %w", err)
	}
	if w, err = png.Decode(bytes.NewReader(want)); err != nil {
		return nil, nil, fmt.Errorf("decoding the golden PNG: %w", err)
	}
	return g, w, nil
}

// writeDiff writes cmpimg.Diff of the two images to path (black where they
// agree) and returns a description of the mismatch.
func writeDiff(path string, got, want []byte) (string, error) {
	g, w, err := decodePair(got, want)
	if err != nil {
		return err.Error(), err
	}
	if g.Bounds() != w.Bounds() {
		return fmt.Sprintf("drawn image is %v, golden %v", g.Bounds().Size(), w.Bounds().Size()), nil
	}
	dst := image.NewRGBA(g.Bounds())
	cmpimg.Diff(dst, g, w)
	var buf bytes.Buffer
	if err := png.Encode(&buf, dst); err != nil {
		return "", err
	}
	return fmt.Sprintf("some pixels differ by more than %g", goldenDelta), os.WriteFile(path, buf.Bytes(), 0o644)
}
