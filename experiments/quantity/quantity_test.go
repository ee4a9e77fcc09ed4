package quantity

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
)

// computation is the test of one quantity's arithmetic: its value and
// standard error at a hand-made curve row (Source Curve, Baseline: Of) or
// bounds row (Bounds), and its closed form from hand-made moments (NaN
// closed: none; then closedOK false).
type computation struct {
	y, se float64
	// of is the Baseline statistic of curve.
	of float64
	// closed is the closed form from moments, with the truth; closedOK
	// tells whether the moments determine it.
	closed   float64
	closedOK bool
}

// The inputs every case is computed from: a curve row at n = 10 over
// T = 4 trials with V(pi_e) = 2, a bounds row, and closed-form moments
// giving the bias only (the mean follows from the truth).
var (
	curve = CurveStats{N: 10, Trials: 4, TrueValue: 2, MeanEstimate: 2.5, Bias: -0.5, Variance: 0.36,
		MSE: 0.61, MSESE: 0.07, BiasSE: 0.3, VarianceSE: 0.02}
	bound   = BoundStats{TrueValue: 2, MeanBound: 1.25, BoundSE: 0.1, Coverage: 0.75, CoverageSE: 0.2, Vacuous: 0.25}
	moments = domains.Moments{Mean: math.NaN(), Bias: -0.25, Variance: 0.04}
)

// cases holds the computation of every quantity of Table (a test fails
// for a quantity without one). Note curve.Bias is -0.5 (a hand-made row
// need not satisfy MeanEstimate = TrueValue + Bias).
var cases = map[string]computation{
	"mse": {y: 0.61, se: 0.07, closed: 0.04 + 0.0625, closedOK: true},
	// sqrt(MSE)/|V| = sqrt(0.61)/2; se = mse_se/(2 sqrt(MSE) |V|) = 0.07/(4 sqrt(0.61)).
	"rel_rmse":      {y: math.Sqrt(0.61) / 2, se: 0.07 / (4 * math.Sqrt(0.61))},
	"variance":      {y: 0.36, se: 0.02, closed: 0.04, closedOK: true},
	"n_variance":    {y: 3.6, se: 0.2, closed: 0.4, closedOK: true},
	"bias":          {y: -0.5, se: 0.3, closed: -0.25, closedOK: true},
	"abs_bias":      {y: 0.5, se: 0.3, closed: 0.25, closedOK: true},
	"mean_estimate": {y: 2.5, se: 0.3, closed: 1.75, closedOK: true},
	"lower_bound":   {y: 1.25, se: 0.1},
	"coverage":      {y: 0.75, se: 0.2},
	"mse_ratio":     {of: 0.61},
}

// TestTableComplete: every quantity has a unique name, a doc, an axis
// label, panels.csv's se documented, the functions of its source (and no
// others), and a computation case; log_y true and Linear exclude each
// other.
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
		if q.Doc == "" || q.Label == "" || q.SE == "" {
			t.Errorf("quantity %s: doc %q, label %q, se %q: want all three", q.Name, q.Doc, q.Label, q.SE)
		}
		if q.LogY && q.Linear != "" {
			t.Errorf("quantity %s: log y by default, and log y refused (%s)", q.Name, q.Linear)
		}
		curveFn, boundFn, baseFn := q.Value != nil, q.Bound != nil, q.Of != nil
		want := [3]bool{q.Source == Curve, q.Source == Bounds, q.Source == Baseline}
		if [3]bool{curveFn, boundFn, baseFn} != want {
			t.Errorf("quantity %s of source %v: Value %v, Bound %v, Of %v; want exactly its source's function", q.Name, q.Source, curveFn, boundFn, baseFn)
		}
		if q.Source != Curve && (q.Closed != nil || q.NoStats || q.SEOfMean) {
			t.Errorf("quantity %s of source %v: Closed, NoStats and SEOfMean are for source curve only", q.Name, q.Source)
		}
		if q.Source != Curve && (q.Undefined != nil || q.WeightRef != nil) {
			t.Errorf("quantity %s of source %v: Undefined and WeightRef are for source curve only", q.Name, q.Source)
		}
		if (q.WeightRef != nil) != (q.WeightRefLabel != "") || (q.WeightRef != nil) != (q.WeightRefDoc != "") {
			t.Errorf("quantity %s: WeightRef, its label and its doc go together", q.Name)
		}
		if q.Source != Bounds && q.Fraction {
			t.Errorf("quantity %s: Fraction is for source bounds only", q.Name)
		}
		if q.Source == Baseline && !strings.Contains(q.Label, "{baseline}") {
			t.Errorf("quantity %s: label %q does not name the {baseline}", q.Name, q.Label)
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
	if !slices.Equal(Names()[:1], []string{"mse"}) {
		t.Errorf("Names() = %v, want mse first (the default y)", Names())
	}
}

