package leaderboard

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/internal/streams"
)

// runTiny runs the config text through the real harness into dir/name
// and returns the directory: meta.json, curve.csv and trials.csv in their
// real formats.
func runTiny(t *testing.T, dir, name, cfg string) string {
	t.Helper()
	p, err := config.Parse([]byte(cfg), name+".yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	if _, err := experiments.Run(context.Background(), p, out, experiments.Options{Workers: 2, Revision: "test"}); err != nil {
		t.Fatal(err)
	}
	return out
}

// setErrors replaces the estimates of the run in dir by true value +
// error: err[series/estimator/n][t] is trial t's error, and every curve
// row's true value becomes v. curve.csv is recomputed from them (mean,
// bias, variance, mse, mse_se), both files written by package report's
// writers.
func setErrors(t *testing.T, dir string, v float64, errs map[string][]float64) {
	t.Helper()
	key := func(s, e string, n int) string { return s + "/" + e + "/" + strconv.Itoa(n) }
	trials, err := resultsdir.ReadFile(filepath.Join(dir, resultsdir.TrialsFile), resultsdir.ReadTrialsCSV)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range trials {
		d, ok := errs[key(r.Series, r.Estimator, r.N)]
		if !ok || r.Trial >= len(d) {
			t.Fatalf("no error for %s trial %d", key(r.Series, r.Estimator, r.N), r.Trial)
		}
		trials[i].Estimate = v + d[r.Trial]
	}
	var tb bytes.Buffer
	if err := resultsdir.WriteTrialsCSV(&tb, trials); err != nil {
		t.Fatal(err)
	}
	rows, err := resultsdir.ReadFile(filepath.Join(dir, resultsdir.CurveFile), resultsdir.ReadCurveCSV)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		d := errs[key(r.Series, r.Estimator, r.N)]
		T := float64(len(d))
		var m, m2 float64
		for _, x := range d {
			m += x / T
			m2 += x * x / T
		}
		var ss float64
		for _, x := range d {
			ss += (x*x - m2) * (x*x - m2)
		}
		rows[i].TrueValue, rows[i].MeanEstimate, rows[i].Bias = v, v+m, m
		rows[i].Variance, rows[i].MSE, rows[i].MSESE = m2-m*m, m2, math.Sqrt(ss/(T-1))/math.Sqrt(T)
	}
	var cb bytes.Buffer
	if err := resultsdir.WriteCurveCSV(&cb, rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, resultsdir.TrialsFile), tb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, resultsdir.CurveFile), cb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The two hand-made runs: a tiny chain config each, run through the
// harness, then their estimates replaced by a true value of 0.5 plus the
// errors below (0.5 + an integer and back are exact, so the MSEs are the
// exact numbers of the comments).
const (
	cfgA = "name: a\nseed: 1\ntrials: 2\nn: [5, 10]\nseries:\n  - {name: s1, domain: chainmdp, params: {horizon: 2}, estimators: [is, pdis, wis]}\n"
	cfgB = "name: b\nseed: 2\ntrials: 2\nn: [5]\nseries:\n  - {name: s2, domain: chainmdp, params: {horizon: 2}, estimators: [is, wis]}\n  - {name: s3, domain: chainmdp, params: {horizon: 2}, estimators: [cwpdis]}\n"
)

