package experiments

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/curve"
)

func runCSV(t *testing.T, r *Resolved, workers int) []byte {
	t.Helper()
	rep, err := Run(context.Background(), r, Options{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := curve.WriteCSV(&buf, rep.Rows); err != nil {
		t.Fatal(err)
	}
	if err := curve.WriteKStarCSV(&buf, rep.KStar); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestWorkersDoNotChangeResults: the same config and seed give
// byte-identical curve.csv and kstar.csv with 1 and 4 workers (SPEC 3), for
// nested and independent data.
func TestWorkersDoNotChangeResults(t *testing.T) {
	for _, data := range []string{"nested", "independent"} {
		r, err := LoadConfig("testdata/small.yaml")
		if err != nil {
			t.Fatal(err)
		}
		r.Data = data
		one := runCSV(t, r, 1)
		four := runCSV(t, r, 4)
		if !bytes.Equal(one, four) {
			t.Errorf("%s: -workers 1 and -workers 4 differ", data)
		}
		if again := runCSV(t, r, 3); !bytes.Equal(one, again) {
			t.Errorf("%s: rerun differs", data)
		}
	}
}

func TestSeedChangesResults(t *testing.T) {
	r, _ := LoadConfig("testdata/small.yaml")
	a := runCSV(t, r, 2)
	r.Seed++
	if bytes.Equal(a, runCSV(t, r, 2)) {
		t.Error("different seeds gave identical results")
	}
}

// TestAggregateIdentities checks each row's identities: bias = mean - V and
// MSE = bias^2 + variance (variance with denominator T), to rounding.
func TestAggregateIdentities(t *testing.T) {
	r, _ := LoadConfig("testdata/small.yaml")
	rep, err := Run(context.Background(), r, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, s := range r.Series {
		want += len(s.Estimators) * len(r.N)
	}
	if len(rep.Rows) != want {
		t.Fatalf("%d rows, want series x estimators x n = %d", len(rep.Rows), want)
	}
	for _, row := range rep.Rows {
		if d := row.MeanEstimate - row.TrueValue - row.Bias; d*d > 1e-20 {
			t.Errorf("%+v: bias != mean - truth", row)
		}
		if d := row.Bias*row.Bias + row.Variance - row.MSE; d > 1e-9*row.MSE+1e-12 || -d > 1e-9*row.MSE+1e-12 {
			t.Errorf("%+v: mse != bias^2 + variance", row)
		}
		if row.Trials != r.Trials {
			t.Errorf("%+v: trials", row)
		}
	}
}

// TestWriteAndRedraw writes a run and redraws its figure from the files.
func TestWriteAndRedraw(t *testing.T) {
	r, _ := LoadConfig("testdata/small.yaml")
	rep, err := Run(context.Background(), r, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := rep.Write(dir, 2, "test"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"curve.csv", "series.csv", "kstar.csv", "claims.csv", "claims.md", "meta.json", "small.png", "small.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	f, _ := os.Open(filepath.Join(dir, "curve.csv"))
	rows, err := curve.ReadCSV(f, "curve.csv")
	f.Close()
	if err != nil || len(rows) != len(rep.Rows) || rows[3] != rep.Rows[3] {
		t.Errorf("curve.csv does not read back: %v", err)
	}
	// series.csv: header, then one row per series, parameters as columns
	// (the chain has no "subepisodes": empty there).
	series := string(readAll(t, filepath.Join(dir, "series.csv")))
	for _, want := range []string{"series,base,domain,p_e,p_b,subepisodes,", "\nsub,sub,subepisode,0.75,0.5,5,", "\nchain,chain,chainmdp,0.9,0.5,,"} {
		if !strings.Contains(series, want) {
			t.Errorf("series.csv lacks %q:\n%s", want, series)
		}
	}
	os.Remove(filepath.Join(dir, "small.png"))
	if err := Redraw(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "small.png")); err != nil {
		t.Error("redraw did not write the PNG")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name()[0] == '.' {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// TestCheckClaims checks the claim test on hand-made rows: a ratio is
// MSE(subject) / min MSE(versus); equal MSEs up to rounding meet max_ratio
// 1; 0/0 counts as 1; "some" needs one n.
func TestCheckClaims(t *testing.T) {
	r := &Resolved{N: []int{10, 20, 30}, Claims: []ClaimConfig{
		{Name: "half", Subject: "s/a", Versus: []string{"s/b", "s/c"}, MaxRatio: 0.5, At: "all", NMin: 10, NMax: 30},
		{Name: "equal", Subject: "s/a", Versus: []string{"s/d"}, MaxRatio: 1, At: "all", NMin: 10, NMax: 30},
		{Name: "some", Subject: "s/b", Versus: []string{"s/a"}, MaxRatio: 1, At: "some", NMin: 20, NMax: 30},
	}}
	dNear := 1.0
	dNear += 1e-15 // a float64 just above 1 (computed, not a constant expression)
	mse := map[string][3]float64{
		"a": {1, 2, 0},
		"b": {4, 3, 5}, // at n = 30: b/a = 5/0 = +Inf
		"c": {2, 5, 7}, // min(b, c) = 2, 3, 5: ratios 0.5, 0.667, 0
		"d": {dNear, 2, 0},
	}
	var rows []curve.Row
	for est, v := range mse {
		for j, n := range r.N {
			rows = append(rows, curve.Row{Series: "s", Estimator: est, N: n, MSE: v[j]})
		}
	}
	got := CheckClaims(r, rows)
	want := []struct {
		holds  bool
		ratios []float64
	}{
		{false, []float64{0.5, 2.0 / 3, 0}},  // fails at n = 20
		{true, []float64{1 / dNear, 1, 1}},   // rounding and 0/0
		{false, []float64{1.5, math.Inf(1)}}, // n in [20, 30] only
	}
	for i, c := range got {
		if c.Holds != want[i].holds || len(c.Points) != len(want[i].ratios) {
			t.Fatalf("claim %s: holds %v with %d points, want %v, %d", c.Claim.Name, c.Holds, len(c.Points), want[i].holds, len(want[i].ratios))
		}
		for j, p := range c.Points {
			if p.Ratio != want[i].ratios[j] {
				t.Errorf("claim %s n=%d: ratio %v, want %v", c.Claim.Name, p.N, p.Ratio, want[i].ratios[j])
			}
		}
	}
}

func readAll(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