// TestComputation: every quantity's value, standard error and closed form
// on the hand-made rows above.
func TestComputation(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
	for _, q := range Table() {
		c, ok := cases[q.Name]
		if !ok {
			continue // TestTableComplete reports it
		}
		switch q.Source {
		case Curve:
			if y, se := q.Value(curve); !near(y, c.y) || !near(se, c.se) {
				t.Errorf("%s: value %v, se %v; want %v, %v", q.Name, y, se, c.y, c.se)
			}
		case Bounds:
			if y, se := q.Bound(bound); !near(y, c.y) || !near(se, c.se) {
				t.Errorf("%s: value %v, se %v; want %v, %v", q.Name, y, se, c.y, c.se)
			}
		case Baseline:
			if x := q.Of(curve); !near(x, c.of) {
				t.Errorf("%s: statistic %v, want %v", q.Name, x, c.of)
			}
		}
		if q.Closed == nil {
			if c.closedOK {
				t.Errorf("%s: no closed form, but the case has one", q.Name)
			}
			continue
		}
		y, ok := q.Closed(moments, curve.N, curve.TrueValue, true)
		if ok != c.closedOK || ok && !near(y, c.closed) {
			t.Errorf("%s: closed form %v (%v), want %v (%v)", q.Name, y, ok, c.closed, c.closedOK)
		}
		if q.ClosedKnows(moments) != c.closedOK {
			t.Errorf("%s: ClosedKnows = %v, want %v", q.Name, !c.closedOK, c.closedOK)
		}
		// Moments that know nothing determine nothing.
		none := domains.Moments{Mean: math.NaN(), Bias: math.NaN(), Variance: math.NaN()}
		if _, ok := q.Closed(none, curve.N, curve.TrueValue, true); ok || q.ClosedKnows(none) {
			t.Errorf("%s: a closed form from unknown moments", q.Name)
		}
	}
}

// TestClosedWithoutTruth: the mean converts to a bias (and back) only
// with the true value: a closed-form line drawn along x, where no truth is
// at hand, has only what the moments give directly.
func TestClosedWithoutTruth(t *testing.T) {
	meanOnly := domains.Moments{Mean: 1.5, Bias: math.NaN(), Variance: 0.04}
	for _, tc := range []struct {
		name      string
		m         domains.Moments
		haveTruth bool
		want      float64
		ok        bool
	}{
		{"bias", meanOnly, true, -0.5, true},
		{"bias", meanOnly, false, 0, false},
		{"mse", meanOnly, false, 0, false},
		{"mse", meanOnly, true, 0.04 + 0.25, true},
		{"mean_estimate", meanOnly, false, 1.5, true},
		{"mean_estimate", moments, false, 0, false},
		{"n_variance", meanOnly, false, 0.4, true},
	} {
		q, _ := Lookup(tc.name)
		y, ok := q.Closed(tc.m, 10, 2, tc.haveTruth)
		if ok != tc.ok || ok && math.Abs(y-tc.want) > 1e-12 {
			t.Errorf("%s (truth %v): %v, %v; want %v, %v", tc.name, tc.haveTruth, y, ok, tc.want, tc.ok)
		}
	}
}

