package figure

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestEstimatesFigure: the estimates figure draws the same bytes twice,
// grows with its rows, names failed estimates, and draws (never panics)
// when every estimate failed or the values are near the float64 limits.
func TestEstimatesFigure(t *testing.T) {
	nan := math.NaN()
	e := Estimates{Title: "data.csv: 200 episodes, horizon 10", Note: "bars: 95% percentile bootstrap intervals",
		Truth: -2.1, Rows: []EstimateRow{
			{Name: "pdis", Value: -2, Lo: -2.8, Hi: -1.3},
			{Name: "wis", Value: -2.1, Lo: nan, Hi: nan},
			{Name: "dm", Value: nan, Lo: nan, Hi: nan},
		}}
	png1, svg1, err := renderLayout(e.Title, func() (figureLayout, error) { return buildEstimates(e) })
	if err != nil {
		t.Fatal(err)
	}
	png2, svg2, err := renderLayout(e.Title, func() (figureLayout, error) { return buildEstimates(e) })
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(png1, png2) || !bytes.Equal(svg1, svg2) {
		t.Error("the same estimates drew different bytes")
	}
	if !bytes.Contains(svg1, []byte("dm (failed)")) || !bytes.Contains(svg1, []byte("true value -2.1")) {
		t.Error("the SVG lacks the failed estimate's name or the true value")
	}
	// Height: estChrome + max(rows, estMinRows) x estRow, in whole pixels.
	small, _ := buildEstimates(e)
	big := e
	big.Rows = append(append([]EstimateRow{}, e.Rows...), e.Rows...)
	large, _ := buildEstimates(big)
	if _, h := small.size(); h != wholePixels(estChrome+estMinRows*estRow) {
		t.Errorf("3 rows: height %v, want that of %d rows", h, estMinRows)
	}
	if _, h := large.size(); h != wholePixels(estChrome+6*estRow) {
		t.Errorf("6 rows: height %v, want %v", h, wholePixels(estChrome+6*estRow))
	}
	for name, rows := range map[string][]EstimateRow{
		"all failed": {{Name: "is", Value: nan, Lo: nan, Hi: nan}},
		"huge":       {{Name: "is", Value: math.MaxFloat64, Lo: -math.MaxFloat64, Hi: math.MaxFloat64}},
		"one point":  {{Name: "is", Value: 1, Lo: 1, Hi: 1}},
		"huge point": {{Name: "is", Value: math.MaxFloat64, Lo: nan, Hi: nan}},
	} {
		if _, _, err := renderLayout(name, func() (figureLayout, error) { return buildEstimates(Estimates{Title: name, Rows: rows, Truth: nan}) }); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := buildEstimates(Estimates{Title: "none"}); err == nil {
		t.Error("no rows: want an error")
	}
	// WriteEstimates writes the PNG's bytes, and only the file.
	dir := t.TempDir()
	path := filepath.Join(dir, "est.png")
	if err := WriteEstimates(e, path); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, png1) {
		t.Errorf("est.png: %v, equal to the drawn PNG: %v", err, bytes.Equal(got, png1))
	}
	assertOnly(t, dir, "est.png")
}
