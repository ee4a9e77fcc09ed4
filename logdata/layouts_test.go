package logdata_test

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestParseMapping: the -columns text, good and hostile.
func TestParseMapping(t *testing.T) {
	tests := []struct {
		in, want string // want: the mapping written back, or a part of the error
		ok       bool
	}{
		{"", "", true},
		{"episode=trajectory_id, step = timestep", "episode=trajectory_id,step=timestep", true},
		{"preset=obp,pi_e=target", "preset=obp,pi_e=target", true},
		{"bogus=x", `unknown column "bogus"`, false},
		{"pi_b=a,pi_b=b", "column pi_b mapped twice", false},
		{"pi_b=p,pi_e=p", `"p" is mapped to pi_b already`, false},
		{"pi_b", "want our=THEIRS", false},
		{"pi_b=", "want our=THEIRS", false},
		{"=x", "want our=THEIRS", false},
		{"preset=rllib", "unknown preset (known: d3rlpy, obp, scope-rl)", false},
		{"preset=obp,preset=d3rlpy", "preset given twice", false},
	}
	for _, tt := range tests {
		m, err := logdata.ParseMapping(tt.in)
		switch {
		case tt.ok && err != nil:
			t.Errorf("%q: %v", tt.in, err)
		case tt.ok && m.String() != tt.want:
			t.Errorf("%q: read as %q, want %q", tt.in, m.String(), tt.want)
		case !tt.ok && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: error %v, want one containing %q", tt.in, err, tt.want)
		}
	}
}

// readLayout reads text in format f with -columns cols.
func readLayout(t *testing.T, text string, f logdata.Format, cols string, allowExtra bool) (*trajectory.Batch, logdata.Info, error) {
	t.Helper()
	m, err := logdata.ParseMapping(cols)
	if err != nil {
		t.Fatal(err)
	}
	var b trajectory.Batch
	info, err := logdata.Read(strings.NewReader(text), f, &b, logdata.Options{Columns: m, AllowExtra: allowExtra})
	return &b, info, err
}

// TestLayouts reads small files of the field's layouts and checks the
// batch by hand: Offsets are the episodes' starts (and the end), Ratio is
// pi_e/pi_b per step.
func TestLayouts(t *testing.T) {
	tests := []struct {
		name, text, cols string
		f                logdata.Format
		offsets          []int
		ratio            []float64
	}{
		{"scope-rl names without a flag", "trajectory_id,timestep,state,action,reward,done,terminal,pscore,evaluation_policy_pscore\n" +
			"7,0,s0,a,1,0,0,0.5,0.25\n7,1,s1,b,0,1,0,0.5,1\n8,0,s0,b,1,0,1,0.25,0.5\n", "", logdata.CSV,
			// 0.25/0.5, 1/0.5, 0.5/0.25
			[]int{0, 2, 3}, []float64{0.5, 2, 2}},
		{"any header by -columns", "ep,t,r,p_b,p_e\nx,0,1,0.5,0.5\nx,1,0,0.5,0.25\n", "episode=ep,step=t,reward=r,pi_b=p_b,pi_e=p_e", logdata.CSV,
			[]int{0, 2}, []float64{1, 0.5}},
		{"obp: one round one episode", "action,position,reward,pscore,pi_e\n3,0,1,0.5,0.25\n1,1,0,0.25,0.5\n3,0,1,0.5,0.25\n", "preset=obp", logdata.CSV,
			[]int{0, 1, 2, 3}, []float64{0.5, 2, 0.5}},
		{"d3rlpy: episodes end at terminals or timeouts", `{"observations":[0,1,0,1,2],"actions":[1,1,0,0,1],"rewards":[1,0,1,1,0],"terminals":[0,1,0,0,0],"timeouts":[0,0,0,1,0],"pi_b":[0.5,0.5,0.5,0.5,0.5],"pi_e":[0.5,0.5,0.5,0.5,1]}`,
			"preset=d3rlpy", logdata.JSON,
			// steps 0-1 end at the terminal, 2-3 at the timeout, 4 alone (cut off, no flag)
			[]int{0, 2, 4, 5}, []float64{1, 1, 1, 1, 2}},
		{"preset names overridden", "rewards,terminals,timeouts,b,e\n1,1,0,0.5,0.5\n", "preset=d3rlpy,pi_b=b,pi_e=e", logdata.CSV,
			[]int{0, 1}, []float64{1}},
	}
	for _, tt := range tests {
		b, _, err := readLayout(t, tt.text, tt.f, tt.cols, false)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !reflect.DeepEqual(b.Offsets, tt.offsets) || !reflect.DeepEqual(b.Ratio, tt.ratio) {
			t.Errorf("%s: offsets %v, ratios %v; want %v, %v", tt.name, b.Offsets, b.Ratio, tt.offsets, tt.ratio)
		}
	}
}

