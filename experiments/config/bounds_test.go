package config

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/claims"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// boundsBase is a config with both bounds of SPEC 1e: is has t and hcope,
// pdis has t; hcope needs the return range (chainmdp: a return is 0 or 1).
const boundsBase = `name: b
trials: 4
n: [10, 100]
series:
  - name: ch
    domain: chainmdp
    params: {horizon: 4}
    estimators: [is, pdis]
    bounds: [t, hcope]
    return_range: [0, 1]
`

// TestBoundsConfigAccepted: bounds, return_range and delta as resolved,
// defaults filled in, copied to every series of a sweep, and accepted by
// Check.
func TestBoundsConfigAccepted(t *testing.T) {
	for _, tc := range []struct {
		name, find, replace string
		delta               float64
		bounds              []string
		rng                 []float64
		series              int
	}{
		{"both bounds, default delta", "", "", DefaultDelta, []string{"t", "hcope"}, []float64{0, 1}, 1},
		{"delta given", "trials: 4", "trials: 4\ndelta: 0.1", 0.1, []string{"t", "hcope"}, []float64{0, 1}, 1},
		{"t alone needs no range", "    bounds: [t, hcope]\n    return_range: [0, 1]\n", "    bounds: [t]\n", DefaultDelta, []string{"t"}, nil, 1},
		{"hcope first, a wider range", "[t, hcope]\n    return_range: [0, 1]", "[hcope, t]\n    return_range: [-1, 2.5]", DefaultDelta, []string{"hcope", "t"}, []float64{-1, 2.5}, 1},
		{"a sweep copies them", "{horizon: 4}", "{horizon: [3, 4]}", DefaultDelta, []string{"t", "hcope"}, []float64{0, 1}, 2},
		{"no bounds: nothing recorded", "    bounds: [t, hcope]\n    return_range: [0, 1]\n", "", 0, nil, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := strings.Replace(boundsBase, tc.find, tc.replace, 1)
			p, err := Parse([]byte(cfg), "t.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if p.Delta != tc.delta || len(p.Series) != tc.series {
				t.Errorf("delta %v, %d series; want %v, %d", p.Delta, len(p.Series), tc.delta, tc.series)
			}
			for _, s := range p.Series {
				if !slices.Equal(s.Bounds, tc.bounds) || !slices.Equal(s.ReturnRange, tc.rng) {
					t.Errorf("series %s: bounds %v, range %v; want %v, %v", s.Name, s.Bounds, s.ReturnRange, tc.bounds, tc.rng)
				}
			}
			if err := p.Check(); err != nil {
				t.Errorf("the parsed plan fails Check: %v", err)
			}
			js, _ := json.Marshal(p)
			has := strings.Contains(string(js), `"delta"`) || strings.Contains(string(js), `"bounds"`) || strings.Contains(string(js), `"return_range"`)
			if has != (tc.bounds != nil) {
				t.Errorf("plan JSON records bounds: %v, want %v (a plan without bounds is recorded as before them):\n%s", has, tc.bounds != nil, js)
			}
		})
	}
}

