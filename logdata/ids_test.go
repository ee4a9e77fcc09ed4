package logdata_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestIDsParse: obs and action map to dense ids in order of first
// appearance, compared by their text (JSON: 3 and "3" are one id), and
// pi_e(a|o) is kept for every pair seen (0 for the others).
func TestIDsParse(t *testing.T) {
	csv := "episode,step,reward,pi_b,pi_e,action,obs\n" +
		"e1,0,1,0.5,0.25,left,s0\n" +
		"e1,1,2,0.5,0.75,right,s1\n" +
		"e2,0,0,0.5,0.25,left,s0\n" +
		"e2,1,0,0.5,0.75,right,s0\n" +
		"e2,2,0,0.25,0.1,up,s2\n"
	jsonl := `{"episode":"e1","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25,"obs":"s0","action":"left"}` + "\n" +
		`{"episode":"e1","step":1,"reward":2,"pi_b":0.5,"pi_e":0.75,"obs":"s1","action":"right"}` + "\n" +
		`{"episode":"e2","step":0,"reward":0,"pi_b":0.5,"pi_e":0.25,"obs":"s0","action":"left"}` + "\n" +
		`{"episode":"e2","step":1,"reward":0,"pi_b":0.5,"pi_e":0.75,"obs":"s0","action":"right"}` + "\n" +
		`{"episode":"e2","step":2,"reward":0,"pi_b":0.25,"pi_e":0.1,"obs":"s2","action":"up"}` + "\n"
	for _, tc := range []struct {
		f    logdata.Format
		data string
	}{{logdata.CSV, csv}, {logdata.JSONL, jsonl}} {
		var b trajectory.Batch
		info, err := logdata.Read(strings.NewReader(tc.data), tc.f, &b, logdata.Options{})
		if err != nil {
			t.Fatalf("%v: %v", tc.f, err)
		}
		if !info.Columns.IDs || !b.HasIDs() || info.IDs == nil {
			t.Fatalf("%v: columns %+v, HasIDs %v, ids %v", tc.f, info.Columns, b.HasIDs(), info.IDs)
		}
		if want := []int32{0, 1, 0, 0, 2}; !slices.Equal(b.Obs, want) {
			t.Errorf("%v: obs %v, want %v", tc.f, b.Obs, want)
		}
		if want := []int32{0, 1, 0, 1, 2}; !slices.Equal(b.Action, want) {
			t.Errorf("%v: action %v, want %v", tc.f, b.Action, want)
		}
		ids := info.IDs
		if ids.Obs != 3 || ids.Actions != 3 || ids.Pairs() != 4 {
			t.Errorf("%v: %v, want 3 observations, 3 actions, 4 pairs", tc.f, ids)
		}
		dst := make([]float64, ids.Actions)
		for o, want := range [][]float64{{0.25, 0.75, 0}, {0, 0.75, 0}, {0, 0, 0.1}} {
			ids.PiE(o, dst)
			if !slices.Equal(dst, want) {
				t.Errorf("%v: pi_e(.|%d) = %v, want %v", tc.f, o, dst, want)
			}
		}
	}
	// JSON: a number is an id by its literal text
	var b trajectory.Batch
	info, err := logdata.Read(strings.NewReader(`{"episode":1,"step":0,"reward":0,"pi_b":1,"pi_e":1,"obs":7,"action":"7"}`+"\n"+
		`{"episode":1,"step":1,"reward":0,"pi_b":1,"pi_e":1,"obs":"7","action":7}`+"\n"), logdata.JSONL, &b, logdata.Options{})
	if err != nil || info.IDs.Obs != 1 || info.IDs.Actions != 1 {
		t.Errorf("7 and \"7\": %v, %v", info.IDs, err)
	}
}

