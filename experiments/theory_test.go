package experiments

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/envs/chainmdp"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments/plot"
	"github.com/ope-lab/longhorizon/trajectory"
)

// theoryTestConfig simulates every closed form of the theory figure at
// small sizes, through the runner (domains, estimators, aggregation,
// stats and panels) exactly as `make theory` does.
const theoryTestConfig = `name: theorytest
seed: 11
trials: 200
n: [1, 4, 16, 64, 256]
series:
  - name: t1_pe1
    domain: chainmdp
    params: {horizon: [2, 5, 8], p_e: 1}
    estimators: [pdis, is]
  - name: t1_pe09
    domain: chainmdp
    params: {horizon: [3, 7], p_e: 0.9}
    estimators: [pdis]
  - name: t2
    domain: chainmdp
    params: {horizon: [3, 6], p_e: 1}
    estimators: [wis, cwpdis]
  - name: c1_J2
    domain: optionschain
    params: {option_length: 2, horizon: [6, 12], p_b: 0.5, p_e: 1}
    estimators: [options-pdis]
  - name: c1_J3
    domain: optionschain
    params: {option_length: 3, horizon: [9, 15], p_b: 0.5, p_e: 0.8}
    estimators: [options-pdis]
  - name: c2
    domain: optionschain
    params: {option_length: 3, horizon: [3, 12, 30], p_b: 1, p_e: 1, changed: 1, inner_p_b: 0.5, inner_p_e: 1}
    estimators: [options-pdis]
plot:
  panels:
    - {title: T1 variance, series: [t1_pe1, t1_pe09], x: horizon, at_n: 256, y: n_variance, closed_form: true}
    - {title: T1 mean, series: [t1_pe1, t1_pe09], x: horizon, at_n: 256, y: mean_estimate, closed_form: true}
    - {title: T2 bias, series: [t2], y: bias, closed_form: true}
    - {title: C1 variance, series: [c1_J2, c1_J3], x: horizon, at_n: 256, y: n_variance, closed_form: true}
    - {title: C2 variance, series: [c2], x: horizon, at_n: 256, y: n_variance, closed_form: true}
    - {title: C mean, series: [c1_J2, c1_J3, c2], x: horizon, at_n: 64, y: mean_estimate, closed_form: true}
`

