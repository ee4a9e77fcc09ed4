package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/experiments/unit"
)

// boundsTestPlan: series ch (is with t and hcope, pdis with t; range
// [0, 1]) and sub (pdis with t, no range), 4 trials, n = 3 and 10, and a
// lower-bound and a coverage panel.
func boundsTestPlan(t *testing.T) *config.Plan {
	t.Helper()
	p, err := config.Parse([]byte(`trials: 4
n: [3, 10]
delta: 0.1
series:
  - {name: ch, domain: chainmdp, estimators: [is, pdis], bounds: [t, hcope], return_range: [0, 1]}
  - {name: sub, domain: subepisode, estimators: [pdis], bounds: [t]}
plot:
  panels:
    - {title: A, y: lower_bound}
    - {title: B, y: coverage, series: [ch]}
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// boundsTestResults are hand-made unit results of boundsTestPlan: the
// bounds of is/t at n = 3 over the 4 trials are 0.2, 0.6, -0.1, 0.5, of
// is/hcope 0, 0, 0.4, 0; every other bound is 0.25 + trial/100.
func boundsTestResults() []unit.Result {
	isT := []float64{0.2, 0.6, -0.1, 0.5}
	isH := []float64{0, 0, 0.4, 0}
	var res []unit.Result
	for tr := range 4 {
		o := 0.25 + float64(tr)/100
		res = append(res,
			unit.Result{Series: 0, Trial: tr, Estimates: [][]float64{{0, 0}, {0, 0}}, Diagnostics: make([][][][]float64, 2),
				Bounds: [][][]float64{{{isT[tr], o}, {isH[tr], o}}, {{o, o}, nil}}},
			unit.Result{Series: 1, Trial: tr, Estimates: [][]float64{{0, 0}}, Diagnostics: make([][][][]float64, 1),
				Bounds: [][][]float64{{{o, o}}}})
	}
	return res
}

// TestAggregateBounds checks bounds rows against the arithmetic of
// BoundRow's definitions on hand-made bounds, V(pi_e) = 0.5 for ch.
func TestAggregateBounds(t *testing.T) {
	p := boundsTestPlan(t)
	rows, err := AggregateBounds(p, boundsTestResults(), []domains.Truth{{Value: 0.5}, {Value: 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	want := []resultsdir.BoundRow{
		// 0.2, 0.6, -0.1, 0.5: mean 1.2/4 = 0.3; deviations -0.1, 0.3,
		// -0.4, 0.2, squares sum 0.30, s^2 = 0.30/3 = 0.1, se = sqrt(0.1)/2;
		// 3 of 4 are <= 0.5 (coverage 0.75, se sqrt(0.75 x 0.25 / 4)),
		// 1 of 4 is <= g_lo = 0 (vacuous 0.25).
		{Series: "ch", Estimator: "is", Bound: "t", N: 3, Trials: 4, Delta: 0.1, TrueValue: 0.5, MeanBound: 0.3, BoundSE: math.Sqrt(0.1) / 2, Coverage: 0.75, CoverageSE: math.Sqrt(0.75 * 0.25 / 4), Vacuous: 0.25},
		// 0.25, 0.26, 0.27, 0.28: mean 0.265, s^2 = (0.015^2 + 0.005^2) x 2 / 3.
		{Series: "ch", Estimator: "is", Bound: "t", N: 10, Trials: 4, Delta: 0.1, TrueValue: 0.5, MeanBound: 0.265, BoundSE: math.Sqrt((0.015*0.015+0.005*0.005)*2/3) / 2, Coverage: 1, CoverageSE: 0, Vacuous: 0},
		// 0, 0, 0.4, 0: mean 0.1, s^2 = (3 x 0.01 + 0.09) / 3 = 0.04;
		// all <= 0.5; 3 of 4 at g_lo = 0.
		{Series: "ch", Estimator: "is", Bound: "hcope", N: 3, Trials: 4, Delta: 0.1, TrueValue: 0.5, MeanBound: 0.1, BoundSE: 0.2 / 2, Coverage: 1, CoverageSE: 0, Vacuous: 0.75},
		{Series: "ch", Estimator: "is", Bound: "hcope", N: 10, Trials: 4, Delta: 0.1, TrueValue: 0.5, MeanBound: 0.265, BoundSE: math.Sqrt((0.015*0.015+0.005*0.005)*2/3) / 2, Coverage: 1, CoverageSE: 0, Vacuous: 0},
		{Series: "ch", Estimator: "pdis", Bound: "t", N: 3, Trials: 4, Delta: 0.1, TrueValue: 0.5, MeanBound: 0.265, BoundSE: math.Sqrt((0.015*0.015+0.005*0.005)*2/3) / 2, Coverage: 1, CoverageSE: 0, Vacuous: 0},
		{Series: "ch", Estimator: "pdis", Bound: "t", N: 10, Trials: 4, Delta: 0.1, TrueValue: 0.5, MeanBound: 0.265, BoundSE: math.Sqrt((0.015*0.015+0.005*0.005)*2/3) / 2, Coverage: 1, CoverageSE: 0, Vacuous: 0},
		// sub: V = 0.3; 0.25 and 0.26 are <= 0.3, 0.27 and 0.28 too: 1;
		// no range: vacuous empty.
		{Series: "sub", Estimator: "pdis", Bound: "t", N: 3, Trials: 4, Delta: 0.1, TrueValue: 0.3, MeanBound: 0.265, BoundSE: math.Sqrt((0.015*0.015+0.005*0.005)*2/3) / 2, Coverage: 1, CoverageSE: 0, Vacuous: nan},
		{Series: "sub", Estimator: "pdis", Bound: "t", N: 10, Trials: 4, Delta: 0.1, TrueValue: 0.3, MeanBound: 0.265, BoundSE: math.Sqrt((0.015*0.015+0.005*0.005)*2/3) / 2, Coverage: 1, CoverageSE: 0, Vacuous: nan},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	near := func(a, b float64) bool { return a == b || math.Abs(a-b) <= 1e-15 || math.IsNaN(a) && math.IsNaN(b) }
	for i, w := range want {
		g := rows[i]
		if g.Series != w.Series || g.Estimator != w.Estimator || g.Bound != w.Bound || g.N != w.N || g.Trials != w.Trials || g.Delta != w.Delta || g.TrueValue != w.TrueValue ||
			!near(g.MeanBound, w.MeanBound) || !near(g.BoundSE, w.BoundSE) || g.Coverage != w.Coverage || !near(g.CoverageSE, w.CoverageSE) || !near(g.Vacuous, w.Vacuous) {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, g, w)
		}
	}

	// Written and read back: the same rows, vacuous empty without a range.
	var buf bytes.Buffer
	if err := resultsdir.WriteBoundsCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, line := range []string{
		"series,estimator,bound,n,trials,delta,true_value,mean_bound,bound_se,coverage,coverage_se,vacuous\n",
		",1,0,0.75\n", // ch/is/hcope at n = 3: coverage 1, se 0, vacuous 0.75
		",1,0,\n",     // sub: no range
	} {
		if !strings.Contains(text, line) {
			t.Errorf("bounds.csv lacks %q:\n%s", line, text)
		}
	}
	back, err := resultsdir.ReadBoundsCSV(strings.NewReader(text), "bounds.csv")
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		a, b := rows[i], back[i]
		if math.IsNaN(a.Vacuous) != math.IsNaN(b.Vacuous) || !math.IsNaN(a.Vacuous) && a.Vacuous != b.Vacuous {
			t.Errorf("row %d: vacuous %v read back as %v", i, a.Vacuous, b.Vacuous)
		}
		a.Vacuous, b.Vacuous = 0, 0
		if a != b {
			t.Errorf("row %d: %+v read back as %+v", i, rows[i], back[i])
		}
	}
	if err := resultsdir.CheckBounds("bounds.csv", p, []resultsdir.SeriesMeta{{Series: "ch", Truth: domains.Truth{Value: 0.5}}, {Series: "sub", Truth: domains.Truth{Value: 0.3}}}, back); err != nil {
		t.Errorf("rows read back fail their check: %v", err)
	}
	if err := resultsdir.CheckBounds("bounds.csv", p, []resultsdir.SeriesMeta{{Series: "ch", Truth: domains.Truth{Value: 0.4}}}, back); err == nil || !strings.Contains(err.Error(), "bounds.csv: line 2: true value 0.5, meta.json records 0.4 for series ch") {
		t.Errorf("rows of another true value: %v", err)
	}

	// A unit without its bounds is an error, not a row of zeros.
	res := boundsTestResults()
	res[0].Bounds = nil
	if _, err := AggregateBounds(p, res, []domains.Truth{{Value: 0.5}, {Value: 0.3}}); err == nil || !strings.Contains(err.Error(), "series ch, trial 0: no t bound of estimator is at n = 3") {
		t.Errorf("a unit without bounds: %v", err)
	}
}

// TestBoundClaimsChecked: claims on bound quantities read bounds rows and
// test min or max exactly; MSE claims are unchanged.
func TestBoundClaimsChecked(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	p := &config.Plan{N: []int{3, 10}, Claims: []config.Claim{
		{Name: "gap", Subject: "ch/is", Quantity: "bound_gap", Bound: "hcope", Max: f(0.4), At: "all", NMin: 3, NMax: 10},
		{Name: "void", Subject: "ch/is", Quantity: "vacuous", Bound: "hcope", Min: f(0.75), At: "all", NMin: 3, NMax: 10},
		{Name: "cover", Subject: "ch/is", Quantity: "coverage", Bound: "t", Min: f(0.9), At: "some", NMin: 3, NMax: 10},
		{Name: "low", Subject: "ch/is", Quantity: "lower_bound", Bound: "t", Min: f(0.3), At: "all", NMin: 10, NMax: 10},
	}}
	bounds := []resultsdir.BoundRow{
		{Series: "ch", Estimator: "is", Bound: "hcope", N: 3, TrueValue: 0.5, MeanBound: 0.1, Vacuous: 0.75},
		{Series: "ch", Estimator: "is", Bound: "hcope", N: 10, TrueValue: 0.5, MeanBound: 0, Vacuous: 1},
		{Series: "ch", Estimator: "is", Bound: "t", N: 3, MeanBound: 0.25, Coverage: 0.75},
		{Series: "ch", Estimator: "is", Bound: "t", N: 10, MeanBound: 0.3, Coverage: 1},
	}
	got := CheckClaims(p, nil, bounds, nil)
	for i, want := range []struct {
		values []float64
		holds  []bool
		all    bool
	}{
		// gap: 0.5 - 0.1 = 0.4 <= 0.4 holds; 0.5 - 0 = 0.5 does not.
		{[]float64{0.4, 0.5}, []bool{true, false}, false},
		// void: 0.75 >= 0.75, 1 >= 0.75.
		{[]float64{0.75, 1}, []bool{true, true}, true},
		// cover: 0.75 < 0.9, 1 >= 0.9; "some" holds.
		{[]float64{0.75, 1}, []bool{false, true}, true},
		// low: at n = 10 only, 0.3 >= 0.3.
		{[]float64{0.3}, []bool{true}, true},
	} {
		c := got[i]
		if c.Holds != want.all || len(c.Points) != len(want.values) {
			t.Errorf("claim %s: holds %v with %d points, want %v with %d", c.Claim.Name, c.Holds, len(c.Points), want.all, len(want.values))
			continue
		}
		for j, pt := range c.Points {
			if pt.Ratio != want.values[j] || pt.Holds != want.holds[j] {
				t.Errorf("claim %s at n = %d: value %v holds %v, want %v, %v", c.Claim.Name, pt.N, pt.Ratio, pt.Holds, want.values[j], want.holds[j])
			}
		}
	}
	var buf bytes.Buffer
	if err := resultsdir.WriteClaimsCSV(&buf, p, claimRows(got)); err != nil {
		t.Fatal(err)
	}
	if want := "claim,n,value,holds,lo,hi,p_le,p_gt\ngap,3,0.4,true,,,,\ngap,10,0.5,false,,,,\nvoid,3,0.75,true,,,,\n"; !strings.HasPrefix(buf.String(), want) {
		t.Errorf("claims.csv:\n%s\nwant it to start with\n%s", buf.String(), want)
	}
	back, err := resultsdir.ReadClaimsCSV(bytes.NewReader(buf.Bytes()), "claims.csv", p, bounds)
	if err != nil || len(back) != 7 {
		t.Errorf("claims.csv read back: %d points, %v", len(back), err)
	}
	edited := strings.Replace(buf.String(), "gap,10,0.5,false,", "gap,10,0.3,true,", 1)
	if _, err := resultsdir.ReadClaimsCSV(strings.NewReader(edited), "claims.csv", p, bounds); err == nil || !strings.Contains(err.Error(), "claims.csv: line 3: column value: 0.3, but bounds.csv gives bound_gap = 0.5 for ch/is (hcope bound) at n = 10") {
		t.Errorf("claims.csv disagreeing with bounds.csv: %v", err)
	}
}

// TestBoundPanelsBuilt: a lower-bound panel has one line per series,
// estimator and bound, labelled "<estimator label> <bound> bound", with
// the mean bound and bound_se, and V(pi_e) per distinct true value; a
// coverage panel the coverage and its binomial se, 1 - delta, and the
// range [0, 1]; panels.csv lists every point.
func TestBoundPanelsBuilt(t *testing.T) {
	p := boundsTestPlan(t)
	bounds, err := AggregateBounds(p, boundsTestResults(), []domains.Truth{{Value: 0.5}, {Value: 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	panels, points, err := BuildPanels(p, nil, nil, bounds, nil)
	if err != nil {
		t.Fatal(err)
	}
	labels := func(pn resultsdir.Panel) string {
		var l []string
		for _, ln := range pn.Lines {
			l = append(l, ln.Label)
		}
		return strings.Join(l, "; ")
	}
	// Panel A: two series (base names shown) and two estimators.
	if got, want := labels(panels[0]), "ch, is t bound; ch, is hcope bound; ch, pdis t bound; sub, pdis t bound"; got != want {
		t.Errorf("panel A labels %q, want %q", got, want)
	}
	if got := panels[0].Refs; len(got) != 2 || got[0] != (resultsdir.RefLine{Label: "V(pi_e) of ch", Y: 0.5}) || got[1] != (resultsdir.RefLine{Label: "V(pi_e) of sub", Y: 0.3}) {
		t.Errorf("panel A references %+v, want V(pi_e) of ch at 0.5 and of sub at 0.3", got)
	}
	if pt := panels[0].Lines[0].Points[0]; pt.X != 3 || pt.Y != bounds[0].MeanBound || pt.SE != bounds[0].BoundSE || panels[0].LogY || !panels[0].LogX {
		t.Errorf("panel A, first point %+v (log x %v, log y %v), want n = 3 at the mean bound %v with se %v, log x only", pt, panels[0].LogX, panels[0].LogY, bounds[0].MeanBound, bounds[0].BoundSE)
	}
	if got, want := labels(panels[1]), "is t bound; is hcope bound; pdis t bound"; got != want {
		t.Errorf("panel B labels %q, want %q", got, want)
	}
	if got := panels[1]; len(got.Refs) != 1 || got.Refs[0] != (resultsdir.RefLine{Label: "1 - delta = 0.9", Y: 0.9}) || got.YLo != 0 || got.YHi != 1 || got.YLabel != "coverage" {
		t.Errorf("panel B: references %+v, y range [%v, %v], label %q; want 1 - delta = 0.9, [0, 1], coverage", got.Refs, got.YLo, got.YHi, got.YLabel)
	}
	if pt := panels[1].Lines[0].Points[0]; pt.Y != 0.75 || pt.SE != bounds[0].CoverageSE {
		t.Errorf("panel B, first point %+v, want coverage 0.75 with se %v", pt, bounds[0].CoverageSE)
	}
	if len(points) != (4+3)*2 {
		t.Errorf("%d points, want (4 + 3 lines) x 2 n", len(points))
	}
	var buf bytes.Buffer
	if err := resultsdir.WritePanelsCSV(&buf, p, points); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"\n1,A,ch,is,\"ch, is t bound\",3,3,0.3", "\n2,B,ch,is,is hcope bound,3,3,1,0,,\n"} {
		if !strings.Contains(buf.String(), line) {
			t.Errorf("panels.csv lacks %q:\n%s", line, buf.String())
		}
	}
	if _, _, err := BuildPanels(p, nil, nil, bounds[:3], nil); err == nil || !strings.Contains(err.Error(), "plot.panels[0] (A): no bounds row for ch/is hcope at n = 10") {
		t.Errorf("panels without their bounds rows: %v", err)
	}
}
