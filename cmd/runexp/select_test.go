package main

import (
	"strings"
	"testing"
)

// selectConfig is a valid selection config (two candidates of the
// sub-episode MDP), the base of TestHostileSelect's cases.
const selectConfig = `name: sel
trials: 3
n: [10]
series:
  - name: sub
    domain: subepisode
    params: {subepisodes: 3, p_e: [0.4, 0.6]}
    candidates: p_e
    estimators: [is, wis]
`

// TestHostileSelect: runexp select refuses bad flags and configs with
// exit 2, naming the flag, or the file, line and field; nothing is
// written (runHostile checks the tree).
func TestHostileSelect(t *testing.T) {
	sel := func(cfg string, flags ...string) func(e *hostileEnv) []string {
		return func(e *hostileEnv) []string {
			return append(append([]string{"select", "-quiet", "-out", e.out}, flags...), e.write("sel.yaml", cfg))
		}
	}
	cases := []hostileCase{
		{name: "select without a config", args: func(e *hostileEnv) []string { return []string{"select", "-quiet", "-out", e.out} }, code: 2, want: []string{"CONFIG.yaml"}},
		{name: "select unknown flag", args: sel(selectConfig, "-frob"), code: 2, want: []string{"-frob"}, badFlag: true},
		{name: "select -workers 0", args: sel(selectConfig, "-workers", "0"), code: 2, want: []string{"-workers"}},
		{name: "select -trials x", args: sel(selectConfig, "-trials", "x"), code: 2, want: []string{"-trials"}},
		{name: "select a behaviour parameter", args: sel(strings.Replace(strings.Replace(selectConfig, "p_e: [0.4, 0.6]", "p_b: [0.4, 0.6]", 1), "candidates: p_e", "candidates: p_b", 1)),
			code: 2, want: []string{at("sel.yaml", 8), "series[0].candidates", "behaviour data"}},
		{name: "select a series without candidates", args: sel(strings.Replace(strings.Replace(selectConfig, "    candidates: p_e\n", "", 1), "p_e: [0.4, 0.6]", "p_e: 0.4", 1)),
			code: 2, want: []string{"sel.yaml", "series sub has no candidates"}},
		{name: "select one trial", args: sel(selectConfig, "-trials", "1"), code: 2, want: []string{"sel.yaml", "trials 1"}},
		{name: "select a claim on an unknown metric", args: sel(selectConfig + "selection:\n  claims:\n    - {name: c, metric: kendall, subject: sub/is, min: 0}\n"),
			code: 2, want: []string{at("sel.yaml", 12), "selection.claims[0].metric", `"kendall"`}},
	}
	runHostile(t, cases)
}
