package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/noisytaxi"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

type estimateOut struct {
	Episodes  int `json:"episodes"`
	Steps     int `json:"steps"`
	Horizon   int `json:"horizon"`
	Bootstrap *struct {
		Replicates int     `json:"replicates"`
		Confidence float64 `json:"confidence"`
		Seed       uint64  `json:"seed"`
	} `json:"bootstrap"`
	Estimates map[string]map[string]float64 `json:"estimates"`
}

func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = Main(args, &o, &e)
	return code, o.String(), e.String()
}

func runJSON(t *testing.T, args ...string) estimateOut {
	t.Helper()
	code, out, errOut := runMain(t, append([]string{"estimate", "-json"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	var res estimateOut
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return res
}

func collectDomain(t *testing.T, domain string, params map[string]float64, n int, rng *rand.Rand) *trajectory.Batch {
	t.Helper()
	d, _, err := domains.New(domain, params)
	if err != nil {
		t.Fatal(err)
	}
	var b trajectory.Batch
	d.Collect(&b, n, rng)
	return &b
}

// writeBatch writes b to path with pi_b = 0.5 and pi_e = 0.5 rho (exact:
// 0.5 is a power of two) for primitive batches; with options, option
// starts every m steps, mu_b = 1 and mu_e = the option ratio, or for a
// ratio above 1, mu_b = 2^-k and mu_e = ratio 2^-k in [0.5, 1).
func writeBatch(t *testing.T, path string, b *trajectory.Batch, cols logdata.Columns, m int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := logdata.NewWriter(f, logdata.FormatOf(path), cols)
	for i := range b.N() {
		for st := range b.Len(i) {
			s := b.Offsets[i] + st
			r := logdata.Record{Episode: strconv.Itoa(i), Step: st, Reward: b.Reward[s], PiB: 0.5, PiE: 0.5 * b.Ratio[s], Split: b.Split[s]}
			if cols.Options {
				r.OptionStart = st%m == 0
				r.OptionChanged = b.Changed[s]
				if r.OptionStart {
					r.MuB, r.MuE = 1, b.OptionRatio[s]
					if r.MuE > 1 {
						frac, exp := math.Frexp(r.MuE)
						r.MuB, r.MuE = math.Ldexp(1, -exp), frac
					}
				}
			}
			if err := w.Write(&r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

func inProcess(t *testing.T, b *trajectory.Batch, name string) float64 {
	t.Helper()
	e, err := estimators.New(name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Estimate(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// TestEstimateExamples: examples/subepisode.csv and .jsonl are what
// examples/gen writes (subepisode, 5 sub-episodes, p_e 0.75, 200 episodes,
// PCG(2017, 0)), and runexp estimate on either prints the in-process
// estimates of that batch bit for bit; the split column adds
// partitioned-pdis to the defaults.
func TestEstimateExamples(t *testing.T) {
	b := collectDomain(t, "subepisode", map[string]float64{"subepisodes": 5, "p_e": 0.75}, 200, rand.New(rand.NewPCG(2017, 0)))
	var outs []string
	for _, path := range []string{"../../examples/subepisode.csv", "../../examples/subepisode.jsonl"} {
		res := runJSON(t, "-bootstrap", "0", path)
		if res.Episodes != 200 || res.Steps != 2000 || res.Horizon != 10 || res.Bootstrap != nil {
			t.Errorf("%s: %+v", path, res)
		}
		want := []string{"is", "pdis", "wis", "cwpdis", "incris", "partitioned-pdis"}
		if len(res.Estimates) != len(want) {
			t.Errorf("%s: estimators %v, want %v", path, res.Estimates, want)
		}
		for _, name := range want {
			got := res.Estimates[name]
			if v := inProcess(t, b, name); got["value"] != v {
				t.Errorf("%s: %s = %v, in process %v", path, name, got["value"], v)
			}
			if _, ok := got["ci_low"]; ok {
				t.Errorf("%s: %s has ci_low with -bootstrap 0", path, name)
			}
			if ess := estimators.ESS(b); got["ess"] != ess {
				t.Errorf("%s: %s ess %v, want %v", path, name, got["ess"], ess)
			}
		}
		_, out, _ := runMain(t, "estimate", "-bootstrap", "300", path)
		outs = append(outs, out)
	}
	if outs[0] != outs[1] {
		t.Errorf("CSV and JSONL tables differ:\n%s\n%s", outs[0], outs[1])
	}
	if !strings.Contains(outs[0], "95% percentile bootstrap intervals over episodes (B = 300, seed 1)") {
		t.Errorf("table:\n%s", outs[0])
	}
}

// TestEstimateRoundTrip: logged data from the runner's domains, through
// files and the CLI, give the in-process estimates on the original batch
// bit for bit, for every estimator; with options, options-pdis included.
func TestEstimateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	taxi := func(m, n int) *trajectory.Batch {
		env, _ := noisytaxi.New(noisytaxi.DefaultParams())
		ro, err := policies.NewTaxiRollout(m, 0.3, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		var b trajectory.Batch
		rng := rand.New(rand.NewPCG(11, 12))
		for range n {
			ro.Episode(env, rng, &b)
		}
		return &b
	}
	all := strings.Join(estimators.Names(), ",")
	for _, tc := range []struct {
		name string
		b    *trajectory.Batch
		cols logdata.Columns
		m    int
	}{
		{"chain", collectDomain(t, "chainmdp", map[string]float64{"horizon": 6, "p_e": 0.9}, 300, rand.New(rand.NewPCG(1, 2))), logdata.Columns{}, 0},
		{"subepisode", collectDomain(t, "subepisode", nil, 100, rand.New(rand.NewPCG(3, 4))), logdata.Columns{Split: true}, 0},
		{"taxi-options", taxi(3, 50), logdata.Columns{Split: true, Options: true, Changed: true}, 3},
	} {
		for _, ext := range []string{".csv", ".jsonl"} {
			path := filepath.Join(dir, tc.name+ext)
			writeBatch(t, path, tc.b, tc.cols, tc.m)
			res := runJSON(t, "-bootstrap", "0", "-estimators", all, path)
			for _, name := range estimators.Names() {
				if got, want := res.Estimates[name]["value"], inProcess(t, tc.b, name); math.Float64bits(got) != math.Float64bits(want) {
					t.Errorf("%s%s: %s = %v, in process %v", tc.name, ext, name, got, want)
				}
			}
			for _, name := range estimators.Names() {
				if got, want := res.Estimates[name]["ess"], estimators.ESS(tc.b); got != want {
					t.Errorf("%s%s: %s ess %v, want the factor weights' %v", tc.name, ext, name, got, want)
				}
			}
		}
	}
}

// TestEstimateWorkers: the output does not depend on -workers.
func TestEstimateWorkers(t *testing.T) {
	for _, format := range [][]string{nil, {"-json"}} {
		var outs []string
		for _, w := range []string{"1", "3"} {
			args := append([]string{"estimate", "-bootstrap", "400", "-seed", "77", "-workers", w}, format...)
			code, out, errOut := runMain(t, append(args, "../../examples/subepisode.csv")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			outs = append(outs, out)
		}
		if outs[0] != outs[1] {
			t.Errorf("-workers 1 and 3 differ:\n%s\n%s", outs[0], outs[1])
		}
	}
	res := runJSON(t, "-bootstrap", "400", "-seed", "77", "-confidence", "0.9", "../../examples/subepisode.csv")
	if res.Bootstrap == nil || res.Bootstrap.Replicates != 400 || res.Bootstrap.Seed != 77 || res.Bootstrap.Confidence != 0.9 {
		t.Errorf("bootstrap %+v", res.Bootstrap)
	}
	for name, e := range res.Estimates {
		if !(e["ci_low"] < e["ci_high"]) || e["ess"] <= 0 {
			t.Errorf("%s: %v", name, e)
		}
	}
}

// TestEstimateStdin reads DATA "-" as CSV, or JSONL with -format jsonl.
func TestEstimateStdin(t *testing.T) {
	old := stdin
	defer func() { stdin = old }()
	stdin = strings.NewReader("episode,step,reward,pi_b,pi_e\na,0,1,0.5,1\nb,0,2,0.5,0.5\n")
	res := runJSON(t, "-bootstrap", "0", "-estimators", "is,wis", "-")
	// is: (2*1 + 1*2)/2 = 2; wis: (2*1 + 1*2)/(2 + 1) = 4/3
	if res.Estimates["is"]["value"] != 2 || res.Estimates["wis"]["value"] != 4.0/3 {
		t.Errorf("stdin CSV: %+v", res.Estimates)
	}
	stdin = strings.NewReader(`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":1}` + "\n")
	res = runJSON(t, "-bootstrap", "0", "-estimators", "pdis", "-format", "jsonl", "-")
	if res.Estimates["pdis"]["value"] != 2 || res.Episodes != 1 {
		t.Errorf("stdin JSONL: %+v", res)
	}
}

// TestEstimateBadInput: bad data and bad flags exit 2 with a message
// naming the file, line and column, and write nothing to standard output.
func TestEstimateBadInput(t *testing.T) {
	dir := t.TempDir()
	const head = "episode,step,reward,pi_b,pi_e\n"
	const ok = head + "a,0,1,0.5,0.5\nb,0,1,0.5,0.5\n"
	files := []struct {
		name, text string
		args       []string
		want       []string
	}{
		{"missing.csv", "episode,step,reward,pi_b\na,0,1,1\n", nil, []string{"missing.csv: line 1", `column "pi_e"`}},
		{"dup.csv", "episode,step,reward,pi_b,pi_e,pi_b\n", nil, []string{"dup.csv: line 1", `column "pi_b"`, "twice"}},
		{"extra.csv", "episode,step,reward,pi_b,pi_e,action\na,0,1,1,1\n", nil, []string{"line 1", `column "action"`, "-allow-extra"}},
		{"text.csv", head + "a,0,one,1,1\n", nil, []string{"text.csv: line 2", `column "reward"`, "not a number"}},
		{"nan.csv", head + "a,0,1,1,1\na,1,NaN,1,1\n", nil, []string{"line 3", `column "reward"`, "NaN"}},
		{"inf.csv", head + "a,0,1,1,inf\n", nil, []string{"line 2", `column "pi_e"`, "NaN and infinities"}},
		{"pib.csv", head + "a,0,1,0,1\n", nil, []string{"line 2", `column "pi_b"`, "(0, 1]"}},
		{"pie.csv", head + "a,0,1,1,2\n", nil, []string{"line 2", `column "pi_e"`, "[0, 1]"}},
		{"skip.csv", head + "a,0,1,1,1\na,2,1,1,1\n", nil, []string{"line 3", `column "step"`, "skips step 1"}},
		{"repeat.csv", head + "a,0,1,1,1\na,0,1,1,1\n", nil, []string{"line 3", `column "step"`, "repeated"}},
		{"order.csv", head + "a,0,1,1,1\na,1,1,1,1\na,0,1,1,1\n", nil, []string{"line 4", `column "step"`, "out of order"}},
		{"contig.csv", head + "a,0,1,1,1\nb,0,1,1,1\na,1,1,1,1\n", nil, []string{"line 4", `column "episode"`, "contiguous"}},
		{"empty.csv", "", nil, []string{"empty.csv", "empty input"}},
		{"header.csv", head, nil, []string{"header.csv: line 1", "no data records"}},
		{"one.csv", head + "a,0,1,1,1\n", nil, []string{"one.csv", "incris needs at least 2 episodes, the data has 1"}},
		{"one2.csv", head + "a,0,1,1,1\n", []string{"-estimators", "pdis,incris-printed"}, []string{"incris-printed needs at least 2 episodes"}},
		{"bad.jsonl", `{"episode":"a","step":0,"reward":1,"pi_b":1,"pi_e":1}` + "\n" + `{"episode":"a","step":1,"reward":"1","pi_b":1,"pi_e":1}` + "\n", nil, []string{"bad.jsonl: line 2", `field "reward"`}},
		{"bad-json.jsonl", `{"episode":"a",` + "\n", nil, []string{"bad-json.jsonl: line 1", "not valid JSON"}},
		{"csv-as-jsonl.csv", ok, []string{"-format", "jsonl"}, []string{"line 1", "not valid JSON"}},
		{"okflags.csv", ok, []string{"-estimators", "pdis,nonsense"}, []string{`unknown estimator "nonsense"`, "cwpdis", "incris", "options-pdis"}},
		{"okflags2.csv", ok, []string{"-bootstrap", "-1"}, []string{"-bootstrap -1"}},
		{"okflags3.csv", ok, []string{"-confidence", "1"}, []string{"-confidence 1"}},
		{"okflags4.csv", ok, []string{"-workers", "0"}, []string{"-workers 0"}},
		{"okflags5.csv", ok, []string{"-format", "xml"}, []string{`unknown format "xml"`}},
		{"okflags6.csv", ok, []string{"-estimators", " , "}, []string{"-estimators is empty"}},
	}
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			path := filepath.Join(dir, f.name)
			if err := os.WriteFile(path, []byte(f.text), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append(append([]string{"estimate"}, f.args...), path)
			code, out, errOut := runMain(t, args...)
			if code != 2 || out != "" {
				t.Errorf("exit %d, stdout %q; want 2 and nothing", code, out)
			}
			for _, w := range f.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q does not contain %q", errOut, w)
				}
			}
		})
	}
	for _, args := range [][]string{
		{"estimate"},
		{"estimate", "a.csv", "b.csv"},
		{"estimate", filepath.Join(dir, "does-not-exist.csv")},
		{"estimate", "-no-such-flag", "x.csv"},
	} {
		if code, out, _ := runMain(t, args...); code != 2 || out != "" {
			t.Errorf("%v: exit %d, stdout %q; want 2 and nothing", args, code, out)
		}
	}
}

// TestEstimateFailure: an estimate that is not a float64 (IS with a
// weight of 2^2000) is shown as failed, the others are printed, exit 1.
func TestEstimateFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.csv")
	var sb strings.Builder
	sb.WriteString("episode,step,reward,pi_b,pi_e\n")
	for s := range 2 {
		sb.WriteString("a," + strconv.Itoa(s) + ",1,1e-300,1\n") // W = 1e600
	}
	sb.WriteString("b,0,1,1,1\n")
	os.WriteFile(path, []byte(sb.String()), 0o644)
	code, out, errOut := runMain(t, "estimate", "-bootstrap", "0", "-estimators", "is,wis", path)
	if code != 1 || !strings.Contains(out, "failed") || !strings.Contains(errOut, "runexp estimate: is: estimate not representable") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	// wis = (1e600*2 + 1*1)/(1e600 + 1) = 2 in float64
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if got := strings.Join(strings.Fields(lines[len(lines)-1]), " "); got != "wis 2 - - 1.0" {
		t.Errorf("wis row missing:\n%s", out)
	}
}

// TestEstimateNotes: extra columns with -allow-extra, and estimators
// asked for without the columns they use, are noted on standard error.
func TestEstimateNotes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "extra.csv")
	os.WriteFile(path, []byte("episode,step,reward,pi_b,pi_e,state\na,0,1,1,1,s1\nb,0,1,1,1,s2\n"), 0o644)
	code, out, errOut := runMain(t, "estimate", "-allow-extra", "-bootstrap", "0", "-estimators", "pdis,partitioned-pdis,options-pdis", path)
	if code != 0 || out == "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"ignoring columns state", "no split points, so partitioned-pdis equals pdis", "no options, so options-pdis equals pdis"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr %q does not contain %q", errOut, w)
		}
	}
}

func TestEstimateHelp(t *testing.T) {
	code, _, errOut := runMain(t, "help", "estimate")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, w := range []string{"option_changed", "mu_b", "mu_e", "-bootstrap 0 turns it off", "Exit status", "-allow-extra", "partitioned-pdis"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("help does not mention %q", w)
		}
	}
	if _, out, _ := runMain(t, "help"); !strings.Contains(out, "runexp estimate") {
		t.Errorf("usage does not list estimate:\n%s", out)
	}
}

