package logdata_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// checkRead reads data and checks what must hold whatever the input: no
// panic; an error is an *logdata.Error marked as bad input (the input is in
// memory, so there are no I/O errors); a success is a valid batch whose every step has a
// finite reward and finite non-negative ratios, and finite q_hat and v_hat
// exactly when Info says the model columns are there.
func checkRead(t *testing.T, f logdata.Format, data []byte, allowExtra bool) {
	var b trajectory.Batch
	info, err := logdata.Read(bytes.NewReader(data), f, &b, logdata.Options{AllowExtra: allowExtra, SizeHint: int64(len(data))})
	if err != nil {
		var le *logdata.Error
		if !errors.As(err, &le) {
			t.Fatalf("error %v (%T) is not a *logdata.Error", err, err)
		}
		if !inputerr.Is(err) {
			t.Fatalf("error %v is not marked as bad input", err)
		}
		if err.Error() == "" {
			t.Fatal("empty error message")
		}
		return
	}
	if err := b.Validate(); err != nil {
		t.Fatalf("read succeeded but the batch is invalid: %v", err)
	}
	if info.Episodes != b.N() || info.Steps != b.Steps() || b.N() == 0 {
		t.Fatalf("info %+v for a batch of %d episodes, %d steps", info, b.N(), b.Steps())
	}
	for i := range b.N() {
		if b.Len(i) == 0 {
			t.Fatalf("episode %d is empty", i)
		}
	}
	if b.HasModel() != info.Columns.Model || (!info.Columns.Model && (len(b.QHat) != 0 || len(b.VHat) != 0)) ||
		(info.Columns.Model && (len(b.QHat) != b.Steps() || len(b.VHat) != b.Steps())) {
		t.Fatalf("columns %+v but %d q_hat and %d v_hat values for %d steps", info.Columns, len(b.QHat), len(b.VHat), b.Steps())
	}
	if b.HasIDs() != info.Columns.IDs || (info.IDs != nil) != info.Columns.IDs || (!info.Columns.IDs && (len(b.Obs) != 0 || len(b.Action) != 0)) {
		t.Fatalf("columns %+v, ids %v, but %d obs and %d action ids for %d steps", info.Columns, info.IDs, len(b.Obs), len(b.Action), b.Steps())
	}
	if info.Columns.IDs {
		if info.Columns.Options || len(b.Action) != b.Steps() {
			t.Fatalf("ids with columns %+v, %d action ids for %d steps", info.Columns, len(b.Action), b.Steps())
		}
		pie := make([]float64, info.IDs.Actions)
		for s := range b.Steps() {
			o, a := b.Obs[s], b.Action[s]
			if o < 0 || int(o) >= info.IDs.Obs || a < 0 || int(a) >= info.IDs.Actions {
				t.Fatalf("step %d: ids (%d, %d) outside %v", s, o, a, info.IDs)
			}
			info.IDs.PiE(int(o), pie)
			if sum := floats(pie); sum > 1+1e-9 {
				t.Fatalf("step %d: pi_e(.|%d) sums to %v", s, o, sum)
			}
		}
	}
	for s := range b.Steps() {
		if info.Columns.Model && (math.IsInf(b.QHat[s], 0) || math.IsNaN(b.QHat[s]) || math.IsInf(b.VHat[s], 0) || math.IsNaN(b.VHat[s])) {
			t.Fatalf("step %d: q_hat %v, v_hat %v not finite", s, b.QHat[s], b.VHat[s])
		}
		if math.IsInf(b.Ratio[s], 0) || math.IsInf(b.OptionRatio[s], 0) {
			t.Fatalf("step %d: infinite ratio", s)
		}
		if !info.Columns.Options && b.OptionRatio[s] != b.Ratio[s] {
			t.Fatalf("step %d: option ratio %v differs from ratio %v without option columns", s, b.OptionRatio[s], b.Ratio[s])
		}
		if !info.Columns.Split && b.Split[s] {
			t.Fatalf("step %d: split without a split column", s)
		}
	}
}

