package logdata_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

func read(t *testing.T, f logdata.Format, text string, opt logdata.Options) (*trajectory.Batch, logdata.Info, error) {
	t.Helper()
	var b trajectory.Batch
	info, err := logdata.Read(strings.NewReader(text), f, &b, opt)
	return &b, info, err
}

// TestReadCSV checks the mapping onto the batch by hand: rho = pi_e/pi_b,
// the option ratio = rho (Add), splits, episode offsets, padding horizon.
func TestReadCSV(t *testing.T) {
	text := "\ufeffpi_e, reward ,episode,step,pi_b,split\n" + // BOM, spaces and free column order
		"0.25,-1,e1,0,0.5,0\n" +
		"0.75, 2 ,e1,1,0.5,1\n" +
		"\n" + // blank lines are skipped
		"1,3.5,e2,0,1,true\n"
	b, info, err := read(t, logdata.CSV, text, logdata.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Episodes != 2 || info.Steps != 3 || !info.Columns.Split || info.Columns.Options {
		t.Errorf("info = %+v", info)
	}
	if !slices.Equal(b.Offsets, []int{0, 2, 3}) || b.Horizon() != 2 {
		t.Errorf("offsets %v horizon %d, want [0 2 3] and 2", b.Offsets, b.Horizon())
	}
	if want := []float64{-1, 2, 3.5}; !slices.Equal(b.Reward, want) {
		t.Errorf("reward %v, want %v", b.Reward, want)
	}
	if want := []float64{0.5, 1.5, 1}; !slices.Equal(b.Ratio, want) || !slices.Equal(b.OptionRatio, want) {
		t.Errorf("ratio %v, option ratio %v, want both %v (0.25/0.5, 0.75/0.5, 1/1)", b.Ratio, b.OptionRatio, want)
	}
	if want := []bool{false, true, true}; !slices.Equal(b.Split, want) {
		t.Errorf("split %v, want %v", b.Split, want)
	}
	if err := b.Validate(); err != nil {
		t.Error(err)
	}
}

// TestReadOptions: option ratio mu_e/mu_b on start rows and 1 elsewhere;
// mu columns empty or repeated on later rows; option_changed inherited.
func TestReadOptions(t *testing.T) {
	csv := "episode,step,reward,pi_b,pi_e,option_start,mu_b,mu_e,option_changed\n" +
		"x,0,1,0.5,0.25,1,0.8,0.4,1\n" +
		"x,1,2,0.5,1,0,,,\n" +
		"x,2,3,0.25,0.5,0,0.8,0.4,1\n" + // repeated values are fine
		"x,3,4,1,1,1,0.5,1,0\n" +
		"y,0,5,0.5,0.5,1,1,0,0\n"
	jsonl := `{"episode":"x","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25,"option_start":1,"mu_b":0.8,"mu_e":0.4,"option_changed":true}
{"episode":"x","step":1,"reward":2,"pi_b":0.5,"pi_e":1,"option_start":false}
{"episode":"x","step":2,"reward":3,"pi_b":0.25,"pi_e":0.5,"option_start":0,"mu_b":0.8,"mu_e":null,"option_changed":1}
{"step":3,"episode":"x","reward":4,"pi_b":1,"pi_e":1,"option_start":1,"mu_b":0.5,"mu_e":1,"option_changed":0}
{"episode":"y","step":0,"reward":5,"pi_b":0.5,"pi_e":0.5,"option_start":true,"mu_b":1,"mu_e":0,"option_changed":false}
`
	for f, text := range map[logdata.Format]string{logdata.CSV: csv, logdata.JSONL: jsonl} {
		b, info, err := read(t, f, text, logdata.Options{})
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		if !info.Columns.Options || !info.Columns.Changed || info.Columns.Split {
			t.Errorf("%v: columns %+v", f, info.Columns)
		}
		if want := []float64{0.5, 2, 2, 1, 1}; !slices.Equal(b.Ratio, want) {
			t.Errorf("%v: ratio %v, want %v", f, b.Ratio, want)
		}
		if want := []float64{0.5, 1, 1, 2, 0}; !slices.Equal(b.OptionRatio, want) {
			t.Errorf("%v: option ratio %v, want %v (0.4/0.8, 1, 1, 1/0.5, 0/1)", f, b.OptionRatio, want)
		}
		if want := []bool{true, true, true, false, false}; !slices.Equal(b.Changed, want) {
			t.Errorf("%v: changed %v, want %v", f, b.Changed, want)
		}
	}
}

// TestReadModel: the model columns q_hat and v_hat, in any column order
// and with the option columns too, go to Batch.QHat and VHat as written
// (no discounting), one per step; without them the batch has no model.
func TestReadModel(t *testing.T) {
	csv := "q_hat,episode,step,reward,pi_b,pi_e,v_hat\n" +
		"2.5,a,0,1,0.5,0.25,-1\n" +
		" -0.125 ,a,1,2,0.5,0.75,0\n" +
		"1e-3,b,0,3,1,1,7\n"
	jsonl := `{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25,"q_hat":2.5,"v_hat":-1}
{"v_hat":0,"q_hat":-0.125,"episode":"a","step":1,"reward":2,"pi_b":0.5,"pi_e":0.75}
{"episode":"b","step":0,"reward":3,"pi_b":1,"pi_e":1,"q_hat":1e-3,"v_hat":7}
`
	opts := "episode,step,reward,pi_b,pi_e,option_start,mu_b,mu_e,q_hat,v_hat\n" +
		"a,0,1,0.5,0.25,1,0.5,1,2.5,-1\n" +
		"a,1,2,0.5,0.75,0,,,-0.125,0\n" +
		"b,0,3,1,1,1,1,1,1e-3,7\n"
	for _, tc := range []struct {
		f    logdata.Format
		text string
	}{{logdata.CSV, csv}, {logdata.JSONL, jsonl}, {logdata.CSV, opts}} {
		b, info, err := read(t, tc.f, tc.text, logdata.Options{})
		if err != nil {
			t.Fatalf("%v: %v", tc.f, err)
		}
		if !info.Columns.Model || !b.HasModel() {
			t.Errorf("%v: columns %+v, HasModel %v; want the model columns", tc.f, info.Columns, b.HasModel())
		}
		// the values of the q_hat and v_hat cells, in row order
		if want := []float64{2.5, -0.125, 0.001}; !slices.Equal(b.QHat, want) {
			t.Errorf("%v: q_hat %v, want %v", tc.f, b.QHat, want)
		}
		if want := []float64{-1, 0, 7}; !slices.Equal(b.VHat, want) {
			t.Errorf("%v: v_hat %v, want %v", tc.f, b.VHat, want)
		}
		if err := b.Validate(); err != nil {
			t.Errorf("%v: %v", tc.f, err)
		}
	}
	b, info, err := read(t, logdata.CSV, "episode,step,reward,pi_b,pi_e\na,0,1,1,1\n", logdata.Options{})
	if err != nil || info.Columns.Model || b.HasModel() || len(b.QHat) != 0 {
		t.Errorf("no model columns: %v, columns %+v, q_hat %v", err, info.Columns, b.QHat)
	}
}

// TestReadJSONLIDs: ids may be strings or numbers (by literal text); extra
// fields of any shape are ignored with AllowExtra.
func TestReadJSONLIDs(t *testing.T) {
	text := `{"episode":7,"step":0,"reward":1,"pi_b":0.5,"pi_e":0.5,"note":{"a":[1,"}"]}}
{"episode":"7","step":1,"reward":1,"pi_b":0.5,"pi_e":0.5,"note":null}
{"episode":"s\u00e9","step":0,"reward":1e-3,"pi_b":0.5,"pi_e":0.5,"note":"x"}
`
	b, info, err := read(t, logdata.JSONL, text, logdata.Options{AllowExtra: true})
	if err != nil {
		t.Fatal(err)
	}
	if info.Episodes != 2 || b.N() != 2 || b.Len(0) != 2 || !slices.Equal(info.Extra, []string{"note"}) {
		t.Errorf("info %+v, lengths %v", info, b.Offsets)
	}
	if _, _, err := read(t, logdata.JSONL, text, logdata.Options{}); err == nil || !strings.Contains(err.Error(), `line 1: field "note": unknown`) {
		t.Errorf("without AllowExtra: %v", err)
	}
}

// TestBadInput: every bad input of the brief gives an *Error naming the
// line (JSONL: and record) and the column, marked as bad input (inputerr).
func TestBadInput(t *testing.T) {
	const head = "episode,step,reward,pi_b,pi_e\n"
	const opts = "episode,step,reward,pi_b,pi_e,option_start,mu_b,mu_e,option_changed\n"
	const model = "episode,step,reward,pi_b,pi_e,q_hat,v_hat\n"
	const jrow = `"step":0,"reward":1,"pi_b":0.5,"pi_e":0.5`
	for _, tc := range []struct {
		name string
		f    logdata.Format
		text string
		want []string // substrings of the message
	}{
		{"missing column", logdata.CSV, "episode,step,reward,pi_b\na,0,1,1\n", []string{"line 1", `column "pi_e"`, "required column missing"}},
		{"duplicated column", logdata.CSV, "episode,step,reward,pi_b,pi_e,reward\n", []string{"line 1", `column "reward"`, "twice"}},
		{"unknown column", logdata.CSV, "episode,step,reward,pi_b,pi_e,actions\n", []string{"line 1", `column "actions"`, "unknown column"}},
		{"incomplete option columns", logdata.CSV, "episode,step,reward,pi_b,pi_e,option_start,mu_b\n", []string{"line 1", `column "mu_e"`, "come together"}},
		{"changed without options", logdata.CSV, "episode,step,reward,pi_b,pi_e,option_changed\n", []string{"line 1", `column "option_start"`}},
		{"non-numeric reward", logdata.CSV, head + "a,0,1,1,1\na,1,x,0.5,0.5\n", []string{"line 3", `column "reward"`, `"x" is not a number`}},
		{"empty reward", logdata.CSV, head + "a,0,,1,1\n", []string{"line 2", `column "reward"`, "empty"}},
		{"NaN reward", logdata.CSV, head + "a,0,NaN,1,1\n", []string{"line 2", `column "reward"`, "NaN and infinities"}},
		{"Inf reward", logdata.CSV, head + "a,0,-Inf,1,1\n", []string{"line 2", `column "reward"`, "NaN and infinities"}},
		{"huge reward", logdata.CSV, head + "a,0,1e400,1,1\n", []string{"line 2", `column "reward"`, "out of the float64 range"}},
		{"NaN pi_b", logdata.CSV, head + "a,0,1,nan,1\n", []string{"line 2", `column "pi_b"`, "NaN"}},
		{"Inf pi_e", logdata.CSV, head + "a,0,1,1,+Inf\n", []string{"line 2", `column "pi_e"`, "NaN"}},
		{"pi_b zero", logdata.CSV, head + "a,0,1,0,1\n", []string{"line 2", `column "pi_b"`, "not in (0, 1]"}},
		{"pi_b above 1", logdata.CSV, head + "a,0,1,1.5,1\n", []string{"line 2", `column "pi_b"`, "not in (0, 1]"}},
		{"pi_b negative", logdata.CSV, head + "a,0,1,-0.5,1\n", []string{"line 2", `column "pi_b"`}},
		{"pi_e above 1", logdata.CSV, head + "a,0,1,1,1.01\n", []string{"line 2", `column "pi_e"`, "[0, 1]"}},
		{"pi_e negative", logdata.CSV, head + "a,0,1,1,-0.1\n", []string{"line 2", `column "pi_e"`, "[0, 1]"}},
		{"step not integer", logdata.CSV, head + "a,0,1,1,1\na,1.5,1,1,1\n", []string{"line 3", `column "step"`, "not an integer"}},
		{"step repeated", logdata.CSV, head + "a,0,1,1,1\na,1,1,1,1\na,1,1,1,1\n", []string{"line 4", `column "step"`, "step 1", "repeated"}},
		{"step skipped", logdata.CSV, head + "a,0,1,1,1\na,2,1,1,1\n", []string{"line 3", `column "step"`, "skips step 1"}},
		{"step out of order", logdata.CSV, head + "a,0,1,1,1\na,1,1,1,1\na,2,1,1,1\na,0,1,1,1\n", []string{"line 5", `column "step"`, "out of order"}},
		{"episode starts late", logdata.CSV, head + "a,0,1,1,1\nb,1,1,1,1\n", []string{"line 3", `column "step"`, `episode "b" starts at step 1`}},
		{"episode not contiguous", logdata.CSV, head + "a,0,1,1,1\nb,0,1,1,1\na,1,1,1,1\n", []string{"line 4", `column "episode"`, `episode "a" (first seen on line 2) appears again after episode "b"`}},
		{"empty episode id", logdata.CSV, head + ",0,1,1,1\n", []string{"line 2", `column "episode"`}},
		{"empty file", logdata.CSV, "", []string{"empty input"}},
		{"header only", logdata.CSV, head, []string{"line 1", "no data records"}},
		{"header and blank lines", logdata.CSV, head + "\n\n", []string{"no data records"}},
		{"wrong field count", logdata.CSV, head + "a,0,1,1,1\na,1,1,1\n", []string{"line 3", "number of fields"}},
		{"bad quote", logdata.CSV, head + "a,0,1,1,1\na\"b,1,1,1,1\n", []string{"line 3", "bare"}},
		{"quote never closed", logdata.CSV, head + "a,0,1,1,1\n\"a,1,1,1,1\nb,0,1,1,1\n", []string{"line 3: record runs on to line 4", "quoted-field"}},
		{"split not a flag", logdata.CSV, "episode,step,reward,pi_b,pi_e,split\na,0,1,1,1,2\n", []string{"line 2", `column "split"`, "not 0 or 1"}},
		{"split empty", logdata.CSV, "episode,step,reward,pi_b,pi_e,split\na,0,1,1,1,\n", []string{"line 2", `column "split"`, "empty"}},
		{"option not started", logdata.CSV, opts + "a,0,1,1,1,0,,,\n", []string{"line 2", `column "option_start"`, "does not start an option"}},
		{"mu_b missing on start", logdata.CSV, opts + "a,0,1,1,1,1,,1,0\n", []string{"line 2", `column "mu_b"`, "empty on an option's first step"}},
		{"mu_e missing on start", logdata.CSV, opts + "a,0,1,1,1,1,1,,0\n", []string{"line 2", `column "mu_e"`}},
		{"changed missing on start", logdata.CSV, opts + "a,0,1,1,1,1,1,1,\n", []string{"line 2", `column "option_changed"`}},
		{"mu_b zero", logdata.CSV, opts + "a,0,1,1,1,1,0,1,0\n", []string{"line 2", `column "mu_b"`, "not in (0, 1]"}},
		{"mu_e above 1", logdata.CSV, opts + "a,0,1,1,1,1,1,2,0\n", []string{"line 2", `column "mu_e"`, "[0, 1]"}},
		{"mu_b NaN", logdata.CSV, opts + "a,0,1,1,1,1,NaN,1,0\n", []string{"line 2", `column "mu_b"`, "NaN"}},
		{"mu_b changes inside option", logdata.CSV, opts + "a,0,1,1,1,1,0.5,1,0\na,1,1,1,1,0,0.25,,\n", []string{"line 3", `column "mu_b"`, "inside an option that started with mu_b = 0.5"}},
		{"mu_e changes inside option", logdata.CSV, opts + "a,0,1,1,1,1,0.5,1,0\na,1,1,1,1,0,,0.5,\n", []string{"line 3", `column "mu_e"`}},
		{"changed changes inside option", logdata.CSV, opts + "a,0,1,1,1,1,0.5,1,0\na,1,1,1,1,0,,,1\n", []string{"line 3", `column "option_changed"`}},
		{"q_hat without v_hat", logdata.CSV, "episode,step,reward,pi_b,pi_e,q_hat\na,0,1,1,1,2\n", []string{"line 1", `column "v_hat"`, "model columns come together"}},
		{"v_hat without q_hat", logdata.CSV, "v_hat,episode,step,reward,pi_b,pi_e\n2,a,0,1,1,1\n", []string{"line 1", `column "q_hat"`, "model columns come together"}},
		{"q_hat empty", logdata.CSV, model + "a,0,1,1,1,2,2\na,1,1,1,1,,2\n", []string{"line 3", `column "q_hat"`, "empty, want a number"}},
		{"v_hat empty", logdata.CSV, model + "a,0,1,1,1,2, \n", []string{"line 2", `column "v_hat"`, "empty, want a number"}},
		{"q_hat not a number", logdata.CSV, model + "a,0,1,1,1,high,2\n", []string{"line 2", `column "q_hat"`, `"high" is not a number`}},
		{"q_hat hexadecimal", logdata.CSV, model + "a,0,1,1,1,0x10,2\n", []string{"line 2", `column "q_hat"`, "no hexadecimal"}},
		{"v_hat NaN", logdata.CSV, model + "a,0,1,1,1,2,NaN\n", []string{"line 2", `column "v_hat"`, "NaN and infinities"}},
		{"v_hat huge", logdata.CSV, model + "a,0,1,1,1,2,-1e400\n", []string{"line 2", `column "v_hat"`, "out of the float64 range"}},

		{"jsonl empty", logdata.JSONL, "\n\n", []string{"empty input"}},
		{"jsonl invalid", logdata.JSONL, `{"episode":"a",` + jrow + "}\n{\"episode\":\"a\",\"step\":1,\n", []string{"line 2", "not valid JSON"}},
		{"jsonl not an object", logdata.JSONL, "[1,2]\n", []string{"line 1", "want a JSON object"}},
		{"jsonl missing column", logdata.JSONL, `{"episode":"a","step":0,"reward":1,"pi_b":0.5}` + "\n", []string{"line 1", `field "pi_e"`, "required column missing"}},
		{"jsonl missing field later", logdata.JSONL, `{"episode":"a",` + jrow + "}\n" + `{"episode":"b","step":0,"pi_b":0.5,"pi_e":0.5}` + "\n", []string{"line 2", `field "reward"`, "missing"}},
		{"jsonl column not in first record", logdata.JSONL, `{"episode":"a",` + jrow + "}\n" + `{"episode":"b",` + jrow + `,"split":1}` + "\n", []string{"line 2", `field "split"`, "not in the first record"}},
		{"jsonl unknown field later", logdata.JSONL, `{"episode":"a",` + jrow + "}\n" + `{"episode":"b",` + jrow + `,"x":1}` + "\n", []string{"line 2", `field "x"`, "unknown field"}},
		{"jsonl duplicated field", logdata.JSONL, `{"episode":"a",` + jrow + `,"reward":2}` + "\n", []string{"line 1", `field "reward"`, "twice"}},
		{"jsonl duplicated field later", logdata.JSONL, `{"episode":"a",` + jrow + "}\n" + `{"episode":"b",` + jrow + `,"pi_b":1}` + "\n", []string{"line 2", `field "pi_b"`, "twice"}},
		{"jsonl number as string", logdata.JSONL, `{"episode":"a","step":0,"reward":"1","pi_b":0.5,"pi_e":0.5}` + "\n", []string{"line 1", `field "reward"`, "want a JSON number"}},
		{"jsonl null reward", logdata.JSONL, `{"episode":"a","step":0,"reward":null,"pi_b":0.5,"pi_e":0.5}` + "\n", []string{"line 1", `field "reward"`, "missing or null"}},
		{"jsonl nested reward", logdata.JSONL, `{"episode":"a","step":0,"reward":[1],"pi_b":0.5,"pi_e":0.5}` + "\n", []string{"line 1", `field "reward"`, "object or array"}},
		{"jsonl huge", logdata.JSONL, `{"episode":"a","step":0,"reward":1e999,"pi_b":0.5,"pi_e":0.5}` + "\n", []string{"line 1", `field "reward"`, "out of the float64 range"}},
		{"jsonl step not integer", logdata.JSONL, `{"episode":"a","step":0.0,"reward":1,"pi_b":0.5,"pi_e":0.5}` + "\n", []string{"line 1", `field "step"`, "not an integer"}},
		{"jsonl episode bool", logdata.JSONL, `{"episode":true,` + jrow + "}\n", []string{"line 1", `field "episode"`}},
		{"jsonl pi_b zero", logdata.JSONL, `{"episode":"a","step":0,"reward":1,"pi_b":0,"pi_e":0.5}` + "\n", []string{"line 1", `field "pi_b"`, "not in (0, 1]"}},
		{"jsonl record number after blank lines", logdata.JSONL, `{"episode":"a",` + jrow + "}\n\n\n" + `{"episode":"b",` + jrow + "}\n" + `{"episode":"a",` + jrow + "}\n", []string{"line 5 (record 3)", `field "episode"`, "appears again"}},
		{"jsonl flag 2", logdata.JSONL, `{"episode":"a",` + jrow + `,"split":2}` + "\n", []string{"line 1", `field "split"`, "not 0 or 1"}},
		{"jsonl v_hat without q_hat", logdata.JSONL, `{"episode":"a",` + jrow + `,"v_hat":1}` + "\n", []string{"line 1", `field "q_hat"`, "model columns come together"}},
		{"jsonl q_hat missing later", logdata.JSONL, `{"episode":"a",` + jrow + `,"q_hat":1,"v_hat":1}` + "\n" + `{"episode":"b",` + jrow + `,"v_hat":1}` + "\n", []string{"line 2", `field "q_hat"`, "missing"}},
		{"jsonl v_hat null", logdata.JSONL, `{"episode":"a",` + jrow + `,"q_hat":1,"v_hat":null}` + "\n", []string{"line 1", `field "v_hat"`, "missing or null, want a number"}},
		{"jsonl q_hat string", logdata.JSONL, `{"episode":"a",` + jrow + `,"q_hat":"1","v_hat":1}` + "\n", []string{"line 1", `field "q_hat"`, "want a JSON number"}},
		{"jsonl model not in first record", logdata.JSONL, `{"episode":"a",` + jrow + "}\n" + `{"episode":"b",` + jrow + `,"q_hat":1,"v_hat":1}` + "\n", []string{"line 2", `field "q_hat"`, "not in the first record"}},
		{"jsonl flag string", logdata.JSONL, `{"episode":"a",` + jrow + `,"split":"1"}` + "\n", []string{"line 1", `field "split"`, "want 0 or 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _, err := read(t, tc.f, tc.text, logdata.Options{})
			if err == nil {
				t.Fatalf("no error; batch %+v", b)
			}
			var le *logdata.Error
			if !errors.As(err, &le) {
				t.Fatalf("error %v (%T) is not a *logdata.Error", err, err)
			}
			if !inputerr.Is(err) {
				t.Errorf("error %v is not marked as bad input", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestWriterReadBack: a Writer's output reads back to the same records'
// batch in both formats, with ids of every shape.
func TestWriterReadBack(t *testing.T) {
	recs := []logdata.Record{
		{Episode: "12", Step: 0, Reward: 0.1, PiB: 0.3, PiE: 0.7, Split: true, OptionStart: true, MuB: 0.3, MuE: 1, OptionChanged: true},
		{Episode: "12", Step: 1, Reward: -1e-300, PiB: 1, PiE: 0, OptionChanged: true},
		{Episode: "a \"quoted\", id\n", Step: 0, Reward: 5, PiB: 0.25, PiE: 0.125, OptionStart: true, MuB: 1, MuE: 0.5},
		{Episode: "007", Step: 0, Reward: 1, PiB: 1, PiE: 1, OptionStart: true, MuB: 1, MuE: 1},
	}
	cols := logdata.Columns{Split: true, Options: true, Changed: true}
	var batches []*trajectory.Batch
	for _, f := range []logdata.Format{logdata.CSV, logdata.JSONL} {
		var sb strings.Builder
		w := logdata.NewWriter(&sb, f, cols)
		for i := range recs {
			if err := w.Write(&recs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		b, info, err := read(t, f, sb.String(), logdata.Options{})
		if err != nil {
			t.Fatalf("%v: %v\n%s", f, err, sb.String())
		}
		if info.Episodes != 3 || info.Columns != cols {
			t.Errorf("%v: info %+v", f, info)
		}
		batches = append(batches, b)
	}
	want := []float64{0.7 / 0.3, 0, 0.5, 1}
	for _, b := range batches {
		if !slices.Equal(b.Ratio, want) || !slices.Equal(b.OptionRatio, []float64{1 / 0.3, 1, 0.5, 1}) ||
			!slices.Equal(b.Changed, []bool{true, true, false, false}) || !slices.Equal(b.Reward, []float64{0.1, -1e-300, 5, 1}) {
			t.Errorf("batch %+v", b)
		}
	}
}

// TestSizeHint: a hint (even a wrong one) changes nothing but capacity;
// the exact one sizes the batch once.
func TestSizeHint(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("episode,step,reward,pi_b,pi_e\n")
	const n = 50000
	for i := range n {
		sb.WriteString("ep" + strconv.Itoa(100000+i) + ",0,1,0.5,0.25\n") // equal lengths: bytes per step constant
	}
	text := sb.String()
	for _, hint := range []int64{0, int64(len(text)), 10, 3 * int64(len(text))} {
		b, info, err := read(t, logdata.CSV, text, logdata.Options{SizeHint: hint})
		if err != nil || info.Steps != n || b.N() != n {
			t.Errorf("hint %d: %v, %+v", hint, err, info)
		}
		// 2% margin, plus the allocator's rounding to 8 KiB pages
		if limit := n*102/100 + 1024; hint == int64(len(text)) && cap(b.Reward) > limit {
			t.Errorf("exact hint: capacity %d for %d steps, want <= %d", cap(b.Reward), n, limit)
		}
	}
}

// TestExtraGivenTwice: with -allow-extra an unknown column is ignored, but
// still only once: a CSV header or a JSON object naming it twice is an error.
func TestExtraGivenTwice(t *testing.T) {
	for _, tc := range []struct {
		format logdata.Format
		data   string
		want   string
	}{
		{logdata.CSV, "episode,step,reward,pi_b,pi_e,x,x\na,0,1,0.5,0.5,1,2\n", "column appears twice"},
		{logdata.JSONL, `{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.5,"x":1,"x":2}` + "\n", "twice"},
		{logdata.JSONL, `{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.5,"x":1}` + "\n" +
			`{"episode":"a","step":1,"reward":1,"pi_b":0.5,"pi_e":0.5,"x":1,"x":2}` + "\n", "given twice in one object"},
	} {
		var b trajectory.Batch
		_, err := logdata.Read(strings.NewReader(tc.data), tc.format, &b, logdata.Options{AllowExtra: true})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.data, err, tc.want)
		}
	}
}

// TestColumnsTable: the documented columns are exactly the columns the
// reader knows, in its order, each with a presence and a meaning.
func TestColumnsTable(t *testing.T) {
	for i, c := range logdata.Schema() {
		if c.Name != logdata.ColumnNames()[i] || c.Doc == "" {
			t.Errorf("column %d: %+v, reader knows %q", i, c, logdata.ColumnNames()[i])
		}
		switch c.Presence {
		case "required", "optional", "options", "model", "ids":
		default:
			t.Errorf("column %s: presence %q", c.Name, c.Presence)
		}
	}
}