func runTheoryTest(t *testing.T) (*Resolved, *Report, []PanelPoint) {
	t.Helper()
	r, err := ParseConfig([]byte(theoryTestConfig), "theorytest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), r, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	_, pts, err := BuildPanels(r, rep.Rows, rep.Stats)
	if err != nil {
		t.Fatal(err)
	}
	return r, rep, pts
}

// TestTheoryClosedFormsBySimulation compares every closed form with the
// simulation within 4 standard errors: Theorem 1 (n Var(PDIS), IS = PDIS,
// unbiasedness) at H = 2, 5, 8 (p_e = 1) and 3, 7 (p_e = 0.9); Theorem 2
// (bias of WIS and CWPDIS, p_e = 1) at H = 3, 6 and every n; Corollary 1
// (options-PDIS, J = 2 and 3); Corollary 2 (one changed option, J = 3,
// H = 3, 12, 30). The closed forms are first checked against the formulas
// as the paper and the derivations state them (table below).
func TestTheoryClosedFormsBySimulation(t *testing.T) {
	_, _, pts := runTheoryTest(t)
	point := func(panel int, series, est string, n int) (PanelPoint, bool) {
		for _, p := range pts {
			if p.Panel == panel && p.Series == series && p.Estimator == est && p.N == n {
				return p, true
			}
		}
		return PanelPoint{}, false
	}
	pow := math.Pow
	for _, tc := range []struct {
		source        string
		panel         int
		series, est   string
		n             int
		want          float64
		wantTolerance float64
	}{
		{"Theorem 1 (appendix): n Var = 2^H - 1", 1, "t1_pe1[horizon=8]", "pdis", 256, pow(2, 8) - 1, 1e-9},
		{"Theorem 2 (appendix): IS = PDIS on the chain", 1, "t1_pe1[horizon=5]", "is", 256, pow(2, 5) - 1, 1e-9},
		{"SPEC 2.1: n Var = p_e^{2H} (2^H - 1)", 1, "t1_pe09[horizon=7]", "pdis", 256, pow(0.9, 14) * (pow(2, 7) - 1), 1e-9},
		{"SPEC 2.1: V = p_e^H", 2, "t1_pe09[horizon=3]", "pdis", 256, pow(0.9, 3), 1e-12},
		{"Theorem 2 (appendix): bias = -(1 - 2^-H)^n", 3, "t2[horizon=6]", "wis", 16, -pow(1-pow(2, -6), 16), 1e-12},
		{"Theorem 2: CWPDIS = WIS here", 3, "t2[horizon=3]", "cwpdis", 4, -pow(1-pow(2, -3), 4), 1e-12},
		{"Corollary 1 (derived): n Var = 2^{H/J} - 1", 4, "c1_J2[horizon=12]", "options-pdis", 256, pow(2, 6) - 1, 1e-9},
		{"Corollary 1 (derived): n Var = p_e^{2H/J} (2^{H/J} - 1)", 4, "c1_J3[horizon=15]", "options-pdis", 256, pow(0.8, 10) * (pow(2, 5) - 1), 1e-9},
		{"Corollary 2 (derived): n Var = 2^J - 1", 5, "c2[horizon=3]", "options-pdis", 256, 7, 1e-9},
		{"Corollary 2 (derived): n Var = 2^J - 1", 5, "c2[horizon=30]", "options-pdis", 256, 7, 1e-9},
		{"options chain: V = p_e^{H/J}", 6, "c1_J3[horizon=9]", "options-pdis", 64, pow(0.8, 3), 1e-12},
	} {
		p, ok := point(tc.panel, tc.series, tc.est, tc.n)
		if !ok {
			t.Errorf("%s: no point %s/%s at n = %d in panel %d", tc.source, tc.series, tc.est, tc.n, tc.panel)
			continue
		}
		if math.Abs(p.Closed-tc.want) > tc.wantTolerance*math.Max(1, math.Abs(tc.want)) {
			t.Errorf("%s: %s/%s: closed form %v, want %v", tc.source, tc.series, tc.est, p.Closed, tc.want)
		}
	}
	count := map[int]int{}
	for _, p := range pts {
		count[p.Panel]++
		if math.IsNaN(p.Closed) {
			t.Errorf("panel %d: %s/%s n=%d has no closed form", p.Panel, p.Series, p.Estimator, p.N)
			continue
		}
		if !(math.Abs(p.Z) <= 4) {
			t.Errorf("panel %d: %s/%s n=%d: simulated %v, closed form %v, se %v: %.2f standard errors apart",
				p.Panel, p.Series, p.Estimator, p.N, p.Y, p.Closed, p.SE, p.Z)
		}
	}
	// 3 + 2 series x estimators at one n; 2 x 2 x 5 n; 4; 3; 7.
	if want := map[int]int{1: 8, 2: 8, 3: 20, 4: 4, 5: 3, 6: 7}; !reflect.DeepEqual(count, want) {
		t.Errorf("points per panel %v, want %v", count, want)
	}
}

// TestCorollary2FlatInH: with one changed option the closed form is the
// same for every H and the simulated n Var stays within 4 standard errors
// of 2^J - 1 = 7 from H = 3 to H = 30, while with every option changed it
// is 2^H - 1.
func TestCorollary2FlatInH(t *testing.T) {
	spec, _ := LookupDomain("optionschain")
	for _, h := range []int{3, 6, 15, 30, 300} {
		p := spec.Defaults()
		p["horizon"], p["option_length"], p["p_b"], p["p_e"], p["changed"] = float64(h), 3, 1, 1, 1
		cf, ok := spec.ClosedForm(p, "options-pdis", 10)
		if !ok || math.Abs(10*cf["variance"]-7) > 1e-9 || cf["bias"] != 0 || cf["mean_estimate"] != 1 {
			t.Errorf("H = %d, one changed option: closed form %v, want n Var = 7, unbiased, V = 1", h, cf)
		}
		p["changed"] = -1
		if h <= 30 {
			cf, _ = spec.ClosedForm(p, "options-pdis", 1)
			if want := math.Pow(2, float64(h)) - 1; math.Abs(cf["variance"]-want) > 1e-9*want {
				t.Errorf("H = %d, all changed: n Var %v, want 2^H - 1 = %v", h, cf["variance"], want)
			}
		}
	}
	_, _, pts := runTheoryTest(t)
	for _, p := range pts {
		if p.Panel == 5 && !(math.Abs(p.Y-7) <= 4*p.SE) {
			t.Errorf("%s: n Var = %v +/- %v, want 7 (flat in H)", p.Series, p.Y, p.SE)
		}
	}
}

// TestOptionsPDISEnumeratedWithEstimator enumerates every behavior
// trajectory of small options chains, estimates each one-trajectory data
// set with the real options-pdis estimator, and checks that the exact mean
// is V (unbiased) and the exact variance the domain's closed form at n = 1.
func TestOptionsPDISEnumeratedWithEstimator(t *testing.T) {
	spec, _ := LookupDomain("optionschain")
	est, err := estimators.New("options-pdis")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []map[string]float64{
		{"horizon": 6, "option_length": 2, "p_b": 0.5, "p_e": 1},                                                             // Corollary 1
		{"horizon": 9, "option_length": 3, "p_b": 0.5, "p_e": 0.8},                                                           // Corollary 1
		{"horizon": 9, "option_length": 3, "p_b": 1, "p_e": 1, "changed": 1, "inner_p_b": 0.5, "inner_p_e": 1},               // Corollary 2
		{"horizon": 8, "option_length": 2, "p_b": 0.6, "p_e": 0.3, "changed": 2, "inner_p_b": 0.4, "inner_p_e": 0.9},         // general
		{"horizon": 6, "option_length": 2, "p_b": 0.5, "p_e": 0.5, "changed": -1, "inner_p_b": 0.5, "inner_p_e": 0.7},        // all changed
		{"horizon": 4, "option_length": 1, "p_b": 0.5, "p_e": 0.9, "changed": 0, "inner_p_b": 0.5, "inner_p_e": 1},           // J = 1: Theorem 1
		{"horizon": 6, "option_length": 3, "p_b": 0.5, "p_e": 0.5, "changed": 1, "inner_p_b": 0.5, "inner_p_e": 0.25},        // mu_e = mu_b
		{"horizon": 6, "option_length": 3, "p_b": 0.7, "p_e": 0.2, "changed": 1, "inner_p_b": 0.9, "inner_p_e": 0.1, "x": 0}, // rare reward
	} {
		p := spec.Defaults()
		for k, v := range tc {
			if k != "x" {
				p[k] = v
			}
		}
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			o, err := chainmdp.NewOptions(optionsParams(p))
			if err != nil {
				t.Fatal(err)
			}
			var e chainmdp.Enumerator
			var b trajectory.Batch
			m1, m2, total := 0.0, 0.0, 0.0
			for {
				b.Reset()
				o.Episode(&e, &b)
				b.End()
				x, err := est.Estimate(&b)
				if err != nil {
					t.Fatal(err)
				}
				pr := e.Prob()
				m1 += pr * x
				m2 += pr * x * x
				total += pr
				if !e.Next() {
					break
				}
			}
			cf, ok := spec.ClosedForm(p, "options-pdis", 1)
			if !ok {
				t.Fatal("no closed form")
			}
			if math.Abs(total-1) > 1e-12 {
				t.Errorf("probabilities sum to %v", total)
			}
			if math.Abs(m1-cf["mean_estimate"]) > 1e-12 || cf["bias"] != 0 {
				t.Errorf("E[options-PDIS] = %v, closed form V = %v (bias %v)", m1, cf["mean_estimate"], cf["bias"])
			}
			if v := m2 - m1*m1; math.Abs(v-cf["variance"]) > 1e-9*math.Max(1, v) {
				t.Errorf("Var(options-PDIS) = %v exactly, closed form %v", v, cf["variance"])
			}
		})
	}
}

