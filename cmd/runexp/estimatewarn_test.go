package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEstimateWarnsOnWeights: runexp estimate warns on standard error
// (exit 0, the table unchanged) when the weights' effective sample size
// is below -ess-warn's fraction of the episodes, finally or up to some
// step, and when weights leave float64's range (issue 32 item 3).
func TestEstimateWarnsOnWeights(t *testing.T) {
	dir := t.TempDir()
	// The case: the sub-episode MDP at p_e = 0.9 (SPEC 2.2, 100
	// steps). Under pi_b (p_b = 0.5) a step's ratio is 1.8 or 0.2, so an
	// episode's weight is 1.8^k 0.2^(100-k) with k ~ Binomial(100, 1/2):
	// a few episodes with large k carry all the weight; measured ESS 1.85
	// of 1000, far below 1% of n.
	cfg := writeTemp(t, dir, "pe9.yaml", "name: pe9\nseed: 3\ntrials: 1\nn: [1000]\nseries:\n"+
		"  - name: sub\n    domain: subepisode\n    params: {p_e: 0.9}\n    estimators: [is]\n")
	if code, _, errOut := runMain(t, "export", "-quiet", "-out", filepath.Join(dir, "out"), cfg); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	pe9 := filepath.Join(dir, "out", "sub", "trial-0.csv")

	// hand: episode a's ratios 1/0.01 = 100 then 0.01/1, b's 1 and 1. Step 1:
	// weights 100, 1: ESS 101^2 / 10001 = 1.0199; step 2: 1, 1: ESS 2.
	hand := writeTemp(t, dir, "hand.csv", "episode,step,reward,pi_b,pi_e\na,0,1,0.01,1\na,1,1,1,0.01\nb,0,1,1,1\nb,1,1,1,1\n")
	// wild: a's ratio 1e300 twice, 1e600 (above MaxFloat64); b's 1e-300
	// twice, 1e-600 (below the smallest denormal 4.9e-324); is's estimate
	// itself, 1e600 / 2, is not a float64, so only wis is asked
	wild := writeTemp(t, dir, "wild.csv", "episode,step,reward,pi_b,pi_e\na,0,1,1e-300,1\na,1,1,1e-300,1\nb,0,1,1,1e-300\nb,1,1,1,1e-300\n")
	const examples = "../../examples/subepisode.csv" // ESS 28.44 of 200 (14.2%)
	for _, tc := range []struct {
		name string
		args []string
		want []string // substrings of standard error; nil: no warning
	}{
		{"p_e 0.9", []string{pe9}, []string{"warning: the effective sample size of the importance weights is 1.85 of 1000 episodes (0.185%, below -ess-warn 0.01)"}},
		{"p_e 0.9, -ess-warn 0", []string{"-ess-warn", "0", pe9}, nil},
		{"examples", []string{examples}, nil},
		{"examples, -ess-warn 0.2", []string{"-ess-warn", "0.2", examples}, []string{"warning: the effective sample size of the importance weights is 28.4 of 200 episodes (14.2%, below -ess-warn 0.2)"}},
		{"a dip at step 1", []string{"-ess-warn", "0.6", hand}, []string{"warning: the effective sample size of the importance weights up to step 1 is 1.02 of 2 episodes (51%, below -ess-warn 0.6)"}},
		{"no dip below 0.5", []string{"-ess-warn", "0.5", hand}, nil},
		{"out of range", []string{"-ess-warn", "0", "-estimators", "wis", wild}, []string{"of 1 of 2 episodes are above float64's largest value and of 1 below its smallest"}},
	} {
		code, out, errOut := runMain(t, append([]string{"estimate", "-bootstrap", "0", "-estimators", "is,wis"}, tc.args...)...)
		if code != 0 || !strings.Contains(out, "importance weights: ESS") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", tc.name, code, out, errOut)
			continue
		}
		if tc.want == nil && strings.Contains(errOut, "warning:") {
			t.Errorf("%s: unexpected warning: %s", tc.name, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr %q, want %q", tc.name, errOut, w)
			}
		}
	}
	for _, bad := range []string{"2", "-0.1", "NaN"} {
		code, out, errOut := runMain(t, "estimate", "-ess-warn", bad, examples)
		if code != 2 || out != "" || !strings.Contains(errOut, "-ess-warn "+bad) && !strings.Contains(errOut, "-ess-warn") {
			t.Errorf("-ess-warn %s: exit %d, stdout %q, stderr %q; want 2 naming -ess-warn", bad, code, out, errOut)
		}
	}
}

// TestEstimateNamesCutEpisode: a last episode shorter than the others
// without a done or timeout flag is named with its id and first line
// (issue 32 item 3); complete data, episodes of varying length without
// flags, and a last episode that ends at done say nothing.
func TestEstimateNamesCutEpisode(t *testing.T) {
	dir := t.TempDir()
	const head = "episode,step,reward,pi_b,pi_e\n"
	full := "a,0,1,0.5,0.5\na,1,1,0.5,0.5\na,2,1,0.5,0.5\nb,0,1,0.5,0.5\nb,1,1,0.5,0.5\nb,2,1,0.5,0.5\n"
	for _, tc := range []struct {
		name, data, want string // want "": no note
	}{
		{"complete", head + full, ""},
		// c starts on line 8 (the header is line 1) and has 1 of 3 steps
		{"cut", head + full + "c,0,1,0.5,0.5\n", `the last episode, "c" (from line 8), has 1 steps where every other episode has 3, and the data has no done or timeout column`},
		{"varying lengths", head + full + "c,0,1,0.5,0.5\nc,1,1,0.5,0.5\nc,2,1,0.5,0.5\nc,3,1,0.5,0.5\nd,0,1,0.5,0.5\n", ""},
		{"ends at done", "episode,step,reward,pi_b,pi_e,done\na,0,1,0.5,0.5,0\na,1,1,0.5,0.5,1\nb,0,1,0.5,0.5,1\n", ""},
		{"flags, no done at the end", "episode,step,reward,pi_b,pi_e,done\na,0,1,0.5,0.5,0\na,1,1,0.5,0.5,1\nb,0,1,0.5,0.5,0\n",
			`the last episode, "b" (from line 4), has 1 steps where every other episode has 2, and its last step has no done or timeout flag`},
	} {
		path := writeTemp(t, dir, strings.ReplaceAll(tc.name, " ", "_")+".csv", tc.data)
		code, _, errOut := runMain(t, "estimate", "-bootstrap", "0", "-ess-warn", "0", "-estimators", "wis", path)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", tc.name, code, errOut)
			continue
		}
		if got := strings.Contains(errOut, "the last episode"); got != (tc.want != "") || tc.want != "" && !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: stderr %q, want %q", tc.name, errOut, tc.want)
		}
	}
}