// TestRelRMSE: the relative RMSE and its delta-method standard error on
// rows computed by hand, and where it is undefined (V(pi_e) = 0).
func TestRelRMSE(t *testing.T) {
	q, _ := Lookup("rel_rmse")
	for _, tc := range []struct {
		name          string
		mse, mseSE, v float64
		y, se         float64
		undefined     bool
	}{
		// sqrt(4)/|2| = 1; se = 0.4/(2 * 2 * 2) = 0.05.
		{"V = 2", 4, 0.4, 2, 1, 0.05, false},
		// |V| is used: sqrt(0.25)/|-0.5| = 1; se = 0.1/(2 * 0.5 * 0.5) = 0.2.
		{"V negative", 0.25, 0.1, -0.5, 1, 0.2, false},
		// MSE 0: every squared error was 0, so y = 0 and se = 0 (not 0/0).
		{"MSE 0", 0, 0, 3, 0, 0, false},
		// sqrt(1e-4)/1e-3 = 10; se = 2e-6/(2 * 1e-2 * 1e-3) = 0.1.
		{"small V", 1e-4, 2e-6, 1e-3, 10, 0.1, false},
		{"V = 0", 1, 0.1, 0, 0, 0, true},
	} {
		c := CurveStats{N: 10, Trials: 4, TrueValue: tc.v, MSE: tc.mse, MSESE: tc.mseSE}
		if why := q.Undefined(c); (why != "") != tc.undefined {
			t.Errorf("%s: Undefined = %q, want undefined %v", tc.name, why, tc.undefined)
		}
		if tc.undefined {
			continue
		}
		y, se := q.Value(c)
		if math.Abs(y-tc.y) > 1e-12*math.Max(1, tc.y) || math.Abs(se-tc.se) > 1e-12 {
			t.Errorf("%s: %v +/- %v, want %v +/- %v", tc.name, y, se, tc.y, tc.se)
		}
	}
}

// TestWeightRef: the importance-sampling scales of weight_reference from
// E_b[W_H^2] = w2, V(pi_e) = v and n, by hand; only mse and rel_rmse have
// one.
func TestWeightRef(t *testing.T) {
	for _, tc := range []struct {
		name      string
		w2, v     float64
		n         int
		want      float64
		wantLabel string
	}{
		{"rel_rmse", 400, 0.5, 100, 2, "sqrt(E_b[W_H^2]/n)"},            // sqrt(400/100)
		{"rel_rmse", 1, 7, 4, 0.5, "sqrt(E_b[W_H^2]/n)"},                // sqrt(1/4); V is not read
		{"mse", 400, 0.5, 100, 1, "IS scale V(pi_e)^2 E_b[W_H^2]/n"},    // 0.25 * 400 / 100
		{"mse", 24, -2, 1000, 0.096, "IS scale V(pi_e)^2 E_b[W_H^2]/n"}, // 4 * 24 / 1000
	} {
		q, _ := Lookup(tc.name)
		if got := q.WeightRef(tc.w2, tc.v, tc.n); math.Abs(got-tc.want) > 1e-15 || q.WeightRefLabel != tc.wantLabel {
			t.Errorf("%s(w2 %v, v %v, n %d) = %v %q, want %v %q", tc.name, tc.w2, tc.v, tc.n, got, q.WeightRefLabel, tc.want, tc.wantLabel)
		}
	}
	if got := WeightRefNames(); got != "mse or rel_rmse" {
		t.Errorf("WeightRefNames() = %q, want mse or rel_rmse", got)
	}
}

// TestRatio: x / best, with 0/0 := 1 and x/0 := +Inf.
func TestRatio(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct{ x, best, want float64 }{
		{1, 4, 0.25},  // 1/4
		{3, 1.5, 2},   // 3/1.5
		{0, 2, 0},     // 0/2
		{0, 0, 1},     // 0/0 := 1
		{3, 0, inf},   // x/0 := +Inf for x > 0
		{inf, inf, 1}, // equal to the best: 1
		{inf, 2, inf}, // inf/2
		{nan, 1, nan}, // NaN stays
		{1, nan, nan}, // NaN stays
		{nan, 0, nan}, // NaN stays, even over 0
		{0.5, 0.5, 1}, // the best itself
	} {
		got := Ratio(tc.x, tc.best)
		if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("Ratio(%v, %v) = %v, want %v", tc.x, tc.best, got, tc.want)
		}
	}
}

// TestTableIsACopy: changing what Table or Lookup return changes no later
// answer.
func TestTableIsACopy(t *testing.T) {
	Table()[0].Name = "changed"
	q, _ := Lookup("mse")
	q.Source = Bounds
	if again, _ := Lookup("mse"); Table()[0].Name != "mse" || again.Source != Curve {
		t.Error("the table changed through a copy")
	}
}
