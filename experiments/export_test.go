package experiments

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/run"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// exportPlan parses a config of one series (domain, params, estimators)
// with a small grid, written to a temporary file.
func exportPlan(t *testing.T, series string) *config.Plan {
	t.Helper()
	src := "name: exp\nseed: 7\ntrials: 3\ndata: nested\nn: [5, 12]\nseries:\n" + series
	path := filepath.Join(t.TempDir(), "exp.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// exportCases are the domains an export supports, each with the columns
// its files must have: split, model, the option columns (options data)
// and option_changed.
var exportCases = []struct {
	name, series     string
	split, model     bool
	options, changed bool
}{
	{"chainmdp", "  - name: chain\n    domain: chainmdp\n    params: {horizon: 6, p_e: 0.9}\n    estimators: [pdis, wis]\n", false, false, false, false},
	{"chainmdp exact model", "  - name: chain\n    domain: chainmdp\n    params: {horizon: 6, p_e: 0.9, gamma: 0.9}\n    estimators: [pdis, dr]\n    model: exact\n", false, true, false, false},
	{"chainmdp fitted model", "  - name: chain\n    domain: chainmdp\n    params: {horizon: 6, p_e: 0.9}\n    estimators: [pdis, dr]\n", false, false, false, false},
	{"subepisode", "  - name: sub\n    domain: subepisode\n    params: {p_e: 0.75, subepisodes: 5}\n    estimators: [pdis, cwpdis]\n", true, false, false, false},
	{"noisytaxi m=1", "  - name: taxi\n    domain: noisytaxi\n    params: {option_length: 1, mc_episodes: 0}\n    estimators: [pdis, partitioned-pdis]\n", true, false, false, false},
	{"noisytaxi m=1 exact", "  - name: taxi\n    domain: noisytaxi\n    params: {option_length: 1, mc_episodes: 0}\n    estimators: [pdis, wdr]\n    model: exact\n", true, true, false, false},
	{"gridworld", "  - name: grid\n    domain: gridworld\n    params: {instance: 2}\n    estimators: [wis]\n", false, false, false, false},
	{"randommdp", "  - name: rand\n    domain: randommdp\n    params: {}\n    estimators: [wis]\n", false, false, false, false},
	{"sparse", "  - name: sparse\n    domain: sparse\n    params: {}\n    estimators: [wis]\n", false, false, false, false},
	{"credit exact", "  - name: credit\n    domain: credit\n    params: {}\n    estimators: [wis, dm]\n    model: exact\n", false, true, false, false},
	{"fewstates", "  - name: few\n    domain: fewstates\n    params: {}\n    estimators: [wis]\n", false, false, false, false},
	{"drift", "  - name: drift\n    domain: drift\n    params: {}\n    estimators: [wis]\n", false, false, false, false},
	{"optionschain", "  - name: oc\n    domain: optionschain\n    params: {horizon: 6, option_length: 2, p_b: 0.5, p_e: 0.8}\n    estimators: [options-pdis, pdis]\n", false, false, true, false},
	{"optionschain changed 1", "  - name: oc\n    domain: optionschain\n    params: {horizon: 6, option_length: 2, p_b: 0.5, p_e: 0.8, changed: 1, inner_p_b: 0.5, inner_p_e: 0.9}\n    estimators: [options-pdis, pdis]\n", false, false, true, true},
	{"optionschain changed all", "  - name: oc\n    domain: optionschain\n    params: {horizon: 6, option_length: 3, p_b: 0.7, p_e: 0.9, changed: -1, inner_p_b: 0.3, inner_p_e: 0.6}\n    estimators: [options-pdis, wis]\n", false, false, true, true},
	{"noisytaxi m=2", "  - name: taxi\n    domain: noisytaxi\n    params: {option_length: 2, mc_episodes: 0}\n    estimators: [options-pdis, pdis]\n", true, false, true, false},
	{"noisytaxi m=3", "  - name: taxi\n    domain: noisytaxi\n    params: {option_length: 3, mc_episodes: 0}\n    estimators: [options-pdis, wis]\n", true, false, true, false},
}

// TestCollectTrialMatchesHarness checks, for every domain, that the
// exported data set of a unit is the harness's: the same rewards, ratios,
// option ratios, changed flags and split points bit for bit as the
// domain's Collect without recording on the unit's stream (what the worker
// draws), and that every step's recorded probabilities give its ratio as
// logdata computes it, pi_e / pi_b, bit for bit, with 0 < pi_b <= 1 and
// 0 <= pi_e <= 1. On options data also the option structure as logdata
// reads it: mu_e / mu_b of an option's first step is its option ratio bit
// for bit, the later steps of an option have option ratio 1 and the same
// mu_b, mu_e and changed flag, every episode starts an option, and at
// least one option is changed exactly where the series has changed
// options.
func TestCollectTrialMatchesHarness(t *testing.T) {
	for _, tc := range exportCases {
		t.Run(tc.name, func(t *testing.T) {
			p := exportPlan(t, tc.series)
			rs := &p.Series[0]
			for k := range p.Trials {
				var got trajectory.Batch
				if err := CollectTrial(p, 0, k, &got); err != nil {
					t.Fatal(err)
				}
				d, err := rs.Spec().New(rs.Params)
				if err != nil {
					t.Fatal(err)
				}
				var want trajectory.Batch
				d.Collect(&want, p.NMax(), run.Stream(p, run.Unit{Series: 0, Trial: k}))
				if got.N() != p.NMax() || !got.HasProbs() || got.HasModel() != tc.model {
					t.Fatalf("trial %d: %d episodes, probs %v, model %v; want %d, true, %v", k, got.N(), got.HasProbs(), got.HasModel(), p.NMax(), tc.model)
				}
				if err := got.Validate(); err != nil {
					t.Fatal(err)
				}
				if !equalInts(got.Offsets, want.Offsets) || !equalBits(got.Reward, want.Reward) || !equalBits(got.Ratio, want.Ratio) ||
					!equalBits(got.OptionRatio, want.OptionRatio) || !equalBools(got.Changed, want.Changed) || !equalBools(got.Split, want.Split) {
					t.Fatalf("trial %d: the recorded batch differs from the harness's", k)
				}
				if got.HasOptionProbs() != tc.options {
					t.Fatalf("trial %d: option structure recorded %v, want %v", k, got.HasOptionProbs(), tc.options)
				}
				splits, changed, starts := false, false, 0
				for s := range got.Steps() {
					pb, pe := got.PiB[s], got.PiE[s]
					if r := pe / pb; math.Float64bits(r) != math.Float64bits(got.Ratio[s]) {
						t.Fatalf("trial %d, step %d: pi_e/pi_b = %v/%v = %v, ratio %v", k, s, pe, pb, r, got.Ratio[s])
					}
					splits = splits || got.Split[s]
					changed = changed || got.Changed[s]
					if !tc.options {
						continue
					}
					if got.OptionStart[s] {
						starts++
						if r := got.MuE[s] / got.MuB[s]; math.Float64bits(r) != math.Float64bits(got.OptionRatio[s]) {
							t.Fatalf("trial %d, step %d: mu_e/mu_b = %v/%v = %v, option ratio %v", k, s, got.MuE[s], got.MuB[s], r, got.OptionRatio[s])
						}
						continue
					}
					if got.OptionRatio[s] != 1 || got.MuB[s] != got.MuB[s-1] || got.MuE[s] != got.MuE[s-1] || got.Changed[s] != got.Changed[s-1] {
						t.Fatalf("trial %d, step %d: inside an option: option ratio %v (want 1), mu_b %v, mu_e %v, changed %v after %v, %v, %v",
							k, s, got.OptionRatio[s], got.MuB[s], got.MuE[s], got.Changed[s], got.MuB[s-1], got.MuE[s-1], got.Changed[s-1])
					}
				}
				if tc.split && k == 0 && !splits {
					t.Errorf("no split point in %d episodes of a domain that marks them", got.N())
				}
				if changed != tc.changed {
					t.Errorf("trial %d: changed options %v, want %v", k, changed, tc.changed)
				}
				// every episode starts an option (Validate), and options
				// of 2 or more steps are fewer than the steps
				if tc.options && !(starts >= got.N() && starts < got.Steps()) {
					t.Errorf("trial %d: %d option starts in %d episodes of %d steps", k, starts, got.N(), got.Steps())
				}
			}
		})
	}
}

func equalBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// readDir returns every regular file under dir by its slash path.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		data, err := os.ReadFile(path)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExportFiles checks the files of an export: the manifest lists
// exactly the files written, with the columns each holds; each file reads
// back (logdata) into the unit's batch bit for bit (rewards, ratios as
// pi_e/pi_b, splits, model columns); and exporting again, into the same
// directory or another, gives the same bytes.
func TestExportFiles(t *testing.T) {
	for _, tc := range exportCases {
		for _, f := range []logdata.Format{logdata.CSV, logdata.JSONL} {
			t.Run(tc.name+"/"+formatName(f), func(t *testing.T) {
				p := exportPlan(t, tc.series)
				dir := t.TempDir()
				opt := ExportOptions{Trials: 2, Format: f}
				man, err := Export(p, dir, opt)
				if err != nil {
					t.Fatal(err)
				}
				first := readDir(t, dir)
				// manifest.json + 2 trials
				if len(first) != 3 {
					t.Fatalf("%d files written, want 3: %v", len(first), keys(first))
				}
				var back Manifest
				if err := json.Unmarshal(first[ManifestFile], &back); err != nil {
					t.Fatal(err)
				}
				ms := back.Series[0]
				if back.Trials != 2 || back.Seed != 7 || len(back.N) != 2 || back.N[1] != 12 || len(ms.Files) != 2 || ms.Truth.Method == "" || ms.Truth.Value != man.Series[0].Truth.Value {
					t.Fatalf("manifest %+v", back)
				}
				cols := strings.Join(ms.Columns, ",")
				if want := tc.split; strings.Contains(cols, "split") != want {
					t.Errorf("columns %s, split column want %v", cols, want)
				}
				if want := tc.model; strings.Contains(cols, "q_hat,v_hat") != want {
					t.Errorf("columns %s, model columns want %v", cols, want)
				}
				if want := tc.options; strings.Contains(cols, "option_start,mu_b,mu_e") != want {
					t.Errorf("columns %s, option columns want %v", cols, want)
				}
				if want := tc.changed; strings.Contains(cols, "option_changed") != want {
					t.Errorf("columns %s, option_changed want %v", cols, want)
				}
				for k, name := range ms.Files {
					data, ok := first[name]
					if !ok {
						t.Fatalf("manifest names %s, not written", name)
					}
					var got, want trajectory.Batch
					if _, err := logdata.Read(bytes.NewReader(data), f, &got, logdata.Options{}); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if err := CollectTrial(p, 0, k, &want); err != nil {
						t.Fatal(err)
					}
					if !equalInts(got.Offsets, want.Offsets) || !equalBits(got.Reward, want.Reward) || !equalBits(got.Ratio, want.Ratio) ||
						!equalBits(got.OptionRatio, want.OptionRatio) || !equalBools(got.Changed, want.Changed) ||
						!equalBools(got.Split, want.Split) || !equalBits(got.QHat, want.QHat) || !equalBits(got.VHat, want.VHat) {
						t.Fatalf("%s does not read back into trial %d's batch", name, k)
					}
					// what every estimator weights by
					if !equalBits(got.Factors(nil), want.Factors(nil)) {
						t.Fatalf("%s: the per-step factors differ from trial %d's", name, k)
					}
				}
				// again, into the same directory and into a fresh one
				for _, d := range []string{dir, t.TempDir()} {
					if _, err := Export(p, d, opt); err != nil {
						t.Fatal(err)
					}
					again := readDir(t, d)
					if len(again) != len(first) {
						t.Fatalf("re-export wrote %v, first %v", keys(again), keys(first))
					}
					for name, data := range first {
						if !bytes.Equal(again[name], data) {
							t.Fatalf("re-export: %s differs", name)
						}
					}
				}
			})
		}
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestExportRefuses checks that data: independent and a bad number of
// trials are refused as bad input naming the field, before anything is
// written: the output directory is not even created.
func TestExportRefuses(t *testing.T) {
	cases := []struct {
		name, config, want string
	}{
		{"independent", "name: x\nseed: 1\ntrials: 2\ndata: independent\nn: [2]\nseries:\n  - name: c\n    domain: chainmdp\n    estimators: [pdis]\n",
			"data: independent: export of data sets drawn afresh"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := config.Parse([]byte(tc.config), "x.yaml")
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "out")
			_, err = Export(p, dir, ExportOptions{})
			if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want bad input containing %q", err, tc.want)
			}
			if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
				t.Errorf("%s exists after a refused export", dir)
			}
		})
	}
	p := exportPlan(t, exportCases[0].series)
	for _, trials := range []int{-1, 4} {
		if _, err := Export(p, t.TempDir(), ExportOptions{Trials: trials}); err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "trials") {
			t.Errorf("trials %d: err = %v, want bad input naming trials", trials, err)
		}
	}
}

