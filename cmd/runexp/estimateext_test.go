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
