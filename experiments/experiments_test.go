package experiments

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/experiments/run"
	"github.com/ope-lab/longhorizon/experiments/unit"
)

func loadPlan(t *testing.T, path string) *config.Plan {
	t.Helper()
	p, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runInto runs p with workers into a fresh directory (no truth cache, no
// progress) and returns the directory.
func runInto(t *testing.T, p *config.Plan, workers int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Run(context.Background(), p, dir, Options{Workers: workers}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readAll(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWorkersDoNotChangeFiles: the same config and seed give byte-identical
// curve.csv, kstar.csv, trials.csv and the claims (with their bootstrap)
// with 1 and 4 workers (SPEC 3), nested and independent.
func TestWorkersDoNotChangeFiles(t *testing.T) {
	for _, data := range []string{"nested", "independent"} {
		p := loadPlan(t, "testdata/small.yaml")
		p.Data = data
		one, four := runInto(t, p, 1), runInto(t, p, 4)
		for _, f := range []string{"curve.csv", "kstar.csv", "claims.csv", "claims.md", "trials.csv", "series.csv"} {
			if !bytes.Equal(readAll(t, filepath.Join(one, f)), readAll(t, filepath.Join(four, f))) {
				t.Errorf("%s: %s differs between -workers 1 and 4", data, f)
			}
		}
	}
}

// TestWriteAndRedraw writes a run and redraws its figure from the files.
func TestWriteAndRedraw(t *testing.T) {
	p := loadPlan(t, "testdata/small.yaml")
	dir := runInto(t, p, 2)
	for _, f := range []string{"curve.csv", "trials.csv", "series.csv", "kstar.csv", "claims.csv", "claims.md", "meta.json", "small.png", "small.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "checkpoint.jsonl")); err == nil {
		t.Error("a finished run left its checkpoint")
	}
	// series.csv: header, then one row per series, parameters as columns
	// (the chain has no "subepisodes": empty there).
	series := string(readAll(t, filepath.Join(dir, "series.csv")))
	for _, want := range []string{"series,base,domain,param_p_e,param_p_b,param_subepisodes,", "\nsub,sub,subepisode,0.75,0.5,5,", "\nchain,chain,chainmdp,0.9,0.5,,"} {
		if !strings.Contains(series, want) {
			t.Errorf("series.csv lacks %q:\n%s", want, series)
		}
	}
	png := readAll(t, filepath.Join(dir, "small.png"))
	os.Remove(filepath.Join(dir, "small.png"))
	if err := Redraw(dir); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(png, readAll(t, filepath.Join(dir, "small.png"))) {
		t.Error("the redrawn PNG differs from the run's")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name()[0] == '.' {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// TestRedrawCommittedResults: every committed results directory is
// self-contained: its figure, redrawn from a copy of its data files alone
// (no PNG, no SVG), is byte-identical to the committed PNG and SVG.
func TestRedrawCommittedResults(t *testing.T) {
	dirs, _ := filepath.Glob("../results/*/meta.json")
	if len(dirs) == 0 {
		t.Fatal("no committed results")
	}
	for _, meta := range dirs {
		src := filepath.Dir(meta)
		name := filepath.Base(src)
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			entries, _ := os.ReadDir(src)
			for _, e := range entries {
				if ext := filepath.Ext(e.Name()); ext == ".png" || ext == ".svg" {
					continue
				}
				if err := os.WriteFile(filepath.Join(dir, e.Name()), readAll(t, filepath.Join(src, e.Name())), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := Redraw(dir); err != nil {
				t.Fatal(err)
			}
			for _, ext := range []string{".png", ".svg"} {
				got := readAll(t, filepath.Join(dir, name+ext))
				if !bytes.Equal(got, readAll(t, filepath.Join(src, name+ext))) {
					t.Errorf("%s%s redrawn from the files differs from the committed figure", name, ext)
				}
			}
		})
	}
}

// TestPanelsWriteAndRedraw: a run with panels writes stats.csv, panels.csv
// and closedform.csv beside curve.csv; Redraw draws the same figure from
// the files alone, and needs stats.csv and closedform.csv.
func TestPanelsWriteAndRedraw(t *testing.T) {
	p := loadPlan(t, "testdata/panels.yaml")
	dir := runInto(t, p, 2)
	for _, f := range []string{"curve.csv", "stats.csv", "panels.csv", "closedform.csv", "meta.json", "t.png", "t.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	f, _ := os.Open(filepath.Join(dir, "stats.csv"))
	stats, err := resultsdir.ReadStatsCSV(f, "stats.csv")
	f.Close()
	if err != nil || len(stats) != (2*2+1+1)*2 { // (ch: 2 horizons x 2 estimators, ch1, sub) x 2 n
		t.Errorf("stats.csv: %d rows, %v", len(stats), err)
	}
	png := readAll(t, filepath.Join(dir, "t.png"))
	os.Remove(filepath.Join(dir, "t.png"))
	if err := Redraw(dir); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(png, readAll(t, filepath.Join(dir, "t.png"))) {
		t.Error("redrawn figure with panels differs from the run's")
	}
	for _, f := range []string{"closedform.csv", "stats.csv"} {
		data := readAll(t, filepath.Join(dir, f))
		os.Remove(filepath.Join(dir, f))
		if err := Redraw(dir); err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("redraw without %s: %v", f, err)
		}
		os.WriteFile(filepath.Join(dir, f), data, 0o644)
	}
}

// TestLongSmoke runs the long horizon (H = 1000, testdata/long_smoke.yaml,
// a small copy of configs/long.yaml) with 1 and 2 workers: every row is
// finite (report.Aggregate refuses any other), the files are byte-identical,
// and on the chain with p_e = 1 every estimator returns 0, so the MSE is
// exactly V^2 = 1: the only trajectory with a nonzero weight, all a1, has
// probability 2^-1000 under the behavior policy (SPEC 2.1).
func TestLongSmoke(t *testing.T) {
	p := loadPlan(t, "testdata/long_smoke.yaml")
	one, two := runInto(t, p, 1), runInto(t, p, 2)
	for _, f := range []string{"curve.csv", "kstar.csv"} {
		if !bytes.Equal(readAll(t, filepath.Join(one, f)), readAll(t, filepath.Join(two, f))) {
			t.Errorf("%s differs between -workers 1 and 2", f)
		}
	}
	rows, err := resultsdir.ReadCurveCSV(bytes.NewReader(readAll(t, filepath.Join(one, "curve.csv"))), "curve.csv")
	if err != nil {
		t.Fatal(err)
	}
	if want := (7 + 6 + 6) * 2; len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	for _, r := range rows {
		if r.Series == "chain1" && (r.MeanEstimate != 0 || r.MSE != 1) {
			t.Errorf("chain1/%s at n = %d: mean %v, MSE %v; want 0 and 1", r.Estimator, r.N, r.MeanEstimate, r.MSE)
		}
	}
}

// TestTrialsReadBackEqualsUnits: trials.csv read back holds every unit's
// estimate, bit for bit, in the order series, estimator, n, trial; and
// claims.csv carries an interval at every n of the small config's claim.
func TestTrialsReadBackEqualsUnits(t *testing.T) {
	p := loadPlan(t, "testdata/small.yaml")
	dir := runInto(t, p, 2)
	got, err := resultsdir.ReadTrials(dir)
	if err != nil {
		t.Fatal(err)
	}
	results, err := run.RunUnits(context.Background(), p, run.Units(p), run.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	byUnit := map[[2]int]unit.Result{}
	for _, r := range results {
		byUnit[[2]int{r.Series, r.Trial}] = r
	}
	i := 0
	for s, series := range p.Series {
		for e, est := range series.Estimators {
			for j, n := range p.N {
				for tr := 0; tr < p.Trials; tr++ {
					want := resultsdir.TrialRow{Series: series.Name, Estimator: est, N: n, Trial: tr, Estimate: byUnit[[2]int{s, tr}].Estimates[e][j]}
					if i >= len(got) || got[i] != want {
						t.Fatalf("row %d: %+v, want %+v", i, got[min(i, len(got)-1)], want)
					}
					i++
				}
			}
		}
	}
	if i != len(got) {
		t.Errorf("%d rows, want %d", len(got), i)
	}
	claims := string(readAll(t, filepath.Join(dir, "claims.csv")))
	if lines := strings.Split(strings.TrimSpace(claims), "\n"); lines[0] != "claim,n,ratio,holds,lo,hi,p_le,p_gt" || len(lines) != 4 || strings.HasSuffix(lines[1], ",,,,") {
		t.Errorf("claims.csv:\n%s", claims)
	}
}
