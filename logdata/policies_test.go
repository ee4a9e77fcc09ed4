package logdata_test

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// policyRow is a step with two candidate policies, as Parquet holds it.
type policyRow struct {
	Episode string  `parquet:"episode"`
	Step    int64   `parquet:"step"`
	Reward  float64 `parquet:"reward"`
	PiB     float64 `parquet:"pi_b"`
	A       float64 `parquet:"pi_e:A"`
	B       float64 `parquet:"pi_e:B"`
}

// TestPolicies reads two candidate policies, pi_e:A and pi_e:B, in every
// format: the batch is A's (no pi_e column), PolicyRatio is pi_e:NAME/pi_b
// per step (by hand: A 0.25/0.5, 1/0.5, 0.5/0.25; B 0.75/0.5, 0/0.5,
// 0.5/0.25) and PolicyBatch(1) is B's batch.
func TestPolicies(t *testing.T) {
	rows := []policyRow{{"x", 0, 1, 0.5, 0.25, 0.75}, {"x", 1, 0, 0.5, 1, 0}, {"y", 0, 2, 0.25, 0.5, 0.5}}
	var pq bytes.Buffer
	if err := parquet.Write(&pq, rows); err != nil {
		t.Fatal(err)
	}
	texts := map[logdata.Format]string{
		logdata.CSV: "episode,step,reward,pi_b,pi_e:A,pi_e:B\nx,0,1,0.5,0.25,0.75\nx,1,0,0.5,1,0\ny,0,2,0.25,0.5,0.5\n",
		logdata.JSONL: `{"episode":"x","step":0,"reward":1,"pi_b":0.5,"pi_e:A":0.25,"pi_e:B":0.75}` + "\n" +
			`{"pi_e:B":0,"episode":"x","step":1,"reward":0,"pi_b":0.5,"pi_e:A":1}` + "\n" + `{"episode":"y","step":0,"reward":2,"pi_b":0.25,"pi_e:A":0.5,"pi_e:B":0.5}`,
		logdata.JSON:    `{"episode":["x","x","y"],"step":[0,1,0],"reward":[1,0,2],"pi_b":[0.5,0.5,0.25],"pi_e:A":[0.25,1,0.5],"pi_e:B":[0.75,0,0.5]}`,
		logdata.Parquet: pq.String(),
	}
	wantA, wantB := []float64{0.5, 2, 2}, []float64{1.5, 0, 2}
	for f, text := range texts {
		m, _ := logdata.ParseMapping("")
		var b trajectory.Batch
		info, err := logdata.Read(strings.NewReader(text), f, &b, logdata.Options{Columns: m, KeepProbs: true})
		if err != nil {
			t.Errorf("%v: %v", f, err)
			continue
		}
		pb := info.PolicyBatch(&b, 1)
		if !reflect.DeepEqual(info.Policies, []string{"A", "B"}) || !reflect.DeepEqual(b.Ratio, wantA) ||
			!reflect.DeepEqual(info.PolicyRatio, [][]float64{wantA, wantB}) || !reflect.DeepEqual(pb.Ratio, wantB) ||
			!reflect.DeepEqual(pb.PiE, []float64{0.75, 0, 0.5}) || !reflect.DeepEqual(b.PiE, []float64{0.25, 1, 0.5}) {
			t.Errorf("%v: policies %v, ratios %v, per policy %v, B's batch %v (pi_e %v)", f, info.Policies, b.Ratio, info.PolicyRatio, pb.Ratio, pb.PiE)
		}
	}
}