// TestBoundsConfigRefused: each bad use of bounds, return_range and delta
// fails with file:line: field.
func TestBoundsConfigRefused(t *testing.T) {
	for _, tc := range []struct {
		name, find, replace, want string
	}{
		{"unknown bound", "[t, hcope]", "[t, hcop]", `t.yaml:9: series[0].bounds[1]: unknown bound "hcop" (did you mean "hcope"? known: t, hcope)`},
		{"bound twice", "[t, hcope]", "[t, hcope, t]", `t.yaml:9: series[0].bounds[2]: "t" is listed twice`},
		{"bound of no estimator", "[is, pdis]\n    bounds: [t, hcope]", "[pdis, wis]\n    bounds: [t, hcope]", `t.yaml:9: series[0].bounds[1]: hcope is a bound of no estimator of the series (pdis, wis); estimators with it: is`},
		{"hcope without range", "    return_range: [0, 1]\n", "", `t.yaml:9: series[0].return_range: missing: bound hcope needs [g_lo, g_hi]`},
		{"range without hcope", "[t, hcope]", "[t]", `t.yaml:10: series[0].return_range: [0 1], but no bound of the series needs the range of the returns (bounds that do: hcope)`},
		{"range reversed", "[0, 1]", "[1, 0]", `t.yaml:10: series[0].return_range: [1, 0], want finite g_lo < g_hi`},
		{"range empty", "[0, 1]", "[1, 1]", `t.yaml:10: series[0].return_range: [1, 1], want finite g_lo < g_hi`},
		{"range of three", "[0, 1]", "[0, 1, 2]", `t.yaml:10: series[0].return_range: 3 values, want two: [g_lo, g_hi]`},
		{"range of none", "[0, 1]", "[]", `t.yaml:10: series[0].return_range: 0 values, want two`},
		{"range infinite", "[0, 1]", "[0, .inf]", `t.yaml:10: series[0].return_range[1]: ".inf" is not a finite number`},
		{"range not a list", "[0, 1]", "1", `t.yaml:10: series[0].return_range: "1", want a list such as [a, b]`},
		{"range quoted", "[0, 1]", `[0, "1"]`, `t.yaml:10: series[0].return_range[1]: "1" is not a finite number`},
		{"bounds not a list", "[t, hcope]", "t", `t.yaml:9: series[0].bounds: "t", want a list such as [a, b]`},
		{"delta 0", "trials: 4", "trials: 4\ndelta: 0", `t.yaml:3: delta: 0, want a number in (0, 1)`},
		{"delta 1", "trials: 4", "trials: 4\ndelta: 1", `t.yaml:3: delta: 1, want a number in (0, 1)`},
		{"delta NaN", "trials: 4", "trials: 4\ndelta: .nan", `t.yaml:3: delta: ".nan" is not a finite number`},
		{"delta without bounds", "trials: 4\n", "trials: 4\ndelta: 0.1\n", ""},
		{"n below hcope's MinN", "n: [10, 100]", "n: [2, 100]", `t.yaml:3: n[0]: 2, but bound hcope (series ch) needs n >= 3`},
		{"n below t's MinN", "n: [10, 100]", "n: [1, 100]", `t.yaml:3: n[0]: 1, but bound t (series ch) needs n >= 2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := strings.Replace(boundsBase, tc.find, tc.replace, 1)
			if tc.want == "" { // delta without bounds: drop the bounds
				cfg = strings.Replace(cfg, "    bounds: [t, hcope]\n    return_range: [0, 1]\n", "", 1)
				tc.want = `t.yaml:3: delta: 0.1, but no series has bounds`
			}
			if cfg == boundsBase {
				t.Fatalf("test edit %q not applied", tc.find)
			}
			_, err := Parse([]byte(cfg), "t.yaml")
			if err == nil {
				t.Fatalf("no error for\n%s", cfg)
			}
			if !strings.Contains(err.Error(), tc.want) || !inputerr.Is(err) {
				t.Errorf("error %q (bad input: %v)\nwant it to contain %q", err, inputerr.Is(err), tc.want)
			}
		})
	}
}

// TestBoundsPlanCheck: a plan read back (meta.json, a checkpoint header)
// is checked as a config is: its delta, bounds and range; a plan written
// before bounds existed (no such keys) still loads.
func TestBoundsPlanCheck(t *testing.T) {
	good, err := Parse([]byte(boundsBase), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(good)
	old := strings.NewReplacer(`,"bounds":["t","hcope"]`, "", `,"return_range":[0,1]`, "", `"delta":0.05,`, "").Replace(string(js))
	if old == string(js) || strings.Contains(old, "bound") {
		t.Fatalf("could not strip the bounds from %s", js)
	}
	for _, tc := range []struct {
		name, find, replace, want string
	}{
		{"as written", "", "", ""},
		{"written before bounds", string(js), old, ""},
		{"delta 0 with bounds", `"delta":0.05`, `"delta":0`, `plan "b": delta 0, want a number in (0, 1)`},
		{"delta without bounds", string(js), strings.Replace(old, `"n":`, `"delta":0.1,"n":`, 1), `plan "b": delta 0.1, but no series has bounds`},
		{"unknown bound", `"hcope"]`, `"hcop"]`, `series ch: bounds: unknown bound "hcop"`},
		{"range missing", `,"return_range":[0,1]`, "", `series ch: return_range: missing: bound hcope needs`},
		{"range reversed", `[0,1]`, `[1,0]`, `series ch: return_range: [1, 0], want finite g_lo < g_hi`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(string(js), tc.find, tc.replace, 1)
			if tc.find != "" && text == string(js) {
				t.Fatalf("edit %q not applied", tc.find)
			}
			var p Plan
			if err := json.Unmarshal([]byte(text), &p); err != nil {
				t.Fatal(err)
			}
			err := p.Check()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Check: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !inputerr.Is(err)):
				t.Errorf("Check: %v, want bad input containing %q", err, tc.want)
			}
		})
	}
}

// TestBoundClaims: claims on a bound quantity, accepted and refused, each
// error naming file:line: field.
func TestBoundClaims(t *testing.T) {
	cfg := func(claim string) string { return boundsBase + "claims:\n  - " + claim + "\n" }
	for _, claim := range []string{
		"{name: tight, subject: ch/is, quantity: bound_gap, bound: hcope, max: 0.5}",
		"{name: void, subject: ch/is, quantity: vacuous, bound: hcope, min: 0.5, n_min: 100}",
		"{name: cover, subject: ch/pdis, quantity: coverage, bound: t, min: 0.9, at: some}",
		"{name: low, subject: ch/is, quantity: lower_bound, bound: t, min: -3}",
		"{name: mse, subject: ch/is, quantity: mse, versus: [ch/pdis], max_ratio: 2}",
	} {
		p, err := Parse([]byte(cfg(claim)), "t.yaml")
		if err != nil {
			t.Errorf("%s: %v", claim, err)
			continue
		}
		if err := p.Check(); err != nil {
			t.Errorf("%s: the parsed plan fails Check: %v", claim, err)
		}
	}
	for _, tc := range []struct{ claim, want string }{
		{"{name: c, subject: ch/is, quantity: gap, bound: hcope, max: 1}", `t.yaml:12: claims[0].quantity: "gap", want one of ` + strings.Join(claims.Names(), ", ")},
		{"{name: c, subject: ch/is, quantity: bound_gap, max: 1}", `t.yaml:12: claims[0].bound: missing: a claim on bound_gap names the bound it is about (series ch has: t, hcope)`},
		{"{name: c, subject: ch/pdis, quantity: bound_gap, bound: hcope, max: 1}", `t.yaml:12: claims[0].bound: estimator pdis has no hcope bound`},
		{"{name: c, subject: ch/is, quantity: bound_gap, bound: hcope}", `t.yaml:12: claims[0].min: missing: a claim on bound_gap needs min`},
		{"{name: c, subject: ch/is, quantity: bound_gap, bound: hcope, min: 0, max: 1}", `t.yaml:12: claims[0].max: 1, and min 0: want one of min and max`},
		{"{name: c, subject: ch/is, quantity: bound_gap, bound: hcope, max: 1, versus: [ch/pdis]}", `t.yaml:12: claims[0].versus: [ch/pdis], but versus applies only to quantity mse`},
		{"{name: c, subject: ch/is, quantity: bound_gap, bound: hcope, max: 1, max_ratio: 2}", `t.yaml:12: claims[0].max_ratio: 2, but max_ratio applies only to quantity mse`},
		{"{name: c, subject: ch/is, quantity: coverage, bound: hcope, min: 95}", `t.yaml:12: claims[0].min: 95, want a fraction in [0, 1]`},
		{"{name: c, subject: ch/is, versus: [ch/pdis], max_ratio: 2, bound: t}", `t.yaml:12: claims[0].bound: "t", but bound applies only to a claim on a bound quantity`},
		{"{name: c, subject: ch/is, versus: [ch/pdis], max_ratio: 2, min: 1}", `t.yaml:12: claims[0].min: 1, but min applies only to a claim on a bound quantity`},
		{"{name: c, subject: ch/is, quantity: coverage, bound: hcope, min: .nan}", `t.yaml:12: claims[0].min: ".nan" is not a finite number`},
		{"{name: c, subject: ch/wis, quantity: coverage, bound: t, min: 0.5}", `t.yaml:12: claims[0].subject: series ch has no estimator "wis"`},
	} {
		_, err := Parse([]byte(cfg(tc.claim)), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v\nwant %q", tc.claim, err, tc.want)
		}
	}
	// vacuous needs the series' range, which only hcope brings.
	noRange := strings.Replace(boundsBase, "    bounds: [t, hcope]\n    return_range: [0, 1]\n", "    bounds: [t]\n", 1) +
		"claims:\n  - {name: c, subject: ch/is, quantity: vacuous, bound: t, min: 0.5}\n"
	if _, err := Parse([]byte(noRange), "t.yaml"); err == nil || !strings.Contains(err.Error(), "t.yaml:11: claims[0].quantity: vacuous needs series ch's return_range") {
		t.Errorf("vacuous without a range: %v", err)
	}
}

// TestBoundPanels: panels of lower_bound and coverage, accepted and
// refused.
func TestBoundPanels(t *testing.T) {
	cfg := func(panel string) string {
		return strings.Replace(boundsBase, "    return_range: [0, 1]\n", "    return_range: [0, 1]\n  - {name: plain, domain: chainmdp, estimators: [wis]}\n", 1) +
			"plot:\n  panels:\n    - " + panel + "\n"
	}
	for _, panel := range []string{"{y: lower_bound}", "{y: coverage, series: [ch], estimators: [is]}"} {
		p, err := Parse([]byte(cfg(panel)), "t.yaml")
		if err != nil {
			t.Errorf("%s: %v", panel, err)
			continue
		}
		pc := &p.Plot.Panels[0]
		if *pc.LogY || !*pc.LogX {
			t.Errorf("%s: log_x %v, log_y %v; want true, false", panel, *pc.LogX, *pc.LogY)
		}
		// ch: is has t and hcope, pdis t (3 lines); plain has none.
		want := 3
		if len(pc.Estimators) > 0 {
			want = 2
		}
		if got := len(pc.BoundLines(&p.Series[0])) + len(pc.BoundLines(&p.Series[1])); got != want {
			t.Errorf("%s: %d lines, want %d", panel, got, want)
		}
	}
	for _, tc := range []struct{ panel, want string }{
		{"{y: lower_bound, series: [plain]}", `t.yaml:14: plot.panels[0].y: lower_bound, but no selected series has a bound of a selected estimator`},
		{"{y: coverage, estimators: [wis]}", `t.yaml:14: plot.panels[0].y: coverage, but no selected series has a bound`},
		{"{y: coverage, log_y: true}", `t.yaml:14: plot.panels[0].log_y: y coverage is drawn on a linear axis`},
		{"{y: lower_bound, closed_form: true}", `t.yaml:14: plot.panels[0].closed_form: no closed form of lower_bound`},
		{"{y: lower_bound, x: horizon, at_n: 10}", `t.yaml:14: plot.panels[0].x: "horizon", but y lower_bound is drawn against n only`},
	} {
		_, err := Parse([]byte(cfg(tc.panel)), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v\nwant %q", tc.panel, err, tc.want)
		}
	}
}

// TestBoundClaimsExpress: the two claims on bounds the harness was asked
// to state parse as written: "with 3-step options the 95% hcope bound is
// within 5 of V(pi_e) at n = 1000" and "the primitive hcope bound is
// vacuous at n = 1000" (a taxi return lies in [-2000, 20]: 200 steps of
// at worst -10, one dropoff of +20).
func TestBoundClaimsExpress(t *testing.T) {
	p, err := Parse([]byte(`trials: 8
n: [100, 1000]
series:
  - name: taxi
    domain: noisytaxi
    params: {option_length: [1, 3], mc_episodes: 0}
    estimators: [is]
    bounds: [hcope]
    return_range: [-2000, 20]
claims:
  - name: options-tight
    text: "with 3-step options the 95% hcope bound is within 5 of V(pi_e) at n = 1000"
    subject: "taxi[option_length=3]/is"
    quantity: bound_gap
    bound: hcope
    max: 5
    n_min: 1000
  - name: primitive-vacuous
    subject: "taxi[option_length=1]/is"
    quantity: vacuous
    bound: hcope
    min: 0.5
    n_min: 1000
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c := p.Claims[0]; c.Kind().Source != claims.Bounds || c.Max == nil || *c.Max != 5 || c.Min != nil || c.NMin != 1000 || c.NMax != 1000 || c.At != "all" {
		t.Errorf("claim %+v", c)
	}
	if err := p.Check(); err != nil {
		t.Error(err)
	}
}
