package figure

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWritePolicyEstimates: the same figure gives the same bytes, in PNG
// and SVG, with 12 estimators (past the palette: shapes change) and a
// failed estimate; inconsistent input is an error naming what is off.
func TestWritePolicyEstimates(t *testing.T) {
	var names []string
	rows := make([][]EstimateRow, 3)
	for j := range 12 {
		names = append(names, "est"+string(rune('a'+j)))
		for k := range rows {
			rows[k] = append(rows[k], EstimateRow{Name: names[j], Value: float64(k) + 0.1*float64(j), Lo: float64(k) - 0.5, Hi: float64(k) + 1.5})
		}
	}
	rows[2][0].Value = math.NaN()
	e := PolicyEstimates{Title: "t", Note: "bars", Policies: []string{"A", "B", "C"}, Estimators: names, Rows: rows, Truths: []float64{0, 1, 2}}
	dir := t.TempDir()
	for _, ext := range []string{".png", ".svg"} {
		var got [2][]byte
		for i := range got {
			p := filepath.Join(dir, "f"+string(rune('0'+i))+ext)
			if err := WritePolicyEstimates(e, p); err != nil {
				t.Fatal(err)
			}
			got[i], _ = os.ReadFile(p)
		}
		if len(got[0]) == 0 || !bytes.Equal(got[0], got[1]) {
			t.Errorf("%s: %d and %d bytes, want the same", ext, len(got[0]), len(got[1]))
		}
	}
	bad := e
	bad.Truths = []float64{1}
	short := e
	short.Rows = [][]EstimateRow{rows[0], rows[1], rows[2][:3]}
	for _, tt := range []struct {
		e    PolicyEstimates
		want string
	}{{PolicyEstimates{Title: "t"}, "no estimates"}, {bad, "1 true values"}, {short, "policy C has 3 estimates, want 12"}} {
		if err := WritePolicyEstimates(tt.e, filepath.Join(dir, "x.png")); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v, want %q", err, tt.want)
		}
	}
}
