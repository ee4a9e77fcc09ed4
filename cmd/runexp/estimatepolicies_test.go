package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// twoPolicies is a file with candidate policies A and B. By hand, with
// W the product of pi_e/pi_b over an episode and G its return:
// A: x has W = (0.25/0.5)(1/0.5) = 1, G = 1; y has W = 0.5/0.25 = 2,
// G = 2: is = (1 + 4)/2 = 2.5, wis = (1 + 4)/(1 + 2) = 5/3, ESS = 3^2/(1
// + 4) = 1.8. B: x has W = (0.75/0.5)(0/0.5) = 0; y 2, G = 2: is = (0 +
// 4)/2 = 2, wis = 4/2 = 2, ESS = 2^2/4 = 1.
const twoPolicies = "episode,step,reward,pi_b,pi_e:A,pi_e:B\nx,0,1,0.5,0.25,0.75\nx,1,0,0.5,1,0\ny,0,2,0.25,0.5,0.5\n"

// TestEstimatePolicies: every policy is estimated; the table, the CSV
// and the JSON hold the hand-computed numbers above, and with -truth
// A=2,B=1 the selection metrics: is ranks A over B as the truth does
// (Spearman 1, regret@1 0), wis ranks B first (5/3 < 2: Spearman -1 over
// two policies, regret@1 = 2 - 1 = 1, regret@3 = 0 as both are kept).
func TestEstimatePolicies(t *testing.T) {
	path := writeTemp(t, t.TempDir(), "policies.csv", twoPolicies)
	csvPath := filepath.Join(t.TempDir(), "out", "est.csv")
	code, out, errOut := runMain(t, "estimate", "-bootstrap", "0", "-estimators", "is,wis", "-truth", "A=2,B=1", "-csv", csvPath, path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"A       is              2.5       -        -  1.8      2", "A       wis         1.66667", "B       is                2", "B       wis               2",
		"is                1         0         0", "wis              -1         1         0"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	got, err := os.ReadFile(csvPath)
	want := "policy,estimator,estimate,ci_low,ci_high,ess\nA,is,2.5,,,1.8\nA,wis,1.6666666666666667,,,1.8\nB,is,2,,,1\nB,wis,2,,,1\n"
	if err != nil || string(got) != want {
		t.Errorf("-csv: %v\n%s\nwant\n%s", err, got, want)
	}
	code, out, errOut = runMain(t, "estimate", "-bootstrap", "0", "-estimators", "is,wis", "-truth", "A=2,B=1", "-json", path)
	var obj struct {
		Policies map[string]struct {
			Truth     float64
			Estimates map[string]struct{ Value float64 }
		}
		Selection map[string]struct{ Spearman, Regret1, Regret3 float64 }
	}
	if err := json.Unmarshal([]byte(out), &obj); code != 0 || err != nil {
		t.Fatalf("exit %d (%s), %v", code, errOut, err)
	}
	if obj.Policies["A"].Estimates["is"].Value != 2.5 || obj.Policies["B"].Estimates["wis"].Value != 2 || obj.Policies["B"].Truth != 1 ||
		obj.Selection["wis"].Spearman != -1 || obj.Selection["wis"].Regret1 != 1 || obj.Selection["is"].Spearman != 1 {
		t.Errorf("JSON %+v", obj)
	}
}

// TestEstimateOnePolicyCSV: a file with one pi_e column keeps its table
// and writes -csv with the policy pi_e; -truth pi_e=V is its true value.
func TestEstimateOnePolicyCSV(t *testing.T) {
	path := writeTemp(t, t.TempDir(), "one.csv", "episode,step,reward,pi_b,pi_e\nx,0,1,0.5,0.25\nx,1,0,0.5,1\ny,0,2,0.25,0.5\n")
	csvPath := filepath.Join(t.TempDir(), "est.csv")
	code, out, errOut := runMain(t, "estimate", "-bootstrap", "0", "-estimators", "is", "-truth", "pi_e=2", "-csv", csvPath, path)
	got, _ := os.ReadFile(csvPath)
	if code != 0 || strings.Contains(out, "policy") || string(got) != "policy,estimator,estimate,ci_low,ci_high,ess\npi_e,is,2.5,,,1.8\n" {
		t.Errorf("exit %d (%s), output\n%s\ncsv\n%s", code, errOut, out, got)
	}
}

// TestEstimatePoliciesHostile: every bad -truth, -csv and -plot-truth is
// exit 2 with a message naming the flag, and the file, line and field.
func TestEstimatePoliciesHostile(t *testing.T) {
	path := writeTemp(t, t.TempDir(), "policies.csv", twoPolicies)
	dir := t.TempDir()
	badHeader := writeTemp(t, t.TempDir(), "h.csv", "name,value\nA,1\n")
	badValue := writeTemp(t, t.TempDir(), "v.csv", "policy,value\nA,1\nB,one\n")
	badName := writeTemp(t, t.TempDir(), "n.csv", "policy,value\nA,1\nB C,2\n")
	twice := writeTemp(t, t.TempDir(), "t.csv", "policy,value\nA,1\nA,2\n")
	fields := writeTemp(t, t.TempDir(), "f.csv", "policy,value\nA,1,2\n")
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"-truth", "A=x,B=1"}, []string{"-truth", `"A=x"`, "finite decimal"}},
		{[]string{"-truth", "A=1,B=Inf"}, []string{"-truth", `"B=Inf"`, "finite decimal"}},
		{[]string{"-truth", "A=1,A=2"}, []string{"-truth", "given twice"}},
		{[]string{"-truth", "A=1,B=2,C=3"}, []string{"-truth", "policy C", "policies.csv has no such policy", "A, B"}},
		{[]string{"-truth", "A=1"}, []string{"-truth", "no true value for B", "policies.csv"}},
		{[]string{"-truth", "A=1,B=1"}, []string{"-truth", "every policy has the true value 1"}},
		{[]string{"-truth", "A!=1"}, []string{"-truth", "policy name"}},
		{[]string{"-truth", "A=1,"}, []string{"-truth", "policy name"}},
		{[]string{"-truth", filepath.Join(dir, "none.csv")}, []string{"-truth", "none.csv", "no such file"}},
		{[]string{"-truth", badHeader}, []string{"h.csv: line 1", "want policy,value"}},
		{[]string{"-truth", badValue}, []string{"v.csv: line 3", `column "value"`, "finite decimal"}},
		{[]string{"-truth", badName}, []string{"n.csv: line 3", `column "policy"`, "policy name"}},
		{[]string{"-truth", twice}, []string{"t.csv: line 3", "given twice", "t.csv line 2"}},
		{[]string{"-truth", fields}, []string{"f.csv: line 2", "3 fields"}},
		{[]string{"-csv", dir}, []string{"-csv", "is a directory"}},
		{[]string{"-plot-truth", "1"}, []string{"-plot-truth", "2 policies", "-truth"}},
		{[]string{"-max-memory", "1"}, []string{"policies.csv: line 2", "2 candidate policies' columns would take more than 1 bytes", "-max-memory"}},
	}
	for _, tt := range tests {
		args := append(append([]string{"estimate", "-bootstrap", "0", "-estimators", "is"}, tt.args...), path)
		code, _, errOut := runMain(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", tt.args, code, errOut)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: %q lacks %q", tt.args, errOut, w)
			}
		}
	}
}

