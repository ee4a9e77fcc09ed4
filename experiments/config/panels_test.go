package config

import (
	"os"
	"strings"
	"testing"
)

// TestPanelConfigErrors: each bad panel spec fails with file:line: field.
func TestPanelConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, find, replace, want string
	}{
		{"unknown series", "series: [ch]", "series: [chx]", `t.yaml:19: plot.panels[0].series[0]: no series "chx" (series: ch, ch1, sub)`},
		{"series twice", "series: [ch]", "series: [ch, ch]", `t.yaml:19: plot.panels[0].series[1]: "ch" is listed twice`},
		{"unknown estimator", "      x: horizon", "      estimators: [pdiss]\n      x: horizon", `t.yaml:20: plot.panels[0].estimators[0]: unknown estimator "pdiss"`},
		{"estimator not in series", "      x: horizon", "      estimators: [incris]\n      x: horizon", `t.yaml:20: plot.panels[0].estimators[0]: no selected series has estimator "incris"`},
		{"unknown param", "x: horizon", "x: horizn", `t.yaml:20: plot.panels[0].x: "horizn" is neither n, H nor a parameter of domain chainmdp (series ch[horizon=2])`},
		{"param of another domain", "series: [ch]", "series: [ch, sub]", `t.yaml:20: plot.panels[0].x: "horizon" is neither n, H nor a parameter of domain subepisode (series sub)`},
		{"x not swept", "series: [ch]", "series: [ch, ch1]", `t.yaml:20: plot.panels[0].x: horizon is not swept in series ch1 (one value)`},
		{"at_n missing", "      at_n: 10\n", "", `t.yaml:18: plot.panels[0].at_n: missing: x = horizon needs at_n, the n of the grid [2 10]`},
		{"at_n not in grid", "at_n: 10", "at_n: 7", `t.yaml:21: plot.panels[0].at_n: 7 is not in the n grid [2 10]`},
		{"at_n with x = n", "x: horizon", "x: n", `t.yaml:21: plot.panels[0].at_n: 10, but at_n applies only when x is H or a swept parameter (x is n)`},
		{"bad y", "y: n_variance", "y: varaince", `t.yaml:22: plot.panels[0].y: "varaince", want one of mse, rel_rmse, variance, n_variance, bias, abs_bias, mean_estimate`},
		{"log bias", "y: n_variance", "y: bias\n      log_y: true", `t.yaml:23: plot.panels[0].log_y: a bias can be negative`},
		{"no closed form", "series: [ch]\n      x: horizon\n      at_n: 10", "series: [sub]", `t.yaml:21: plot.panels[0].closed_form: no selected series and estimator has a closed form for n_variance`},
		{"y_min zero", "y: n_variance", "y: n_variance\n      y_min: 0", `t.yaml:23: plot.panels[0].y_min: 0, want a positive number`},
		{"y_min negative", "y: n_variance", "y: n_variance\n      y_min: -1e-3", `t.yaml:23: plot.panels[0].y_min: -0.001, want a positive number`},
		{"y_min infinite", "y: n_variance", "y: n_variance\n      y_min: .inf", `t.yaml:23: plot.panels[0].y_min: ".inf" is not a finite number`},
		{"y_min NaN", "y: n_variance", "y: n_variance\n      y_min: .nan", `t.yaml:23: plot.panels[0].y_min: ".nan" is not a finite number`},
		{"y_min overflows", "y: n_variance", "y: n_variance\n      y_min: 1e999", `t.yaml:23: plot.panels[0].y_min: "1e999" is not a finite number`},
		{"y_min quoted", "y: n_variance", "y: n_variance\n      y_min: \"1e-12\"", `t.yaml:23: plot.panels[0].y_min: "1e-12" is not a finite number`},
		{"y_min on a linear y", "y: n_variance", "y: bias\n      y_min: 1e-12", `t.yaml:23: plot.panels[0].y_min: 1e-12, but y_min applies only to a log y axis (y is bias, log_y false)`},
		{"y_min with log_y false", "y: n_variance", "y: n_variance\n      log_y: false\n      y_min: 1e-3", `t.yaml:24: plot.panels[0].y_min: 0.001, but y_min applies only to a log y axis (y is n_variance, log_y false)`},
		{"y_min in flow style", "plot:\n  panels:\n", "plot:\n  panels:\n    - {title: B, y: mean_estimate, y_min: 2}\n", `t.yaml:18: plot.panels[0].y_min: 2, but y_min applies only to a log y axis (y is mean_estimate, log_y false)`},
		{"unknown panel key", "y: n_variance", "y: n_variance\n      colour: red", `t.yaml:23: plot.panels[0]: unknown key "colour" (known: title,`},
		{"bad label", "plot:\n", "plot:\n  labels: {chx/pdis: X}\n", `t.yaml:17: plot.labels: no series "chx"`},
		{"label estimator", "plot:\n", "plot:\n  labels: {ch/incris: X}\n", `t.yaml:17: plot.labels: series ch has no estimator "incris"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := strings.Replace(panelBase, tc.find, tc.replace, 1)
			if cfg == panelBase {
				t.Fatalf("test edit %q not applied", tc.find)
			}
			_, err := Parse([]byte(cfg), "t.yaml")
			if err == nil {
				t.Fatalf("no error for\n%s", cfg)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// TestOptionsChainHorizonNotMultiple: H must be a multiple of J; the
// config is refused when it loads, naming the series and its line.
func TestOptionsChainHorizonNotMultiple(t *testing.T) {
	_, err := Parse([]byte("trials: 2\nn: [2]\nseries:\n  - {name: o, domain: optionschain, params: {horizon: 7, option_length: 2}, estimators: [options-pdis]}\n"), "t.yaml")
	if err == nil || !strings.Contains(err.Error(), "t.yaml:4: series[0].params: o: policies: horizon 7 is not a multiple of the option length 2") {
		t.Errorf("error %v", err)
	}
}

// TestPanelConfigDefaults: x defaults to n with a log axis, y to mse with
// a log axis; x a parameter defaults to a linear axis.
func TestPanelConfigDefaults(t *testing.T) {
	cfg := strings.Replace(panelBase, "plot:\n  panels:\n", "plot:\n  labels: {ch/pdis: \"H = {horizon}\"}\n  panels:\n    - {title: B}\n", 1)
	r, err := Parse([]byte(cfg), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, a := r.Plot.Panels[0], r.Plot.Panels[1]
	if b.X != "n" || b.Y != "mse" || !*b.LogX || !*b.LogY || b.AtN != 0 {
		t.Errorf("defaults of an empty panel: %+v", b)
	}
	if a.X != "horizon" || *a.LogX || !*a.LogY {
		t.Errorf("panel A: %+v", a)
	}
}

// TestPanelYMin: y_min is kept as written on a log y axis (mse and
// n_variance by default, mean_estimate with log_y: true) and absent
// otherwise.
func TestPanelYMin(t *testing.T) {
	for _, tc := range []struct {
		name, find, replace string
		want                float64 // 0: absent
	}{
		{"absent", "", "", 0},
		{"tiny", "y: n_variance", "y: n_variance\n      y_min: 1e-12", 1e-12},
		{"integer", "y: n_variance", "y: n_variance\n      y_min: 3", 3},
		{"decimal", "y: n_variance", "y: n_variance\n      y_min: 0.25", 0.25},
		{"mse by default", "y: n_variance", "y: mse\n      y_min: 1.5e-30", 1.5e-30},
		{"log_y forced", "y: n_variance", "y: mean_estimate\n      log_y: true\n      y_min: 1e-3", 1e-3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := strings.Replace(panelBase, tc.find, tc.replace, 1)
			if tc.find != "" && cfg == panelBase {
				t.Fatalf("test edit %q not applied", tc.find)
			}
			r, err := Parse([]byte(cfg), "t.yaml")
			if err != nil {
				t.Fatal(err)
			}
			got := r.Plot.Panels[0].YMin
			switch {
			case tc.want == 0 && got != nil:
				t.Errorf("y_min %v, want none", *got)
			case tc.want != 0 && (got == nil || *got != tc.want):
				t.Errorf("y_min %v, want %v", got, tc.want)
			}
		})
	}
}

// panelBase is testdata/panels.yaml, a config with a parameter panel.
var panelBase = func() string {
	data, err := os.ReadFile("../testdata/panels.yaml")
	if err != nil {
		panic(err)
	}
	return string(data)
}()

// ratioBase is a config with an mse_ratio panel over two of three series
// (line numbers matter: the panel starts on line 17, its baseline is on
// line 20 and its combine on line 21).
const ratioBase = `name: t
trials: 4
n: [2, 10]
series:
  - name: ch
    domain: chainmdp
    params: {horizon: [2, 4]}
    estimators: [is, wis, cwpdis]
  - name: sub
    domain: subepisode
    estimators: [wis, cwpdis, incris]
  - name: only
    domain: subepisode
    estimators: [pdis]
plot:
  panels:
    - title: R
      series: [ch, sub]
      y: mse_ratio
      baseline: [wis, cwpdis]
      combine: max
`

// TestPanelRatioConfig: mse_ratio panels are accepted with a baseline of
// estimators of every selected series, log y by default and x = n; every
// misuse of y mse_ratio, baseline and combine is refused with the line and
// the field.
func TestPanelRatioConfig(t *testing.T) {
	for _, tc := range []struct {
		name, find, replace string
		want                string // "": accepted
		// Of an accepted config: the panel's combine and log y.
		combine string
		logY    bool
	}{
		{"combine max", "", "", "", "max", true},
		{"per series", "      combine: max\n", "", "", "", true},
		{"linear y", "combine: max", "combine: max\n      log_y: false", "", "max", false},
		{"y_min", "combine: max", "combine: max\n      y_min: 0.01", "", "max", true},
		{"baseline not drawn", "y: mse_ratio", "estimators: [is]\n      y: mse_ratio", "", "max", true},
		{"one baseline estimator", "[wis, cwpdis]", "[cwpdis]", "", "max", true},

		{"baseline missing", "      baseline: [wis, cwpdis]\n", "",
			`t.yaml:17: plot.panels[0].baseline: missing: y mse_ratio needs baseline`, "", false},
		{"baseline empty", "[wis, cwpdis]", "[]",
			`t.yaml:20: plot.panels[0].baseline: missing: y mse_ratio needs baseline`, "", false},
		{"baseline a scalar", "[wis, cwpdis]", "wis",
			`t.yaml:20: plot.panels[0].baseline: "wis", want a list such as [a, b]`, "", false},
		{"baseline absent from a selected series", "series: [ch, sub]", "series: [ch, sub, only]",
			`t.yaml:20: plot.panels[0].baseline[0]: series only has no estimator "wis" (each baseline estimator must be one of every selected series)`, "", false},
		{"baseline absent by default selection", "      series: [ch, sub]\n", "",
			`t.yaml:19: plot.panels[0].baseline[0]: series only has no estimator "wis"`, "", false},
		{"baseline estimator of one series only", "[wis, cwpdis]", "[wis, incris]",
			`t.yaml:20: plot.panels[0].baseline[1]: series ch[horizon=2] has no estimator "incris"`, "", false},
		{"baseline unknown", "[wis, cwpdis]", "[wis, cwpdiss]",
			`t.yaml:20: plot.panels[0].baseline[1]: unknown estimator "cwpdiss"`, "", false},
		{"baseline twice", "[wis, cwpdis]", "[wis, wis]",
			`t.yaml:20: plot.panels[0].baseline[1]: "wis" is listed twice`, "", false},
		{"baseline without mse_ratio", "      y: mse_ratio\n", "",
			`t.yaml:19: plot.panels[0].baseline: applies only with y: mse_ratio (y is mse)`, "", false},
		{"combine without mse_ratio", "      y: mse_ratio\n      baseline: [wis, cwpdis]\n", "",
			`t.yaml:19: plot.panels[0].combine: "max", but combine applies only with y: mse_ratio (y is mse)`, "", false},
		{"combine unknown", "combine: max", "combine: min",
			`t.yaml:21: plot.panels[0].combine: "min", want max`, "", false},
		{"x a parameter with combine", "y: mse_ratio", "x: horizon\n      at_n: 10\n      y: mse_ratio",
			`t.yaml:19: plot.panels[0].x: "horizon", but combine max is drawn against n only`, "", false},
		{"closed form", "combine: max", "combine: max\n      closed_form: true",
			`t.yaml:22: plot.panels[0].closed_form: no closed form of mse_ratio`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := strings.Replace(ratioBase, tc.find, tc.replace, 1)
			if tc.find != "" && cfg == ratioBase {
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
			if pc.Y != "mse_ratio" || pc.X != "n" || !*pc.LogX || *pc.LogY != tc.logY || pc.Combine != tc.combine {
				t.Errorf("panel y %s, x %s, log x %v, log y %v, combine %q; want mse_ratio, n, true, %v, %q",
					pc.Y, pc.X, *pc.LogX, *pc.LogY, pc.Combine, tc.logY, tc.combine)
			}
			if len(pc.Baseline) == 0 || pc.Baseline[len(pc.Baseline)-1] != "cwpdis" {
				t.Errorf("baseline %v, want it to end with cwpdis", pc.Baseline)
			}
		})
	}
}
