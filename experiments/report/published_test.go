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

// publishedPlan is a plan of one chain series with estimators is and wis
// at n = 5, 40 trials in 4 replicates of 10 seeds (below the minimum of
// 40 replicates a config may ask for: the plan is built by hand), and
// two published cells.
func publishedPlan() *config.Plan {
	return &config.Plan{Name: "p", Title: "P", Trials: 40, N: []int{5},
		Series: []config.Series{{Name: "chain", Estimators: []string{"is", "wis"}}},
		Published: &config.Published{Source: "paper2021", Seeds: 10, Captions: map[string]string{"1": "chain"}, Cells: []config.PublishedCell{
			{Table: "1", Row: "IS", Column: "Standard", Value: 0.3, Subject: "chain/is"},
			{Table: "1", Row: "WIS", Column: "Standard", Value: 5, Subject: "chain/wis"},
		}}}
}

// TestPublishedHandCase checks the replicates' relative MSE, its
// quantiles and the published value's percentile on hand-made
// estimates with V = 2.
func TestPublishedHandCase(t *testing.T) {
	p := publishedPlan()
	// is: replicate k has every estimate 2 + 2 sqrt(k/10)... simpler:
	// replicate k's 10 estimates are all 2 (1 + d_k), d = 0, 0.5, 1, 2,
	// so its relative MSE is d_k^2 = 0, 0.25, 1, 4.
	// wis: trial 0 of replicate 0 is NaN: relative MSE +Inf there; the
	// others are all exact (0).
	d := []float64{0, 0.5, 1, 2}
	var results []unit.Result
	for tr := range p.Trials {
		k := tr / 10
		wis := 2.0
		if tr == 0 {
			wis = math.NaN()
		}
		results = append(results, unit.Result{Series: 0, Trial: tr, Estimates: [][]float64{{2 * (1 + d[k])}, {wis}}})
	}
	rows, err := Published(p, results, []domains.Truth{{Value: 2}})
	if err != nil {
		t.Fatal(err)
	}
	// is: sorted replicates 0, 0.25, 1, 4. Type-7 quantiles: h = 3q.
	// median: h = 1.5: 0.25 + 0.5 (1 - 0.25) = 0.625; 2.5%: h = 0.075:
	// 0 + 0.075 (0.25) = 0.01875; 97.5%: h = 2.925: 1 + 0.925 (4 - 1) =
	// 3.775. Published 0.3: 2 of 4 replicates below: 50%.
	// wis: sorted 0, 0, 0, +Inf: median 0; 2.5% 0; 97.5%: h = 2.925
	// between 0 and +Inf: +Inf. Published 5: 3 of 4 below: 75%.
	want := []resultsdir.PublishedRow{
		{Source: "paper2021", Table: "1", Row: "IS", Column: "Standard", Published: 0.3, Median: 0.625, Lo: 0.01875, Hi: 3.775, Percentile: 50},
		{Source: "paper2021", Table: "1", Row: "WIS", Column: "Standard", Published: 5, Median: 0, Lo: 0, Hi: math.Inf(1), Percentile: 75},
	}
	for i := range want {
		g, w := rows[i], want[i]
		close := func(a, b float64) bool { return a == b || math.Abs(a-b) <= 1e-12*math.Abs(b) }
		if g.Source != w.Source || g.Row != w.Row || !close(g.Median, w.Median) || !close(g.Lo, w.Lo) || !close(g.Hi, w.Hi) || g.Percentile != w.Percentile {
			t.Errorf("row %d: got %+v, want %+v", i, g, w)
		}
	}
	if !rows[0].Inside() || !rows[1].Inside() {
		t.Errorf("both published values lie in their bands: %+v", rows)
	}

	// The files: published.csv reads back and checks against the plan;
	// the markdown marks nothing outside and states the band's count.
	var csvBuf, md, tex bytes.Buffer
	if err := resultsdir.WritePublishedCSV(&csvBuf, rows); err != nil {
		t.Fatal(err)
	}
	back, err := resultsdir.ReadPublishedCSV(bytes.NewReader(csvBuf.Bytes()), "published.csv")
	if err != nil {
		t.Fatal(err)
	}
	if err := resultsdir.CheckPublished("published.csv", p, back); err != nil {
		t.Fatal(err)
	}
	if err := writePublishedMD(&md, p, rows); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"2 of 2 published values inside", "| IS | 3.0E-1 vs 6.2E-1 [1.9E-2, 3.8E0] (50.0%) |", "| WIS | 5.0E0 vs 0 [0, inf] (75.0%) |"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("published.md lacks %q:\n%s", s, md.String())
		}
	}
	if err := writePublishedTeX(&tex, p, rows); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`\toprule`, `\bottomrule`, `{\scriptsize 0 [0, $\infty$]}`, `2.5\%`} {
		if !strings.Contains(tex.String(), s) {
			t.Errorf("published.tex lacks %q:\n%s", s, tex.String())
		}
	}
}

// TestPublishedOutside checks that a published value outside the band is
// marked in the markdown and the LaTeX table.
func TestPublishedOutside(t *testing.T) {
	p := publishedPlan()
	rows := []resultsdir.PublishedRow{
		{Source: "paper2021", Table: "1", Row: "IS", Column: "Standard", Published: 0.3, Median: 1, Lo: 0.5, Hi: 2, Percentile: 0},
		{Source: "paper2021", Table: "1", Row: "WIS", Column: "Standard", Published: 5, Median: 1, Lo: 0.5, Hi: 6, Percentile: 90},
	}
	var md, tex bytes.Buffer
	if err := writePublishedMD(&md, p, rows); err != nil {
		t.Fatal(err)
	}
	if err := writePublishedTeX(&tex, p, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "1 of 2 published values inside") || strings.Count(md.String(), "**outside** |") != 1 {
		t.Errorf("published.md:\n%s", md.String())
	}
	if !strings.Contains(tex.String(), `3.0E-1$^\dagger$`) || strings.Count(tex.String(), `$^\dagger$`) != 2 { // the mark and the caption's key
		t.Errorf("published.tex:\n%s", tex.String())
	}
}

// TestPublishedUndefined refuses a relative MSE at V(pi_e) = 0.
func TestPublishedUndefined(t *testing.T) {
	p := publishedPlan()
	var results []unit.Result
	for tr := range p.Trials {
		results = append(results, unit.Result{Trial: tr, Estimates: [][]float64{{1}, {1}}})
	}
	_, err := Published(p, results, []domains.Truth{{Value: 0}})
	if err == nil || !strings.Contains(err.Error(), "relative MSE is undefined") {
		t.Fatalf("got %v, want an error naming the undefined relative MSE", err)
	}
}

func TestSci(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{{5.6e-4, "5.6E-4"}, {1, "1.0E0"}, {0.0123, "1.2E-2"}, {0, "0"}, {math.Inf(1), "inf"}, {12345, "1.2E4"}} {
		if got := sci(c.x); got != c.want {
			t.Errorf("sci(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}