// handRuns writes the two hand-made runs under dir.
//
//	cell        is                pdis              wis
//	a: s1, 5    (1,-1): MSE 1     (2,0): MSE 2      (2,2): MSE 4     best 1
//	a: s1, 10   (2,0):  MSE 2     (0,2): MSE 2      (1,1): MSE 1     best 1
//	b: s2, 5    (0,0):  MSE 0     -                 (1,-1): MSE 1    best 0
//	b: s3, 5    cwpdis alone: left out (a single estimator)
//
// Ratios and ranks (ties share the average rank):
//
//	a: s1, 5    is 1 (rank 1)     pdis 2 (rank 2)   wis 4 (rank 3)
//	a: s1, 10   is 2 (rank 2.5)   pdis 2 (rank 2.5) wis 1 (rank 1)
//	b: s2, 5    is 0/0 := 1 (1)   -                 wis 1/0 = +Inf (2)
//
// Per estimator:
//
//	is:   3 cells, geo-mean (1*2*1)^(1/3) = 2^(1/3) = 1.2599, worst 2 (a: s1, 10),
//	      mean rank (1+2.5+1)/3 = 1.5, within 1.25x: 2 of 3
//	pdis: 2 cells, geo-mean (2*2)^(1/2) = 2, worst 2 (first at a: s1, 5),
//	      mean rank (2+2.5)/2 = 2.25, within 1.25x: 0 of 2
//	wis:  3 cells, 1 infinite, geo-mean over the finite (4*1)^(1/2) = 2,
//	      worst +Inf (b: s2, 5), mean rank (3+1+2)/3 = 2, within: 1 of 3
//
// Sorted by geo-mean: is, then wis and pdis tied at 2, wis first by its
// mean rank; cwpdis is not ranked.
func handRuns(t *testing.T, dir string) []string {
	a := runTiny(t, dir, "a", cfgA)
	b := runTiny(t, dir, "b", cfgB)
	setErrors(t, a, 0.5, map[string][]float64{
		"s1/is/5": {1, -1}, "s1/pdis/5": {2, 0}, "s1/wis/5": {2, 2},
		"s1/is/10": {2, 0}, "s1/pdis/10": {0, 2}, "s1/wis/10": {1, 1},
	})
	setErrors(t, b, 0.5, map[string][]float64{"s2/is/5": {0, 0}, "s2/wis/5": {1, -1}, "s3/cwpdis/5": {3, 1}})
	return []string{a, b}
}

func TestHandComputed(t *testing.T) {
	runs, err := Read(handRuns(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compute(runs, Options{Replicates: 200})
	if err != nil {
		t.Fatal(err)
	}
	if b.Cells != 3 || b.Single != 1 || len(b.Alone) != 1 || b.Alone[0] != "cwpdis" {
		t.Errorf("cells %d, single %d, alone %v; want 3, 1, [cwpdis]", b.Cells, b.Single, b.Alone)
	}
	inf := math.Inf(1)
	want := []Entry{
		{Estimator: "is", Cells: 3, GeoMean: math.Cbrt(2), Worst: 2, WorstCell: Cell{"a", "s1", 10}, MeanRank: 1.5, Share: 2.0 / 3},
		{Estimator: "wis", Cells: 3, Infinite: 1, GeoMean: 2, Worst: inf, WorstCell: Cell{"b", "s2", 5}, MeanRank: 2, Share: 1.0 / 3},
		{Estimator: "pdis", Cells: 2, GeoMean: 2, Worst: 2, WorstCell: Cell{"a", "s1", 5}, MeanRank: 2.25, Share: 0},
	}
	if len(b.Entries) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(b.Entries), len(want), b.Entries)
	}
	for i, w := range want {
		g := b.Entries[i]
		if g.Estimator != w.Estimator || g.Cells != w.Cells || g.Infinite != w.Infinite || g.WorstCell != w.WorstCell ||
			math.Abs(g.GeoMean-w.GeoMean) > 1e-12 || g.Worst != w.Worst || math.Abs(g.MeanRank-w.MeanRank) > 1e-12 || math.Abs(g.Share-w.Share) > 1e-12 {
			t.Errorf("entry %d: %+v, want %+v", i, g, w)
		}
		if !(g.GeoLo <= g.GeoHi && g.WorstLo <= g.WorstHi) {
			t.Errorf("%s: intervals [%v, %v], [%v, %v] out of order", g.Estimator, g.GeoLo, g.GeoHi, g.WorstLo, g.WorstHi)
		}
	}
	// wis's worst cell has a best MSE of 0 whatever the resample (is is
	// exact on both trials): its worst ratio is +Inf in every replicate
	if e := b.Entries[1]; e.WorstLo != inf || e.WorstHi != inf {
		t.Errorf("wis: worst interval [%v, %v], want [+Inf, +Inf]", e.WorstLo, e.WorstHi)
	}
	md := string(b.Markdown())
	for _, s := range []string{"| is | 3 | 1.26 [", "| wis | 3 | 2 [", "+Inf [+Inf, +Inf] (b: s2, n = 5)", "| 1.5 | 0.667 |",
		"wis: ratio +Inf in 1 of its 3 cells", "Not ranked (never beside another estimator): cwpdis.", "1 cell with a single estimator"} {
		if !strings.Contains(md, s) {
			t.Errorf("PREFIX.md lacks %q:\n%s", s, md)
		}
	}
}