// TestPolicyErrors: hostile policy columns.
func TestPolicyErrors(t *testing.T) {
	const head = "episode,step,reward,pi_b,pi_e:A,pi_e:B\n"
	tests := []struct {
		name, text string
		f          logdata.Format
		line       int
		want       []string
	}{
		{"no name", "episode,step,reward,pi_b,pi_e:\nx,0,1,1,1\n", logdata.CSV, 1, []string{`column "pi_e:"`, "needs a name"}},
		{"twice", "episode,step,reward,pi_b,pi_e:A,pi_e:A\nx,0,1,1,1,1\n", logdata.CSV, 1, []string{`column "pi_e:A"`, "given once"}},
		{"not a probability", head + "x,0,1,0.5,0.25,2\n", logdata.CSV, 2, []string{`column "pi_e:B"`, "[0, 1]"}},
		{"empty", head + "x,0,1,0.5,,0.5\n", logdata.CSV, 2, []string{`column "pi_e:A"`, "empty, want a number"}},
		{"overflow", head + "x,0,1,1e-320,1,1\n", logdata.CSV, 2, []string{`column "pi_b"`, "pi_e:A/pi_b", "overflows"}},
		{"pi_e and pi_e:A", "episode,step,reward,pi_b,pi_e,pi_e:A\nx,0,1,0.5,0.5,0.25\n", logdata.CSV, 1, []string{`column "pi_e"`, "both a pi_e column and policy columns (pi_e:A)"}},
		{"bad name", "episode,step,reward,pi_b,pi_e:a b\nx,0,1,1,1\n", logdata.CSV, 1, []string{`column "pi_e:a b"`, "letters, digits"}},
		{"with options", "episode,step,reward,pi_b,pi_e:A,option_start,mu_b,mu_e\nx,0,1,1,1,1,1,1\n", logdata.CSV, 1, []string{`column "pi_e:A"`, "primitive data only"}},
		{"ids disagree", "episode,step,reward,pi_b,pi_e:A,pi_e:B,obs,action\nx,0,1,0.5,0.5,0.5,s,a\nx,1,1,0.5,0.5,0.25,s,a\n", logdata.CSV, 3, []string{`column "pi_e:B"`, "which line 2 gave pi_e = 0.5"}},
		{"ids mass", "episode,step,reward,pi_b,pi_e:A,pi_e:B,obs,action\nx,0,1,0.5,0.5,0.5,s,a\nx,1,1,0.5,0.5,0.75,s,b\n", logdata.CSV, 3, []string{`column "pi_e:B"`, "above 1"}},
		{"jsonl missing later", `{"episode":"x","step":0,"reward":1,"pi_b":1,"pi_e:A":1}` + "\n" + `{"episode":"x","step":1,"reward":1,"pi_b":1}`, logdata.JSONL, 2, []string{`field "pi_e:A"`, "missing or null"}},
		{"jsonl twice in a record", `{"episode":"x","step":0,"reward":1,"pi_b":1,"pi_e:A":1,"pi_e:A":1}`, logdata.JSONL, 1, []string{`field "pi_e:A"`, "given once"}},
		{"jsonl twice in a later record", `{"episode":"x","step":0,"reward":1,"pi_b":1,"pi_e:A":1}` + "\n" + `{"episode":"x","step":1,"reward":1,"pi_b":1,"pi_e:A":1,"pi_e:A":1}`, logdata.JSONL, 2, []string{`field "pi_e:A"`, "twice"}},
		{"jsonl new policy later", `{"episode":"x","step":0,"reward":1,"pi_b":1,"pi_e:A":1}` + "\n" + `{"episode":"x","step":1,"reward":1,"pi_b":1,"pi_e:A":1,"pi_e:C":1}`, logdata.JSONL, 2, []string{`field "pi_e:C"`, "unknown field"}},
	}
	for _, tt := range tests {
		_, _, err := readLayout(t, tt.text, tt.f, "", false)
		t.Run(tt.name, func(t *testing.T) { wantBadInput(t, err, tt.line, tt.want...) })
	}
	mapped := []struct {
		name, text, cols string
		want             []string
	}{
		{"pi_e and pi_e:A", "episode,step,reward,pi_b,p,pi_e:A\nx,0,1,0.5,0.5,0.25\n", "pi_e=p", []string{`column "p (pi_e)"`, "both"}},
		{"missing", "episode,step,reward,pi_b,pi_e:A\nx,0,1,1,1\n", "pi_e:g=eval_g", []string{`column "eval_g"`, "maps pi_e:g"}},
		{"name twice", "episode,step,reward,pi_b,pi_e:A,e\nx,0,1,1,1,1\n", "pi_e:A=e", []string{`column "e (pi_e:A)"`, "given once"}},
		{"bad value", "episode,step,reward,pi_b,e\nx,0,1,1,1\nx,1,1,1,-1\n", "pi_e:g=e", []string{`column "e (pi_e:g)"`, "[0, 1]"}},
	}
	for _, tt := range mapped {
		_, _, err := readLayout(t, tt.text, logdata.CSV, tt.cols, false)
		line := strings.Count(tt.text, "\n")
		if tt.name != "bad value" {
			line = 1
		}
		t.Run("mapped "+tt.name, func(t *testing.T) { wantBadInput(t, err, line, tt.want...) })
	}
}

