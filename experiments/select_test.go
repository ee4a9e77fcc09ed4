package experiments

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/run"
	"github.com/ope-lab/longhorizon/experiments/selection"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/trajectory"
)

// selTiny is a selection config small enough for a test: two domains,
// one with a model and the t bound.
const selTiny = `name: seltiny
seed: 5
trials: 6
n: [20, 40]
delta: 0.025
series:
  - name: sub
    domain: subepisode
    params: {subepisodes: 5, p_e: [0.3, 0.5, 0.7, 0.9]}
    candidates: p_e
    bounds: [t]
    model: fitted-t
    estimators: [is, wis, dm, dr]
  - name: grid
    domain: gridworld
    params: {eps_e: [0.5, 0.3, 0.1]}
    candidates: eps_e
    estimators: [pdis, cwpdis]
selection:
  replicates: 200
  claims:
    - {name: c, metric: regret1, subject: sub/dm, versus: sub/is, relation: below}
`

func selPlan(t *testing.T) *config.Plan {
	t.Helper()
	p, err := config.Parse([]byte(selTiny), "seltiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSelectWorkers: the same config and seed give the same bytes in
// every file with 1 and 2 workers; coverage is n/a exactly for the
// estimators without the t bound.
func TestSelectWorkers(t *testing.T) {
	var outs [2]map[string][]byte
	for i, w := range []int{1, 2} {
		dir := filepath.Join(t.TempDir(), "out")
		if _, err := Select(context.Background(), selPlan(t), dir, Options{Workers: w}); err != nil {
			t.Fatalf("workers %d: %v", w, err)
		}
		outs[i] = map[string][]byte{}
		for _, name := range SelectFiles(selPlan(t)) {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			outs[i][name] = data
		}
	}
	for name, data := range outs[0] {
		if !bytes.Equal(data, outs[1][name]) {
			t.Errorf("%s differs between -workers 1 and 2", name)
		}
	}
	csv := string(outs[0]["selection.csv"])
	for _, want := range []string{"sub,wis,20,coverage,n/a,n/a,n/a", "grid,cwpdis,40,coverage,n/a,n/a,n/a"} {
		if !strings.Contains(csv, want) {
			t.Errorf("selection.csv has no line %q", want)
		}
	}
	for _, has := range []string{"sub,is,20,coverage,", "sub,dr,40,coverage,"} {
		if !strings.Contains(csv, has) || strings.Contains(csv, has+"n/a") {
			t.Errorf("selection.csv: %s... missing or n/a", has)
		}
	}
	// a header, then per series, n, estimator and metric: (4 + 2) x 2 x 4
	if got, want := strings.Count(csv, "\n"), 1+(4+2)*2*4; got != want {
		t.Errorf("selection.csv has %d lines, want %d", got, want)
	}
}

// TestCandidatesShareBehaviour: every candidate of a trial draws, from
// its unit's stream (run.Stream), the same behaviour columns bit for bit,
// and different ratios.
func TestCandidatesShareBehaviour(t *testing.T) {
	p := selPlan(t)
	for trial := range 2 {
		var first *trajectory.Batch
		for s := range p.Series {
			rs := &p.Series[s]
			if rs.Base != "sub" {
				continue
			}
			d, err := rs.Spec().New(rs.Params)
			if err != nil {
				t.Fatal(err)
			}
			b := &trajectory.Batch{}
			d.Collect(b, 40, run.Stream(p, run.Unit{Series: s, Trial: trial}))
			if first == nil {
				first = b
				continue
			}
			if diff := selection.BehaviourDiff(first, b); diff != "" {
				t.Errorf("trial %d, %s: behaviour differs from the first candidate's: %s", trial, rs.Name, diff)
			}
			if slices.Equal(first.Ratio, b.Ratio) {
				t.Errorf("trial %d, %s: the same ratios as the first candidate", trial, rs.Name)
			}
		}
	}
}

// TestSelectRefusesPlainSeries: a series without candidates is bad input
// naming it, and nothing is written.
func TestSelectRefusesPlainSeries(t *testing.T) {
	src := strings.Replace(selTiny, "    candidates: eps_e\n", "", 1)
	src = strings.Replace(src, "params: {eps_e: [0.5, 0.3, 0.1]}", "params: {eps_e: 0.1}", 1)
	p, err := config.Parse([]byte(src), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	_, err = Select(context.Background(), p, dir, Options{Workers: 1})
	if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "series grid has no candidates (series[].candidates)") {
		t.Fatalf("error %v, want bad input naming series grid", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s exists after a refused run", dir)
	}
}

// TestSelectInputTInterval: the interval SelectInput hands to package
// selection is the two-sided Student-t interval mean +- t_{0.975, n-1} s
// / sqrt(n) of is's per-trajectory terms W_H G (SPEC 1e), recomputed
// here from the unit's own data (its stream, the first n trajectories),
// and the estimate is their mean.
func TestSelectInputTInterval(t *testing.T) {
	p := selPlan(t)
	res, err := run.RunUnits(context.Background(), p, run.Units(p), run.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	truths := make([]domains.Truth, len(p.Series))
	for i := range truths {
		truths[i].Value = float64(i) // only the intervals are checked
	}
	in := SelectInput(p, truths, res)
	g := &in.Groups[0]
	if g.Name != "sub" || g.Estimators[0] != "is" || len(g.Values) != 4 || g.Lo[0][1] != nil {
		t.Fatalf("group %s %v %v: want sub, is first, 4 candidates, no interval for wis", g.Name, g.Estimators, g.Values)
	}
	for _, trial := range [][2]int{{0, 0}, {2, 3}, {3, 5}} {
		cand, tr := trial[0], trial[1]
		rs := &p.Series[cand]
		d, err := rs.Spec().New(rs.Params)
		if err != nil {
			t.Fatal(err)
		}
		var b trajectory.Batch
		d.Collect(&b, p.NMax(), run.Stream(p, run.Unit{Series: cand, Trial: tr}))
		for j, n := range p.N {
			x := make([]float64, n)
			for i := range n {
				w, g := 1.0, 0.0
				for k := b.Offsets[i]; k < b.Offsets[i+1]; k++ {
					w *= b.Ratio[k]
					g += b.Reward[k]
				}
				x[i] = w * g
			}
			m, s := stat.MeanStdDev(x, nil)
			q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
			lo, hi := m-q*s/math.Sqrt(float64(n)), m+q*s/math.Sqrt(float64(n))
			got := [3]float64{g.Est[cand][0][j][tr], g.Lo[cand][0][j][tr], g.Hi[cand][0][j][tr]}
			for k, want := range [3]float64{m, lo, hi} {
				if math.Abs(got[k]-want) > 1e-9*(1+math.Abs(want)) {
					t.Errorf("candidate %d, trial %d, n = %d: (estimate, lo, hi) = %v, want (%v, %v, %v)", cand, tr, n, got, m, lo, hi)
					break
				}
			}
		}
	}
}