// TestLayoutErrors: hostile layouts, each refused with the line or row and
// the column, in the file's names.
func TestLayoutErrors(t *testing.T) {
	const ok = "episode,step,reward,pi_b,pi_e\na,0,1,0.5,0.5\n"
	tests := []struct {
		name, text, cols string
		f                logdata.Format
		line             int
		want             []string
	}{
		{"mapped header missing", ok, "pi_b=pscore", logdata.CSV, 1, []string{`column "pscore"`, `-columns maps pi_b to "pscore", which the data does not have`}},
		{"our name shadowed by a mapping", "episode,step,reward,pi_b,pscore,pi_e\na,0,1,0.5,0.5,0.5\n", "pi_b=pscore", logdata.CSV, 1, []string{`column "pi_b"`, "unknown column"}},
		{"mapped column bad", "trajectory_id,timestep,reward,pscore,evaluation_policy_pscore\n1,0,1,2,1\n", "", logdata.CSV, 2, []string{`column "pscore (pi_b)"`, "not in (0, 1]"}},
		{"step after done", "episode,step,reward,pi_b,pi_e,done\na,0,1,1,1,1\na,1,1,1,1,0\n", "", logdata.CSV, 3, []string{`column "step"`, `episode "a" comes after the episode's done (line 2)`}},
		{"done not a flag", "episode,step,reward,pi_b,pi_e,done\na,0,1,1,1,2\n", "", logdata.CSV, 2, []string{`column "done"`, "not 0 or 1"}},
		{"done empty", "episode,step,reward,pi_b,pi_e,done\na,0,1,1,1,\n", "", logdata.CSV, 2, []string{`column "done"`, "empty, want 0 or 1"}},
		{"timeout not a flag", `{"episode":"a","step":0,"reward":1,"pi_b":1,"pi_e":1,"timeout":"yes"}`, "", logdata.JSONL, 1, []string{`field "timeout"`, "want 0 or 1"}},
		{"d3rlpy without terminals", "rewards,pi_b,pi_e\n1,1,1\n", "preset=d3rlpy", logdata.CSV, 1, []string{`column "done"`, "neither"}},
		{"obp with a step column", "step,action,reward,pscore,pi_e\n0,1,1,1,1\n", "preset=obp", logdata.CSV, 1, []string{`column "step"`, "without an episode column"}},
		{"no episode, no hint", "id,step,reward,pi_b,pi_e\na,0,1,1,1\n", "", logdata.CSV, 1, []string{`column "id"`, "-columns our=THEIRS"}},
		{"no episode column", "step,reward,pi_b,pi_e\n0,1,1,1\n", "", logdata.CSV, 1, []string{`column "episode"`, "-columns episode=THEIRS"}},
		{"obp extra refused", "action,reward,pscore,pi_e,slate\n1,1,1,1,x\n", "preset=obp", logdata.CSV, 1, []string{`column "slate"`, "unknown column"}},
	}
	for _, tt := range tests {
		_, _, err := readLayout(t, tt.text, tt.f, tt.cols, false)
		t.Run(tt.name, func(t *testing.T) { wantBadInput(t, err, tt.line, tt.want...) })
	}
}