// TestPolicyMapping: -columns pi_e:NAME=THEIRS names a policy column in
// every format's reading path (CSV here, the mapping is format-blind), and
// hostile pairs are refused naming the pair.
func TestPolicyMapping(t *testing.T) {
	b, info, err := readLayout(t, "episode,step,reward,pi_b,eval_g,eval_s\nx,0,1,0.5,0.25,0.5\n", logdata.CSV, "pi_e:greedy=eval_g,pi_e:soft=eval_s", false)
	// by hand: greedy 0.25/0.5 = 0.5, soft 0.5/0.5 = 1
	if err != nil || !reflect.DeepEqual(info.Policies, []string{"greedy", "soft"}) || !reflect.DeepEqual(b.Ratio, []float64{0.5}) || !reflect.DeepEqual(info.PolicyRatio[1], []float64{1}) {
		t.Fatalf("%v: policies %v, ratio %v, %v", err, info.Policies, b.Ratio, info.PolicyRatio)
	}
	for _, tt := range []struct{ cols, want string }{
		{"pi_e:=x", "policy name"},
		{"pi_e:a/b=x", "policy name"},
		{"pi_e:a=x,pi_e:a=y", "mapped twice"},
		{"pi_e:a=x,pi_e:b=x", "mapped to pi_e:a already"},
		{"pi_b=x,pi_e:b=x", "mapped to pi_b already"},
	} {
		if _, err := logdata.ParseMapping(tt.cols); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.cols, err, tt.want)
		}
	}
}

// TestPolicyIDs: with the id columns, each policy has its own pi_e table
// (by hand: obs s has actions a, b; A gives 0.25, 0.5 and B 1, 0).
func TestPolicyIDs(t *testing.T) {
	_, info, err := readLayout(t, "episode,step,reward,pi_b,pi_e:A,pi_e:B,obs,action\nx,0,1,0.5,0.25,1,s,a\nx,1,1,0.5,0.5,0,s,b\ny,0,0,0.5,0.25,1,s,a\n", logdata.CSV, "", false)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, 2)
	got := [][]float64{}
	for k := range info.PolicyIDs {
		info.PolicyIDs[k].PiE(0, dst)
		got = append(got, slices.Clone(dst))
	}
	if info.IDs != info.PolicyIDs[0] || !reflect.DeepEqual(got, [][]float64{{0.25, 0.5}, {1, 0}}) {
		t.Errorf("pi_e tables %v, want [[0.25 0.5] [1 0]]", got)
	}
}

// TestPolicyCellsRemembered: a policy column's remembered cells give the
// numbers ParseFloat gives, through six distinct texts (more than the
// four remembered) in every order, spellings of one number ("0.5",
// "0.50", "5e-1") and a bad cell after a good one.
func TestPolicyCellsRemembered(t *testing.T) {
	texts := []string{"0.5", "0.25", "0.50", "5e-1", "0.125", "1", "0.0625", "0.25", "0.5", "1", "0.125", "5e-1", "0.0625", "0.50"}
	var csv strings.Builder
	csv.WriteString("episode,step,reward,pi_b,pi_e:A\n")
	var want []float64
	for i, s := range texts {
		fmt.Fprintf(&csv, "%d,0,1,0.5,%s\n", i, s)
		v, _ := strconv.ParseFloat(s, 64)
		want = append(want, v/0.5)
	}
	b, _, err := readLayout(t, csv.String(), logdata.CSV, "", false)
	if err != nil || !reflect.DeepEqual(b.Ratio, want) {
		t.Errorf("%v: ratios %v, want %v", err, b.Ratio, want)
	}
	_, _, err = readLayout(t, csv.String()+"99,0,1,0.5,2\n", logdata.CSV, "", false)
	wantBadInput(t, err, len(texts)+2, `column "pi_e:A"`, "[0, 1]")
}

