package experiments

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/claims"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/report"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/experiments/run"
)

// boundsFiles are the files of testdata/bounds.yaml compared byte for byte
// between runs.
var boundsFiles = []string{"bounds.csv", "curve.csv", "trials.csv", "claims.csv", "claims.md", "stats.csv", "panels.csv", "bounds.png", "bounds.svg"}

// TestBoundsEndToEnd runs testdata/bounds.yaml (chainmdp, H = 4, p_e =
// 0.9: V(pi_e) = 0.9^4 = 0.6561; is with bounds t and hcope, pdis with t;
// return range [0, 1]; 30 trials; n = 10, 100) with 1 and 3 workers and
// checks bounds.csv row by row, its agreement with curve.csv, the claims
// on bounds, and that the files are byte-identical.
func TestBoundsEndToEnd(t *testing.T) {
	p := loadPlan(t, "testdata/bounds.yaml")
	one, three := runInto(t, p, 1), runInto(t, p, 3)
	for _, f := range boundsFiles {
		if !bytes.Equal(readAll(t, filepath.Join(one, f)), readAll(t, filepath.Join(three, f))) {
			t.Errorf("%s differs between -workers 1 and 3", f)
		}
	}
	rows, err := resultsdir.ReadBoundsCSV(bytes.NewReader(readAll(t, filepath.Join(one, "bounds.csv"))), "bounds.csv")
	if err != nil {
		t.Fatal(err)
	}
	curve, err := resultsdir.ReadCurveCSV(bytes.NewReader(readAll(t, filepath.Join(one, "curve.csv"))), "curve.csv")
	if err != nil {
		t.Fatal(err)
	}
	meanEstimate := map[string]float64{}
	for _, r := range curve {
		meanEstimate[fmt.Sprintf("%s/%d", r.Estimator, r.N)] = r.MeanEstimate
	}
	// Ordered by series, estimator, bound, n; pdis has no hcope bound.
	want := []string{"is t 10", "is t 100", "is hcope 10", "is hcope 100", "pdis t 10", "pdis t 100"}
	if len(rows) != len(want) {
		t.Fatalf("%d rows of bounds.csv, want %d", len(rows), len(want))
	}
	const trials, delta = 30, 0.05
	// hcope is a guarantee: its coverage is at least 1 - delta, up to 3
	// binomial standard errors at the nominal rate, sqrt(0.95 x 0.05 / 30)
	// = 0.0398, over the trials.
	minCoverage := 1 - delta - 3*math.Sqrt(delta*(1-delta)/trials)
	for i, r := range rows {
		if got := fmt.Sprintf("%s %s %d", r.Estimator, r.Bound, r.N); r.Series != "chain" || got != want[i] {
			t.Errorf("row %d: %s/%s, want chain/%s", i, r.Series, got, want[i])
		}
		if r.Trials != trials || r.Delta != delta || math.Abs(r.TrueValue-0.6561) > 1e-15 {
			t.Errorf("%s: trials %d, delta %v, true value %v; want 30, 0.05, 0.9^4 = 0.6561", want[i], r.Trials, r.Delta, r.TrueValue)
		}
		if !(r.Coverage >= 0 && r.Coverage <= 1 && r.Vacuous >= 0 && r.Vacuous <= 1) {
			t.Errorf("%s: coverage %v, vacuous %v, want fractions", want[i], r.Coverage, r.Vacuous)
		}
		if se := math.Sqrt(r.Coverage * (1 - r.Coverage) / trials); r.CoverageSE != se {
			t.Errorf("%s: coverage_se %v, want sqrt(c (1 - c) / 30) = %v", want[i], r.CoverageSE, se)
		}
		// Each trial's bound is below its estimate (t: the mean of the
		// terms minus a positive multiple of their spread; hcope: a
		// guarantee on the same data), so the means are ordered too.
		if est := meanEstimate[fmt.Sprintf("%s/%d", r.Estimator, r.N)]; !(r.MeanBound <= est) {
			t.Errorf("%s: mean bound %v above the mean estimate %v", want[i], r.MeanBound, est)
		}
		if r.Bound == "hcope" {
			if r.Coverage < minCoverage {
				t.Errorf("%s: coverage %v below 1 - delta - 3 se = %v", want[i], r.Coverage, minCoverage)
			}
			if r.MeanBound < 0 || r.MeanBound > 1 {
				t.Errorf("%s: mean bound %v outside the return range [0, 1]", want[i], r.MeanBound)
			}
		}
	}
	// A t bound shrinks towards the estimate as n grows: 1/sqrt(n).
	if !(rows[1].MeanBound > rows[0].MeanBound) {
		t.Errorf("is t bound: %v at n = 100, not above %v at n = 10", rows[1].MeanBound, rows[0].MeanBound)
	}

	// Claims on bounds: claims.csv names its third column "value"; the
	// MSE claim keeps its ratio (IS and PDIS coincide when the only
	// reward is on the last step: ratio 1, on every bootstrap replicate
	// too: a degenerate interval, p_le = 1/(B+1), p_gt = 1); the claims on
	// bounds have no bootstrap (empty columns).
	claimsCSV := string(readAll(t, filepath.Join(one, "claims.csv")))
	p1 := resultsdir.FormatFloat(1 / float64(claims.Replicates+1))
	if !strings.HasPrefix(claimsCSV, "claim,n,value,holds,lo,hi,p_le,p_gt\nmse,10,1,true,1,1,"+p1+",1\nmse,100,1,true,1,1,"+p1+",1\n") {
		t.Errorf("claims.csv:\n%s", claimsCSV)
	}
	hcope100 := rows[3]
	for _, line := range []string{
		fmt.Sprintf("tight,100,%s,%t,,,,\n", resultsdir.FormatFloat(hcope100.TrueValue-hcope100.MeanBound), hcope100.TrueValue-hcope100.MeanBound <= 0.5),
		fmt.Sprintf("void,10,%s,%t,,,,\n", resultsdir.FormatFloat(rows[2].Vacuous), rows[2].Vacuous >= 0.5),
		fmt.Sprintf("covered,100,%s,%t,,,,\n", resultsdir.FormatFloat(rows[5].Coverage), rows[5].Coverage >= 0.8),
	} {
		if !strings.Contains(claimsCSV, line) {
			t.Errorf("claims.csv lacks %q:\n%s", line, claimsCSV)
		}
	}
	md, err := report.ClaimsMarkdown([]string{one})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md, "| bounds | tight | bound_gap (V(pi_e) - mean hcope bound) of chain/is <= 0.5 at all n |") {
		t.Errorf("claims summary:\n%s", md)
	}
}

