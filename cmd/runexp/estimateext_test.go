package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var (
	extOnce sync.Once
	extBin  string
	extErr  error
)

// externalPDIS builds experiments/testdata/extpdis, an external PDIS in
// Go (it sums in the built-in's order), once per test binary.
func externalPDIS(t *testing.T) string {
	t.Helper()
	extOnce.Do(func() {
		dir, err := os.MkdirTemp("", "extpdis-")
		if err != nil {
			extErr = err
			return
		}
		extBin = filepath.Join(dir, "extpdis")
		out, err := exec.Command("go", "build", "-o", extBin, "../../experiments/testdata/extpdis").CombinedOutput()
		if err != nil {
			extErr = errors.New(string(out))
		}
	})
	if extErr != nil {
		t.Fatalf("building the external estimator: %v", extErr)
	}
	return extBin
}

// TestEstimateExternal: runexp estimate runs an external estimator (the
// same JSON Lines protocol as a config's) beside the built-in ones: on
// the first 30 episodes of examples/subepisode.csv (split column), an external PDIS gives the
// built-in pdis's value and, rerun on every bootstrap replicate (its data
// written back from the batch read, logdata.WriteBatch), the built-in's
// interval bit for bit, percentile and BCa, discounted too; a program that
// reports an error fails its estimate alone.
func TestEstimateExternal(t *testing.T) {
	bin := externalPDIS(t)
	// the first 30 episodes of the example: each replicate is a request
	all, err := os.ReadFile(filepath.Join("..", "..", "examples", "subepisode.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for i, line := range strings.Split(strings.TrimSpace(string(all)), "\n") {
		ep, _, _ := strings.Cut(line, ",")
		if n, err := strconv.Atoi(ep); i == 0 || err == nil && n < 30 {
			keep = append(keep, line)
		}
	}
	data := filepath.Join(t.TempDir(), "sub30.csv")
	if err := os.WriteFile(data, []byte(strings.Join(keep, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-bootstrap", "100"},
		{"-bootstrap", "60", "-interval", "bca", "-gamma", "0.9"},
	} {
		res := runJSON(t, append(args, "-estimators", "pdis", "-external", "ext="+bin, data)...)
		got, want := res.Estimates["ext"], res.Estimates["pdis"]
		if got == nil || got["value"] != want["value"] || got["ci_low"] != want["ci_low"] || got["ci_high"] != want["ci_high"] {
			t.Errorf("%v: external %v, built-in pdis %v", args, got, want)
		}
	}
	// a program that reports an error: the estimate fails (exit 1), the
	// built-in one is printed
	code, out, errOut := runMain(t, "estimate", "-bootstrap", "0", "-estimators", "pdis", "-external", "bad="+bin+" error", data)
	if code != 1 || !strings.Contains(out, "pdis") || !strings.Contains(errOut, "bad (external") {
		t.Errorf("failing program: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestEstimateExternalBadFlags: a bad -external is bad input (exit 2)
// naming the flag, before the data is read.
func TestEstimateExternalBadFlags(t *testing.T) {
	bin := externalPDIS(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-external", "noequals"}, `-external "noequals", want NAME=COMMAND`},
		{[]string{"-external", "pdis=" + bin}, "pdis is a built-in estimator's key"},
		{[]string{"-external", "a b=" + bin}, `name "a b"`},
		{[]string{"-external", "e=" + bin, "-external", "e=" + bin}, "estimator e is given twice"},
		{[]string{"-external", "e=./no-such-program"}, "program ./no-such-program does not exist"},
		{[]string{"-external", "e="}, "empty command"},
		{[]string{"-external", "e=" + bin, "-external-timeout", "0s"}, "-external-timeout 0s"},
	} {
		code, out, errOut := runMain(t, append(append([]string{"estimate"}, tc.args...), "missing.csv")...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// TestEstimateExternalPolicies: with several candidate policies in one
// file, an external estimator is asked once per policy (and per
// bootstrap replicate), each time on that policy's data (its pi_e), so
// that an external PDIS equals the built-in pdis for every policy, value
// and interval, bit for bit. A program that misbehaves at its second
// request (the second policy's, without a bootstrap) fails that policy's
// estimate, naming the policy and what it did; the first policy keeps
// its estimate. After an {"error": ...} response the program keeps
// running and the later policies are estimated; after any other failure
// it is stopped, and each later policy's error says it was not asked and
// names the policy it failed on. A failure on a bootstrap replicate is
// named as such. The exit is 1 with one line naming every failing policy.
func TestEstimateExternalPolicies(t *testing.T) {
	bin := externalPDIS(t)
	const data = "../../examples/policies.csv"
	pols := []string{"pe0.55", "pe0.65", "pe0.75", "pe0.85", "pe0.95"}
	rows := func(t *testing.T, path string) map[string][]string { // policy/estimator -> estimate, ci_low, ci_high
		t.Helper()
		out := map[string][]string{}
		for _, r := range csvRows(t, path) {
			f := strings.Split(r, ",")
			out[f[0]+"/"+f[1]] = f[2:5]
		}
		return out
	}
	dir := t.TempDir()
	for _, b := range []string{"0", "20"} {
		path := filepath.Join(dir, "ok.csv")
		code, _, errOut := runMain(t, "estimate", "-bootstrap", b, "-estimators", "pdis", "-external", "ext="+bin, "-csv", path, data)
		if code != 0 {
			t.Fatalf("-bootstrap %s: exit %d: %s", b, code, errOut)
		}
		got := rows(t, path)
		for _, p := range pols {
			if e, w := got[p+"/ext"], got[p+"/pdis"]; e == nil || e[0] == "" || strings.Join(e, ",") != strings.Join(w, ",") {
				t.Errorf("-bootstrap %s, %s: external %v, built-in pdis %v", b, p, e, w)
			}
		}
	}
	for _, tc := range []struct {
		mode, want string
		keeps      bool // the program keeps running: the later policies are estimated
	}{
		{"exit@2", "it exited before answering: exit status 3", false},
		{"garbage@2", `malformed response "hello, harness"`, false},
		{"short@2", "response has 0 estimates, want one per n of the grid (1)", false},
		{"long@2", "response has 2 estimates, want one per n of the grid (1)", false},
		{"nan@2", `malformed response "{\"estimates\": [NaN]}": an estimate is not a finite number`, false},
		{"sleep@2", "no answer within the timeout of 1s", false},
		{"error@2", "it reported an error: cannot estimate this", true},
	} {
		path := filepath.Join(dir, "bad.csv")
		code, _, errOut := runMain(t, "estimate", "-bootstrap", "0", "-estimators", "pdis", "-external-timeout", "1s",
			"-external", "ext="+bin+" "+tc.mode, "-csv", path, data)
		got := rows(t, path)
		if code != 1 || got["pe0.55/ext"][0] != got["pe0.55/pdis"][0] || got["pe0.65/ext"][0] != "" {
			t.Errorf("%s: exit %d, pe0.55 %v, pe0.65 %v; want 1, pdis's value, failed", tc.mode, code, got["pe0.55/ext"], got["pe0.65/ext"])
		}
		if want := "runexp estimate: policy pe0.65: ext: estimator ext (external, [" + bin + " " + tc.mode + "]): " + tc.want; !strings.Contains(errOut, want) {
			t.Errorf("%s: stderr lacks %q:\n%s", tc.mode, want, errOut)
		}
		failing := "policy pe0.65: 1 of 2 estimates failed"
		for _, p := range pols[2:] {
			if tc.keeps {
				if got[p+"/ext"][0] != got[p+"/pdis"][0] {
					t.Errorf("%s: %s: external %v, pdis %v", tc.mode, p, got[p+"/ext"], got[p+"/pdis"])
				}
				continue
			}
			failing += "; policy " + p + ": 1 of 2 estimates failed"
			want := "runexp estimate: policy " + p + ": ext: estimator ext (external, [" + bin + " " + tc.mode + "]): not asked: its program was stopped when it failed on policy pe0.65: " + tc.want
			if got[p+"/ext"][0] != "" || !strings.Contains(errOut, want) {
				t.Errorf("%s: %s: estimate %v; stderr lacks %q:\n%s", tc.mode, p, got[p+"/ext"], want, errOut)
			}
		}
		if want := "runexp: estimate: " + failing + "\n"; !strings.HasSuffix(errOut, want) {
			t.Errorf("%s: stderr does not end with %q:\n%s", tc.mode, want, errOut)
		}
	}
	// the third request is the first policy's second bootstrap replicate
	code, _, errOut := runMain(t, "estimate", "-bootstrap", "5", "-estimators", "pdis", "-external", "ext="+bin+" short@3", data)
	want := "policy pe0.65: ext: estimator ext (external, [" + bin + " short@3]): not asked: its program was stopped when it failed on a bootstrap replicate of policy pe0.55: response has 0 estimates"
	if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "policy pe0.55: note: ext failed on 4 of 5 bootstrap replicates") {
		t.Errorf("failing on a replicate: exit %d, stderr lacks %q or pe0.55's note:\n%s", code, want, errOut)
	}
}
