package config

import (
	"maps"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
)

// horizonBase is a config with a panel against H over three domains that
// set H through different parameters (line numbers matter: the panel
// starts on line 19, its x is on line 20, at_n on 21, y on 22,
// weight_reference on 23).
const horizonBase = `name: t
trials: 4
n: [2, 10]
series:
  - name: rnd
    domain: randommdp
    params: {horizon: [10, 30], end_prob: 0}
    estimators: [pdis, wis]
  - name: ch
    domain: chainmdp
    params: {horizon: [2, 4]}
    estimators: [pdis]
  - name: sub
    domain: subepisode
    params: {subepisodes: [3, 5]}
    estimators: [pdis]
plot:
  panels:
    - title: A
      x: H
      at_n: 10
      y: rel_rmse
      weight_reference: true
      slope: true
`

// TestHorizonPanelConfig: x: H records every selected series' horizon
// (Spec.MaxSteps: randommdp's and chainmdp's horizon, 2 x subepisodes for
// subepisode), takes a log x axis by default and needs at_n; two series
// of one base with the same H, a missing at_n and a weight reference of a
// quantity without one are refused with the line and the field.
func TestHorizonPanelConfig(t *testing.T) {
	all := map[string]int{"rnd[horizon=10]": 10, "rnd[horizon=30]": 30, "ch[horizon=2]": 2, "ch[horizon=4]": 4,
		"sub[subepisodes=3]": 6, "sub[subepisodes=5]": 10}
	for _, tc := range []struct {
		name, find, replace string
		want                string         // "": accepted
		horizons            map[string]int // of an accepted config
		logX                bool
	}{
		{"three domains", "", "", "", all, true},
		{"linear x", "      slope: true\n", "      log_x: false\n", "", all, false},
		{"y mse with a weight reference", "y: rel_rmse", "y: mse", "", all, true},
		{"one series of a base", "    - title: A\n", "    - title: A\n      series: [\"ch[horizon=4]\", sub]\n", "",
			map[string]int{"ch[horizon=4]": 4, "sub[subepisodes=3]": 6, "sub[subepisodes=5]": 10}, true},
		{"H shared across bases", "{horizon: [2, 4]}", "{horizon: [6, 10]}", "",
			map[string]int{"rnd[horizon=10]": 10, "rnd[horizon=30]": 30, "ch[horizon=6]": 6, "ch[horizon=10]": 10, "sub[subepisodes=3]": 6, "sub[subepisodes=5]": 10}, true},
		{"base not swept", "{horizon: [2, 4]}", "{horizon: 3}", "",
			map[string]int{"rnd[horizon=10]": 10, "rnd[horizon=30]": 30, "ch": 3, "sub[subepisodes=3]": 6, "sub[subepisodes=5]": 10}, true},

		{"same H in a base", "{horizon: [2, 4]}", "{horizon: 3, p_e: [0.5, 0.9]}",
			`t.yaml:20: plot.panels[0].x: H, but series ch[p_e=0.5] and ch[p_e=0.9] of base ch both have H = 3: a line per base series runs through distinct horizons (list the series it runs through in plot.panels[0].series)`, nil, false},
		{"at_n missing", "      at_n: 10\n", "",
			`t.yaml:19: plot.panels[0].at_n: missing: x = H needs at_n, the n of the grid [2 10]`, nil, false},
		{"at_n off the grid", "at_n: 10", "at_n: 5",
			`t.yaml:21: plot.panels[0].at_n: 5 is not in the n grid [2 10]`, nil, false},
		{"weight reference of variance", "y: rel_rmse", "y: variance",
			`t.yaml:23: plot.panels[0].weight_reference: applies only with y: mse or rel_rmse (y is variance)`, nil, false},
		{"weight reference against n", "      x: H\n      at_n: 10\n      y: rel_rmse", "      y: n_variance",
			`t.yaml:21: plot.panels[0].weight_reference: applies only with y: mse or rel_rmse (y is n_variance)`, nil, false},
		{"no closed form of rel_rmse", "slope: true", "closed_form: true",
			`t.yaml:24: plot.panels[0].closed_form: no closed form of rel_rmse`, nil, false},
		{"H with bounds", "y: rel_rmse\n      weight_reference: true", "y: coverage",
			`t.yaml:20: plot.panels[0].x: "H", but y coverage is drawn against n only`, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := strings.Replace(horizonBase, tc.find, tc.replace, 1)
			if tc.find != "" && cfg == horizonBase {
				t.Fatalf("test edit %q not applied", tc.find)
			}
			r, err := Parse([]byte(cfg), "t.yaml")
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error %v\nwant it to contain %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			pc := r.Plot.Panels[0]
			if !maps.Equal(pc.Horizons, tc.horizons) {
				t.Errorf("horizons %v, want %v", pc.Horizons, tc.horizons)
			}
			if *pc.LogX != tc.logX || pc.AtN != 10 {
				t.Errorf("log x %v, at_n %d; want %v, 10", *pc.LogX, pc.AtN, tc.logX)
			}
			if err := pc.CheckHorizons(r); err != nil {
				t.Errorf("CheckHorizons of a validated panel: %v", err)
			}
			for _, s := range r.PanelSeries(pc.Series) {
				if got := pc.XOf(&r.Series[s]); got != float64(tc.horizons[r.Series[s].Name]) {
					t.Errorf("XOf(%s) = %v, want %d", r.Series[s].Name, got, tc.horizons[r.Series[s].Name])
				}
			}
		})
	}
}

// TestCheckHorizons: a plan read back with a horizon missing, below 1 or
// shared within a base is refused.
func TestCheckHorizons(t *testing.T) {
	r, err := Parse([]byte(horizonBase), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(h map[string]int)
		want string
	}{
		{"missing", func(h map[string]int) { delete(h, "sub[subepisodes=5]") }, "no horizon >= 1 is recorded for series sub[subepisodes=5]"},
		{"zero", func(h map[string]int) { h["ch[horizon=2]"] = 0 }, "no horizon >= 1 is recorded for series ch[horizon=2]"},
		{"shared", func(h map[string]int) { h["rnd[horizon=30]"] = 10 }, "two series of base rnd have H = 10"},
	} {
		pc := r.Plot.Panels[0]
		pc.Horizons = maps.Clone(pc.Horizons)
		tc.edit(pc.Horizons)
		if err := pc.CheckHorizons(r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestHorizonXIsNoParameter: no domain has a parameter named HorizonX,
// which would make x: H ambiguous.
func TestHorizonXIsNoParameter(t *testing.T) {
	for _, name := range domains.Names() {
		spec, _ := domains.Lookup(name)
		if _, ok := spec.Param(HorizonX); ok {
			t.Errorf("domain %s has a parameter %q, the reserved x of panels against the horizon: rename one", name, HorizonX)
		}
		if spec.MaxSteps == nil {
			t.Errorf("domain %s declares no MaxSteps: panels against %s cannot place it", name, HorizonX)
		}
	}
}