// TestChainWISEnumerated checks Theorem 2's closed form exactly: it
// enumerates every data set of n chain trajectories (all (2^H)^n action
// sequences of the uniform behavior), estimates it with the real wis and
// cwpdis estimators, and compares the exact mean and variance with
// E[WIS] = 1 - (1 - 2^-H)^n and Var = E (1 - E).
func TestChainWISEnumerated(t *testing.T) {
	spec, _ := LookupDomain("chainmdp")
	for _, tc := range []struct{ h, n int }{{2, 1}, {2, 3}, {3, 2}, {4, 2}} {
		p := spec.Defaults()
		p["horizon"], p["p_e"] = float64(tc.h), 1
		want := 1 - math.Pow(1-math.Pow(2, -float64(tc.h)), float64(tc.n)) // proof of Theorem 2
		for _, name := range []string{"wis", "cwpdis"} {
			est, _ := estimators.New(name)
			cf, ok := spec.ClosedForm(p, name, tc.n)
			if !ok || math.Abs(cf["mean_estimate"]-want) > 1e-12 {
				t.Fatalf("H=%d n=%d %s: closed form %v, want mean %v", tc.h, tc.n, name, cf, want)
			}
			per := 1 << tc.h // action sequences per trajectory
			m1, m2 := 0.0, 0.0
			var b trajectory.Batch
			for code := 0; code < int(math.Pow(float64(per), float64(tc.n))); code++ {
				b.Reset()
				c := code
				for range tc.n {
					seq := c % per
					c /= per
					env, _ := chainmdp.New(tc.h, false)
					env.Reset()
					for s := 0; s < tc.h; s++ {
						a := (seq >> s) & 1 // 0 = a1, 1 = a2
						r, _ := env.Step(a)
						rho := 2.0 // p_e / p_b for a1
						if a == chainmdp.A2 {
							rho = 0
						}
						b.Add(r, rho)
					}
					b.End()
				}
				x, err := est.Estimate(&b)
				if err != nil {
					t.Fatal(err)
				}
				pr := math.Pow(float64(per), -float64(tc.n))
				m1 += pr * x
				m2 += pr * x * x
			}
			if math.Abs(m1-cf["mean_estimate"]) > 1e-12 || math.Abs(m1-1-cf["bias"]) > 1e-12 {
				t.Errorf("H=%d n=%d %s: exact E = %v, closed form %v (bias %v)", tc.h, tc.n, name, m1, cf["mean_estimate"], cf["bias"])
			}
			if v := m2 - m1*m1; math.Abs(v-cf["variance"]) > 1e-12 {
				t.Errorf("H=%d n=%d %s: exact Var = %v, closed form %v", tc.h, tc.n, name, v, cf["variance"])
			}
		}
	}
}

