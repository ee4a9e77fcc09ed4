package logdata

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// readBothPaths reads data in format f with records read by addAs where
// they repeat the last one's names, and with every record read by
// addFields (the slow path, obviously the checks of the names).
func readBothPaths(f Format, data []byte, opt Options) (fast, slow result) {
	defer func() { noFastPath = false }()
	for _, off := range []bool{false, true} {
		noFastPath = off
		var r result
		r.info, r.err = Read(bytes.NewReader(data), f, &r.b, opt)
		if r.err != nil {
			r.msg = r.err.Error()
		}
		if off {
			slow = r
		} else {
			fast = r
		}
	}
	return fast, slow
}

type result struct {
	b    trajectory.Batch
	info Info
	err  error
	msg  string
}

// checkSamePaths fails unless both paths read data alike: the same
// batch, Info and error message.
func checkSamePaths(t *testing.T, f Format, data []byte, opt Options) {
	fast, slow := readBothPaths(f, data, opt)
	if fast.msg != slow.msg {
		t.Fatalf("%s %q: error %q with the fast path, %q without", f, data, fast.msg, slow.msg)
	}
	if !reflect.DeepEqual(fast.info, slow.info) || !reflect.DeepEqual(fast.b, slow.b) {
		t.Fatalf("%s %q: read differs with the fast path:\n%+v\n%+v", f, data, fast.info, slow.info)
	}
}

// recordSeeds are records whose later ones repeat, reorder, drop or add
// members, with errors in names and values after a first good record.
var recordSeeds = []string{
	`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25}` + "\n" + `{"episode":"a","step":1,"reward":-2,"pi_b":0.5,"pi_e":0.75}` + "\n" + `{"episode":"b","step":0,"reward":0,"pi_b":1,"pi_e":1}`,
	`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25}` + "\n" + `{"step":1,"episode":"a","reward":-2,"pi_b":0.5,"pi_e":0.75}` + "\n" + `{"episode":"a","step":2,"reward":0,"pi_b":1,"pi_e":1}`,
	`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25,"x":1}` + "\n" + `{"episode":"a","step":1,"reward":2,"pi_b":0.5,"pi_e":0.75,"x":[1]}` + "\n" + `{"episode":"a","step":2,"reward":2,"pi_b":0.5,"pi_e":0.75,"x":1,"x":2}`,
	`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25,"y":1}` + "\n" + `{"episode":"a","step":1,"reward":2,"pi_b":0.5,"pi_e":0.75,"z":1}` + "\n" + `{"episode":"a","step":2,"reward":2,"pi_b":0.5,"pi_e":0.75,"z":1}`,
	`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25}` + "\n" + `{"episode":"a","step":1,"reward":1,"pi_b":0.5}` + "\n" + `{"episode":"a","step":1,"reward":1,"pi_b":0.5,"pi_e":0.25,"pi_e":1}`,
	`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25}` + "\n" + `{"episode":"a","step":1,"reward":1,"pi_b":0.5,"pi_e":2}` + "\n" + `{"episode":"a","step":2,"reward":1e999,"pi_b":0.5,"pi_e":0.5}`,
	`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25}` + "\n" + `{"episode":"a","step":1,"reward":1,"pi_b":0.5,"pi_e":0.25,}` + "\n" + `{"episode":"a","step":2,"reward":1,"pi_b":0.5,"pi_e":0.25} x`,
	`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25}` + "\n" + `{"episode":"a","st\u0065p":1,"reward":1,"pi_b":0.5,"pi_e":0.25}` + "\n" + `[1]`,
	`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e:A":0.25,"pi_e:B":1,"done":0}` + "\n" + `{"episode":"a","step":1,"reward":1,"pi_b":0.5,"pi_e:A":null,"pi_e:B":1,"done":1}`,
	`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25,"obs":"s","action":1,"q_hat":1,"v_hat":2}` + "\n" + `{"episode":"a","step":1,"reward":1,"pi_b":0.5,"pi_e":0.25,"obs":"t","action":0,"q_hat":1,"v_hat":"2"}`,
}

// TestFastPathSame: the fast path reads every seed, as JSON Lines and as a
// JSON array of records, as the slow path does.
func TestFastPathSame(t *testing.T) {
	for _, s := range recordSeeds {
		for _, extra := range []bool{false, true} {
			checkSamePaths(t, JSONL, []byte(s), Options{AllowExtra: extra})
			checkSamePaths(t, JSON, []byte("["+strings.ReplaceAll(s, "\n", ",\n")+"]"), Options{AllowExtra: extra})
		}
	}
}

// FuzzFastPath: on any input, JSON Lines and JSON, the fast path reads
// as the slow path does.
func FuzzFastPath(f *testing.F) {
	for _, s := range recordSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, extra bool) {
		checkSamePaths(t, JSONL, data, Options{AllowExtra: extra})
		checkSamePaths(t, JSON, data, Options{AllowExtra: extra})
	})
}

// TestAddAsAllocs: a record that repeats the last one's names is read and
// added with no allocation (the batch grown beforehand), in JSON Lines
// and in a JSON array, whose records addAs reads in place.
func TestAddAsAllocs(t *testing.T) {
	for _, f := range []Format{JSONL, JSON} {
		var b trajectory.Batch
		b.Grow(1, 1000)
		rr := &recordReader{b: &b, format: f}
		if err := rr.add(`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25,"done":0}`, 1, 1); err != nil {
			t.Fatal(err)
		}
		// the texts are made before, as the input holds them
		lines := make([]string, 202)
		for i := range lines {
			lines[i] = `{"episode":"a","step":` + strconv.Itoa(i+1) + `,"reward":-0.5,"pi_b":0.5,"pi_e":0.75,"done":0}`
		}
		i := 0
		allocs := testing.AllocsPerRun(200, func() {
			if _, ok, err := rr.addAs(lines[i], f == JSONL, i+2, i+2); !ok || err != nil {
				t.Fatalf("%s: record %d: fast path %v, %v", f, i+2, ok, err)
			}
			i++
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations a record, want 0", f, allocs)
		}
	}
}
