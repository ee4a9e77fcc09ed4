package report

import (
	"bytes"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/experiments/unit"
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

func runTheoryTest(t *testing.T) (*config.Plan, *Report, []resultsdir.PanelPoint) {
	t.Helper()
	r, err := config.Parse([]byte(theoryTestConfig), "theorytest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep := buildReport(t, r, 2)
	return r, rep, rep.Points
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
	point := func(panel int, series, est string, n int) (resultsdir.PanelPoint, bool) {
		for _, p := range pts {
			if p.Panel == panel && p.Series == series && p.Estimator == est && p.N == n {
				return p, true
			}
		}
		return resultsdir.PanelPoint{}, false
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

// TestCorollary2FlatInH: with one changed option the simulated n Var stays
// within 4 standard errors of 2^J - 1 = 7 (J = 3) from H = 3 to H = 30
// (the closed form itself: domains.TestCorollary2ClosedFormFlatInH).
func TestCorollary2FlatInH(t *testing.T) {
	_, _, pts := runTheoryTest(t)
	for _, p := range pts {
		if p.Panel == 5 && !(math.Abs(p.Y-7) <= 4*p.SE) {
			t.Errorf("%s: n Var = %v +/- %v, want 7 (flat in H)", p.Series, p.Y, p.SE)
		}
	}
}

// TestStatsFormulas checks stats.csv's standard errors on a hand-computed
// case: estimates 0, 0, 0, 4 (T = 4): mean 1, variance v = 12/4 = 3,
// fourth central moment m4 = (1+1+1+81)/4 = 21, so
// bias_se = sqrt(v/(T-1)) = 1 and variance_se = sqrt((m4 - v^2)/T) = sqrt(3).
func TestStatsFormulas(t *testing.T) {
	r, err := config.Parse([]byte("trials: 4\nn: [3]\nseries:\n  - {name: s, domain: chainmdp, estimators: [pdis]}\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var res []unit.Result
	for tr, x := range []float64{0, 0, 0, 4} {
		res = append(res, unit.Result{Series: 0, Trial: tr, Estimates: [][]float64{{x}}, Diagnostics: [][][][]float64{nil}})
	}
	rows, err := AggregateStats(r, res)
	if err != nil {
		t.Fatal(err)
	}
	want := []resultsdir.StatsRow{{Series: "s", Estimator: "pdis", N: 3, BiasSE: 1, VarianceSE: math.Sqrt(3)}}
	if len(rows) != 1 || rows[0].Series != "s" || rows[0].N != 3 || math.Abs(rows[0].BiasSE-1) > 1e-15 || math.Abs(rows[0].VarianceSE-math.Sqrt(3)) > 1e-15 {
		t.Errorf("stats %+v, want %+v", rows, want)
	}
	var buf bytes.Buffer
	if err := resultsdir.WriteStatsCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	back, err := resultsdir.ReadStatsCSV(&buf, "stats.csv")
	if err != nil || !reflect.DeepEqual(back, rows) {
		t.Errorf("stats.csv does not read back: %v %v", back, err)
	}
	if _, err := resultsdir.ReadStatsCSV(strings.NewReader("series,estimator,n,bias,variance_se\n"), "x.csv"); err == nil || !strings.Contains(err.Error(), `x.csv: line 1: column 4 is "bias", want "bias_se"`) {
		t.Errorf("bad header: %v", err)
	}
}

// TestPanelLabelsAndClosedLines: labels of lines with x = n (one per
// series and estimator; plot.labels may use base names and {param}
// placeholders) and the closed-form line of a parameter panel.
func TestPanelLabelsAndClosedLines(t *testing.T) {
	cfg := strings.Replace(panelBase, "plot:\n  panels:\n", "plot:\n  labels: {ch/pdis: \"H = {horizon}\"}\n  panels:\n    - {title: B}\n", 1)
	r, err := config.Parse([]byte(cfg), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep := buildReport(t, r, 1)
	panels := rep.Panels
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
	// H = 2 and 4, with closed forms: n Var(PDIS) = 2^H - 1 (Theorem 1) at
	// H = 2, 3, 4 ends at (4, 15).
	if got := len(panels[1].Lines); got != 2 || len(panels[1].Lines[0].Points) != 2 || panels[1].Lines[0].Points[1].X != 4 {
		t.Fatalf("panel A: %+v", panels[1])
	}
	if cl := panels[1].Lines[0].Closed; len(cl) != 3 || cl[2] != (resultsdir.XY{X: 4, Y: 15}) {
		t.Errorf("panel A pdis closed form %v, want n Var at H = 2, 3, 4 ending (4, 15)", cl)
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
