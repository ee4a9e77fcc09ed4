package figure

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/resultsdir"
)

// TestPublishedFigure draws a figure of two published tables, one cell
// with an infinite upper point (cut at the axis), and refuses a table
// without cells or without any positive finite value.
func TestPublishedFigure(t *testing.T) {
	f := Figure{Title: "bench", Published: []resultsdir.PublishedTable{
		{Title: "Table 12", Rows: []resultsdir.PublishedRow{
			{Row: "IS", Column: "Standard", Published: 5.6e-4, Median: 4.2e-4, Lo: 1.5e-4, Hi: 9.8e-4},
			{Row: "WIS", Column: "Standard", Published: 1.4e-3, Median: 1e-3, Lo: 0, Hi: math.Inf(1)},
		}},
		{Title: "Table 13", Rows: []resultsdir.PublishedRow{{Row: "IH", Column: "Direct", Published: 4.7e-4, Median: 5e-4, Lo: 3e-4, Hi: 8e-4}}},
	}}
	png, svg, err := render(f)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) || !bytes.Contains(svg, []byte("Table 13")) || !bytes.Contains(svg, []byte("WIS Standard")) {
		t.Errorf("figure lacks its PNG header, a panel title or a cell label (%d PNG bytes)", len(png))
	}
	for _, bad := range []resultsdir.PublishedTable{
		{Title: "empty"},
		{Title: "zeros", Rows: []resultsdir.PublishedRow{{Row: "IS", Column: "Standard", Published: 0, Median: 0, Lo: 0, Hi: 0}}},
	} {
		_, _, err := render(Figure{Title: "bad", Published: []resultsdir.PublishedTable{bad}})
		if err == nil || !strings.Contains(err.Error(), bad.Title) {
			t.Errorf("table %q: got %v, want an error naming it", bad.Title, err)
		}
	}
}