// TestBoundsRedraw: a run with bound panels redraws its figure from its
// files alone, bounds.csv included, and refuses a bounds.csv that does not
// match meta.json; runexp claims reads it too.
func TestBoundsRedraw(t *testing.T) {
	p := loadPlan(t, "testdata/bounds.yaml")
	dir := runInto(t, p, 2)
	png := readAll(t, filepath.Join(dir, "bounds.png"))
	os.Remove(filepath.Join(dir, "bounds.png"))
	if err := Redraw(dir); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(png, readAll(t, filepath.Join(dir, "bounds.png"))) {
		t.Error("the redrawn figure differs from the run's")
	}
	path := filepath.Join(dir, "bounds.csv")
	good := readAll(t, path)
	lines := strings.SplitAfter(string(good), "\n")
	for _, tc := range []struct {
		name, text, want string
	}{
		{"missing", "", "bounds.csv"},
		{"a row missing", strings.Join(append(lines[:3:3], lines[4:]...), ""), "bounds.csv: line 4: row chain/is hcope at n = 100 with 30 trials, want chain/is hcope at n = 10"},
		{"another delta", strings.Replace(string(good), ",30,0.05,", ",30,0.1,", 1), "bounds.csv: line 2: delta 0.1, meta.json's config has 0.05"},
		{"a coverage no count gives", strings.Replace(string(good), lines[1], strings.Replace(lines[1], ",1,0,1\n", ",0.51,0,1\n", 1), 1), "bounds.csv: line 2: coverage 0.51 is not a count over 30 trials"},
		{"vacuous empty", strings.Replace(string(good), ",1,0,1\n", ",1,0,\n", 1), "bounds.csv: line 2: vacuous \"\", want it set"},
		{"a fraction above 1", strings.Replace(string(good), ",1,0,1\n", ",1,0,2\n", 1), "bounds.csv: line 2: column vacuous: 2 is not a fraction in [0, 1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.text == "" {
				os.Remove(path)
			} else if tc.text == string(good) {
				t.Fatal("edit not applied")
			} else {
				os.WriteFile(path, []byte(tc.text), 0o644)
			}
			defer os.WriteFile(path, good, 0o644)
			for _, err := range []error{Redraw(dir), claimsErr(dir)} {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error %v, want %q", err, tc.want)
				}
			}
		})
	}
}