// endless is an endless standard input, made as it is read: head once,
// then row forever (for /dev/zero: no head, a zero byte).
type endless struct {
	head, row string
	buf       []byte
}

func (e *endless) Read(p []byte) (int, error) {
	if len(e.buf) == 0 {
		e.buf = append(e.buf, e.head...)
		e.head = ""
		for len(e.buf) < 4096 {
			e.buf = append(e.buf, e.row...)
		}
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	return n, nil
}

// endlessSteps is one endless episode a: header, then steps 0, 1, 2, ...
type endlessSteps struct {
	step int
	buf  []byte
}

func (e *endlessSteps) Read(p []byte) (int, error) {
	if len(e.buf) == 0 {
		if e.step == 0 {
			e.buf = append(e.buf, "episode,step,reward,pi_b,pi_e\n"...)
		}
		e.buf = append(e.buf, "a,"+strconv.Itoa(e.step)+",1,0.5,0.5\n"...)
		e.step++
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	return n, nil
}

// TestEstimateHostileInput (issue 12): input that is bad in form or size,
// a directory or a missing file exits 2 with nothing on standard output
// and a message naming the file (or standard input) and the line and
// column; endless input is refused at the caps (1 MiB a line, -max-steps),
// not read until memory runs out. A JSON Lines file with a byte order mark
// is read, as CSV is.
func TestEstimateHostileInput(t *testing.T) {
	dir := t.TempDir()
	const head = "episode,step,reward,pi_b,pi_e\n"
	const rec = `{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.5}` + "\n" + `{"episode":"b","step":0,"reward":1,"pi_b":0.5,"pi_e":0.5}` + "\n"
	for _, tc := range []struct {
		name string
		file string    // written to dir/name unless "" (then name is used as it is)
		in   io.Reader // standard input for DATA "-" (name "-")
		args []string
		code int
		want []string // substrings of stderr
	}{
		// the BOM is ignored; is = (1*1 + 1*1)/2 episodes = 1
		{"bom.jsonl", "\ufeff" + rec, nil, []string{"-estimators", "is"}, 0, nil},
		{"underscore.csv", head + "a,0,1_000,0.5,0.5\n", nil, nil, 2,
			[]string{"underscore.csv: line 2", `column "reward"`, `"1_000" is not a number`, "decimal or exponent notation"}},
		{"hexfloat.csv", head + "a,0,1,0.5,0.5\na,1,1,1,0x1p-1\n", nil, nil, 2,
			[]string{"hexfloat.csv: line 3", `column "pi_e"`, `"0x1p-1" is not a number`, "no hexadecimal"}},
		{"hexint.csv", head + "a,0x0,1,0.5,0.5\n", nil, nil, 2,
			[]string{"hexint.csv: line 2", `column "step"`, "not an integer", "decimal digits"}},
		{"infinity.csv", head + "a,0,Inf,0.5,0.5\n", nil, nil, 2,
			[]string{"infinity.csv: line 2", `column "reward"`, "NaN and infinities are not allowed"}},
		{"infinity.jsonl", `{"episode":"a","step":0,"reward":Infinity,"pi_b":0.5,"pi_e":0.5}` + "\n", nil, nil, 2,
			[]string{"infinity.jsonl: line 1", "not valid JSON"}},
		{"too-many.csv", head + "a,0,1,0.5,0.5\nb,0,1,0.5,0.5\nc,0,1,0.5,0.5\n", nil, []string{"-max-steps", "2"}, 2,
			[]string{"too-many.csv: line 4", "more than 2 steps", "-max-steps"}},
		{"a-directory", "", nil, nil, 2, []string{"a-directory is a directory"}},
		{"missing.csv", "", nil, nil, 2, []string{"missing.csv", "no such file"}},
		// /dev/zero: one endless line, in either format
		{"-", "", &endless{row: "\x00"}, nil, 2, []string{"standard input: line 1", "longer than 1048576 bytes"}},
		{"-", "", &endless{row: "\x00"}, []string{"-format", "jsonl"}, 2, []string{"standard input: line 1", "longer than 1048576 bytes"}},
		// a quoted field that never closes: one endless record from line 2
		{"-", "", &endless{head: head + `a,0,1,0.5,"`, row: "\n"}, nil, 2, []string{"standard input: line 2", "record longer than 1048576 bytes"}},
		// endless valid rows: steps 0..999 of episode a on lines 2..1001
		{"-", "", &endlessSteps{}, []string{"-max-steps", "1000"}, 2, []string{"standard input: line 1002", "more than 1000 steps"}},
		{"ok.csv", head + "a,0,1,0.5,0.5\n", nil, []string{"-max-steps", "0"}, 2, []string{"-max-steps 0, want >= 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.name
			switch {
			case tc.in != nil:
				old := stdin
				defer func() { stdin = old }()
				stdin = tc.in
			case tc.name == "a-directory":
				path = filepath.Join(dir, tc.name)
				if err := os.Mkdir(path, 0o755); err != nil {
					t.Fatal(err)
				}
			default:
				path = filepath.Join(dir, tc.name)
				if tc.file != "" {
					if err := os.WriteFile(path, []byte(tc.file), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			args := append(append([]string{"estimate", "-bootstrap", "0"}, tc.args...), path)
			code, out, errOut := runMain(t, args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, errOut)
			}
			if tc.code == 2 && out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if tc.code == 0 && !strings.Contains(out, "2 episodes, 2 steps") {
				t.Errorf("stdout %q, want the 2 episodes read", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q does not contain %q", errOut, w)
				}
			}
		})
	}
}

// TestEstimateUnreadable: a DATA file that exists but cannot be opened for
// lack of permission is a failure of the machine (inputerr.Open): exit 1,
// nothing on standard output. Skipped where permissions do not bind (root).
func TestEstimateUnreadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locked.csv")
	if err := os.WriteFile(path, []byte("episode,step,reward,pi_b,pi_e\na,0,1,1,1\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	if f, err := os.Open(path); err == nil {
		f.Close()
		t.Skip("permissions do not bind here (root?)")
	}
	code, out, errOut := runMain(t, "estimate", path)
	if code != 1 || out != "" || !strings.Contains(errOut, "locked.csv") || !strings.Contains(errOut, "permission denied") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing, and the file's permission error", code, out, errOut)
	}
}
