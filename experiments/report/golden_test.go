package report

import (
	"bytes"
	"flag"
	"math"
	"os"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/resultsdir"
)

var update = flag.Bool("update", false, "rewrite ../testdata/golden_curve.csv (do it on purpose, and say why in the commit)")

// TestGoldenCurve reruns ../testdata/golden.yaml and compares every number of
// its curve.csv with the committed testdata/golden_curve.csv to 1e-12
// relative (integers and names exactly).
func TestGoldenCurve(t *testing.T) {
	rep := buildReport(t, loadPlan(t, "../testdata/golden.yaml"), 2)
	const path = "../testdata/golden_curve.csv"
	if *update {
		var buf bytes.Buffer
		if err := resultsdir.WriteCurveCSV(&buf, rep.Rows); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s", path)
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want, err := resultsdir.ReadCurveCSV(f, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(rep.Rows) {
		t.Fatalf("%d rows, golden has %d", len(rep.Rows), len(want))
	}
	for i, g := range rep.Rows {
		w := want[i]
		if g.Experiment != w.Experiment || g.Series != w.Series || g.Estimator != w.Estimator || g.N != w.N || g.Trials != w.Trials {
			t.Fatalf("row %d: %s/%s n=%d, golden %s/%s n=%d", i+2, g.Series, g.Estimator, g.N, w.Series, w.Estimator, w.N)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"true_value", g.TrueValue, w.TrueValue}, {"mean_estimate", g.MeanEstimate, w.MeanEstimate},
			{"bias", g.Bias, w.Bias}, {"variance", g.Variance, w.Variance}, {"mse", g.MSE, w.MSE}, {"mse_se", g.MSESE, w.MSESE},
			{"ess", g.ESS, w.ESS}, {"min_step_ess", g.MinStepESS, w.MinStepESS},
		} {
			if d := math.Abs(c.got - c.want); d > 1e-12*math.Max(math.Abs(c.want), 1e-300) && d != 0 {
				t.Errorf("row %d (%s/%s n=%d) %s: %v, golden %v (rel. diff %.3g)", i+2, g.Series, g.Estimator, g.N, c.name, c.got, c.want, d/math.Abs(c.want))
			}
		}
	}
}
