package claims

import (
	"math"
	"strings"
	"testing"
)

// computation is the test of one quantity's arithmetic: its value at the
// hand-made rows below (Point) and, for a Ratio or Curve quantity, one
// replicate on a hand-made resample (Replicate of the subject's
// estimates).
type computation struct {
	point     float64
	replicate float64 // NaN: none (Bounds)
}

// The inputs every case is computed from: the subject's curve row at
// V(pi_e) = 2 (a hand-made row need not satisfy MSE = Bias^2 + Variance),
// two versus rows of MSE 0.5 and 0.25, a bounds row, and the estimates
// 1, 3, 4 resampled at trials 0, 2, 2 (so 1, 4, 4: errors -1, 2, 2 about
// 2, squared 1, 4, 4).
var (
	input = Input{
		Subject: CurveStats{TrueValue: 2, MeanEstimate: 2.5, Bias: 0.5, Variance: 0.36, MSE: 0.64},
		Versus:  []CurveStats{{TrueValue: 2, MSE: 0.5}, {TrueValue: 3, MSE: 0.25}},
		Bound:   BoundStats{TrueValue: 2, MeanBound: 1.25, BoundSE: 0.1, Coverage: 0.75, CoverageSE: 0.2, Vacuous: 0.25},
	}
	resample = struct {
		est   []float64
		idx   []int
		truth float64
	}{[]float64{1, 3, 4}, []int{0, 2, 2}, 2}
)

// cases holds the computation of every quantity of Table (a test fails
// for a quantity without one).
var cases = map[string]computation{
	// 0.64 / min(0.5, 0.25); replicate: (1 + 4 + 4) / 3 = 3.
	"mse": {point: 2.56, replicate: 3},
	// the row's bias; replicate: (1 + 4 + 4) / 3 - 2 = 1.
	"bias": {point: 0.5, replicate: 1},
	// sqrt(0.64) / |2| = 0.4; replicate: sqrt(3) / 2.
	"rel_rmse":    {point: 0.4, replicate: math.Sqrt(3) / 2},
	"lower_bound": {point: 1.25, replicate: math.NaN()},
	// 2 - 1.25.
	"bound_gap": {point: 0.75, replicate: math.NaN()},
	"coverage":  {point: 0.75, replicate: math.NaN()},
	"vacuous":   {point: 0.25, replicate: math.NaN()},
}

// TestTableComplete: every quantity has a unique name, a doc, a
// description with the placeholders its source fills, the functions of
// its source (and no others), and a computation case.
func TestTableComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, q := range Table() {
		switch {
		case q.Name == "" || strings.ContainsAny(q.Name, " ,"):
			t.Errorf("quantity %q: want a name without spaces or commas", q.Name)
		case seen[q.Name]:
			t.Errorf("quantity %s is listed twice", q.Name)
		}
		seen[q.Name] = true
		if q.Doc == "" || q.What == "" || !strings.Contains(q.What, "{subject}") {
			t.Errorf("quantity %s: doc %q, what %q: want both, what naming the {subject}", q.Name, q.Doc, q.What)
		}
		if (q.Source == Ratio) != strings.Contains(q.What, "{versus}") || (q.Source == Bounds) != strings.Contains(q.What, "{bound}") {
			t.Errorf("quantity %s of source %v: what %q names {versus} exactly for Ratio, {bound} for Bounds", q.Name, q.Source, q.What)
		}
		estimates, bound := q.Value != nil && q.Replicate != nil && q.ReplicateDoc != "", q.Bound != nil
		if estimates != (q.Source != Bounds) || bound != (q.Source == Bounds) {
			t.Errorf("quantity %s of source %v: Value, Replicate and ReplicateDoc %v, Bound %v; want exactly its source's", q.Name, q.Source, estimates, bound)
		}
		if q.Source != Bounds && (q.Fraction || q.NeedsRange) || q.Source == Bounds && q.NonNegative {
			t.Errorf("quantity %s of source %v: Fraction and NeedsRange are for Bounds only, NonNegative for the others", q.Name, q.Source)
		}
		if q.Source.Keys() == "" || q.Source.VerdictDoc() == "" || (q.Source.Rule() == "") != (q.Source == Bounds) {
			t.Errorf("quantity %s: source %v undocumented", q.Name, q.Source)
		}
		if _, ok := cases[q.Name]; !ok {
			t.Errorf("quantity %s has no computation case in quantity_test.go's cases", q.Name)
		}
		if p, ok := Lookup(q.Name); !ok || p.Name != q.Name {
			t.Errorf("Lookup(%s) = %v, %v", q.Name, p, ok)
		}
	}
	for name := range cases {
		if !seen[name] {
			t.Errorf("cases has %s, which is no quantity of Table", name)
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup(nope) found a quantity")
	}
	if q, ok := Lookup(""); !ok || q.Name != Default || Names()[0] != Default {
		t.Errorf("Lookup(\"\") = %v, %v; Names() = %v: want %s, listed first", q, ok, Names(), Default)
	}
}