// TestExportReplaces checks that a second export replaces a series
// directory whole (a trial no longer exported is gone), leaves no staging
// directory behind, and refuses, changing nothing, when a series name is
// taken by a regular file.
func TestExportReplaces(t *testing.T) {
	p := exportPlan(t, exportCases[0].series)
	dir := t.TempDir()
	if _, err := Export(p, dir, ExportOptions{Trials: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := Export(p, dir, ExportOptions{Trials: 1}); err != nil {
		t.Fatal(err)
	}
	got := keys(readDir(t, dir))
	if len(got) != 2 { // manifest.json, chain/trial-0.csv
		t.Fatalf("after re-export with 1 trial: %v", got)
	}
	if _, ok := readDir(t, dir)["chain/trial-0.csv"]; !ok {
		t.Fatalf("after re-export with 1 trial: %v", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("directory holds %d entries, want chain and manifest.json", len(entries))
	}

	dir2 := t.TempDir()
	os.WriteFile(filepath.Join(dir2, "chain"), []byte("x"), 0o644)
	if _, err := Export(p, dir2, ExportOptions{}); err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("err = %v, want bad input: not a directory", err)
	}
	if got := keys(readDir(t, dir2)); len(got) != 1 {
		t.Errorf("refused export left %v", got)
	}
}

// TestExportCollectAllocs checks that collecting with the probabilities
// recorded allocates nothing once the batch has grown (the same episodes
// again: the stream is reseeded).
func TestExportCollectAllocs(t *testing.T) {
	for _, tc := range exportCases {
		t.Run(tc.name, func(t *testing.T) {
			p := exportPlan(t, tc.series)
			es, err := exportOf(p, 0)
			if err != nil {
				t.Fatal(err)
			}
			d := es.d
			src := rand.NewPCG(1, 2)
			rng := rand.New(src)
			var b trajectory.Batch
			collect := func() {
				src.Seed(1, 2)
				b.Reset()
				d.Collect(&b, 50, rng)
			}
			collect()
			if a := testing.AllocsPerRun(5, collect); a != 0 {
				t.Errorf("%v allocations a Collect once warm, want 0", a)
			}
		})
	}
}

// TestOptionProbsKept checks that the option structure an options domain
// records (trajectory.Batch.OptionStart, MuB, MuE) follows its steps
// through Prefix and Resample, and that Validate refuses a batch whose
// episode does not start with an option or whose mu_b is 0.
func TestOptionProbsKept(t *testing.T) {
	var series string
	for _, tc := range exportCases {
		if tc.name == "optionschain changed 1" {
			series = tc.series
		}
	}
	p := exportPlan(t, series)
	var b trajectory.Batch
	if err := CollectTrial(p, 0, 0, &b); err != nil {
		t.Fatal(err)
	}
	if !b.HasOptionProbs() {
		t.Fatal("no option structure recorded")
	}
	pre := b.Prefix(3)
	if end := b.Offsets[3]; !pre.HasOptionProbs() || !equalBools(pre.OptionStart, b.OptionStart[:end]) || !equalBits(pre.MuB, b.MuB[:end]) || !equalBits(pre.MuE, b.MuE[:end]) {
		t.Error("Prefix(3) lost or shifted the option structure")
	}
	// episodes 2 and 0: their steps in that order
	var rs trajectory.Batch
	rs.Resample(&b, []int{2, 0})
	lo2, hi2, hi0 := b.Offsets[2], b.Offsets[3], b.Offsets[1]
	wantStart := append(append([]bool{}, b.OptionStart[lo2:hi2]...), b.OptionStart[:hi0]...)
	wantMuB := append(append([]float64{}, b.MuB[lo2:hi2]...), b.MuB[:hi0]...)
	wantMuE := append(append([]float64{}, b.MuE[lo2:hi2]...), b.MuE[:hi0]...)
	if !equalBools(rs.OptionStart, wantStart) || !equalBits(rs.MuB, wantMuB) || !equalBits(rs.MuE, wantMuE) {
		t.Error("Resample lost or shifted the option structure")
	}
	if err := rs.Validate(); err != nil {
		t.Errorf("resampled batch: %v", err)
	}
	// a first step that does not start an option; mu_b = 0
	bad := b.Prefix(b.N())
	bad.OptionStart = append([]bool{}, b.OptionStart...)
	bad.OptionStart[b.Offsets[1]] = false
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "trajectory 1: its first step does not start an option") {
		t.Errorf("episode 1 without an option start: err = %v", err)
	}
	bad = b.Prefix(b.N())
	bad.MuB = append([]float64{}, b.MuB...)
	bad.MuB[0] = 0
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "mu_b 0 must be in (0, 1]") {
		t.Errorf("mu_b 0: err = %v", err)
	}
}
