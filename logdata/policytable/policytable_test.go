package policytable_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/logdata/policytable"
	"github.com/ope-lab/longhorizon/trajectory"
)

// tableData logs obs s with action a only (pi_e 0.5) and obs t with
// action b (pi_e 1): the data's pi_e table knows pi_e(a|s) and pi_e(b|t).
const tableData = "episode,step,reward,pi_b,pi_e,obs,action\nx,0,1,0.5,0.5,s,a\nx,1,2,0.5,1,t,b\n"

func readData(t *testing.T) logdata.Info {
	t.Helper()
	var b trajectory.Batch
	info, err := logdata.Read(strings.NewReader(tableData), logdata.CSV, &b, logdata.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func readTable(t *testing.T, text string) (*policytable.PolicyTable, error) {
	t.Helper()
	return policytable.ReadPolicyTable(strings.NewReader(text), "tab.csv")
}

// TestPolicyTableApply: the table fills in pi_e at the actions the data
// never logged at an observation: by hand, pi_e(.|s) = (a 0.5, b 0.5)
// where the data knew only a's 0.5, and pi_e(.|t) = (a 0, b 1); rows of
// an observation the data never visits (u) and of an action it never
// logs (c, taking t's mass 0) are ignored.
func TestPolicyTableApply(t *testing.T) {
	info := readData(t)
	tab, err := readTable(t, "obs,action,pi_e\ns,a,0.5\ns,b,0.5\nt,b,1\nt,c,0\nu,a,1\n")
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, 2)
	info.IDs.PiE(0, dst)
	if !reflect.DeepEqual(dst, []float64{0.5, 0}) {
		t.Fatalf("the data's pi_e(.|s) = %v, want [0.5 0]", dst)
	}
	dist, err := tab.Apply(info.IDs, tab.Policy(""))
	if err != nil {
		t.Fatal(err)
	}
	for o, want := range [][]float64{{0.5, 0.5}, {0, 1}} {
		dist.PiE(o, dst)
		if !reflect.DeepEqual(dst, want) {
			t.Errorf("pi_e(.|%d) = %v, want %v", o, dst, want)
		}
	}
}

// TestPolicyTableHostile: every bad table is bad input naming the file,
// the line and the column.
func TestPolicyTableHostile(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"empty", "", []string{"tab.csv: line 1", "empty"}},
		{"no obs", "action,pi_e\na,1\n", []string{"tab.csv: line 1", "want the columns obs and action"}},
		{"no policy", "obs,action\ns,a\n", []string{"line 1", "want a pi_e column"}},
		{"unknown", "obs,action,pi_e,x\ns,a,1,2\n", []string{"line 1", `column "x"`, "unknown column"}},
		{"twice", "obs,action,pi_e,pi_e\ns,a,1,1\n", []string{"line 1", `column "pi_e"`, "twice"}},
		{"both", "obs,action,pi_e,pi_e:A\ns,a,1,1\n", []string{"line 1", `column "pi_e"`, "both"}},
		{"bad name", "obs,action,pi_e:a b\ns,a,1\n", []string{"line 1", `column "pi_e:a b"`, "unknown column"}},
		{"no rows", "obs,action,pi_e\n", []string{"line 1", "no rows"}},
		{"not a number", "obs,action,pi_e\ns,a,x\n", []string{"line 2", `column "pi_e"`, "not a probability"}},
		{"above 1", "obs,action,pi_e\ns,a,1.5\n", []string{"line 2", `column "pi_e"`, "[0, 1]"}},
		{"negative", "obs,action,pi_e\ns,a,-0\ns,b,-0.5\n", []string{"line 3", "not a probability"}},
		{"nan", "obs,action,pi_e\ns,a,NaN\n", []string{"line 2", "not a probability"}},
		{"hex", "obs,action,pi_e\ns,a,0x1p-1\ns,b,0.5\n", []string{"line 2", "not a probability"}},
		{"empty id", "obs,action,pi_e\n,a,1\n", []string{"line 2", `column "obs"`, "empty id"}},
		{"pair twice", "obs,action,pi_e\ns,a,0.5\ns,a,0.5\n", []string{"line 3", "line 2 has them"}},
		{"sum", "obs,action,pi_e\ns,a,0.5\nt,a,1\ns,b,0.4\n", []string{"line 2", `obs "s"`, "sums to 0.9"}},
		{"sum within 1e-9 is not enough at 1e-8", "obs,action,pi_e\ns,a,0.5\ns,b,0.50000001\n", []string{"line 2", "sums to"}},
		{"fields", "obs,action,pi_e\ns,a\n", []string{"line 2", "wrong number of fields"}},
	}
	for _, tt := range tests {
		_, err := readTable(t, tt.text)
		if err == nil || !inputerr.Is(err) {
			t.Errorf("%s: %v, want bad input", tt.name, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", tt.name, err, w)
			}
		}
	}
	// the data's pi_e against the table
	info := readData(t)
	for _, tt := range []struct{ name, text, want string }{
		{"obs missing", "obs,action,pi_e\ns,a,0.5\ns,b,0.5\n", `no row for obs "t", which the data visits (its line 3)`},
		{"disagree", "obs,action,pi_e\ns,a,0.4\ns,b,0.6\nt,b,1\n", `tab.csv: line 2 gives pi_e = 0.4 for obs "s" and action "a", and the data's line 2 gives pi_e = 0.5`},
		{"disagree by 1e-11", "obs,action,pi_e\ns,a,0.50000000001\ns,b,0.49999999999\nt,b,1\n", "must agree within 1e-12"},
		{"logged pair without a row", "obs,action,pi_e\ns,b,1\nt,b,1\n", `has no row for them (pi_e 0) for obs "s" and action "a"`},
	} {
		tab, err := readTable(t, tt.text)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if _, err := tab.Apply(info.IDs, 0); err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	// within the tolerances: sums off by 1e-10, agreement off by 1e-13
	tab, err := readTable(t, "obs,action,pi_e\ns,a,0.5000000000001\ns,b,0.4999999999\nt,b,1\n")
	if err == nil {
		_, err = tab.Apply(info.IDs, 0)
	}
	if err != nil {
		t.Errorf("within the tolerances: %v", err)
	}
}
