package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/evaluate"
)

// TestEstimateFittedFromIDs: data with obs and action and without q_hat
// and v_hat runs dm, dr, wdr, magic and reg on the model fitted from it
// (SPEC 1f), with bootstrap intervals refitted per replicate; -horizon
// and BCa are checked.
func TestEstimateFittedFromIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ids.csv")
	data := "episode,step,reward,pi_b,pi_e,obs,action\n" +
		"a,0,1,0.5,0.25,s0,left\na,1,2,0.5,0.75,s1,right\n" +
		"b,0,0,0.5,0.75,s0,right\nb,1,1,0.5,0.25,s1,left\n" +
		"c,0,1,0.5,0.25,s0,left\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runJSON(t, "-bootstrap", "200", "-estimators", "dm,dr,wdr,magic,reg", path)
	for _, name := range []string{"dm", "dr", "wdr", "magic", "reg"} {
		e := got.Estimates[name]
		if _, ok := e["value"]; !ok || !(e["ci_low"] <= e["ci_high"]) {
			t.Errorf("%s: %v", name, e)
		}
	}
	// -horizon 2 is the longest episode: the same numbers
	same := runJSON(t, "-bootstrap", "200", "-estimators", "dm,dr,wdr,magic", "-horizon", "2", path)
	if same.Estimates["dm"]["value"] != got.Estimates["dm"]["value"] || same.Estimates["dr"]["ci_low"] != got.Estimates["dr"]["ci_low"] {
		t.Errorf("-horizon 2: %v, without: %v", same.Estimates, got.Estimates)
	}
	// -model fitted-t: the time-indexed model, refitted on every replicate
	timed := runJSON(t, "-bootstrap", "200", "-estimators", "dm,wdr", "-model", "fitted-t", path)
	for _, name := range []string{"dm", "wdr"} {
		e := timed.Estimates[name]
		lo, okLo := e["ci_low"]
		hi, okHi := e["ci_high"]
		if !okLo || !okHi || math.IsNaN(e["value"]) || !(lo < hi) {
			t.Errorf("-model fitted-t: %s = %v [%v, %v]", name, e["value"], lo, hi)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-horizon", "1", path}, "episode 0 (0-based, in file order: data records 1 to 2) has 2 steps, more than -horizon 1"},
		{[]string{"-horizon", "0", path}, "-horizon 0, want > 0"},
		{[]string{"-horizon", "-3", path}, "-horizon -3, want > 0"},
		{[]string{"-model", "fitted-tt", path}, `-model "fitted-tt", want one of ` + strings.Join(evaluate.LearnedModels(), ", ") + " (runexp help models)"},
	} {
		code, stdout, stderr := runMain(t, append([]string{"estimate"}, tc.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}
