package experiments

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

var (
	extOnce sync.Once
	extBin  string
	extErr  error
)

// externalPDIS builds testdata/extpdis, an external PDIS written in Go
// (CI machines need not have Python), once per test binary.
func externalPDIS(t *testing.T) string {
	t.Helper()
	extOnce.Do(func() {
		dir, err := os.MkdirTemp("", "extpdis-")
		if err != nil {
			extErr = err
			return
		}
		extBin = filepath.Join(dir, "extpdis")
		out, err := exec.Command("go", "build", "-o", extBin, "./testdata/extpdis").CombinedOutput()
		if err != nil {
			extErr = errors.New(string(out))
		}
	})
	if extErr != nil {
		t.Fatalf("building the external estimator: %v", extErr)
	}
	return extBin
}

// externalConfig writes a config into a fresh directory beside a copy of
// the external PDIS (so the command is relative to the config's
// directory) and returns its path. estimators is a series' estimators
// list as YAML; every series of the config has it.
func externalConfig(t *testing.T, estimators string) string {
	t.Helper()
	bin := externalPDIS(t)
	dir := t.TempDir()
	exe, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "extpdis"), exe, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `name: ext
seed: 11
trials: 6
n: [3, 10, 40]
series:
  - name: sub
    domain: subepisode
    params: {p_e: 0.75, subepisodes: 5}
    estimators: ` + estimators + `
  - name: chain
    domain: chainmdp
    params: {horizon: 8, p_e: 0.8, gamma: 0.9}
    estimators: ` + estimators + `
`
	path := filepath.Join(dir, "ext.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// curveRows reads curve.csv of dir as rows keyed by series/estimator/n,
// each the row's fields after the estimator's.
func curveRows(t *testing.T, dir string) map[string][]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(readAll(t, filepath.Join(dir, "curve.csv")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, r := range recs[1:] { // experiment,series,estimator,n,...
		rows[r[1]+"/"+r[2]+"/"+r[3]] = r[3:]
	}
	return rows
}

// TestExternalEqualsBuiltinPDIS: an external PDIS (testdata/extpdis, which
// sums in the built-in's order) gives curve.csv rows equal to the built-in
// pdis rows bit for bit, undiscounted and with gamma = 0.9, with 1 and 3
// workers; and the built-in estimators of a series with an external one
// give exactly the rows they give without it (the recorded probabilities
// draw no random number).
func TestExternalEqualsBuiltinPDIS(t *testing.T) {
	with := loadPlan(t, externalConfig(t, `[pdis, cwpdis, {name: ext-pdis, command: [./extpdis], timeout: 30s}]`))
	without := loadPlan(t, externalConfig(t, `[pdis, cwpdis]`))
	one, three, plain := runInto(t, with, 1), runInto(t, with, 3), runInto(t, without, 2)
	if !bytes.Equal(readAll(t, filepath.Join(one, "curve.csv")), readAll(t, filepath.Join(three, "curve.csv"))) {
		t.Errorf("curve.csv differs between -workers 1 and 3")
	}
	rows, base := curveRows(t, one), curveRows(t, plain)
	if len(rows) != 2*3*3 || len(base) != 2*3*2 {
		t.Fatalf("%d and %d rows, want 18 (2 series x 3 estimators x 3 n) and 12", len(rows), len(base))
	}
	for _, s := range []string{"sub", "chain"} {
		for _, n := range []string{"3", "10", "40"} {
			ext, pdis := rows[s+"/ext-pdis/"+n], rows[s+"/pdis/"+n]
			if strings.Join(ext, ",") != strings.Join(pdis, ",") {
				t.Errorf("%s, n = %s: external row %v, built-in pdis %v", s, n, ext, pdis)
			}
			for _, e := range []string{"pdis", "cwpdis"} {
				k := s + "/" + e + "/" + n
				if strings.Join(rows[k], ",") != strings.Join(base[k], ",") {
					t.Errorf("%s: %v with the external estimator, %v without", k, rows[k], base[k])
				}
			}
		}
	}
	// The plan records the command and timeout (meta.json).
	meta := string(readAll(t, filepath.Join(one, "meta.json")))
	if !strings.Contains(meta, `"command": [`) || !strings.Contains(meta, `"timeout": "30s"`) {
		t.Errorf("meta.json does not record the external command and timeout:\n%s", meta)
	}
}

// TestExternalFailures: each way an external program can fail is an error
// naming the estimator, the series and the trial, not bad input (exit 1),
// with no curve.csv written.
func TestExternalFailures(t *testing.T) {
	for _, tc := range []struct {
		name, command, timeout string
		want                   []string
	}{
		{"exits early", "[./extpdis, exit]", "", []string{"exited before answering", "exit status 3", "giving up on purpose"}},
		{"garbage", "[./extpdis, garbage]", "", []string{"malformed response", "hello, harness"}},
		{"short", "[./extpdis, short]", "", []string{"has 2 estimates, want one per n of the grid (3)"}},
		{"nan", "[./extpdis, nan]", "", []string{"not a finite number"}},
		{"error response", "[./extpdis, error]", "", []string{"reported an error: cannot estimate this"}},
		{"timeout", "[./extpdis, sleep]", ", timeout: 300ms", []string{"no answer within the timeout of 300ms"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := loadPlan(t, externalConfig(t, `[pdis, {name: bad, command: `+tc.command+tc.timeout+`}]`))
			dir := filepath.Join(t.TempDir(), "out")
			_, err := Run(context.Background(), p, dir, Options{Workers: 2})
			if err == nil {
				t.Fatal("the run succeeded")
			}
			msg := err.Error()
			for _, w := range append([]string{"estimator bad", "series sub", "trial "}, tc.want...) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			if errors.Is(err, inputerr.ErrBadInput) {
				t.Errorf("error %q is marked bad input; a failing program is exit 1", msg)
			}
			if _, err := os.Stat(filepath.Join(dir, "curve.csv")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("curve.csv exists after a failed run (stat: %v)", err)
			}
		})
	}
}

// TestExternalCommandRefused: a run whose external estimator's program
// does not exist, is not executable or is a directory, found as the run
// would start it (relative to the config's directory, or in PATH), is
// refused before any unit runs: bad input naming the config file, the
// line and the field of the command, and nothing written (the output
// directory is not created).
func TestExternalCommandRefused(t *testing.T) {
	for _, tc := range []struct{ name, command, setup, want string }{
		{"missing", "[./no-such-program]", "", "program ./no-such-program does not exist"},
		{"missing in PATH", "[no-such-program-in-path, x.py]", "", `program "no-such-program-in-path" not found in PATH`},
		{"not executable", "[./script.py]", "file", "program ./script.py is not executable"},
		{"a directory", "[./sub]", "dir", "program ./sub is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := externalConfig(t, "\n      - pdis\n      - name: bad\n        command: "+tc.command)
			switch tc.setup {
			case "file":
				os.WriteFile(filepath.Join(filepath.Dir(path), "script.py"), []byte("print(1)\n"), 0o644)
			case "dir":
				os.Mkdir(filepath.Join(filepath.Dir(path), "sub"), 0o755)
			}
			p := loadPlan(t, path)
			dir := filepath.Join(t.TempDir(), "res", "out")
			_, err := Run(context.Background(), p, dir, Options{Workers: 2})
			if err == nil {
				t.Fatal("the run succeeded")
			}
			// series sub's estimators list starts on line 9: its item 1's
			// command is on line 12
			for _, w := range []string{"ext.yaml:12:", "series[0].estimators[1].command", "external estimator bad", tc.want} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if !inputerr.Is(err) {
				t.Errorf("error %q is not marked bad input", err)
			}
			if _, err := os.Stat(filepath.Dir(dir)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the refused run created %s (stat: %v)", filepath.Dir(dir), err)
			}
		})
	}
}

// TestExternalConfigErrors: the config refuses external estimators it
// cannot run, naming the line.
func TestExternalConfigErrors(t *testing.T) {
	for _, tc := range []struct{ estimators, want string }{
		{`[pdis, {name: pdis, command: [x]}]`, `"pdis" is a built-in estimator's key`},
		{`[pdis, {name: PDIS, command: [x]}]`, `"PDIS" is a built-in estimator's key`},
		{`[pdis, {name: e1, command: []}]`, "empty command"},
		{`[pdis, {name: e1}]`, "empty command"},
		{`[pdis, {name: e1, command: [x], timeout: soon}]`, `"soon" is not a duration`},
		{`[pdis, {name: e1, command: [x], timeout: -1s}]`, "timeout -1s"},
		{`[pdis, {name: "a/b", command: [x]}]`, `name "a/b"`},
		{`[pdis, {name: e1, command: [x]}, {name: e1, command: [y]}]`, `"e1" is listed twice`},
		{`[pdis, {name: e1, command: [x], cmd: [y]}]`, `unknown key "cmd"`},
	} {
		path := externalConfig(t, tc.estimators)
		_, err := config.Load(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "ext.yaml:") {
			t.Errorf("%s: error %v, want one naming the file's line and %q", tc.estimators, err, tc.want)
		}
	}
}

// TestExternalResumeAndShards: with an external estimator, a run
// interrupted after some units (its checkpoint's last line cut short, as a
// kill leaves it) resumes into the same curve.csv as a run in one go, and
// so do two shards merged: external results are checkpointed like
// built-in ones.
func TestExternalResumeAndShards(t *testing.T) {
	p := loadPlan(t, externalConfig(t, `[pdis, {name: ext-pdis, command: [./extpdis], timeout: 30s}]`))
	whole := runInto(t, p, 1)

	dir := interruptAndResume(t, p, 5, nil)
	merged := mergedShards(t, p)
	w := readAll(t, filepath.Join(whole, "curve.csv"))
	if !bytes.Equal(w, readAll(t, filepath.Join(dir, "curve.csv"))) {
		t.Error("curve.csv differs between a run in one go and an interrupted run resumed")
	}
	if !bytes.Equal(w, readAll(t, filepath.Join(merged, "curve.csv"))) {
		t.Error("curve.csv differs between a run in one go and merged shards")
	}
	tr := readAll(t, filepath.Join(whole, "trials.csv"))
	if !bytes.Equal(tr, readAll(t, filepath.Join(dir, "trials.csv"))) || !bytes.Equal(tr, readAll(t, filepath.Join(merged, "trials.csv"))) {
		t.Error("trials.csv differs between a run in one go, resumed and merged shards")
	}
}

// TestExternalWithExactModel: a series with an external estimator and a
// model-based one on the exact model writes trial files with ids (the
// exact model does not turn the ids off): the run succeeds and the
// external PDIS equals the built-in one.
func TestExternalWithExactModel(t *testing.T) {
	path := externalConfig(t, `[pdis, dr, {name: ext-pdis, command: [./extpdis], timeout: 30s}]`)
	cfg := strings.ReplaceAll(string(readAll(t, path)), "    estimators: [pdis, dr,", "    model: exact\n    estimators: [pdis, dr,")
	exact := filepath.Join(filepath.Dir(path), "exact.yaml")
	if err := os.WriteFile(exact, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := curveRows(t, runInto(t, loadPlan(t, exact), 2))
	for _, k := range []string{"sub/", "chain/"} {
		if strings.Join(rows[k+"ext-pdis/40"], ",") != strings.Join(rows[k+"pdis/40"], ",") || rows[k+"dr/40"] == nil {
			t.Errorf("%s: ext-pdis %v, pdis %v, dr %v", k, rows[k+"ext-pdis/40"], rows[k+"pdis/40"], rows[k+"dr/40"])
		}
	}
}
