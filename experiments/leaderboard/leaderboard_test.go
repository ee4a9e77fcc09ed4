package leaderboard

import (
	"bytes"
	"context"
	"encoding/csv"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/internal/inputerr"
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
	if _, err := experiments.Run(context.Background(), p, out, experiments.Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	return out
}

// mse is one hand-made curve row: series, estimator, n and MSE, of true
// value 1 (so the exactness floor, 1e-24, is far below every MSE).
type mse struct {
	series, est string
	n           int
	v           float64
}

// synthetic returns a run labelled label of the rows, whose series map to
// the domains given (series -> domain key) and models (series -> kind).
func synthetic(label string, domains, models map[string]string, rows ...mse) *Run {
	r := &Run{Dir: label, Name: label, Label: label, Trials: 1, Domains: domains, Models: models}
	if r.Models == nil {
		r.Models = map[string]string{}
	}
	for _, m := range rows {
		r.Rows = append(r.Rows, resultsdir.Row{Series: m.series, Estimator: m.est, N: m.n, Trials: 1, TrueValue: 1, MSE: m.v})
		r.Sq = append(r.Sq, m.v)
	}
	return r
}

// handRuns are two runs made by hand, x and y two feasible estimators,
// incris-oracle a reference (its registry entry needs exact moments), the
// baseline cwpdis of MSE 1 everywhere:
//
//	run a, n = 10 and 20; series s1, s2, s3, s4 on domains D1 .. D4, and
//	s1x on D1 too, whose model is exact (only wdr, so wdr[exact]):
//	  s1: x 0.1, 0.01   y 10, 1       oracle 0.5, 0.5
//	  s2: x 1, 1        y 0.1, 0.1    oracle 0.5, 0.5
//	  s3: x 0.1, 0.1    y 100, 100    oracle 0.5, 0.5
//	  s4: x 1, 1        z 1, 1        (no y: another design)
//	  s1x: wdr[exact] 0.001, 0.001
//	run b, n = 10; series t1 on D1 (the same domain, another run):
//	  t1: x 0.001       y 10
//
// Designs (the feasible entries of a cell with cwpdis): {cwpdis, x, y}
// (s1, s2, s3, t1) and {cwpdis, x, z} (s4: one domain, left out). The
// comparison {cwpdis, x, y} has the 7 cells of D1 (a at 10, 20; b at 10),
// D2 and D3 (2 each); scores, the mean over a domain's cells of
// log10(MSE / 1):
//
//	D1: x (-1 - 2 - 3)/3 = -2    y (1 + 0 + 1)/3 = 2/3   cwpdis 0
//	D2: x 0                      y -1                    cwpdis 0
//	D3: x -1                     y 2                     cwpdis 0
//
// Ranks: D1 x 1, cwpdis 2, y 3; D2 y 1, x and cwpdis 2.5; D3 x 1, cwpdis
// 2, y 3. Average ranks: x (1 + 2.5 + 1)/3 = 3/2, cwpdis (2 + 2.5 + 2)/3
// = 13/6, y (3 + 1 + 3)/3 = 7/3. Friedman: sum R^2 = 81/36 + 169/36 +
// 196/36 = 446/36, minus k(k+1)^2/4 = 12 = 432/36, leaves 14/36 = 7/18;
// chi^2_F = 12 x 3 / (3 x 4) x 7/18 = 7/6. CD = 2.343 sqrt(3 x 4 / 18) =
// 1.913: one group of all three.
//
// x: scores -2, 0, -1: mean -1, sd 1, 95% t interval -1 ± 4.302653 /
// sqrt(3) = [-3.484138, 1.484138], better than cwpdis on 2 domains. y:
// mean (2/3 - 1 + 2)/3 = 5/9, better on 1. The oracle ran in every cell
// of D1's run a but not in run b's: it is in no comparison (it is not
// ranked anyway); wdr[exact] neither (D1 alone).
func handRuns() []*Run {
	doms := map[string]string{"s1": "D1", "s2": "D2", "s3": "D3", "s4": "D4", "s1x": "D1"}
	var rows []mse
	add := func(s, e string, v10, v20 float64) {
		rows = append(rows, mse{s, e, 10, v10}, mse{s, e, 20, v20})
	}
	for _, s := range []string{"s1", "s2", "s3", "s4"} {
		add(s, "cwpdis", 1, 1)
	}
	add("s1", "x", 0.1, 0.01)
	add("s1", "y", 10, 1)
	add("s2", "x", 1, 1)
	add("s2", "y", 0.1, 0.1)
	add("s3", "x", 0.1, 0.1)
	add("s3", "y", 100, 100)
	add("s4", "x", 1, 1)
	add("s4", "z", 1, 1)
	for _, s := range []string{"s1", "s2", "s3"} {
		add(s, "incris-oracle", 0.5, 0.5)
	}
	add("s1x", "wdr", 0.001, 0.001)
	a := synthetic("a", doms, map[string]string{"s1x": "exact"}, rows...)
	b := synthetic("b", map[string]string{"t1": "D1"}, nil,
		mse{"t1", "cwpdis", 10, 1}, mse{"t1", "x", 10, 0.001}, mse{"t1", "y", 10, 10})
	return []*Run{a, b}
}

func TestHandComputed(t *testing.T) {
	b, err := Compute(handRuns(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Comparisons) != 1 {
		t.Fatalf("%d comparisons, want 1: %+v", len(b.Comparisons), b.Comparisons)
	}
	c := b.Comparisons[0]
	if len(c.Domains) != 3 || c.Cells != 7 || c.Domains[0].Label != "a: s1" || !slices.Equal(c.Domains[0].Also, []string{"b: t1"}) || c.Domains[0].Cells != 3 {
		t.Errorf("domains %+v, %d cells; want D1 (a: s1, also b: t1; 3 cells), D2, D3: 7 cells", c.Domains, c.Cells)
	}
	want := []Entry{
		{Estimator: "x", Mean: -1, Lo: -1 - 2.484138, Hi: -1 + 2.484138, SD: 1, Better: 2, MeanRank: 1.5},
		{Estimator: "cwpdis", Mean: 0, Lo: 0, Hi: 0, SD: 0, Better: 0, MeanRank: 13.0 / 6},
		{Estimator: "y", Mean: 5.0 / 9, Better: 1, MeanRank: 7.0 / 3},
	}
	if len(c.Entries) != len(want) {
		t.Fatalf("entries %+v, want %+v", c.Entries, want)
	}
	for i, w := range want {
		g := c.Entries[i]
		near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
		if g.Estimator != w.Estimator || g.Better != w.Better || !near(g.Mean, w.Mean) || !near(g.MeanRank, w.MeanRank) ||
			(w.Estimator != "y" && (!near(g.Lo, w.Lo) || !near(g.Hi, w.Hi) || !near(g.SD, w.SD))) {
			t.Errorf("entry %d: %+v, want %+v", i, g, w)
		}
	}
	if math.Abs(c.Chi2-7.0/6) > 1e-12 || math.Abs(c.CD-2.343*math.Sqrt(12.0/18)) > 1e-12 || len(c.Groups) != 1 || c.Groups[0] != [2]int{0, 2} {
		t.Errorf("chi2 %v (want 7/6), CD %v (want 1.913), groups %v (want [0 2])", c.Chi2, c.CD, c.Groups)
	}
	if len(c.References) != 0 {
		t.Errorf("references %+v: the oracle did not run in b's cell", c.References)
	}
	if len(b.LeftOut) != 1 || b.LeftOut[0].Domains != 1 || !slices.Equal(b.LeftOut[0].Entries, []string{"cwpdis", "x", "z"}) {
		t.Errorf("left out %+v, want {cwpdis, x, z} over 1 domain", b.LeftOut)
	}
	if !slices.Equal(b.Unplaced, []string{"z", "incris-oracle", "wdr[exact]"}) {
		t.Errorf("unplaced %v, want [z incris-oracle wdr[exact]]", b.Unplaced)
	}
	if b.NoBaseline != 0 { // s1x's cells are s1's, with cwpdis
		t.Errorf("%d cells without the baseline, want 0", b.NoBaseline)
	}
}

// TestReferencesListedApart: without run b, the oracle ran in every cell
// of the comparison (D1, D2, D3 of run a): listed as a reference with its
// scores, log10 0.5 = -0.30103 on every domain (sd 0), never ranked; the
// ranked entries are the same three.
func TestReferencesListedApart(t *testing.T) {
	b, err := Compute(handRuns()[:1], Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := b.Comparisons[0]
	if len(c.Entries) != 3 || len(c.References) != 1 {
		t.Fatalf("entries %+v, references %+v", c.Entries, c.References)
	}
	r := c.References[0]
	if r.Estimator != "incris-oracle" || !r.Reference || !math.IsNaN(r.MeanRank) || math.Abs(r.Mean-math.Log10(0.5)) > 1e-12 || r.SD != 0 || r.Better != 3 {
		t.Errorf("reference %+v, want incris-oracle at log10 0.5 on 3 domains, no rank", r)
	}
	for _, e := range c.Entries {
		if e.Reference || e.Estimator == "incris-oracle" {
			t.Errorf("ranked %+v", e)
		}
	}
	md := string(b.Markdown())
	for _, s := range []string{"References, not ranked:", "| incris-oracle | - | -0.301 [-0.301, -0.301] | 0.5 | 3/3 |", "| x | 1.5 |", "| cwpdis | 2.17 | 0 [0, 0] | 1 | (baseline) |"} {
		if !strings.Contains(md, s) {
			t.Errorf("PREFIX.md lacks %q:\n%s", s, md)
		}
	}
}

// TestCommonCells: a comparison ranks only on cells where all its entries
// ran. Naming x and z (-compare) gives the one cell set where both ran,
// s4 (one domain: left out); naming x alone gives every cell of x with
// cwpdis: D1 .. D4 (4 domains, 9 cells), x scoring 0 on D4.
func TestCommonCells(t *testing.T) {
	b, err := Compute(handRuns(), Options{Compare: [][]string{{"x", "z"}, {"x"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.LeftOut) != 1 || b.LeftOut[0].Domains != 1 {
		t.Errorf("left out %+v, want {cwpdis, x, z} over 1 domain", b.LeftOut)
	}
	if len(b.Comparisons) != 1 {
		t.Fatalf("comparisons %+v", b.Comparisons)
	}
	c := b.Comparisons[0]
	if len(c.Domains) != 4 || c.Cells != 9 {
		t.Errorf("%d domains, %d cells; want 4, 9", len(c.Domains), c.Cells)
	}
	// x: -2, 0, -1, 0: mean -3/4
	if x := c.Entries[0]; x.Estimator != "x" || math.Abs(x.Mean+0.75) > 1e-12 {
		t.Errorf("first entry %+v, want x at -0.75", x)
	}
}

// TestBadOptions: a baseline no row has, a reference as the baseline, and
// -compare naming an unknown entry, a reference or nothing but the
// baseline are bad input.
func TestBadOptions(t *testing.T) {
	for _, tc := range []struct {
		opt  Options
		want string
	}{
		{Options{Baseline: "cwpids"}, `"cwpids"`},
		{Options{Baseline: "incris-oracle"}, "reference"},
		{Options{Compare: [][]string{{"x", "nope"}}}, `"nope"`},
		{Options{Compare: [][]string{{"wdr[exact]"}}}, "reference"},
		{Options{Compare: [][]string{{"cwpdis"}}}, "beside the baseline"},
	} {
		_, err := Compute(handRuns(), tc.opt)
		if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want bad input naming %s", tc.opt, err, tc.want)
		}
	}
}

// TestBaselineFlag: with -baseline x the scores are relative to x, and
// the ranks do not move (they depend on the MSEs alone): x scores 0, and
// cwpdis its negation (2, 0, 1: mean 1).
func TestBaselineFlag(t *testing.T) {
	one, _ := Compute(handRuns(), Options{})
	two, err := Compute(handRuns(), Options{Baseline: "x"})
	if err != nil {
		t.Fatal(err)
	}
	a, b := one.Comparisons[0], two.Comparisons[0]
	for i := range a.Entries {
		if a.Entries[i].Estimator != b.Entries[i].Estimator || a.Entries[i].MeanRank != b.Entries[i].MeanRank {
			t.Errorf("rank %d: %+v with cwpdis, %+v with x", i, a.Entries[i], b.Entries[i])
		}
	}
	if x, c := b.Entries[0], b.Entries[1]; x.Mean != 0 || math.Abs(c.Mean-1) > 1e-12 {
		t.Errorf("x %v (want 0), cwpdis %v (want 1)", x.Mean, c.Mean)
	}
}

// TestEntrantsAndReferences: names and references come from the
// registries: incris-oracle needs exact moments; wdr over the exact
// model reads the domain's exact q; dm over fqe is an entry of its own,
// feasible; adaptive over exact fits its default model (it reads no
// columns): plain adaptive; is ignores any model; an estimator the
// registry does not know (an external one) counts as reading the model.
func TestEntrantsAndReferences(t *testing.T) {
	r := synthetic("r", nil, map[string]string{"e": "exact", "f": "fqe"},
		mse{"p", "incris-oracle", 10, 1}, mse{"e", "wdr", 10, 1}, mse{"f", "dm", 10, 1},
		mse{"e", "adaptive", 10, 1}, mse{"e", "is", 10, 1}, mse{"e", "mine", 10, 1}, mse{"f", "adaptive", 10, 1})
	want := []struct {
		name string
		ref  bool
	}{{"incris-oracle", true}, {"wdr[exact]", true}, {"dm[fqe]", false}, {"adaptive", false}, {"is", false}, {"mine[exact]", true}, {"adaptive[fqe]", false}}
	for k, w := range want {
		if got, ref := r.Entrant(k), r.Reference(k); got != w.name || ref != w.ref {
			t.Errorf("row %d: %s (reference %v), want %s (%v)", k, got, ref, w.name, w.ref)
		}
	}
}

// TestDomainsMerge: read from real runs, two series of a run on the same
// domain and parameters are one domain whatever their models (chain s1
// fitted with cwpdis, dm and wdr; s2 exact with wdr), and so are the same
// domain in another run; other parameters are another domain.
func TestDomainsMerge(t *testing.T) {
	dir := t.TempDir()
	a := runTiny(t, dir, "a", "name: a\nseed: 1\ntrials: 2\nn: [5, 10]\nseries:\n"+
		"  - {name: s1, domain: chainmdp, params: {horizon: 2}, model: fitted, estimators: [cwpdis, dm, wdr]}\n"+
		"  - {name: s2, domain: chainmdp, params: {horizon: 2}, model: exact, estimators: [wdr]}\n"+
		"  - {name: s3, domain: chainmdp, params: {horizon: 3}, estimators: [cwpdis, wis]}\n")
	b := runTiny(t, dir, "b", "name: b\nseed: 2\ntrials: 2\nn: [5]\nseries:\n"+
		"  - {name: t1, domain: chainmdp, params: {horizon: 2}, estimators: [cwpdis, wis]}\n"+
		"  - {name: t2, domain: chainmdp, params: {horizon: 3}, estimators: [cwpdis, wis]}\n")
	runs, err := Read([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	da, db := runs[0].Domains, runs[1].Domains
	if da["s1"] != da["s2"] || da["s1"] != db["t1"] || da["s1"] == da["s3"] || da["s3"] != db["t2"] {
		t.Errorf("domains %v and %v: want s1 = s2 = t1 != s3 = t2", da, db)
	}
	g := layout(runs)
	if g.nDom != 2 || len(g.cells) != 6 { // a: s1+s2 at 5, 10; s3 at 5, 10; b: t1, t2 at 5
		t.Errorf("%d domains, %d cells; want 2, 6", g.nDom, len(g.cells))
	}
	if e := slices.Index(g.names, "wdr[exact]"); e < 0 || !g.ref[e] {
		t.Errorf("entries %v (references %v): want wdr[exact], a reference", g.names, g.ref)
	}
}

// TestOneEntryTwiceSplits: two series of one domain holding the same
// entry stay two domains (a cell holds one MSE per entry).
func TestOneEntryTwiceSplits(t *testing.T) {
	r := synthetic("r", map[string]string{"u": "D", "v": "D"}, nil,
		mse{"u", "cwpdis", 10, 1}, mse{"u", "x", 10, 1}, mse{"v", "cwpdis", 10, 1}, mse{"v", "x", 10, 2})
	if g := layout([]*Run{r}); g.nDom != 2 || len(g.cells) != 2 {
		t.Errorf("%d domains, %d cells; want 2, 2", g.nDom, len(g.cells))
	}
}

// TestExactFloor: an MSE below (ExactRel |V|)^2 is raised to it: with V =
// 2 (floor 4e-24), an MSE of 1e-30 against the baseline's 4e-2 scores
// log10(4e-24 / 4e-2) = -22, not -28.6.
func TestExactFloor(t *testing.T) {
	r := synthetic("r", map[string]string{"s": "D1", "t": "D2", "u": "D3"}, nil)
	for _, s := range []string{"s", "t", "u"} {
		r.Rows = append(r.Rows, resultsdir.Row{Series: s, Estimator: "cwpdis", N: 1, TrueValue: 2, MSE: 0.04},
			resultsdir.Row{Series: s, Estimator: "m", N: 1, TrueValue: 2, MSE: 1e-30})
	}
	b, err := Compute([]*Run{r}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := b.Comparisons[0].Entries[0]; m.Estimator != "m" || math.Abs(m.Mean+22) > 1e-9 {
		t.Errorf("%+v, want m at -22", m)
	}
}

// committed are committed results with trials.csv, for determinism and
// speed.
var committed = []string{"../../results/fig4", "../../results/beyond", "../../results/regimes", "../../results/suite"}

// render computes the leaderboard of dirs and returns its files' bytes.
func render(t *testing.T, dirs []string) []byte {
	t.Helper()
	runs, err := Read(dirs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compute(runs, Options{})
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

// TestDeterministic: the same directories give the same bytes twice, and
// with GOMAXPROCS 1 and 4.
func TestDeterministic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	one := render(t, committed)
	if again := render(t, committed); !bytes.Equal(one, again) {
		t.Error("two computations differ")
	}
	runtime.GOMAXPROCS(4)
	if four := render(t, committed); !bytes.Equal(one, four) {
		t.Error("GOMAXPROCS 1 and 4 differ")
	}
}

// TestRuleStatesTheConstants: the help's rule names the numbers the code
// uses.
func TestRuleStatesTheConstants(t *testing.T) {
	for _, s := range []string{"default " + DefaultBaseline, "fewer than 3", "(1e-12 |V(pi_e)|)^2", "t_{0.975, N-1}", "k <= 10"} {
		if !strings.Contains(Rule, s) {
			t.Errorf("Rule lacks %q", s)
		}
	}
	if MinDomains != 3 || ExactRel != 1e-12 || Alpha != 0.05 || len(nemenyiQ) != 11 {
		t.Error("Rule states 3 domains, 1e-12, 5% and a table to k = 10: change it with the constants")
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

// TestFiles: the .csv has one row per entry of every comparison under a
// header of distinct names, the numbers in full; the .tex a booktabs
// tabular per comparison with escaped underscores; the .png decodes.
func TestFiles(t *testing.T) {
	runs, err := Read(committed)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compute(runs, Options{})
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
	rows := 0
	for _, cmp := range b.Comparisons {
		rows += len(cmp.Entries) + len(cmp.References)
	}
	if len(recs) != 1+rows {
		t.Errorf("%d rows, want %d", len(recs)-1, rows)
	}
	first := b.Comparisons[0].Entries[0]
	if recs[1][3] != first.Estimator || recs[1][6] != csvFloat(first.Mean) {
		t.Errorf("first row %v, want %s at %v", recs[1], first.Estimator, first.Mean)
	}
	tex := string(b.TeX())
	if n := strings.Count(tex, `\begin{tabular}`); n != len(b.Comparisons) {
		t.Errorf("%d tabulars, want %d", n, len(b.Comparisons))
	}
	for _, s := range []string{`\toprule`, `\midrule`, `\bottomrule`, `\texttt{incris}`, `\texttt{partitioned-pdis}`, `\emph{References, not ranked}`} {
		if !strings.Contains(tex, s) {
			t.Errorf("PREFIX.tex lacks %q", s)
		}
	}
	for _, line := range strings.Split(tex, "\n") {
		if !strings.HasPrefix(line, "%") && strings.Contains(strings.NewReplacer(`\_`, "", `\log_{10}`, "").Replace(line), "_") {
			t.Errorf("unescaped underscore: %s", line)
		}
	}
	pngData, svgData, err := b.Figure()
	if err != nil {
		t.Fatal(err)
	}
	// The caption says what the numbers, the colour and the bars are.
	for _, s := range []string{"average rank over the domains", "the baseline, " + b.Baseline, "Thick bars join", "(alpha = 0.05)"} {
		if !bytes.Contains(svgData, []byte(s)) {
			t.Errorf("the figure's caption lacks %q", s)
		}
	}
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		t.Fatal(err)
	}
	if w := img.Bounds().Dx(); w != 9*cdDPI {
		t.Errorf("PNG %d pixels wide, want 9 in at %d dpi", w, cdDPI)
	}
}

// TestWriteAllOrNothing: the five files are written together; with
// PREFIX.csv taken by a directory none is written.
func TestWriteAllOrNothing(t *testing.T) {
	b, err := Compute(handRuns(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "new", "lb")
	if err := Write(prefix, b); err != nil {
		t.Fatal(err)
	}
	exts := []string{".md", ".csv", ".tex", ".png", ".svg"}
	for _, ext := range exts {
		if _, err := os.Stat(prefix + ext); err != nil {
			t.Error(err)
		}
	}
	blocked := filepath.Join(dir, "blocked")
	os.MkdirAll(blocked+".csv", 0o755)
	if err := Write(blocked, b); err == nil {
		t.Error("no error with PREFIX.csv a directory")
	}
	for _, ext := range exts {
		if _, err := os.Stat(blocked + ext); err == nil && ext != ".csv" {
			t.Errorf("%s written although the set failed", ext)
		}
	}
}

// BenchmarkCompute: the leaderboard of every committed run that has
// trials.csv, read once (Compute and the five files rendered per
// iteration; `make leaderboard` adds the strict reading).
func BenchmarkCompute(b *testing.B) {
	var dirs []string
	for _, r := range []string{"fig2", "fig3", "fig4", "beyond", "baselines", "bounds", "suite", "regimes", "long", "horizon", "benchsuite"} {
		dirs = append(dirs, "../../results/"+r)
	}
	runs, err := Read(dirs)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("runs=11", func(b *testing.B) {
		for b.Loop() {
			board, err := Compute(runs, Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := board.Files("lb"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
