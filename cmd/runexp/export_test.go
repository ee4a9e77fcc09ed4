package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/run"
)

// writeExportConfig writes a config of one series (its entry, estimators
// included) and returns its path.
func writeExportConfig(t *testing.T, series string) string {
	t.Helper()
	src := "name: exp\nseed: 11\ntrials: 3\ndata: nested\nn: [4, 15]\nseries:\n" + series
	path := filepath.Join(t.TempDir(), "exp.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExportEstimateEqualsHarness is the export's contract: runexp
// estimate on an exported trial file (with the manifest's gamma) gives, at
// n = n_max, the harness's own estimates of that trial (run.RunUnits), bit
// for bit; with model: exact also dm, dr and wdr on the exported q_hat and
// v_hat columns; on options data (ests set) options-pdis, pdis, wis and is
// on the exported option columns. Both paths compute the same per-step
// ratios and option ratios (pi_e/pi_b and mu_e/mu_b, bit for bit:
// TestCollectTrialMatchesHarness in package experiments), discount them
// the same way (trajectory.Discounted) and run the same estimators on
// batches in the same order, so no tolerance is needed.
func TestExportEstimateEqualsHarness(t *testing.T) {
	const optionEsts = "options-pdis,pdis,wis,is"
	const fittedEsts = "pdis,dm,dr,wdr,magic"
	cases := []struct {
		name, series, format string
		ests                 string // "": pdis,wis,cwpdis (and the model's)
	}{
		{"chainmdp", "  - name: chain\n    domain: chainmdp\n    params: {horizon: 4, p_e: 0.9}\n", "csv", ""},
		{"chainmdp gamma 0.9", "  - name: chain\n    domain: chainmdp\n    params: {horizon: 4, p_e: 0.9, gamma: 0.9}\n", "jsonl", ""},
		{"subepisode", "  - name: sub\n    domain: subepisode\n    params: {p_e: 0.75, subepisodes: 10}\n", "csv", ""},
		{"noisytaxi m=1", "  - name: taxi\n    domain: noisytaxi\n    params: {option_length: 1, mc_episodes: 0}\n", "csv", ""},
		{"gridworld", "  - name: grid\n    domain: gridworld\n    params: {instance: 1}\n", "jsonl", ""},
		{"credit", "  - name: credit\n    domain: credit\n    params: {}\n", "csv", ""},
		{"chainmdp exact model", "  - name: chain\n    domain: chainmdp\n    params: {horizon: 6, p_e: 0.9, gamma: 0.9}\n    model: exact\n", "csv", ""},
		{"credit exact model", "  - name: credit\n    domain: credit\n    params: {}\n    model: exact\n", "jsonl", ""},
		{"optionschain", "  - name: oc\n    domain: optionschain\n    params: {horizon: 6, option_length: 2, p_b: 0.5, p_e: 0.8}\n", "csv", optionEsts},
		{"optionschain changed 1", "  - name: oc\n    domain: optionschain\n    params: {horizon: 6, option_length: 2, p_b: 0.5, p_e: 0.8, changed: 1, inner_p_b: 0.5, inner_p_e: 0.9}\n", "csv", optionEsts},
		{"optionschain changed all gamma 0.9", "  - name: oc\n    domain: optionschain\n    params: {horizon: 4, option_length: 2, p_b: 0.7, p_e: 0.9, changed: -1, inner_p_b: 0.7, inner_p_e: 0.9, gamma: 0.9}\n", "jsonl", optionEsts},
		{"noisytaxi m=2", "  - name: taxi\n    domain: noisytaxi\n    params: {option_length: 2, mc_episodes: 0}\n", "csv", optionEsts},
		{"noisytaxi m=3", "  - name: taxi\n    domain: noisytaxi\n    params: {option_length: 3, mc_episodes: 0}\n", "jsonl", optionEsts},
		// SPEC 1f: the model fitted from the obs and action columns with
		// the manifest's -horizon is the harness's fitted model
		{"subepisode fitted model", "  - name: sub\n    domain: subepisode\n    params: {p_e: 0.75, subepisodes: 10}\n    model: fitted\n", "csv", fittedEsts},
		{"subepisode fitted model gamma 0.9", "  - name: sub\n    domain: subepisode\n    params: {p_e: 0.75, subepisodes: 5, gamma: 0.9}\n    model: fitted\n", "jsonl", fittedEsts},
		{"credit fitted model", "  - name: credit\n    domain: credit\n    params: {gamma: 0.9}\n    model: fitted\n", "csv", fittedEsts},
		// the time-indexed model: -model fitted-t is the harness's model: fitted-t
		{"drift fitted-t model", "  - name: drift\n    domain: drift\n    params: {subepisodes: 5, drift: 0.1}\n    model: fitted-t\n", "csv", fittedEsts},
		{"subepisode fitted-t model gamma 0.9", "  - name: sub\n    domain: subepisode\n    params: {p_e: 0.75, subepisodes: 5, gamma: 0.9}\n    model: fitted-t\n", "jsonl", fittedEsts},
		// SPEC 1f: mis and drl on the exported obs, action, pi_b and pi_e
		{"randommdp mis drl", "  - name: rand\n    domain: randommdp\n    params: {instance: 1}\n", "csv", "pdis,mis,drl"},
		{"gridworld mis drl gamma 0.9", "  - name: grid\n    domain: gridworld\n    params: {instance: 1, gamma: 0.9}\n", "jsonl", "pdis,mis,drl"},
		// the field's benchmarks (issue 30): graph under its default gamma
		// 0.98, Graph-POMDP and ModelFail exporting observation ids only
		{"graph", "  - name: graph\n    domain: graph\n    params: {}\n", "csv", ""},
		{"graph exact model", "  - name: graph\n    domain: graph\n    params: {slip: 0.25, reward_noise: 1}\n    model: exact\n", "jsonl", ""},
		{"graph-pomdp fitted model", "  - name: gpomdp\n    domain: graph\n    params: {horizon: 16, obs_blocks: 5, p_b: 0.5, p_e: 0.3}\n    model: fitted\n", "csv", fittedEsts},
		{"modelwin fitted-t model", "  - name: mwin\n    domain: modelwin\n    params: {}\n    model: fitted-t\n", "jsonl", fittedEsts},
		{"modelfail exact model", "  - name: mfail\n    domain: modelfail\n    params: {}\n    model: exact\n", "csv", ""},
		{"modelfail mis drl", "  - name: mfail\n    domain: modelfail\n    params: {}\n", "jsonl", "pdis,mis,drl"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			model := strings.Contains(tc.series, "model: exact")
			ests := tc.ests
			if ests == "" {
				ests = "pdis,wis,cwpdis"
			}
			if model {
				ests += ",dm,dr,wdr"
			}
			cfg := writeExportConfig(t, tc.series+"    estimators: ["+ests+"]\n")
			out := filepath.Join(t.TempDir(), "export")
			code, stdout, stderr := runMain(t, "export", "-quiet", "-format", tc.format, "-out", out, cfg)
			if code != 0 || !strings.HasPrefix(stdout, "wrote "+out+" (1 series, 3 files") {
				t.Fatalf("export: exit %d: %s%s", code, stdout, stderr)
			}
			var man experiments.Manifest
			data, err := os.ReadFile(filepath.Join(out, experiments.ManifestFile))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &man); err != nil {
				t.Fatal(err)
			}
			p, err := config.Load(cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := run.RunUnits(context.Background(), p, run.Units(p), run.Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			ms := man.Series[0]
			last := len(p.N) - 1
			nonzero := false // some estimate is not 0: the comparison has teeth
			for k, file := range ms.Files {
				args := []string{"-bootstrap", "0", "-estimators", ests, "-gamma", strconv.FormatFloat(ms.Gamma, 'g', -1, 64)}
				if tc.ests == fittedEsts {
					if ms.Horizon <= 0 {
						t.Fatalf("manifest: horizon %d, want the domain's", ms.Horizon)
					}
					args = append(args, "-horizon", strconv.Itoa(ms.Horizon))
					if strings.Contains(tc.series, "model: fitted-t") {
						args = append(args, "-model", "fitted-t")
					}
				}
				got := runJSON(t, append(args, filepath.Join(out, file))...)
				if got.Episodes != p.NMax() {
					t.Fatalf("%s: %d episodes, want n_max %d", file, got.Episodes, p.NMax())
				}
				for e, name := range p.Series[0].Estimators {
					want := res[k].Estimates[e][last]
					g, ok := got.Estimates[name]["value"]
					if !ok {
						t.Fatalf("%s: runexp estimate reports no %s", file, name)
					}
					if math.Float64bits(g) != math.Float64bits(want) {
						t.Errorf("%s: %s = %v from the file, %v in the harness", file, name, g, want)
					}
					nonzero = nonzero || want != 0
				}
			}
			if !nonzero {
				t.Errorf("every estimate of every trial is 0: pick parameters that reach a reward")
			}
		})
	}
}

// TestExportBadInput checks exit status 2, a message naming the flag or
// the series, nothing on standard output and nothing written.
func TestExportBadInput(t *testing.T) {
	cfg := writeExportConfig(t, "  - name: chain\n    domain: chainmdp\n    params: {horizon: 4}\n    estimators: [pdis]\n")
	indep := filepath.Join(t.TempDir(), "indep.yaml")
	os.WriteFile(indep, []byte("name: x\nseed: 1\ntrials: 2\ndata: independent\nn: [2]\nseries:\n  - name: m3\n    domain: noisytaxi\n    params: {option_length: 3, mc_episodes: 0}\n    estimators: [options-pdis]\n"), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"export", cfg}, "-out"},
		{[]string{"export", "-out", out}, "CONFIG.yaml"},
		{[]string{"export", "-out", out, "-format", "xml", cfg}, "-format"},
		{[]string{"export", "-out", out, "-trials", "-2", cfg}, "-trials"},
		{[]string{"export", "-out", out, "-trials", "4", cfg}, "-trials 4, want at most the config's 3"},
		{[]string{"export", "-out", out, indep}, "indep.yaml: data: independent: export of data sets drawn afresh at every n is not supported"},
		{[]string{"export", "-out", out, filepath.Join(t.TempDir(), "missing.yaml")}, "missing.yaml"},
	}
	for _, tc := range cases {
		code, stdout, stderr := runMain(t, tc.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, a message with %q", tc.args, code, stdout, stderr, tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("%v: %s written", tc.args, out)
		}
	}
}
