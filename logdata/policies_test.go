package logdata_test

import (
	"bytes"
	"reflect"
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
	// with a pi_e column too, the batch is pi_e's and the policies come beside it
	var b trajectory.Batch
	info, err := logdata.Read(strings.NewReader("episode,step,reward,pi_b,pi_e,pi_e:A\nx,0,1,0.5,0.5,0.25\n"), logdata.CSV, &b, logdata.Options{})
	if err != nil || !reflect.DeepEqual(b.Ratio, []float64{1}) || !reflect.DeepEqual(info.PolicyRatio, [][]float64{{0.5}}) {
		t.Errorf("pi_e and pi_e:A: %v, ratio %v, policy ratios %v; want 1 and 0.5", err, b.Ratio, info.PolicyRatio)
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
		{"with ids", "episode,step,reward,pi_b,pi_e:A,obs,action\nx,0,1,1,1,s,a\n", logdata.CSV, 1, []string{`column "pi_e:A"`, "without the id columns"}},
		{"jsonl missing later", `{"episode":"x","step":0,"reward":1,"pi_b":1,"pi_e:A":1}` + "\n" + `{"episode":"x","step":1,"reward":1,"pi_b":1}`, logdata.JSONL, 2, []string{`field "pi_e:A"`, "missing or null"}},
		{"jsonl twice in a record", `{"episode":"x","step":0,"reward":1,"pi_b":1,"pi_e:A":1,"pi_e:A":1}`, logdata.JSONL, 1, []string{`field "pi_e:A"`, "given once"}},
		{"jsonl twice in a later record", `{"episode":"x","step":0,"reward":1,"pi_b":1,"pi_e:A":1}` + "\n" + `{"episode":"x","step":1,"reward":1,"pi_b":1,"pi_e:A":1,"pi_e:A":1}`, logdata.JSONL, 2, []string{`field "pi_e:A"`, "twice"}},
		{"jsonl new policy later", `{"episode":"x","step":0,"reward":1,"pi_b":1,"pi_e:A":1}` + "\n" + `{"episode":"x","step":1,"reward":1,"pi_b":1,"pi_e:A":1,"pi_e:C":1}`, logdata.JSONL, 2, []string{`field "pi_e:C"`, "unknown field"}},
	}
	for _, tt := range tests {
		_, _, err := readLayout(t, tt.text, tt.f, "", false)
		t.Run(tt.name, func(t *testing.T) { wantBadInput(t, err, tt.line, tt.want...) })
	}
}
