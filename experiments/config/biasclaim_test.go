package config

import (
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/claims"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// biasBase is a config with two estimators of one series and a bound (so
// that a claim on bias naming one is refused for what it is, not for a
// missing bound).
const biasBase = `name: b
trials: 4
n: [10, 100]
series:
  - name: ch
    domain: chainmdp
    params: {horizon: 4}
    estimators: [is, pdis]
    bounds: [t]
claims:
  - `

// curveNames names the claim quantities of source Curve as errors list
// them (from claims.Table, so that a new quantity changes no test here).
var curveNames = orList(claims.NamesOf(claims.Curve))

// TestBiasClaims: claims on bias, accepted (min, max or both; min = max)
// and refused, each error naming file:line: field.
func TestBiasClaims(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		claim    string
		min, max *float64
	}{
		{"{name: in, subject: ch/is, quantity: bias, min: -0.1, max: 0.1}", f(-0.1), f(0.1)},
		{"{name: lo, subject: ch/pdis, quantity: bias, min: -0.5, at: some}", f(-0.5), nil},
		{"{name: hi, subject: ch/is, quantity: bias, max: 0, n_min: 100}", nil, f(0)},
		{"{name: pt, subject: ch/is, quantity: bias, min: 0.25, max: 0.25}", f(0.25), f(0.25)},
		{"{name: rr, subject: ch/is, quantity: rel_rmse, min: 0.5}", f(0.5), nil},
	} {
		p, err := Parse([]byte(biasBase+tc.claim+"\n"), "t.yaml")
		if err != nil {
			t.Errorf("%s: %v", tc.claim, err)
			continue
		}
		c := p.Claims[0]
		if c.Kind() == nil || c.Kind().Source != claims.Curve || !eqPtr(c.Min, tc.min) || !eqPtr(c.Max, tc.max) {
			t.Errorf("%s: parsed as %+v", tc.claim, c)
		}
		if err := p.Check(); err != nil {
			t.Errorf("%s: the parsed plan fails Check: %v", tc.claim, err)
		}
	}
	for _, tc := range []struct{ name, claim, want string }{
		{"min above max", "{name: c, subject: ch/is, quantity: bias, min: 0.2, max: 0.1}",
			`t.yaml:11: claims[0].max: 0.1 is below min 0.2: a claim on bias states min <= bias <= max`},
		{"no threshold", "{name: c, subject: ch/is, quantity: bias}",
			`t.yaml:11: claims[0].min: missing: a claim on bias needs min, max or both (it states min <= bias <= max)`},
		{"versus", "{name: c, subject: ch/is, quantity: bias, max: 1, versus: [ch/pdis]}",
			`t.yaml:11: claims[0].versus: [ch/pdis], but versus applies only to quantity mse: a claim on bias tests subject's value against min or max`},
		{"max_ratio", "{name: c, subject: ch/is, quantity: bias, max: 1, max_ratio: 2}",
			`t.yaml:11: claims[0].max_ratio: 2, but max_ratio applies only to quantity mse: a claim on bias tests min or max`},
		{"bound", "{name: c, subject: ch/is, quantity: bias, bound: t, min: -1, max: 1}",
			`t.yaml:11: claims[0].bound: "t", but a claim on bias is about subject's estimates, not a bound: bound applies only to a bound quantity (lower_bound, bound_gap, coverage, vacuous)`},
		{"not a curve", "{name: c, subject: ch/wis, quantity: bias, max: 1}",
			`t.yaml:11: claims[0].subject: series ch has no estimator "wis"`},
		{"rel_rmse min above max", "{name: c, subject: ch/is, quantity: rel_rmse, min: 0.2, max: 0.1}",
			`t.yaml:11: claims[0].max: 0.1 is below min 0.2: a claim on rel_rmse states min <= rel_rmse <= max`},
		{"rel_rmse versus", "{name: c, subject: ch/is, quantity: rel_rmse, min: 1, versus: [ch/pdis]}",
			`t.yaml:11: claims[0].versus: [ch/pdis], but versus applies only to quantity mse`},
		{"nan", "{name: c, subject: ch/is, quantity: bias, max: .nan}",
			`t.yaml:11: claims[0].max: ".nan" is not a finite number`},
		{"a bound quantity still takes one threshold", "{name: c, subject: ch/is, quantity: lower_bound, bound: t, min: 0, max: 1}",
			`t.yaml:11: claims[0].max: 1, and min 0: want one of min and max (only a claim on ` + curveNames + ` takes both)`},
		{"an MSE claim takes none", "{name: c, subject: ch/is, versus: [ch/pdis], max_ratio: 2, max: 1}",
			`t.yaml:11: claims[0].max: 1, but max applies only to a claim on a bound quantity or on ` + curveNames + `; a claim on mse tests max_ratio`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(biasBase+tc.claim+"\n"), "t.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !inputerr.Is(err) {
				t.Errorf("%s: error %v\nwant bad input containing %q", tc.claim, err, tc.want)
			}
		})
	}
}

// TestBiasClaimPlanCheck: a plan read back (meta.json) with a claim on
// bias whose min exceeds its max, or that names a bound, fails Check.
func TestBiasClaimPlanCheck(t *testing.T) {
	p, err := Parse([]byte(biasBase+"{name: c, subject: ch/is, quantity: bias, min: -1, max: 1}\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := 2.0, 1.0
	p.Claims[0].Min, p.Claims[0].Max = &lo, &hi
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), "claim c: max: 1 is below min 2") || !inputerr.Is(err) {
		t.Errorf("min above max: %v", err)
	}
	p.Claims[0].Min, p.Claims[0].Bound = nil, "t"
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), `claim c: bound: "t", but a claim on bias`) {
		t.Errorf("a bound: %v", err)
	}
}

func eqPtr(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
