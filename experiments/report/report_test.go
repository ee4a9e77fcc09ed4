package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/experiments/unit"
)

// TestAggregateIdentities checks each row's identities: bias = mean - V and
// MSE = bias^2 + variance (variance with denominator T), to rounding.
func TestAggregateIdentities(t *testing.T) {
	r := loadPlan(t, "../testdata/small.yaml")
	rep := buildReport(t, r, 2)
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

// TestDiagnosticsOfEveryReporter: every estimator whose registry entry
// lists k* gets rows in the kstar table (small.yaml: incris on sub,
// incris-printed on chain), with the mean over trials of hand-made vectors
// where they are given.
func TestDiagnosticsOfEveryReporter(t *testing.T) {
	r := loadPlan(t, "../testdata/small.yaml")
	rep := buildReport(t, r, 2)
	if len(rep.Diagnostics) != 1 || rep.Diagnostics[0].Name != "kstar" || rep.Diagnostics[0].Index != "t" {
		t.Fatalf("diagnostic tables %+v, want one: kstar by t", rep.Diagnostics)
	}
	seen := map[string]bool{}
	for _, row := range rep.Diagnostics[0].Rows {
		seen[row.Series+"/"+row.Estimator] = true
		if row.I < 1 || row.Mean < 0 || row.Mean > float64(row.I) {
			t.Errorf("%+v: k* outside [0, t]", row)
		}
	}
	if !seen["sub/incris"] || !seen["chain/incris-printed"] || len(seen) != 2 {
		t.Errorf("k* rows for %v, want sub/incris and chain/incris-printed", seen)
	}
	var buf bytes.Buffer
	if err := resultsdir.WriteDiagCSV(&buf, rep.Diagnostics[0]); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "series,estimator,n,t,mean_kstar\n") {
		t.Errorf("kstar.csv header: %q", strings.SplitN(buf.String(), "\n", 2)[0])
	}
	back, err := resultsdir.ReadDiagCSV(&buf, "kstar.csv", "kstar", "t")
	if err != nil || len(back.Rows) != len(rep.Diagnostics[0].Rows) || back.Rows[5] != rep.Diagnostics[0].Rows[5] {
		t.Errorf("kstar.csv does not read back: %v", err)
	}

	// Hand-made: two trials, k* (1, 2) and (1) at the only n: the mean at
	// t = 1 is (1 + 1)/2 = 1, at t = 2 only the first trial reaches it: 2.
	p, err := config.Parse([]byte("trials: 2\nn: [3]\nseries:\n  - {name: s, domain: subepisode, estimators: [pdis, incris]}\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res := []unit.Result{
		{Series: 0, Trial: 1, Estimates: [][]float64{{0}, {0}}, Diagnostics: [][][][]float64{nil, {{{1}}}}},
		{Series: 0, Trial: 0, Estimates: [][]float64{{0}, {0}}, Diagnostics: [][][][]float64{nil, {{{1, 2}}}}},
	}
	tables, err := AggregateDiagnostics(p, res)
	if err != nil {
		t.Fatal(err)
	}
	want := []resultsdir.DiagRow{{Series: "s", Estimator: "incris", N: 3, I: 1, Mean: 1}, {Series: "s", Estimator: "incris", N: 3, I: 2, Mean: 2}}
	if len(tables) != 1 || len(tables[0].Rows) != 2 || tables[0].Rows[0] != want[0] || tables[0].Rows[1] != want[1] {
		t.Errorf("tables %+v, want %+v", tables, want)
	}
}

// TestCheckClaims checks the claim test on hand-made rows: a ratio is
// MSE(subject) / min MSE(versus); equal MSEs up to rounding meet max_ratio
// 1; 0/0 counts as 1; "some" needs one n.
func TestCheckClaims(t *testing.T) {
	r := &config.Plan{N: []int{10, 20, 30}, Claims: []config.Claim{
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
	var rows []resultsdir.Row
	for est, v := range mse {
		for j, n := range r.N {
			rows = append(rows, resultsdir.Row{Series: "s", Estimator: est, N: n, MSE: v[j]})
		}
	}
	got := CheckClaims(r, rows, nil, nil)
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