// floats sums x.
func floats(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// FuzzParseCSV: the CSV reader never panics and accepts only data that
// makes a valid batch. Seed corpus: testdata/fuzz/FuzzParseCSV and the
// entries below.
func FuzzParseCSV(f *testing.F) {
	for _, s := range []string{
		"episode,step,reward,pi_b,pi_e\na,0,1,0.5,0.25\na,1,-2,0.5,0.75\nb,0,0,1,1\n",
		"episode,step,reward,pi_b,pi_e,split\na,0,1,0.5,0.25,1\na,1,2,0.5,0.75,0\n",
		"episode,step,reward,pi_b,pi_e,option_start,mu_b,mu_e,option_changed\nx,0,1,0.5,0.25,1,0.8,0.4,1\nx,1,2,0.5,1,0,,,\ny,0,5,0.5,0.5,1,1,0,0\n",
		"pi_e,reward,episode,step,pi_b,extra\n0.5,1,\"a,b\",0,1,\"x\ny\"\n",
		"episode,step,reward,pi_b,pi_e\na,0,NaN,1,1\n",
		"episode,step,reward,pi_b,pi_e,q_hat,v_hat\na,0,1,0.5,0.25,2.5,-1\na,1,2,0.5,0.75,1e-3,.5\nb,0,0,1,1,0,0\n",
		"v_hat,split,q_hat,episode,step,reward,pi_b,pi_e\n1,0,2,a,0,1,0.5,0.5\n,1,2,a,1,1,0.5,0.5\n",
		"episode,step,reward,pi_b,pi_e,q_hat\na,0,1,1,1,2\n",
		"episode,step,reward,pi_b,pi_e,option_start,mu_b,mu_e,q_hat,v_hat\nx,0,1,0.5,0.25,1,0.8,0.4,inf,1\n",
		"episode,step,reward,pi_b,pi_e,obs,action\na,0,1,0.5,0.25,s0,left\na,1,2,0.5,0.75,s1,right\nb,0,0,0.5,0.25,s0,left\n",
		"obs,action,episode,step,reward,pi_b,pi_e\ns,x,a,0,1,0.5,0.25\ns,x,a,1,1,0.5,0.5\n",
		"episode,step,reward,pi_b,pi_e,obs,action\na,0,1,0.5,0.75,s,x\na,1,1,0.5,0.75,s,y\n",
		"episode,step,reward,pi_b,pi_e,obs\na,0,1,1,1,s\n",
		"episode,step,reward,pi_b,pi_e,option_start,mu_b,mu_e,obs,action\nx,0,1,0.5,0.25,1,0.8,0.4,s,a\n",
		"episode,step,reward,pi_b,pi_e:A,pi_e:B,done\nx,0,1,0.5,0.25,0.75,0\nx,1,0,0.5,1,0,1\ny,0,2,0.25,0.5,0.5,1\n",
		"trajectory_id,timestep,state,action,reward,done,terminal,pscore,evaluation_policy_pscore\n7,0,s0,a,1,0,0,0.5,0.25\n7,1,s1,b,0,1,0,0.5,1\n",
		"",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, allowExtra bool) {
		checkRead(t, logdata.CSV, data, allowExtra)
	})
}

// FuzzParseJSONL: the same for JSON Lines.
func FuzzParseJSONL(f *testing.F) {
	for _, s := range []string{
		`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25}` + "\n" + `{"episode":"a","step":1,"reward":-2,"pi_b":0.5,"pi_e":0.75}` + "\n",
		`{"episode":7,"step":0,"reward":1,"pi_b":0.5,"pi_e":0.5,"split":true,"note":{"a":[1,"}"]}}`,
		`{"episode":"x","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25,"option_start":1,"mu_b":0.8,"mu_e":0.4,"option_changed":true}` + "\n" +
			`{"episode":"x","step":1,"reward":2,"pi_b":0.5,"pi_e":1,"option_start":false}` + "\n",
		`{"episode":"\u00e9\"","step":0,"reward":1e-400,"pi_b":1,"pi_e":0}`,
		`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25,"q_hat":2.5,"v_hat":-1}` + "\n" + `{"episode":"a","step":1,"reward":2,"pi_b":0.5,"pi_e":0.75,"v_hat":0,"q_hat":1e300}` + "\n",
		`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25,"q_hat":2.5,"v_hat":null}` + "\n",
		`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25,"q_hat":2.5}` + "\n",
		`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25,"obs":"s0","action":3}` + "\n" + `{"episode":"a","step":1,"reward":2,"pi_b":0.5,"pi_e":0.25,"obs":"s0","action":"3"}` + "\n",
		`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25,"obs":"s0","action":null}` + "\n",
		"[1]\n{}\n",
		"",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, allowExtra bool) {
		checkRead(t, logdata.JSONL, data, allowExtra)
	})
}

// FuzzParseJSON: the same for a JSON document (records or an object of
// arrays), and what it accepts is valid JSON (the one-pass scanner refuses
// what json.Valid refuses).
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{
		`[{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25},{"episode":"a","step":1,"reward":-2,"pi_b":0.5,"pi_e":0.75}]`,
		`{"episode":["a","a","b"],"step":[0,1,0],"reward":[1,0,2],"pi_b":[0.5,0.5,0.5],"pi_e":[0.75,0.25,0.75],"done":[false,true,1]}`,
		`{"observations":[0,1],"actions":[1,1],"rewards":[1,0],"terminals":[0,1],"timeouts":[0,0],"pi_b":[0.5,0.5],"pi_e":[1,1]}`,
		`{"n_rounds":2,"action":[1,0],"position":[0,0],"reward":[1,0],"pscore":[0.5,0.5],"pi_e":[0.5,0.5],"context":[[1,2],[3]]}`,
		`[{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25,"x":[1,{"y":"]"}]}]`,
		"[", "{", "[]", "{}", `{"episode":[1,]}`, "",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, allowExtra bool) {
		checkRead(t, logdata.JSON, data, allowExtra)
		var b trajectory.Batch
		if _, err := logdata.Read(bytes.NewReader(data), logdata.JSON, &b, logdata.Options{AllowExtra: allowExtra}); err == nil &&
			!json.Valid(bytes.TrimPrefix(data, []byte("\ufeff"))) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
	})
}

// FuzzParseParquet: the same for Parquet, from valid files cut and
// changed by the fuzzer: no panic reaches the caller.
func FuzzParseParquet(f *testing.F) {
	one := 1.0
	var buf bytes.Buffer
	if err := parquet.Write(&buf, []parquetRow{{Episode: 1, Reward: &one, PiB: 0.5, PiE: 0.5}, {Episode: 1, Step: 1, Reward: &one, PiB: 1, PiE: 1, Done: true}}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes(), true)
	f.Add(buf.Bytes()[:len(buf.Bytes())/2], true)
	f.Add([]byte("PAR1"), false)
	f.Fuzz(func(t *testing.T, data []byte, allowExtra bool) {
		checkRead(t, logdata.Parquet, data, allowExtra)
	})
}
