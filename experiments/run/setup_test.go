package run

import (
	"math"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments/config"
)

// TestOptionalDataRecorded: an estimator that Uses ids and probabilities
// without needing them (adaptive) gets them from every domain that can
// supply them, read from its registry entry: its version diagnostic is 3
// at every n >= 4 and 2 at n < 4 on randommdp, chainmdp and the
// sub-episode MDP, and 2 at every n on options data (optionschain, no
// ids), while the estimates of the estimators that use nothing are those
// of a series without adaptive (recording draws no random number).
func TestOptionalDataRecorded(t *testing.T) {
	p, err := config.Parse([]byte(`name: optional
trials: 3
n: [3, 4, 20]
series:
  - name: random
    domain: randommdp
    estimators: [wis, cwpdis, adaptive]
  - name: chain
    domain: chainmdp
    params: {p_e: 0.9}
    estimators: [wis, cwpdis, adaptive]
  - name: sub
    domain: subepisode
    params: {subepisodes: 4}
    estimators: [wis, cwpdis, adaptive]
  - name: options
    domain: optionschain
    estimators: [wis, cwpdis, adaptive]
  - name: random-plain
    domain: randommdp
    estimators: [wis, cwpdis]
`), "optional.yaml")
	if err != nil {
		t.Fatal(err)
	}
	info, _ := estimators.Lookup("adaptive")
	version := -1
	for d, diag := range info.Diagnostics {
		if diag.Name == "adaptive_version" {
			version = d
		}
	}
	if version < 0 || info.Uses&(estimators.IDs|estimators.Probs) != estimators.IDs|estimators.Probs || info.Needs != 0 {
		t.Fatalf("adaptive's entry: Uses %v, Needs %v, diagnostics %v", info.Uses, info.Needs, info.Diagnostics)
	}
	res := runAll(t, p, 2)
	want := map[string][]float64{"random": {2, 3, 3}, "chain": {2, 3, 3}, "sub": {2, 3, 3}, "options": {2, 2, 2}}
	for _, r := range res {
		name := p.Series[r.Series].Name
		w, ok := want[name]
		if !ok {
			continue
		}
		for j, v := range w {
			got := r.Diagnostics[2][version][j]
			if len(got) != 1 || got[0] != v {
				t.Errorf("series %s, trial %d, n = %d: adaptive_version %v, want %v", name, r.Trial, p.N[j], got, v)
			}
		}
	}
	// the first series' wis and cwpdis equal those of the series without
	// adaptive, trial by trial (the same stream: the series' name differs,
	// so compare through a plan whose only series is renamed)
	q := *p
	q.Series = []config.Series{p.Series[4]}
	q.Series[0].Name = "random"
	plain := runAll(t, &q, 1)
	for _, r := range res {
		if r.Series != 0 {
			continue
		}
		for e := range 2 {
			for j := range p.N {
				a, b := r.Estimates[e][j], plain[r.Trial].Estimates[e][j]
				if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
					t.Errorf("trial %d, estimator %d, n = %d: %v with adaptive recording ids, %v without", r.Trial, e, p.N[j], a, b)
				}
			}
		}
	}
}