func claimsErr(dir string) error {
	_, err := report.ClaimsMarkdown([]string{dir})
	return err
}

// cancelAfter is a Progress that cancels its run once k units are done.
type cancelAfter struct {
	k, done int
	cancel  context.CancelFunc
}

func (c *cancelAfter) Start(int) {}
func (c *cancelAfter) Add(n int) {
	if c.done += n; c.done == c.k {
		c.cancel()
	}
}
func (c *cancelAfter) Finish() {}

// TestBoundsResume: a run with bounds interrupted after some units, its
// checkpoint's last line cut short as a kill leaves it, resumes into the
// same bytes as a run in one go; so do shards merged.
func TestBoundsResume(t *testing.T) {
	p := loadPlan(t, "testdata/bounds.yaml")
	whole := runInto(t, p, 1)

	dir := interruptAndResume(t, p, 17, func(ckpt []byte) {
		if n := bytes.Count(ckpt, []byte("\n")); n != 18 || !bytes.Contains(ckpt, []byte(`"bounds":[[[`)) {
			t.Fatalf("checkpoint of %d lines (want a header and 17 units), with bounds: %v", n, bytes.Contains(ckpt, []byte(`"bounds"`)))
		}
	})
	merged := mergedShards(t, p)
	for _, f := range boundsFiles {
		w := readAll(t, filepath.Join(whole, f))
		if !bytes.Equal(w, readAll(t, filepath.Join(dir, f))) {
			t.Errorf("%s differs between a run in one go and an interrupted run resumed", f)
		}
		if !bytes.Equal(w, readAll(t, filepath.Join(merged, f))) {
			t.Errorf("%s differs between a run in one go and merged shards", f)
		}
	}
}

// interruptAndResume runs p on one worker until k units are done, cuts the
// checkpoint's last line short as a kill leaves it (after check has seen
// the checkpoint), resumes on 3 workers and returns the output directory.
func interruptAndResume(t *testing.T, p *config.Plan, k int, check func(ckpt []byte)) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Run(ctx, p, dir, Options{Workers: 1, Progress: &cancelAfter{k: k, cancel: cancel}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v, want context.Canceled", err)
	}
	ckpt := run.CheckpointPath(dir, run.Shard{})
	data := readAll(t, ckpt)
	if check != nil {
		check(data)
	}
	last := bytes.LastIndexByte(data[:len(data)-1], '\n')
	if err := os.WriteFile(ckpt, append(data, data[last+1:last+30]...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), p, dir, Options{Workers: 3, Resume: true}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// mergedShards runs p as two shards and merges them; it returns the
// merged output directory.
func mergedShards(t *testing.T, p *config.Plan) string {
	t.Helper()
	shards := t.TempDir()
	var paths []string
	for i := range 2 {
		res, err := Run(context.Background(), p, shards, Options{Workers: 2, Shard: run.Shard{Index: i, Count: 2}})
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, res.Checkpoint)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if _, err := Merge(paths, merged, Options{}); err != nil {
		t.Fatal(err)
	}
	return merged
}

// TestNoBoundsNoBoundsFile: a run without bounds writes no bounds.csv and
// keeps claims.csv's ratio column.
func TestNoBoundsNoBoundsFile(t *testing.T) {
	dir := runInto(t, loadPlan(t, "testdata/small.yaml"), 2)
	if _, err := os.Stat(filepath.Join(dir, "bounds.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("bounds.csv of a run without bounds: %v", err)
	}
	if claims := readAll(t, filepath.Join(dir, "claims.csv")); !bytes.HasPrefix(claims, []byte("claim,n,ratio,holds,lo,hi,p_le,p_gt\n")) {
		t.Errorf("claims.csv header: %q", bytes.SplitN(claims, []byte("\n"), 2)[0])
	}
	if meta := readAll(t, filepath.Join(dir, "meta.json")); bytes.Contains(meta, []byte(`"delta"`)) || bytes.Contains(meta, []byte(`"bounds"`)) {
		t.Error("meta.json of a run without bounds records delta or bounds")
	}
}
