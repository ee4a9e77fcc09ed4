package config

import (
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// selBase is a valid selection config; the cases below replace one line.
const selBase = `name: sel
trials: 4
n: [20]
series:
  - name: sub
    domain: subepisode
    params: {p_e: [0.5, 0.7]}
    candidates: p_e
    estimators: [is, wis]
selection:
  claims:
    - {name: c, metric: spearman, subject: sub/wis, versus: sub/is, relation: above}
`

func TestCandidatesHostile(t *testing.T) {
	if p, err := Parse([]byte(selBase), "sel.yaml"); err != nil {
		t.Fatalf("the base config: %v", err)
	} else if p.Series[0].Candidates != "p_e" || p.Series[1].Base != "sub" || p.Selection.Claims[0].N != 20 || p.Selection.Replicates != DefaultReplicates {
		t.Fatalf("the base config resolved to %+v", p)
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"behaviour parameter", "params: {p_e: [0.5, 0.7]}\n    candidates: p_e", "params: {p_b: [0.5, 0.7]}\n    candidates: p_b",
			`sel.yaml:8: series[0].candidates: "p_b" changes the behaviour data`},
		{"dynamics parameter", "params: {p_e: [0.5, 0.7]}\n    candidates: p_e", "params: {eps_step: [0.01, 0.02]}\n    candidates: eps_step",
			`sel.yaml:8: series[0].candidates: "eps_step" changes the behaviour data`},
		{"unknown parameter", "candidates: p_e", "candidates: p_x", `sel.yaml:8: series[0].candidates: "p_x" is not a parameter`},
		{"not swept", "params: {p_e: [0.5, 0.7]}", "params: {p_e: 0.5}", `sel.yaml:8: series[0].candidates: "p_e" has one value`},
		{"second sweep", "params: {p_e: [0.5, 0.7]}", "params: {p_e: [0.5, 0.7], subepisodes: [5, 6]}", `sel.yaml:8: series[0].candidates: "subepisodes" is swept too`},
		{"unknown metric", "metric: spearman", "metric: kendall", `sel.yaml:12: selection.claims[0].metric: "kendall"`},
		{"unknown estimator", "subject: sub/wis", "subject: sub/pdis", `sel.yaml:12: selection.claims[0].subject: series sub has no estimator "pdis"`},
		{"swept name", "subject: sub/wis", `subject: "sub[p_e=0.5]/wis"`, `sel.yaml:12: selection.claims[0].subject: no series "sub[p_e=0.5]"`},
		{"bad relation", "relation: above", "relation: higher", `sel.yaml:12: selection.claims[0].relation: "higher"`},
		{"no threshold", "versus: sub/is, relation: above", "n: 20", `sel.yaml:12: selection.claims[0].min: want versus`},
		{"n off grid", "relation: above}", "relation: above, n: 30}", `sel.yaml:12: selection.claims[0].n: 30 is not in the n grid`},
		{"replicates", "selection:\n", "selection:\n  replicates: 0\n", `sel.yaml:11: selection.replicates: 0`},
		{"unknown key", "selection:\n", "selection:\n  bootstrap: 9\n", `sel.yaml:11: selection: unknown key "bootstrap"`},
	} {
		src := strings.Replace(selBase, tc.old, tc.new, 1)
		if src == selBase {
			t.Fatalf("%s: %q not in the base config", tc.name, tc.old)
		}
		_, err := Parse([]byte(src), "sel.yaml")
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if !inputerr.Is(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q (bad input %v), want it to contain %q", tc.name, err, inputerr.Is(err), tc.want)
		}
	}
}