// TestIDsBadInput: the id columns' errors name the line and the column;
// an inconsistent pi_e names both rows.
func TestIDsBadInput(t *testing.T) {
	head := "episode,step,reward,pi_b,pi_e,obs,action\n"
	cases := []struct {
		name string
		f    logdata.Format
		data string
		want []string
	}{
		{"obs without action", logdata.CSV, "episode,step,reward,pi_b,pi_e,obs\na,0,1,1,1,s\n",
			[]string{`line 1: column "action": missing: the id columns come together (obs and action, SPEC 1f)`}},
		{"action without obs", logdata.CSV, "action,episode,step,reward,pi_b,pi_e\nx,a,0,1,1,1\n",
			[]string{`line 1: column "obs": missing: the id columns come together`}},
		{"empty obs", logdata.CSV, head + "a,0,1,1,1,s,x\na,1,1,1,1,,x\n",
			[]string{`line 3: column "obs": empty observation id, want a non-empty string`}},
		{"empty action", logdata.CSV, head + "a,0,1,1,1,s,\n",
			[]string{`line 2: column "action": empty action id, want a non-empty string`}},
		{"inconsistent pi_e", logdata.CSV, head + "a,0,1,0.5,0.25,s,x\na,1,1,0.5,0.5,t,x\nb,0,1,0.5,0.3,s,x\n",
			[]string{`line 4: column "pi_e": 0.3 for obs "s" and action "x", which line 2 gave pi_e = 0.25: pi_e(a|o) must be the same on every row with the same obs and action (SPEC 1f)`}},
		{"pi_e above 1", logdata.CSV, head + "a,0,1,0.5,0.75,s,x\na,1,1,0.5,0.5,s,y\n",
			[]string{`line 3: column "pi_e": 0.5 for obs "s" and action "y" brings pi_e over the actions seen at that obs to 1.25, above 1`}},
		{"options", logdata.CSV, "episode,step,reward,pi_b,pi_e,option_start,mu_b,mu_e,obs,action\nx,0,1,0.5,0.25,1,0.8,0.4,s,a\n",
			[]string{`line 1: column "obs": the id columns obs and action are for primitive data, and the data has the option columns`}},
		{"JSONL null action", logdata.JSONL, `{"episode":"a","step":0,"reward":1,"pi_b":1,"pi_e":1,"obs":"s","action":null}` + "\n",
			[]string{`line 1: field "action": missing or null, want an action id`}},
		{"JSONL empty obs", logdata.JSONL, `{"episode":"a","step":0,"reward":1,"pi_b":1,"pi_e":1,"obs":"","action":"x"}` + "\n",
			[]string{`line 1: field "obs": empty observation id, want a non-empty string`}},
		{"JSONL action left out", logdata.JSONL, `{"episode":"a","step":0,"reward":1,"pi_b":1,"pi_e":1,"obs":"s","action":"x"}` + "\n" +
			`{"episode":"a","step":1,"reward":1,"pi_b":1,"pi_e":1,"obs":"s"}` + "\n",
			[]string{`line 2: field "action": missing (every record needs it: the first record has the id columns)`}},
		{"JSONL inconsistent", logdata.JSONL, `{"episode":"a","step":0,"reward":1,"pi_b":1,"pi_e":1,"obs":"s","action":"x"}` + "\n\n" +
			`{"episode":"a","step":1,"reward":1,"pi_b":1,"pi_e":0.5,"obs":"s","action":"x"}` + "\n",
			[]string{`line 3 (record 2): field "pi_e": 0.5 for obs "s" and action "x", which line 1 gave pi_e = 1`}},
	}
	for _, tc := range cases {
		var b trajectory.Batch
		_, err := logdata.Read(strings.NewReader(tc.data), tc.f, &b, logdata.Options{})
		if err == nil || !inputerr.Is(err) {
			t.Errorf("%s: error %v, want bad input", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", tc.name, err, w)
			}
		}
	}
}

// TestIDsRoundTrip: a batch with ids written (ids as decimal text) and read
// back has the same rewards and ratios bit for bit, and the same ids up
// to renumbering in order of first appearance.
func TestIDsRoundTrip(t *testing.T) {
	var b trajectory.Batch
	obs := []int32{4, 2, 4, 9, 2}
	act := []int32{1, 0, 1, 1, 0}
	pe := map[[2]int32]float64{{4, 1}: 0.3, {2, 0}: 0.7, {9, 1}: 1}
	for i, o := range obs {
		b.Add(float64(i)-1.5, pe[[2]int32{o, act[i]}]/0.5)
		b.AddIDs(o, act[i])
		if i == 2 {
			b.End()
		}
	}
	b.End()
	for _, f := range []logdata.Format{logdata.CSV, logdata.JSONL} {
		var recs []logdata.Record
		for i := range b.N() {
			for st := range b.Len(i) {
				s := b.Offsets[i] + st
				recs = append(recs, logdata.Record{Episode: string(rune('a' + i)), Step: st, Reward: b.Reward[s], PiB: 0.5,
					PiE: pe[[2]int32{b.Obs[s], b.Action[s]}], Obs: itoa(b.Obs[s]), Action: itoa(b.Action[s])})
			}
		}
		data := encode(t, f, logdata.Columns{IDs: true}, recs)
		var got trajectory.Batch
		info, err := logdata.Read(strings.NewReader(string(data)), f, &got, logdata.Options{})
		if err != nil {
			t.Fatalf("%v: %v\n%s", f, err, data)
		}
		if !sameBits(got.Reward, b.Reward) || !sameBits(got.Ratio, b.Ratio) || !slices.Equal(got.Offsets, b.Offsets) {
			t.Errorf("%v: batch differs", f)
		}
		if want := []int32{0, 1, 0, 2, 1}; !slices.Equal(got.Obs, want) || !slices.Equal(got.Action, []int32{0, 1, 0, 0, 1}) {
			t.Errorf("%v: obs %v action %v", f, got.Obs, got.Action)
		}
		if info.IDs.Obs != 3 || info.IDs.Actions != 2 || info.IDs.Pairs() != 3 {
			t.Errorf("%v: %v", f, info.IDs)
		}
	}
}

func itoa(x int32) string { return strconv.Itoa(int(x)) }