// TestEstimatePolicyTable: -policy-table gives the fitted model pi_e at
// actions the data never logged at an observation, and dm does not move:
// by hand (SPEC 1f, H = 2), q(t, b) = 2 (a visit at step H: its mean
// reward), q(s, a) = 1 + v(t) = 1 + 1 x 2 = 3, v(s) = pi_e(a|s) q(s, a)
// = 0.5 x 3 = 1.5 = dm; the table adds pi_e(b|s) = 0.5, but q(s, b) = 0
// (never seen), so v(s) stays 0.5 x 3 + 0.5 x 0 = 1.5.
func TestEstimatePolicyTable(t *testing.T) {
	dir := t.TempDir()
	data := writeTemp(t, dir, "d.csv", "episode,step,reward,pi_b,pi_e,obs,action\nx,0,1,0.5,0.5,s,a\nx,1,2,0.5,1,t,b\n")
	table := writeTemp(t, dir, "tab.csv", "obs,action,pi_e\ns,a,0.5\ns,b,0.5\nt,b,1\n")
	for _, args := range [][]string{{}, {"-policy-table", table}} {
		code, out, errOut := runMain(t, append(append([]string{"estimate", "-bootstrap", "0", "-estimators", "dm"}, args...), data)...)
		if code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), "dm 1.5 -") {
			t.Errorf("%v: exit %d (%s)\n%s\nwant dm 1.5", args, code, errOut, out)
		}
	}
	noIDs := writeTemp(t, dir, "n.csv", "episode,step,reward,pi_b,pi_e\nx,0,1,0.5,0.5\n")
	two := writeTemp(t, dir, "two.csv", "episode,step,reward,pi_b,pi_e:A,pi_e:B,obs,action\nx,0,1,0.5,0.5,1,s,a\nx,1,2,0.5,1,1,t,b\n")
	tabA := writeTemp(t, dir, "a.csv", "obs,action,pi_e:A\ns,a,0.5\ns,b,0.5\nt,b,1\n")
	tabABC := writeTemp(t, dir, "abc.csv", "obs,action,pi_e:A,pi_e:B,pi_e:C\ns,a,0.5,1,1\ns,b,0.5,0,0\nt,b,1,1,1\n")
	bad := writeTemp(t, dir, "bad.csv", "obs,action,pi_e\ns,a,0.5\ns,b,0.6\nt,b,1\n")
	for _, tt := range []struct {
		table, data string
		want        []string
	}{
		{filepath.Join(dir, "none.csv"), data, []string{"-policy-table", "none.csv", "no such file"}},
		{bad, data, []string{"-policy-table", "bad.csv: line 2", "sums to 1.1"}},
		{table, noIDs, []string{"-policy-table", "n.csv has no obs and action columns"}},
		{tabA, data, []string{"-policy-table", "no column pi_e"}},
		{tabA, two, []string{"-policy-table", "no column pi_e:B"}},
		{tabABC, two, []string{"-policy-table", "column pi_e:C", "two.csv has no such policy"}},
	} {
		code, _, errOut := runMain(t, "estimate", "-bootstrap", "0", "-estimators", "dm", "-policy-table", tt.table, tt.data)
		if code != 2 {
			t.Errorf("%s on %s: exit %d, want 2 (%s)", tt.table, tt.data, code, errOut)
		}
		for _, w := range tt.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s on %s: %q lacks %q", tt.table, tt.data, errOut, w)
			}
		}
	}
}