// TestTableIsACopy: changing what Table or Lookup return changes no later
// answer.
func TestTableIsACopy(t *testing.T) {
	Table()[0].Name = "changed"
	q, _ := Lookup("mse")
	q.Source = Bounds
	if again, _ := Lookup("mse"); Table()[0].Name != "mse" || again.Source != Ratio {
		t.Error("the table changed through a copy")
	}
}

// TestComputation: every quantity's value and replicate on the hand-made
// data above.
func TestComputation(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
	for _, q := range Table() {
		c, ok := cases[q.Name]
		if !ok {
			continue // TestTableComplete reports it
		}
		if got := q.Point(input); !near(got, c.point) {
			t.Errorf("%s: value %v, want %v", q.Name, got, c.point)
		}
		if q.Replicate == nil {
			continue
		}
		if got := q.Replicate(resample.est, resample.idx, resample.truth); !near(got, c.replicate) {
			t.Errorf("%s: replicate %v, want %v", q.Name, got, c.replicate)
		}
	}
}

// TestRatioAtZero: a Ratio quantity is 1 when the subject and the best
// versus curve are both exact (0/0), +Inf over an exact versus curve.
func TestRatioAtZero(t *testing.T) {
	q, _ := Lookup("mse")
	zero := CurveStats{}
	if got := q.Point(Input{Subject: zero, Versus: []CurveStats{zero}}); got != 1 {
		t.Errorf("0/0 = %v, want 1", got)
	}
	if got := q.Point(Input{Subject: CurveStats{MSE: 1}, Versus: []CurveStats{zero}}); !math.IsInf(got, 1) {
		t.Errorf("1/0 = %v, want +Inf", got)
	}
	r, _ := Lookup("rel_rmse")
	if got := r.Point(Input{Subject: CurveStats{}}); got != 0 {
		t.Errorf("rel_rmse at V = 0 and MSE 0: %v, want 0", got)
	}
	if got := r.Point(Input{Subject: CurveStats{MSE: 1}}); !math.IsInf(got, 1) {
		t.Errorf("rel_rmse at V = 0 and MSE 1: %v, want +Inf", got)
	}
}

// TestHolds: the point tests of each source, at and around the
// thresholds.
func TestHolds(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	mse, _ := Lookup("mse")
	bias, _ := Lookup("bias")
	gap, _ := Lookup("bound_gap")
	for _, tc := range []struct {
		q    *Quantity
		v    float64
		th   Thresholds
		want bool
	}{
		{mse, 1, Thresholds{MaxRatio: 1}, true},
		{mse, 1 + 5e-10, Thresholds{MaxRatio: 1}, true}, // within 1e-9 relative
		{mse, 1 + 2e-9, Thresholds{MaxRatio: 1}, false},
		{mse, math.Inf(1), Thresholds{MaxRatio: 1}, false},
		{bias, 0, Thresholds{Min: f(0), Max: f(0.25)}, true}, // exact, ends included
		{bias, 0.25, Thresholds{Min: f(0), Max: f(0.25)}, true},
		{bias, math.Nextafter(0, -1), Thresholds{Min: f(0), Max: f(0.25)}, false},
		{bias, 7, Thresholds{Min: f(0)}, true},
		{bias, 7, Thresholds{}, false}, // no threshold holds nothing
		{gap, 0.1, Thresholds{Max: f(0.1)}, true},
		{gap, math.Nextafter(0.1, 1), Thresholds{Max: f(0.1)}, false},
	} {
		if got := tc.q.Holds(tc.v, tc.th); got != tc.want {
			t.Errorf("%s: %v against %+v: %v, want %v", tc.q.Name, tc.v, tc.th, got, tc.want)
		}
	}
}

// TestStatement: the test statements of claims.md and `runexp claims`,
// as the committed results print them.
func TestStatement(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		name, subject string
		versus        []string
		bound         string
		th            Thresholds
		want          string
	}{
		{"mse", "s/is", []string{"s/wis", "s/pdis"}, "", Thresholds{MaxRatio: 1.5}, "MSE(s/is) / min MSE(s/wis, s/pdis) <= 1.5"},
		{"bias", "s/wis", nil, "", Thresholds{Min: f(-0.01), Max: f(0.01)}, "bias (mean estimate - V(pi_e)) of s/wis in [-0.01, 0.01]"},
		{"rel_rmse", "s/wis", nil, "", Thresholds{Max: f(2)}, "relative RMSE (sqrt(MSE) / |V(pi_e)|) of s/wis <= 2"},
		{"bound_gap", "s/is", nil, "hcope", Thresholds{Max: f(0.1)}, "bound_gap (V(pi_e) - mean hcope bound) of s/is <= 0.1"},
		{"vacuous", "s/is", nil, "t", Thresholds{Min: f(0.5)}, "vacuous (fraction of trials with t bound <= g_lo) of s/is >= 0.5"},
	} {
		q, _ := Lookup(tc.name)
		if got := q.Test(tc.subject, tc.versus, tc.bound, tc.th); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := strings.Join(NamesOf(Bounds), ", "); got != "lower_bound, bound_gap, coverage, vacuous" {
		t.Errorf("NamesOf(Bounds) = %q", got)
	}
}