// TestJSONErrors: hostile JSON documents, in both shapes; syntax errors
// are worded by encoding/json with the line.
func TestJSONErrors(t *testing.T) {
	const rec = `{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.5}`
	const rec2 = `{"episode":"b","step":0,"reward":1,"pi_b":0.5,"pi_e":0.5}`
	tests := []struct {
		name, text string
		line       int
		want       []string
	}{
		{"empty", "", 0, []string{"empty input"}},
		{"scalar", "7", 1, []string{"want a JSON array of records or an object of arrays, got a number"}},
		{"zeros", "\x00\x00", 1, []string{"want a JSON array"}},
		{"empty array", "[]", 1, []string{"an empty array", "no data records"}},
		{"empty object", "{}", 1, []string{"required column missing"}},
		{"unclosed array", "[" + rec + ",\n" + rec2, 2, []string{"not valid JSON"}},
		{"trailing comma", "[" + rec + ",\n]", 2, []string{"not valid JSON"}},
		{"garbage after", "[" + rec + "]\nx", 2, []string{"not valid JSON"}},
		{"record not an object", "[" + rec + ",\n7]", 2, []string{"line 2: ", "want an object"}},
		{"bad number", "[\n" + strings.Replace(rec, "0.5", "0.5.1", 1) + "]", 2, []string{"not valid JSON"}},
		{"leading zero", "[\n" + strings.Replace(rec, "0.5", "05", 1) + "]", 2, []string{"not valid JSON"}},
		{"control character", "[\n" + strings.Replace(rec, `"a"`, "\"a\x01\"", 1) + "]", 2, []string{"not valid JSON"}},
		{"bad literal", "[\n" + strings.Replace(rec, `"a"`, "nul", 1) + "]", 2, []string{"not valid JSON"}},
		{"string reward", "[" + rec + ",\n" + strings.Replace(rec, `"reward":1`, `"reward":"1"`, 1) + "]", 2, []string{"line 2: ", `field "reward"`, "want a JSON number"}},
		{"columns: not an array", `{"episode":"a","step":[0],"reward":[1],"pi_b":[1],"pi_e":[1]}`, 1, []string{`field "episode"`, "want an array"}},
		{"columns: short", "{\"episode\":[\"a\",\"a\"],\n\"step\":[0,1],\"reward\":[1],\"pi_b\":[1,1],\"pi_e\":[1,1]}", 2, []string{"line 2: ", `field "reward"`, "1 values", `"pi_e" has more`}},
		{"columns: trailing comma", `{"episode":["a",],"step":[0],"reward":[1],"pi_b":[1],"pi_e":[1]}`, 1, []string{"not valid JSON"}},
		{"columns: bad value", "{\"episode\":[\"a\"],\"step\":[0],\n\"reward\":[1x],\"pi_b\":[1],\"pi_e\":[1]}", 2, []string{"not valid JSON"}},
		{"columns: nested value", `{"episode":["a"],"step":[0],"reward":[[1]],"pi_b":[1],"pi_e":[1]}`, 1, []string{`field "reward"`, "an object or array, want a JSON number"}},
		{"columns: bad ignored array", `{"episode":["a"],"step":[0],"reward":[1],"pi_b":[1],"pi_e":[1],"position":[1,]}`, 1, []string{"not valid JSON"}},
		{"columns: unknown", `{"episode":["a"],"step":[0],"reward":[1],"pi_b":[1],"pi_e":[1],"x":[1]}`, 1, []string{`field "x"`, "unknown column"}},
		{"columns: null", `{"episode":["a"],"step":[0],"reward":[null],"pi_b":[1],"pi_e":[1]}`, 1, []string{`field "reward"`, "missing or null"}},
	}
	for _, tt := range tests {
		_, _, err := readLayout(t, tt.text, logdata.JSON, "", strings.Contains(tt.text, "position"))
		t.Run(tt.name, func(t *testing.T) { wantBadInput(t, err, tt.line, tt.want...) })
	}
	// an ignored column may hold anything valid, nested arrays included
	text := `{"episode":["a"],"step":[0],"reward":[1],"pi_b":[0.5],"pi_e":[0.25],"context":[[1,2]],"n_rounds":1}`
	b, info, err := readLayout(t, text, logdata.JSON, "", true)
	if err != nil || !reflect.DeepEqual(b.Ratio, []float64{0.5}) || !reflect.DeepEqual(info.Extra, []string{"context", "n_rounds"}) {
		t.Errorf("extras: %v, ratios %v, extra %v; want ratio 0.5 and the extras ignored", err, b.Ratio, info.Extra)
	}
}

// TestJSONSyntaxAgrees: the one-pass scanner refuses exactly what
// json.Valid refuses, on objects near the grammar's edges.
func TestJSONSyntaxAgrees(t *testing.T) {
	bodies := []string{`1`, `-0`, `-0.5e+3`, `1E5`, `01`, `1.`, `.5`, `+1`, `-`, `1e`, `1e+`, `true`, `tru`, `null`, `nulll`, `"a\"b"`, `"a\x"`,
		"\"a\tb\"", `[1,[2,{"c":3}]]`, `[1,]`, `{"c":}`, `"\u00e9"`, `"\ud800"`, `1 2`}
	for _, body := range bodies {
		line := `{"episode":"a","step":0,"reward":1,"pi_b":1,"pi_e":1,"x":` + body + "}"
		valid := jsonValid(line)
		_, _, err := readLayout(t, line+"\n", logdata.JSONL, "", true)
		if refused := err != nil && strings.Contains(err.Error(), "not valid JSON"); refused == valid {
			t.Errorf("%s: json.Valid %v, reader's error %v", body, valid, err)
		}
	}
}

// parquetRow has the columns a Parquet file of the field may hold,
// optional ones (null) and a list among them.
type parquetRow struct {
	Episode int64     `parquet:"episode"`
	Step    int32     `parquet:"step"`
	Reward  *float64  `parquet:"reward,optional"`
	PiB     float32   `parquet:"pi_b"`
	PiE     float64   `parquet:"pi_e"`
	Done    bool      `parquet:"done"`
	Context []float64 `parquet:"context,list"`
}