// TestStatsFormulas checks stats.csv's standard errors on a hand-computed
// case: estimates 0, 0, 0, 4 (T = 4): mean 1, variance v = 12/4 = 3,
// fourth central moment m4 = (1+1+1+81)/4 = 21, so
// bias_se = sqrt(v/(T-1)) = 1 and variance_se = sqrt((m4 - v^2)/T) = sqrt(3).
func TestStatsFormulas(t *testing.T) {
	r, err := ParseConfig([]byte("trials: 4\nn: [3]\nseries:\n  - {name: s, domain: chainmdp, estimators: [pdis]}\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var res []UnitResult
	for tr, x := range []float64{0, 0, 0, 4} {
		res = append(res, UnitResult{Series: 0, Trial: tr, Estimates: [][]float64{{x}}, KStar: [][][]int{nil}})
	}
	rows, err := AggregateStats(r, res)
	if err != nil {
		t.Fatal(err)
	}
	want := []StatsRow{{Series: "s", Estimator: "pdis", N: 3, BiasSE: 1, VarianceSE: math.Sqrt(3)}}
	if len(rows) != 1 || rows[0].Series != "s" || rows[0].N != 3 || math.Abs(rows[0].BiasSE-1) > 1e-15 || math.Abs(rows[0].VarianceSE-math.Sqrt(3)) > 1e-15 {
		t.Errorf("stats %+v, want %+v", rows, want)
	}
	var buf bytes.Buffer
	if err := WriteStatsCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	back, err := ReadStatsCSV(&buf, "stats.csv")
	if err != nil || !reflect.DeepEqual(back, rows) {
		t.Errorf("stats.csv does not read back: %v %v", back, err)
	}
	if _, err := ReadStatsCSV(strings.NewReader("series,estimator,n,bias,variance_se\n"), "x.csv"); err == nil || !strings.Contains(err.Error(), `x.csv: line 1: column 4 is "bias", want "bias_se"`) {
		t.Errorf("bad header: %v", err)
	}
}

const panelBase = `name: t
trials: 4
n: [2, 10]
series:
  - name: ch
    domain: chainmdp
    params: {horizon: [2, 4], p_e: 1}
    estimators: [pdis, wis]
  - name: ch1
    domain: chainmdp
    params: {horizon: 3}
    estimators: [pdis]
  - name: sub
    domain: subepisode
    estimators: [pdis]
plot:
  panels:
    - title: A
      series: [ch]
      x: horizon
      at_n: 10
      y: n_variance
      closed_form: true
`

// TestPanelConfigErrors: each bad panel spec fails with file:line: field.
func TestPanelConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, find, replace, want string
	}{
		{"unknown series", "series: [ch]", "series: [chx]", `t.yaml:19: plot.panels[0].series[0]: no series "chx" (series: ch, ch1, sub)`},
		{"series twice", "series: [ch]", "series: [ch, ch]", `t.yaml:19: plot.panels[0].series[1]: "ch" is listed twice`},
		{"unknown estimator", "      x: horizon", "      estimators: [pdiss]\n      x: horizon", `t.yaml:20: plot.panels[0].estimators[0]: unknown estimator "pdiss"`},
		{"estimator not in series", "      x: horizon", "      estimators: [incris]\n      x: horizon", `t.yaml:20: plot.panels[0].estimators[0]: no selected series has estimator "incris"`},
		{"unknown param", "x: horizon", "x: horizn", `t.yaml:20: plot.panels[0].x: "horizn" is neither n nor a parameter of domain chainmdp (series ch[horizon=2])`},
		{"param of another domain", "series: [ch]", "series: [ch, sub]", `t.yaml:20: plot.panels[0].x: "horizon" is neither n nor a parameter of domain subepisode (series sub)`},
		{"x not swept", "series: [ch]", "series: [ch, ch1]", `t.yaml:20: plot.panels[0].x: horizon is not swept in series ch1 (one value)`},
		{"at_n missing", "      at_n: 10\n", "", `t.yaml:18: plot.panels[0].at_n: missing: x = horizon needs at_n, the n of the grid [2 10]`},
		{"at_n not in grid", "at_n: 10", "at_n: 7", `t.yaml:21: plot.panels[0].at_n: 7 is not in the n grid [2 10]`},
		{"at_n with x = n", "x: horizon", "x: n", `t.yaml:21: plot.panels[0].at_n: 10, but at_n applies only when x is a swept parameter (x is n)`},
		{"bad y", "y: n_variance", "y: varaince", `t.yaml:22: plot.panels[0].y: "varaince", want one of mse, variance, n_variance, bias, abs_bias, mean_estimate`},
		{"log bias", "y: n_variance", "y: bias\n      log_y: true", `t.yaml:23: plot.panels[0].log_y: a bias can be negative`},
		{"no closed form", "series: [ch]\n      x: horizon\n      at_n: 10", "series: [sub]", `t.yaml:21: plot.panels[0].closed_form: no selected series and estimator has a closed form for n_variance`},
		{"unknown panel key", "y: n_variance", "y: n_variance\n      colour: red", `line 23: field colour not found`},
		{"bad label", "plot:\n", "plot:\n  labels: {chx/pdis: X}\n", `t.yaml:17: plot.labels: no series "chx"`},
		{"label estimator", "plot:\n", "plot:\n  labels: {ch/incris: X}\n", `t.yaml:17: plot.labels: series ch has no estimator "incris"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := strings.Replace(panelBase, tc.find, tc.replace, 1)
			if cfg == panelBase {
				t.Fatalf("test edit %q not applied", tc.find)
			}
			_, err := ParseConfig([]byte(cfg), "t.yaml")
			if err == nil {
				t.Fatalf("no error for\n%s", cfg)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// TestPanelConfigDefaults: x defaults to n with a log axis, y to mse with
// a log axis; x a parameter defaults to a linear axis; labels may use base
// names.
func TestPanelConfigDefaults(t *testing.T) {
	cfg := strings.Replace(panelBase, "plot:\n  panels:\n", "plot:\n  labels: {ch/pdis: \"H = {horizon}\"}\n  panels:\n    - {title: B}\n", 1)
	r, err := ParseConfig([]byte(cfg), "t.yaml")
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
	rep, err := Run(context.Background(), r, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	panels, _, err := BuildPanels(r, rep.Rows, rep.Stats)
	if err != nil {
		t.Fatal(err)
	}
	// Panel B: x = n, one line per (series, estimator): ch at H = 2, 4 with
	// pdis and wis, ch1 and sub with pdis.
	var labels []string
	for _, l := range panels[0].Lines {
		labels = append(labels, l.Label)
	}
	if want := []string{"H = 2", "ch, horizon = 2, wis", "H = 4", "ch, horizon = 4, wis", "ch1, pdis", "sub, pdis"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
	// Panel A: x = horizon at n = 10, lines (ch, pdis) and (ch, wis) through
	// H = 2 and 4, with closed forms.
	if got := len(panels[1].Lines); got != 2 || len(panels[1].Lines[0].Points) != 2 || panels[1].Lines[0].Points[1].X != 4 {
		t.Fatalf("panel A: %+v", panels[1])
	}
	if cl := panels[1].Lines[0].Closed; len(cl) != 3 || cl[2] != (plot.XY{X: 4, Y: 15}) {
		t.Errorf("panel A pdis closed form %v, want n Var at H = 2, 3, 4 ending (4, 15)", cl)
	}
}

// TestFiguresWithoutPanelsUnchanged: a config without panels describes the
// same figure as before panels existed (one MSE panel plus the k* panel),
// records no panels in meta.json, and redrawing the committed Figures 2
// and 4 from their results gives byte-identical PNG and SVG files.
func TestFiguresWithoutPanelsUnchanged(t *testing.T) {
	r, err := LoadConfig("../configs/fig4.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f := FigureOf(r, nil, nil)
	want := plot.Figure{
		Title: "Fig. 4: sub-episode MDP, H = 100 (128 trials)",
		Labels: map[string]string{"subepisode/is": "IS", "subepisode/pdis": "PDIS", "subepisode/wis": "WIS", "subepisode/cwpdis": "CWPDIS",
			"subepisode/incris": "INCRIS", "subepisode/partitioned-pdis": "partitioned PDIS (reference)"},
		Dashed: []string{"partitioned-pdis"},
		KStarN: []int{10, 100, 1000, 10000},
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("FigureOf(fig4) = %+v\nwant %+v", f, want)
	}
	if r.Plot.Panels != nil {
		t.Errorf("fig4 has panels %v", r.Plot.Panels)
	}
	for _, name := range []string{"fig2", "fig4"} {
		src := filepath.Join("..", "results", name)
		if _, err := os.Stat(filepath.Join(src, "meta.json")); err != nil {
			t.Skipf("no committed results: %v", err)
		}
		dir := t.TempDir()
		for _, f := range []string{"meta.json", "curve.csv", "kstar.csv"} {
			data, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				continue
			}
			if f == "meta.json" && bytes.Contains(data, []byte(`"panels"`)) {
				t.Errorf("%s/meta.json records panels", src)
			}
			if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := Redraw(dir); err != nil {
			t.Fatal(err)
		}
		for _, ext := range []string{".png", ".svg"} {
			got, _ := os.ReadFile(filepath.Join(dir, name+ext))
			committed, _ := os.ReadFile(filepath.Join(src, name+ext))
			if !bytes.Equal(got, committed) {
				t.Errorf("%s%s redrawn differs from the committed figure (%d vs %d bytes)", name, ext, len(got), len(committed))
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "panels.csv")); err == nil {
			t.Errorf("%s: panels.csv written for a figure without panels", name)
		}
	}
}

// TestTheoryWriteAndRedraw: a run with panels writes stats.csv and
// panels.csv beside curve.csv, and Redraw draws the figure again from the
// files alone, rewriting the same panels.csv.
func TestTheoryWriteAndRedraw(t *testing.T) {
	r, err := ParseConfig([]byte(strings.Replace(panelBase, "trials: 4", "trials: 8", 1)), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), r, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := rep.Write(dir, 2, "test"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"curve.csv", "stats.csv", "panels.csv", "meta.json", "t.png", "t.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	f, _ := os.Open(filepath.Join(dir, "stats.csv"))
	stats, err := ReadStatsCSV(f, "stats.csv")
	f.Close()
	if err != nil || !reflect.DeepEqual(stats, rep.Stats) || len(stats) != len(rep.Rows) {
		t.Errorf("stats.csv does not read back (%d rows, %d curve rows): %v", len(stats), len(rep.Rows), err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "panels.csv"))
	os.Remove(filepath.Join(dir, "t.png"))
	os.Remove(filepath.Join(dir, "panels.csv"))
	if err := Redraw(dir); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "panels.csv"))
	if _, err := os.Stat(filepath.Join(dir, "t.png")); err != nil || !bytes.Equal(before, after) {
		t.Errorf("redraw: png %v, panels.csv equal %v", err, bytes.Equal(before, after))
	}
	os.Remove(filepath.Join(dir, "stats.csv"))
	if err := Redraw(dir); err == nil || !strings.Contains(err.Error(), "stats.csv") {
		t.Errorf("redraw without stats.csv: %v", err)
	}
}

// TestOptionsChainHorizonNotMultiple: H must be a multiple of J; the
// config is refused when it loads, naming the series and its line.
func TestOptionsChainHorizonNotMultiple(t *testing.T) {
	_, err := ParseConfig([]byte("trials: 2\nn: [2]\nseries:\n  - {name: o, domain: optionschain, params: {horizon: 7, option_length: 2}, estimators: [options-pdis]}\n"), "t.yaml")
	if err == nil || !strings.Contains(err.Error(), "t.yaml:4: series[0].params: o: chainmdp: horizon 7 is not a multiple of the option length 2") {
		t.Errorf("error %v", err)
	}
}