// TestReplicateOfEveryTrialIsThePoint: a replicate that draws every trial
// once (weights 1/T) recomputes curve.csv's MSEs, so its numbers are the
// point's.
func TestReplicateOfEveryTrialIsThePoint(t *testing.T) {
	runs, err := Read(handRuns(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	tb, _, _ := layout(runs)
	mse := make([]float64, len(tb.rowSq))
	for g, sq := range tb.rowSq {
		w := make([]float64, len(sq))
		for i := range w {
			w[i] = 1 / float64(len(sq))
		}
		mse[g] = dot(w, sq)
	}
	a := newAcc(len(tb.est))
	a.reset()
	a.score(tb.cells, tb.rowEst, mse)
	point := pointEntries(tb)
	for e := range tb.est {
		if point[e].Cells == 0 {
			continue
		}
		if g := a.geo(e); math.Abs(g-point[e].GeoMean) > 1e-12 || a.worst[e] != point[e].Worst {
			t.Errorf("%s: geo %v, worst %v; point %v, %v", tb.est[e], g, a.worst[e], point[e].GeoMean, point[e].Worst)
		}
	}
}

// committed are committed results with trials.csv, for determinism and
// speed.
var committed = []string{"../../results/fig3", "../../results/fig4", "../../results/baselines"}

// render computes the leaderboard of dirs and returns its files' bytes.
func render(t *testing.T, dirs []string, opt Options) []byte {
	t.Helper()
	runs, err := Read(dirs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compute(runs, opt)
	if err != nil {
		t.Fatal(err)
	}
	files, err := b.Files("lb")
	if err != nil {
		t.Fatal(err)
	}
	var all []byte
	for _, f := range files {
		all = append(append(all, f.Name...), f.Data...)
	}
	return all
}

// TestDeterministic: the same directories give the same bytes twice, with
// GOMAXPROCS 1 and 4, and with explicit worker counts.
func TestDeterministic(t *testing.T) {
	dirs := append(handRuns(t, t.TempDir()), committed...)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	one := render(t, dirs, Options{})
	if again := render(t, dirs, Options{}); !bytes.Equal(one, again) {
		t.Error("two computations differ")
	}
	runtime.GOMAXPROCS(4)
	if four := render(t, dirs, Options{}); !bytes.Equal(one, four) {
		t.Error("GOMAXPROCS 1 and 4 differ")
	}
	if w3 := render(t, dirs, Options{Workers: 3}); !bytes.Equal(one, w3) {
		t.Error("3 workers differ from GOMAXPROCS 1")
	}
}

// TestReplicateAllocatesNothing: the bootstrap's hot loop (a replicate:
// resampling, every MSE, every ratio) allocates nothing.
func TestReplicateAllocatesNothing(t *testing.T) {
	runs, err := Read(committed)
	if err != nil {
		t.Fatal(err)
	}
	tb, _, _ := layout(runs)
	rep := newReplicate(tb)
	b := 0
	if n := testing.AllocsPerRun(20, func() { rep.run(b); b++ }); n != 0 {
		t.Errorf("a replicate allocates %v times", n)
	}
}

// TestReplicateDrawsAsClaims: replicate b resamples run r's trials with
// the draws of the claims' bootstrap on stream b of the run's key.
func TestReplicateDrawsAsClaims(t *testing.T) {
	runs, err := Read(committed[:1])
	if err != nil {
		t.Fatal(err)
	}
	tb, _, _ := layout(runs)
	rep := newReplicate(tb)
	T := runs[0].Trials
	for _, b := range []int{0, 7, 1999} {
		rep.run(b)
		want := make([]int, T)
		rng := streams.New(tb.runKey[0], uint64(b))
		for range T {
			want[rng.IntN(T)]++
		}
		for i := range want {
			if rep.counts[i] != want[i] {
				t.Fatalf("replicate %d: counts %v, want %v", b, rep.counts[:T], want)
			}
		}
	}
}

// TestRuleStatesTheConstants: the help's rule names the seed and B the
// code uses.
func TestRuleStatesTheConstants(t *testing.T) {
	for _, s := range []string{fmt.Sprintf("%#x", Seed), "B = " + strconv.Itoa(Replicates), StreamName("") + `"`, strconv.FormatFloat(Within, 'g', -1, 64)} {
		if !strings.Contains(Rule, s) {
			t.Errorf("Rule lacks %q", s)
		}
	}
}

func TestTeXNumbers(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{1, "1.00"}, {1.2599, "1.26"}, {9.999, "10.0"}, {12.34, "12.3"}, {123.4, "123"}, {1234.5, "1230"}, {999.6, "1000"},
		{0.1234, "0.123"}, {0.001234, "0.00123"}, {0.0001234, `$1.23 \times 10^{-4}$`}, {12345, `$1.23 \times 10^{4}$`},
		{9.53e26, `$9.53 \times 10^{26}$`}, {0, "0"}, {math.Inf(1), `$\infty$`}, {math.NaN(), "--"}, {-2.5, "-2.50"},
	} {
		if got := tex(tc.x); got != tc.want {
			t.Errorf("tex(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
	if got := texEscape.Replace(`all[p_e=0.55]: 50% & $x {y} #1 ~^\`); got != `all[p\_e=0.55]: 50\% \& \$x \{y\} \#1 \~{}\^{}\textbackslash{}` {
		t.Errorf("escaped %q", got)
	}
}

// TestFiles: the .csv has one row per ranked estimator under a header of
// distinct names, with the numbers in full; the .tex is a booktabs
// tabular with escaped underscores.
func TestFiles(t *testing.T) {
	runs, err := Read(append(handRuns(t, t.TempDir()), committed...))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compute(runs, Options{Replicates: 100})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := b.CSV()
	recs, err := csv.NewReader(bytes.NewReader(c)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, h := range recs[0] {
		if seen[h] {
			t.Errorf("column %q twice", h)
		}
		seen[h] = true
	}
	if len(recs) != 1+len(b.Entries) {
		t.Errorf("%d rows, want %d", len(recs)-1, len(b.Entries))
	}
	if recs[1][0] != b.Entries[0].Estimator || recs[1][3] != resultsdir.FormatFloat(b.Entries[0].GeoMean) {
		t.Errorf("first row %v, want %s at %v", recs[1], b.Entries[0].Estimator, b.Entries[0].GeoMean)
	}
	tex := string(b.TeX())
	for _, s := range []string{`\toprule`, `\midrule`, `\bottomrule`, `\begin{tabular}`, `\texttt{incris}`, `\texttt{partitioned-pdis}`} {
		if !strings.Contains(tex, s) {
			t.Errorf("PREFIX.tex lacks %q", s)
		}
	}
	for _, line := range strings.Split(tex, "\n") {
		if !strings.HasPrefix(line, "%") && strings.Contains(strings.ReplaceAll(line, `\_`, ""), "_") {
			t.Errorf("unescaped underscore: %s", line)
		}
	}
}

// TestWriteAllOrNothing: the three files are written together; with
// PREFIX.csv taken by a directory none is written.
func TestWriteAllOrNothing(t *testing.T) {
	runs, err := Read(handRuns(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compute(runs, Options{Replicates: 50})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "new", "lb")
	if err := Write(prefix, b); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".md", ".csv", ".tex"} {
		if _, err := os.Stat(prefix + ext); err != nil {
			t.Error(err)
		}
	}
	blocked := filepath.Join(dir, "blocked")
	os.MkdirAll(blocked+".csv", 0o755)
	if err := Write(blocked, b); err == nil {
		t.Error("no error with PREFIX.csv a directory")
	}
	for _, ext := range []string{".md", ".tex"} {
		if _, err := os.Stat(blocked + ext); err == nil {
			t.Errorf("%s written although the set failed", ext)
		}
	}
}

// TestExactFloor: an MSE at or below (ExactRel |V|)^2 counts as 0. One
// cell (V = 2, floor (2e-12)^2 = 4e-24) where a model makes "m" exact to
// rounding (MSE 1e-30) and "p" has MSE 0.01, one cell where both are
// inexact (0.04 against 0.01): without the floor p's ratios would be 1e28
// and 4 (geometric mean 2e14); with it, the first cell gives m ratio 1
// (0/0) and p +Inf (counted, reported, out of the mean), so p's geometric
// mean is its finite ratio 4 and m's is sqrt(1 x 1) = 1 (the second cell:
// m 0.01 is best, ratio 1; p 0.04, ratio 4).
func TestExactFloor(t *testing.T) {
	rows := []resultsdir.Row{
		{Series: "s", Estimator: "m", N: 10, Trials: 1, TrueValue: 2, MSE: 1e-30},
		{Series: "s", Estimator: "p", N: 10, Trials: 1, TrueValue: 2, MSE: 0.01},
		{Series: "s", Estimator: "m", N: 20, Trials: 1, TrueValue: 2, MSE: 0.01},
		{Series: "s", Estimator: "p", N: 20, Trials: 1, TrueValue: 2, MSE: 0.04},
	}
	run := &Run{Dir: "r", Name: "r", Label: "r", Seed: 1, Trials: 1, Rows: rows, Sq: []float64{1e-30, 0.01, 0.01, 0.04}}
	b, err := Compute([]*Run{run}, Options{Replicates: 10, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Entry{}
	for _, e := range b.Entries {
		got[e.Estimator] = e
	}
	if m := got["m"]; m.GeoMean != 1 || m.Infinite != 0 || m.Cells != 2 {
		t.Errorf("m: %+v, want geometric mean 1 over 2 cells", m)
	}
	if p := got["p"]; p.GeoMean != 4 || p.Infinite != 1 || !math.IsInf(p.Worst, 1) {
		t.Errorf("p: %+v, want geometric mean 4, one +Inf cell (its worst)", p)
	}
}

// TestModelEntrants: an estimator over a model other than the default is
// an entry of its own, named with the model: a run whose series s1 reads
// the fitted model (the default) and s2 the exact one ranks wdr and
// wdr[exact] as two entries, dm and dm[exact] too (each in its own cell,
// s1 and s2 at n = 5 and 10).
func TestModelEntrants(t *testing.T) {
	cfg := "name: m\nseed: 1\ntrials: 2\nn: [5, 10]\nseries:\n" +
		"  - {name: s1, domain: chainmdp, params: {horizon: 2}, model: fitted, estimators: [dm, wdr]}\n" +
		"  - {name: s2, domain: chainmdp, params: {horizon: 2}, model: exact, estimators: [dm, wdr]}\n"
	runs, err := Read([]string{runTiny(t, t.TempDir(), "m", cfg)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compute(runs, Options{Replicates: 20})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range b.Entries {
		names = append(names, e.Estimator)
		if e.Cells != 2 {
			t.Errorf("%s: %d cells, want 2 (n = 5 and 10 of its own series)", e.Estimator, e.Cells)
		}
	}
	slices.Sort(names)
	if want := []string{"dm", "dm[exact]", "wdr", "wdr[exact]"}; !slices.Equal(names, want) {
		t.Errorf("entries %v, want %v", names, want)
	}
}