// TestPolicyBudget: Options.MaxPolicyBytes bounds the candidates' own
// columns: by hand, 3 policies take 2 x 8 = 16 bytes a step beyond the
// batch, so a budget of 40 bytes holds 2 steps and refuses the third
// record (line 4); one policy takes none.
func TestPolicyBudget(t *testing.T) {
	text := "episode,step,reward,pi_b,pi_e:A,pi_e:B,pi_e:C\nx,0,1,1,1,1,1\nx,1,1,1,1,1,1\nx,2,1,1,1,1,1\n"
	var b trajectory.Batch
	_, err := logdata.Read(strings.NewReader(text), logdata.CSV, &b, logdata.Options{MaxPolicyBytes: 40})
	wantBadInput(t, err, 4, "3 candidate policies", "-max-memory")
	b = trajectory.Batch{}
	one := "episode,step,reward,pi_b,pi_e:A\nx,0,1,1,1\nx,1,1,1,1\nx,2,1,1,1\n"
	if _, err := logdata.Read(strings.NewReader(one), logdata.CSV, &b, logdata.Options{MaxPolicyBytes: 1}); err != nil {
		t.Errorf("one policy: %v", err)
	}
}

// bothRow has pi_e beside a policy column, as Parquet holds it.
type bothRow struct {
	Episode string  `parquet:"episode"`
	Step    int64   `parquet:"step"`
	Reward  float64 `parquet:"reward"`
	PiB     float64 `parquet:"pi_b"`
	PiE     float64 `parquet:"pi_e"`
	A       float64 `parquet:"pi_e:A"`
}

// TestPolicyErrorsEveryFormat: pi_e beside pi_e:NAME, a bad policy name,
// a policy probability out of range, and a policy cell that is not a
// number are refused in every format, naming the field and the line
// (Parquet: the row).
func TestPolicyErrorsEveryFormat(t *testing.T) {
	var pq, pqBad bytes.Buffer
	if err := parquet.Write(&pq, []bothRow{{"x", 0, 1, 1, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := parquet.Write(&pqBad, []policyRow{{"x", 0, 1, 0.5, 0.5, 0.5}, {"x", 1, 1, 0.5, 1.5, 0.5}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text string
		f          logdata.Format
		line       int
		want       []string
	}{
		{"jsonl both", `{"episode":"x","step":0,"reward":1,"pi_b":1,"pi_e":1,"pi_e:A":1}`, logdata.JSONL, 1, []string{`field "pi_e"`, "both"}},
		{"json both", `{"episode":["x"],"step":[0],"reward":[1],"pi_b":[1],"pi_e":[1],"pi_e:A":[1]}`, logdata.JSON, 0, []string{`field "pi_e"`, "both"}},
		{"parquet both", pq.String(), logdata.Parquet, 0, []string{`column "pi_e"`, "both"}},
		{"jsonl bad name", `{"episode":"x","step":0,"reward":1,"pi_b":1,"pi_e:a b":1}`, logdata.JSONL, 1, []string{`field "pi_e:a b"`, "letters, digits"}},
		{"json out of range", `[{"episode":"x","step":0,"reward":1,"pi_b":1,"pi_e:A":1},{"episode":"x","step":1,"reward":1,"pi_b":1,"pi_e:A":-1}]`, logdata.JSON, 0, []string{`field "pi_e:A"`, "record 2", "[0, 1]"}},
		{"jsonl not a number", `{"episode":"x","step":0,"reward":1,"pi_b":1,"pi_e:A":"0.5"}`, logdata.JSONL, 1, []string{`field "pi_e:A"`}},
		{"parquet out of range", pqBad.String(), logdata.Parquet, 0, []string{"row 2", `column "pi_e:A"`, "[0, 1]"}},
	}
	for _, tt := range tests {
		_, _, err := readLayout(t, tt.text, tt.f, "", false)
		t.Run(tt.name, func(t *testing.T) { wantBadInput(t, err, tt.line, tt.want...) })
	}
}