// TestPoliciesExample: examples/policies.csv holds the episodes of
// examples/subepisode_obs.csv (the same stream), so its candidate pe0.75
// (pi_e = 0.75 for a1, as subepisode_obs.csv's pi_e) is estimated with
// the same bits as that file: the policy's batch is a view of the
// shared columns with its own ratios and pi_e table.
func TestPoliciesExample(t *testing.T) {
	args := []string{"estimate", "-bootstrap", "50", "-estimators", "is,pdis,wis,dm,dr,mis,drl", "-csv"}
	dir := t.TempDir()
	code, _, errOut := runMain(t, append(args, filepath.Join(dir, "one.csv"), "../../examples/subepisode_obs.csv")...)
	code2, _, errOut2 := runMain(t, append(args, filepath.Join(dir, "many.csv"), "../../examples/policies.csv")...)
	if code != 0 || code2 != 0 {
		t.Fatalf("exit %d (%s), %d (%s)", code, errOut, code2, errOut2)
	}
	one, _ := os.ReadFile(filepath.Join(dir, "one.csv"))
	many, _ := os.ReadFile(filepath.Join(dir, "many.csv"))
	var want, got []string
	for _, l := range strings.Split(string(one), "\n")[1:] {
		if l != "" {
			want = append(want, strings.TrimPrefix(l, "pi_e,"))
		}
	}
	for _, l := range strings.Split(string(many), "\n") {
		if rest, ok := strings.CutPrefix(l, "pe0.75,"); ok {
			got = append(got, rest)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(want) != 7 {
		t.Errorf("pe0.75 of policies.csv:\n%s\nsubepisode_obs.csv:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