// TestParquet reads Parquet of every column type and refuses hostile
// files, naming the row and the column.
func TestParquet(t *testing.T) {
	one := 1.0
	good := []parquetRow{{Episode: 7, Step: 0, Reward: &one, PiB: 0.5, PiE: 0.25, Context: []float64{1, 2}},
		{Episode: 7, Step: 1, Reward: &one, PiB: 0.5, PiE: 1, Done: true}, {Episode: 8, Step: 0, Reward: &one, PiB: 0.25, PiE: 0.5}}
	write := func(rows []parquetRow) string {
		var buf bytes.Buffer
		if err := parquet.Write(&buf, rows); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	b, info, err := readLayout(t, write(good), logdata.Parquet, "", true)
	// 0.25/0.5, 1/0.5, 0.5/0.25; episode ids 7 and 8 (int64) by their text
	if err != nil || !reflect.DeepEqual(b.Ratio, []float64{0.5, 2, 2}) || !reflect.DeepEqual(b.Offsets, []int{0, 2, 3}) || !info.Columns.Done {
		t.Fatalf("good file: %v; ratios %v, offsets %v, columns %+v", err, b.Ratio, b.Offsets, info.Columns)
	}
	bad := func(edit func(r []parquetRow)) string {
		rows := append([]parquetRow(nil), good...)
		edit(rows)
		return write(rows)
	}
	nan := math.NaN()
	tests := []struct {
		name, text, cols string
		want             []string
	}{
		{"not parquet", "PAR1 hello", "", []string{"not a Parquet file"}},
		{"truncated", write(good)[:60], "", []string{"not a Parquet file"}},
		{"footer length past the start", func() string { s := []byte(write(good)); copy(s[len(s)-8:], "\xff\xff\xff\x7f"); return string(s) }(), "", []string{"footer length 2147483647 runs past"}},
		{"null reward", bad(func(r []parquetRow) { r[1].Reward = nil }), "", []string{"row 2: ", `column "reward"`, "missing or null"}},
		{"nan reward", bad(func(r []parquetRow) { r[2].Reward = &nan }), "", []string{"row 3: ", `column "reward"`, "NaN"}},
		{"negative step", bad(func(r []parquetRow) { r[1].Step = -1 }), "", []string{"row 2: ", `column "step"`, "not an integer"}},
		{"pi_b zero", bad(func(r []parquetRow) { r[0].PiB = 0 }), "", []string{"row 1: ", `column "pi_b"`, "(0, 1]"}},
		{"step after done", bad(func(r []parquetRow) { r[2].Episode = 7; r[2].Step = 2 }), "", []string{"row 3: ", "after the episode's done (row 2)"}},
		{"not contiguous", bad(func(r []parquetRow) { r[1].Episode = 8; r[1].Step = 0; r[2].Episode = 7 }), "", []string{"row 3: ", "first seen on row 1"}},
		{"list mapped", write(good), "obs=context,action=done", []string{`column "context (obs)"`, "a list or group column"}},
		{"unknown column", write(good), "", []string{`column "context"`, "unknown column"}},
	}
	for _, tt := range tests {
		_, _, err := readLayout(t, tt.text, logdata.Parquet, tt.cols, tt.name != "unknown column")
		t.Run(tt.name, func(t *testing.T) { wantBadInput(t, err, 0, tt.want...) })
	}
}

func jsonValid(s string) bool { return json.Valid([]byte(s)) }

// TestFormatNames: the format by a name's ending, and by -format.
func TestFormatNames(t *testing.T) {
	for name, want := range map[string]logdata.Format{"a.csv": logdata.CSV, "a.txt": logdata.CSV, "a.jsonl": logdata.JSONL, "a.NDJSON": logdata.JSONL,
		"a.json": logdata.JSON, "a.JSON": logdata.JSON, "a.parquet": logdata.Parquet, "a.pq": logdata.Parquet, "-": logdata.CSV} {
		if got := logdata.FormatOf(name); got != want {
			t.Errorf("FormatOf(%q) = %v, want %v", name, got, want)
		}
		if f, err := logdata.ParseFormat(want.String()); err != nil || f != want {
			t.Errorf("ParseFormat(%q) = %v, %v", want.String(), f, err)
		}
	}
	if _, err := logdata.ParseFormat("xml"); err == nil || !strings.Contains(err.Error(), "csv, jsonl, json, parquet") {
		t.Errorf("ParseFormat(xml): %v, want the known formats listed", err)
	}
}

// TestEndlessNotJSON: endless input that is not JSON or Parquet is
// refused at its first bytes, not held (a JSON document and Parquet from
// standard input are read whole).
func TestEndlessNotJSON(t *testing.T) {
	for _, f := range []logdata.Format{logdata.JSON, logdata.Parquet} {
		r := &repeat{b: 'x'}
		var b trajectory.Batch
		_, err := logdata.Read(r, f, &b, logdata.Options{})
		if err == nil || r.n > 1<<20 {
			t.Errorf("%v: error %v after %d bytes, want a refusal within the first read", f, err, r.n)
		}
	}
}
