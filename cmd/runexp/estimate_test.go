package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/noisytaxi"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/evaluate"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/models"
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
	return runMainIn(t, strings.NewReader(""), args...)
}

// runMainIn is runMain with standard input in.
func runMainIn(t *testing.T, in io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = MainIO(args, in, &o, &e)
	return code, o.String(), e.String()
}

func runJSON(t *testing.T, args ...string) estimateOut {
	t.Helper()
	return runJSONIn(t, strings.NewReader(""), args...)
}

// runJSONIn is runJSON with standard input in.
func runJSONIn(t *testing.T, in io.Reader, args ...string) estimateOut {
	t.Helper()
	code, out, errOut := runMainIn(t, in, append([]string{"estimate", "-json"}, args...)...)
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
// ratio above 1, mu_b = 2^-k and mu_e = ratio 2^-k in [0.5, 1); with
// cols.Model, b's q_hat and v_hat.
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
			if cols.Model {
				r.QHat, r.VHat = b.QHat[s], b.VHat[s]
			}
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

// withModel returns a copy of src with model columns: q_hat and v_hat
// drawn from a fixed stream (values of both signs and many magnitudes, to
// be written and read back bit for bit).
func withModel(src *trajectory.Batch, seed uint64) *trajectory.Batch {
	b := *src
	rng := rand.New(rand.NewPCG(seed, 3))
	b.QHat, b.VHat = nil, nil
	for range src.Steps() {
		b.AddModel(rng.NormFloat64()*10, rng.NormFloat64()*10)
	}
	return &b
}

// runnable returns the estimators of the registry that can run on data
// that has have: those whose Needs it has, and that need no model on
// options data (SPEC 1d), as the registry entries say.
func runnable(have estimators.Data) []string {
	var names []string
	for _, inf := range estimators.All() {
		if inf.Needs&^have != 0 || (inf.Needs&estimators.Model != 0 && have&estimators.Options != 0) {
			continue
		}
		names = append(names, inf.Name)
	}
	return names
}

// TestEstimateRoundTrip: logged data from the runner's domains, through
// files and the CLI, give the in-process estimates on the original batch
// bit for bit, for every estimator that can run on the data (options-pdis
// with options; the model-based ones with model columns).
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
	for _, tc := range []struct {
		name string
		b    *trajectory.Batch
		cols logdata.Columns
		m    int
	}{
		{"chain", collectDomain(t, "chainmdp", map[string]float64{"horizon": 6, "p_e": 0.9}, 300, rand.New(rand.NewPCG(1, 2))), logdata.Columns{}, 0},
		{"subepisode", collectDomain(t, "subepisode", nil, 100, rand.New(rand.NewPCG(3, 4))), logdata.Columns{Split: true}, 0},
		{"taxi-options", taxi(3, 50), logdata.Columns{Split: true, Options: true, Changed: true}, 3},
		{"chain-model", withModel(collectDomain(t, "chainmdp", map[string]float64{"horizon": 6, "p_e": 0.9}, 300, rand.New(rand.NewPCG(5, 6))), 5), logdata.Columns{Model: true}, 0},
		{"subepisode-model", withModel(collectDomain(t, "subepisode", map[string]float64{"subepisodes": 4}, 100, rand.New(rand.NewPCG(7, 8))), 7), logdata.Columns{Split: true, Model: true}, 0},
	} {
		names := runnable(dataOf(tc.cols))
		for _, ext := range []string{".csv", ".jsonl"} {
			path := filepath.Join(dir, tc.name+ext)
			writeBatch(t, path, tc.b, tc.cols, tc.m)
			res := runJSON(t, "-bootstrap", "0", "-estimators", strings.Join(names, ","), path)
			if len(res.Estimates) != len(names) {
				t.Errorf("%s%s: %d estimates, want %d (%v)", tc.name, ext, len(res.Estimates), len(names), names)
			}
			for _, name := range names {
				if got, want := res.Estimates[name]["value"], inProcess(t, tc.b, name); math.Float64bits(got) != math.Float64bits(want) {
					t.Errorf("%s%s: %s = %v, in process %v", tc.name, ext, name, got, want)
				}
			}
			for _, name := range names {
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
	res := runJSONIn(t, strings.NewReader("episode,step,reward,pi_b,pi_e\na,0,1,0.5,1\nb,0,2,0.5,0.5\n"), "-bootstrap", "0", "-estimators", "is,wis", "-")
	// is: (2*1 + 1*2)/2 = 2; wis: (2*1 + 1*2)/(2 + 1) = 4/3
	if res.Estimates["is"]["value"] != 2 || res.Estimates["wis"]["value"] != 4.0/3 {
		t.Errorf("stdin CSV: %+v", res.Estimates)
	}
	res = runJSONIn(t, strings.NewReader(`{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":1}`+"\n"), "-bootstrap", "0", "-estimators", "pdis", "-format", "jsonl", "-")
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
	const modelHead = "episode,step,reward,pi_b,pi_e,q_hat,v_hat\n"
	files := []struct {
		name, text string
		args       []string
		want       []string
	}{
		{"missing.csv", "episode,step,reward,pi_b\na,0,1,1\n", nil, []string{"missing.csv: line 1", `column "pi_e"`}},
		{"dup.csv", "episode,step,reward,pi_b,pi_e,pi_b\n", nil, []string{"dup.csv: line 1", `column "pi_b"`, "twice"}},
		{"extra.csv", "episode,step,reward,pi_b,pi_e,actions\na,0,1,1,1\n", nil, []string{"line 1", `column "actions"`, "-allow-extra"}},
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
		{"gamma0.csv", ok, []string{"-gamma", "0"}, []string{"-gamma 0,", "(0, 1]"}},
		{"gamma15.csv", ok, []string{"-gamma", "1.5"}, []string{"-gamma 1.5,", "(0, 1]"}},
		{"gammanan.csv", ok, []string{"-gamma", "nan"}, []string{"-gamma NaN,", "(0, 1]"}},
		{"gammaneg.csv", ok, []string{"-gamma", "-0.5"}, []string{"-gamma -0.5,", "(0, 1]"}},
		{"gammainf.csv", ok, []string{"-gamma", "inf"}, []string{"-gamma +Inf,", "(0, 1]"}},
		{"gammatext.csv", ok, []string{"-gamma", "half"}, []string{"-gamma"}},
		{"qonly.csv", "episode,step,reward,pi_b,pi_e,q_hat\na,0,1,1,1,2\n", nil, []string{"qonly.csv: line 1", `column "v_hat"`, "model columns come together"}},
		{"vonly.jsonl", `{"episode":"a","step":0,"reward":1,"pi_b":1,"pi_e":1,"v_hat":2}` + "\n", nil, []string{"vonly.jsonl: line 1", `field "q_hat"`, "model columns come together"}},
		{"qtext.csv", modelHead + "a,0,1,1,1,2,2\na,1,1,1,1,lots,2\n", nil, []string{"qtext.csv: line 3", `column "q_hat"`, `"lots" is not a number`}},
		{"vempty.csv", modelHead + "a,0,1,1,1,2,\n", nil, []string{"vempty.csv: line 2", `column "v_hat"`, "empty, want a number"}},
		{"vnan.csv", modelHead + "a,0,1,1,1,2,nan\n", nil, []string{"vnan.csv: line 2", `column "v_hat"`, "NaN and infinities"}},
		{"qstring.jsonl", `{"episode":"a","step":0,"reward":1,"pi_b":1,"pi_e":1,"q_hat":"2","v_hat":2}` + "\n", nil, []string{"qstring.jsonl: line 1", `field "q_hat"`, "want a JSON number"}},
		// -columns, the field's layouts and the JSON and Parquet formats (issue 32)
		{"cols-unknown.csv", ok, []string{"-columns", "bogus=x"}, []string{"-columns for", "cols-unknown.csv", `unknown column "bogus"`}},
		{"cols-dup.csv", ok, []string{"-columns", "pi_b=a,pi_b=b"}, []string{"-columns for", "cols-dup.csv", "mapped twice"}},
		{"cols-dup2.csv", ok, []string{"-columns", "pi_b=p,pi_e=p"}, []string{"-columns for", "cols-dup2.csv", `"p" is mapped to pi_b already`}},
		{"cols-missing.csv", ok, []string{"-columns", "pi_b=pscore"}, []string{"cols-missing.csv: line 1", `-columns maps pi_b to "pscore"`, "does not have"}},
		{"cols-preset.csv", ok, []string{"-columns", "preset=rllib"}, []string{"-columns for", `unknown preset`, "d3rlpy, obp, scope-rl"}},
		{"scope.csv", "trajectory_id,timestep,reward,pscore,evaluation_policy_pscore\n1,0,1,0,1\n", nil, []string{"scope.csv: line 2", `column "pscore (pi_b)"`, "(0, 1]"}},
		{"scope-done.csv", "trajectory_id,timestep,reward,pscore,evaluation_policy_pscore,done\n1,0,1,1,1,1\n1,1,1,1,1,0\n", nil, []string{"scope-done.csv: line 3", "after the episode's done (line 2)"}},
		{"notrecords.json", "[1,2]", nil, []string{"notrecords.json: line 1", "want an object"}},
		{"short.json", `{"episode":["a","b"],"step":[0],"reward":[1,1],"pi_b":[1,1],"pi_e":[1,1]}`, nil, []string{"short.json: line 1 (record 2)", `field "step"`, "1 values"}},
		{"bad.parquet", "PAR1 not parquet", nil, []string{"bad.parquet", "not a Parquet file"}},
		{"csv-as-parquet.csv", ok, []string{"-format", "parquet"}, []string{"csv-as-parquet.csv", "not a Parquet file", "not PAR1"}},
		{"csv-as-json.csv", ok, []string{"-format", "json"}, []string{"csv-as-json.csv: line 1", "want a JSON array of records or an object of arrays"}},
		{"d3-noterm.csv", "rewards,pi_b,pi_e\n1,1,1\n", []string{"-columns", "preset=d3rlpy"}, []string{"d3-noterm.csv: line 1", `column "done"`, "neither"}},
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

// TestEstimateGamma: -gamma G discounts the data (SPEC 1c) before every
// estimate and every bootstrap replicate; -gamma 1 is the output without
// the flag, byte for byte.
func TestEstimateGamma(t *testing.T) {
	const example = "../../examples/subepisode.csv"
	for _, format := range [][]string{nil, {"-json"}} {
		base := append([]string{"estimate", "-bootstrap", "300", "-seed", "5"}, format...)
		code0, without, _ := runMain(t, append(base, example)...)
		code1, with, errOut := runMain(t, append(base, "-gamma", "1", example)...)
		if code0 != 0 || code1 != 0 || with != without {
			t.Errorf("%v: -gamma 1 (exit %d, %s) differs from no -gamma (exit %d):\n%s\n%s", format, code1, errOut, code0, with, without)
		}
		if strings.Contains(with, "gamma") {
			t.Errorf("%v: -gamma 1 output mentions gamma:\n%s", format, with)
		}
	}

	dir := t.TempDir()
	// Episode a: rewards 1, 2, 4 with rho = pi_e/pi_b = 1, 2, 0.5, so
	// W_t = 1, 2, 1; episode b: reward 3 with rho = 0.5. With gamma = 0.5
	// the rewards count 1, 0.5 and 0.25 times (gamma^(t-1)), so
	//   pdis = ( [1*1*1 + 2*2*0.5 + 1*4*0.25] + 0.5*3 ) / 2 = (4 + 1.5)/2 = 2.75
	//   is   = ( W^a_3 G^a + W^b_1 G^b ) / 2 = (1*(1 + 1 + 1) + 0.5*3)/2 = 2.25
	// and with gamma = 1: pdis = (1 + 4 + 4 + 1.5)/2 = 5.25, is = (7 + 1.5)/2 = 4.25.
	// Every number is a sum of powers of two: exact in float64.
	tiny := filepath.Join(dir, "tiny.csv")
	os.WriteFile(tiny, []byte("episode,step,reward,pi_b,pi_e\n"+
		"a,0,1,0.5,0.5\na,1,2,0.5,1\na,2,4,0.5,0.25\n"+
		"b,0,3,1,0.5\n"), 0o644)
	// Two copies of episode a: every bootstrap replicate is the data set
	// itself, so the interval is the estimate, discounted: pdis = 4 with
	// gamma = 0.5 (the bracket above), 9 (1 + 4 + 4) with gamma = 1.
	twins := filepath.Join(dir, "twins.csv")
	os.WriteFile(twins, []byte("episode,step,reward,pi_b,pi_e\n"+
		"a,0,1,0.5,0.5\na,1,2,0.5,1\na,2,4,0.5,0.25\n"+
		"b,0,1,0.5,0.5\nb,1,2,0.5,1\nb,2,4,0.5,0.25\n"), 0o644)
	for _, tc := range []struct {
		path, gamma string
		want        map[string]float64
		interval    bool // ci_low = ci_high = the estimate
	}{
		{tiny, "0.5", map[string]float64{"pdis": 2.75, "is": 2.25}, false},
		{tiny, "1", map[string]float64{"pdis": 5.25, "is": 4.25}, false},
		{twins, "0.5", map[string]float64{"pdis": 4}, true},
		{twins, "1", map[string]float64{"pdis": 9}, true},
	} {
		names := make([]string, 0, len(tc.want))
		for n := range tc.want {
			names = append(names, n)
		}
		boot := "0"
		if tc.interval {
			boot = "50"
		}
		res := runJSON(t, "-bootstrap", boot, "-gamma", tc.gamma, "-estimators", strings.Join(names, ","), tc.path)
		for n, want := range tc.want {
			e := res.Estimates[n]
			if e["value"] != want {
				t.Errorf("%s -gamma %s: %s = %v, want %v", filepath.Base(tc.path), tc.gamma, n, e["value"], want)
			}
			if tc.interval && (e["ci_low"] != want || e["ci_high"] != want) {
				t.Errorf("%s -gamma %s: %s interval [%v, %v], want [%v, %v]", filepath.Base(tc.path), tc.gamma, n, e["ci_low"], e["ci_high"], want, want)
			}
		}
	}
	code, out, errOut := runMain(t, "estimate", "-bootstrap", "0", "-gamma", "0.5", "-estimators", "pdis", tiny)
	if code != 0 || !strings.Contains(out, "4 steps, horizon 3, discounted with gamma = 0.5") {
		t.Errorf("table with -gamma 0.5: exit %d, %s\n%s", code, errOut, out)
	}
	code, out, _ = runMain(t, "estimate", "-json", "-bootstrap", "0", "-gamma", "0.5", "-estimators", "pdis", tiny)
	if code != 0 || !strings.Contains(out, `"horizon": 3,
  "gamma": 0.5,`) {
		t.Errorf("JSON with -gamma 0.5: exit %d\n%s", code, out)
	}
}

// TestEstimateNeedsModel: every registry entry that needs the model,
// asked for on data without q_hat and v_hat, or on options data with them,
// exits 2 naming the estimator and what is missing, with nothing on
// standard output; and the default set leaves such entries out unless the
// data has the columns.
func TestEstimateNeedsModel(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.csv")
	os.WriteFile(plain, []byte("episode,step,reward,pi_b,pi_e\na,0,1,0.5,0.5\nb,0,1,0.5,0.5\n"), 0o644)
	opts := filepath.Join(dir, "opts.csv")
	os.WriteFile(opts, []byte("episode,step,reward,pi_b,pi_e,option_start,mu_b,mu_e,q_hat,v_hat\n"+
		"a,0,1,0.5,0.5,1,1,1,1,1\nb,0,1,0.5,0.5,1,1,1,1,1\n"), 0o644)
	model := filepath.Join(dir, "model.csv")
	os.WriteFile(model, []byte("episode,step,reward,pi_b,pi_e,q_hat,v_hat\na,0,1,0.5,0.5,1,1\nb,0,1,0.5,0.5,1,1\n"), 0o644)
	// with obs and action a model is fitted (SPEC 1f), so the defaults
	// include the model-based and marginal estimators
	ids := filepath.Join(dir, "ids.csv")
	os.WriteFile(ids, []byte("episode,step,reward,pi_b,pi_e,obs,action\na,0,1,0.5,0.5,s,x\na,1,0,0.5,0.5,t,y\nb,0,1,0.5,0.5,s,y\nb,1,2,0.5,0.5,t,x\n"), 0o644)
	for _, inf := range estimators.All() {
		if inf.Needs&estimators.Model == 0 {
			continue
		}
		for path, want := range map[string]string{
			plain: inf.Name + " needs the model columns q_hat and v_hat, which " + plain + " does not have" + modelWays,
			opts:  inf.Name + " needs primitive data (one action ratio per step), and " + opts + " has the option columns",
		} {
			code, out, errOut := runMain(t, "estimate", "-bootstrap", "0", "-estimators", "pdis,"+inf.Name, path)
			if code != 2 || out != "" || !strings.Contains(errOut, want) {
				t.Errorf("%s on %s: exit %d, stdout %q, stderr %q; want 2, nothing and %q", inf.Name, filepath.Base(path), code, out, errOut, want)
			}
		}
		res := runJSON(t, "-bootstrap", "0", "-estimators", inf.Name, model)
		if _, ok := res.Estimates[inf.Name]["value"]; !ok {
			t.Errorf("%s on data with the model columns: %v", inf.Name, res.Estimates)
		}
	}
	// the defaults: the registry's Default entries whose Uses and Needs the
	// data has (Defaults reads Uses; the model is needed, not used)
	for _, tc := range []struct {
		path string
		have estimators.Data
	}{{plain, 0}, {model, estimators.Model}, {ids, estimators.Model | estimators.IDs | estimators.Probs}} {
		var want []string
		for _, inf := range estimators.All() {
			if inf.Default && inf.Uses&^tc.have == 0 && inf.Needs&^tc.have == 0 {
				want = append(want, inf.Name)
			}
		}
		code, out, errOut := runMain(t, "estimate", "-bootstrap", "0", tc.path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.path, code, errOut)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[5:] {
			got = append(got, strings.Fields(line)[0])
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: default estimators %v, want %v", filepath.Base(tc.path), got, want)
		}
		if tc.path == ids {
			// issue 32 item 3: the model-based and marginal estimators by name
			for _, n := range []string{"dm", "dr", "wdr", "magic", "mis", "drl"} {
				if !slices.Contains(got, n) {
					t.Errorf("ids.csv: default estimators %v lack %s", got, n)
				}
			}
		}
	}
}

// TestEstimateModel: the model-based estimators through the CLI on a file
// with q_hat and v_hat, against SPEC 1d's formulas worked by hand, with
// and without discounting, and their bootstrap intervals (the resampled
// copies carry the model columns).
func TestEstimateModel(t *testing.T) {
	dir := t.TempDir()
	// Episode a: r = 1, 2; rho = 1/0.5 = 2, 0.25/0.5 = 0.5, so W_0..W_2 =
	// 1, 2, 1; q_hat = 3, 2; v_hat = 2.5, 1.5. Episode b: r = 4, rho = 0.5
	// (W_0, W_1 = 1, 0.5), q_hat = 3, v_hat = 1; padded at step 2 (r = 0,
	// ratio 1, q_hat = v_hat = 0).
	//
	// dm = (v^a_1 + v^b_1)/2 = (2.5 + 1)/2 = 1.75 whatever gamma (t = 1).
	// dr, gamma = 1: a: [2*1 - (2*3 - 1*2.5)] + [1*2 - (1*2 - 2*1.5)] = -1.5 + 3 = 1.5;
	//   b: 0.5*4 - (0.5*3 - 1*1) = 1.5; dr = (1.5 + 1.5)/2 = 1.5.
	// dr, gamma = 0.5: step 2 of a counts half (r = 1, q = 1, v = 0.75):
	//   a: -1.5 + [1*1 - (1*1 - 2*0.75)] = -1.5 + 1.5 = 0; dr = (0 + 1.5)/2 = 0.75.
	// wdr: wbar_0 = 1/2; step 1: W = 2, 0.5, sum 2.5, wbar = 0.8, 0.2; step 2:
	//   W = 1 and 0.5 (b's padding keeps its weight), sum 1.5, wbar = 2/3, 1/3.
	//   gamma = 1: a: [0.8*1 - (0.8*3 - 0.5*2.5)] + [(2/3)*2 - ((2/3)*2 - 0.8*1.5)]
	//   = -0.35 + 1.2; b: 0.2*4 - (0.2*3 - 0.5*1) = 0.7; wdr = 1.55.
	//   gamma = 0.5: a's step 2: (2/3)*1 - ((2/3)*1 - 0.8*0.75) = 0.6; wdr = -0.35 + 0.6 + 0.7 = 0.95.
	// (0.8, 2/3 are not binary fractions: wdr is compared within 1e-12.)
	hand := filepath.Join(dir, "hand.csv")
	os.WriteFile(hand, []byte("episode,step,reward,pi_b,pi_e,q_hat,v_hat\n"+
		"a,0,1,0.5,1,3,2.5\na,1,2,0.5,0.25,2,1.5\n"+
		"b,0,4,0.5,0.25,3,1\n"), 0o644)
	// Two copies of episode a: every bootstrap replicate is the data set
	// itself, so each interval is the estimate: dr = 1.5 (gamma = 1) or 0
	// (gamma = 0.5) as above, dm = 2.5.
	twins := filepath.Join(dir, "twins.jsonl")
	var sb strings.Builder
	for _, id := range []string{"a", "b"} {
		sb.WriteString(`{"episode":"` + id + `","step":0,"reward":1,"pi_b":0.5,"pi_e":1,"q_hat":3,"v_hat":2.5}` + "\n")
		sb.WriteString(`{"episode":"` + id + `","step":1,"reward":2,"pi_b":0.5,"pi_e":0.25,"q_hat":2,"v_hat":1.5}` + "\n")
	}
	os.WriteFile(twins, []byte(sb.String()), 0o644)
	for _, tc := range []struct {
		path, gamma string
		want        map[string]float64
		tol         map[string]float64 // absent: exact
		interval    bool               // ci_low = ci_high = the estimate
	}{
		{hand, "1", map[string]float64{"dm": 1.75, "dr": 1.5, "wdr": 1.55}, map[string]float64{"wdr": 1e-12}, false},
		{hand, "0.5", map[string]float64{"dm": 1.75, "dr": 0.75, "wdr": 0.95}, map[string]float64{"wdr": 1e-12}, false},
		{twins, "1", map[string]float64{"dm": 2.5, "dr": 1.5}, nil, true},
		{twins, "0.5", map[string]float64{"dm": 2.5, "dr": 0}, nil, true},
	} {
		var names []string
		for n := range tc.want {
			if _, ok := estimators.Lookup(n); !ok {
				t.Fatalf("estimator %s is not in the registry", n)
			}
			names = append(names, n)
		}
		slices.Sort(names)
		boot := "0"
		if tc.interval {
			boot = "40"
		}
		res := runJSON(t, "-bootstrap", boot, "-gamma", tc.gamma, "-estimators", strings.Join(names, ","), tc.path)
		for _, n := range names {
			e, want := res.Estimates[n], tc.want[n]
			if v, ok := e["value"]; !ok || math.Abs(v-want) > tc.tol[n] {
				t.Errorf("%s -gamma %s: %s = %v, want %v", filepath.Base(tc.path), tc.gamma, n, e, want)
			}
			lo, okLo := e["ci_low"]
			hi, okHi := e["ci_high"]
			if tc.interval && (!okLo || !okHi || lo != want || hi != want || e["failed_replicates"] != 0) {
				t.Errorf("%s -gamma %s: %s interval %v, want [%v, %v] from every replicate", filepath.Base(tc.path), tc.gamma, n, e, want, want)
			}
		}
	}
}

// TestEstimateModelExample: examples/subepisode_model.csv is what
// examples/gen writes: the episodes of examples/subepisode.csv (the same
// stream) with the fitted model of SPEC 1d (models.Fitter, gamma = 1) in
// q_hat and v_hat; runexp estimate on it gives the in-process estimates of
// that batch bit for bit, and bootstrap intervals for every estimator that
// needs the model.
func TestEstimateModelExample(t *testing.T) {
	const path = "../../examples/subepisode_model.csv"
	d, _, err := domains.New("subepisode", map[string]float64{"subepisodes": 5, "p_e": 0.75})
	if err != nil {
		t.Fatal(err)
	}
	md, ok := d.(domains.ModelDomain)
	if !ok {
		t.Fatal("subepisode supplies no model")
	}
	md.Record(true, false)
	var b trajectory.Batch
	md.Collect(&b, 200, rand.New(rand.NewPCG(2017, 0)))
	var fit models.Fitter
	if err := fit.Fit(&b, md.Space(), 1); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var read trajectory.Batch
	if _, err := logdata.Read(f, logdata.CSV, &read, logdata.Options{}); err != nil {
		t.Fatal(err)
	}
	bits := func(x []float64) []uint64 {
		out := make([]uint64, len(x))
		for i, v := range x {
			out[i] = math.Float64bits(v)
		}
		return out
	}
	if !slices.Equal(read.Offsets, b.Offsets) || !slices.Equal(bits(read.Reward), bits(b.Reward)) || !slices.Equal(bits(read.Ratio), bits(b.Ratio)) ||
		!slices.Equal(bits(read.QHat), bits(b.QHat)) || !slices.Equal(bits(read.VHat), bits(b.VHat)) || !slices.Equal(read.Split, b.Split) {
		t.Fatalf("%s is not examples/gen's output: rerun go run ./examples/gen", path)
	}
	var names []string
	for _, inf := range estimators.All() {
		if inf.Needs&estimators.Model != 0 {
			names = append(names, inf.Name)
		}
	}
	names = append(names, "pdis")
	res := runJSON(t, "-bootstrap", "0", "-estimators", strings.Join(names, ","), path)
	if res.Episodes != 200 || res.Steps != 2000 || res.Horizon != 10 {
		t.Errorf("%+v", res)
	}
	for _, n := range names {
		if got, want := res.Estimates[n]["value"], inProcess(t, &b, n); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%s = %v, in process %v", n, got, want)
		}
	}
	res = runJSON(t, "-bootstrap", "200", "-estimators", strings.Join(names, ","), path)
	for _, n := range names {
		e := res.Estimates[n]
		lo, okLo := e["ci_low"]
		hi, okHi := e["ci_high"]
		if !okLo || !okHi || !(lo <= hi) || e["failed_replicates"] != 0 {
			t.Errorf("%s: interval %v", n, e)
		}
	}
	// every episode starts in s1 with H = 10 steps left, so every v_hat_1
	// is one number v: dm is the mean of 200 copies of v (v up to the
	// rounding of the sum), and every resample is the same sum, bit for bit
	if e := res.Estimates["dm"]; e["ci_low"] != e["value"] || e["ci_high"] != e["value"] || math.Abs(e["value"]-b.VHat[0]) > 1e-12 {
		t.Errorf("dm %v, want the interval [dm, dm] and dm = v_hat_1 = %v", e, b.VHat[0])
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
	for _, w := range []string{"option_changed", "mu_b", "mu_e", "-bootstrap 0 turns it off", "Exit status", "-allow-extra", "partitioned-pdis",
		"-gamma G, in (0, 1]", "G^(t-1) r_t", "q_hat", "v_hat", "model columns q_hat and v_hat (both, on every row, or neither)", `"gamma": G`} {
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
		{"missing.csv", "", nil, nil, 2, []string{"missing.csv", "does not exist"}},
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
			in := io.Reader(strings.NewReader(""))
			switch {
			case tc.in != nil:
				in = tc.in
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
			code, out, errOut := runMainIn(t, in, args...)
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

// writeTemp writes text to dir/name and returns the path.
func writeTemp(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// handBounds is four two-step episodes for the lower bounds (SPEC 1e),
// pi_b = 0.5 throughout. Episode a: r = 0, -2 with pi_e = 0.25, 0.5
// (rho = 0.5, 1: W_1 = W_2 = 0.5). Episodes b, c, d: r = 2, -1 with
// pi_e = 1, 0.25 (rho = 2, 0.5: W_1 = 2, W_2 = 1). Undiscounted:
//
//	is terms W_2 G: a: 0.5 (0 - 2) = -1; b, c, d: 1 (2 - 1) = 1. Mean 0.5;
//	  squared deviations 2.25 + 3 x 0.25 = 3, s^2 = 3/3 = 1, s/sqrt(4) = 0.5.
//	pdis terms W_1 r_1 + W_2 r_2: a: 0 - 1 = -1; b, c, d: 4 - 1 = 3. Mean 2;
//	  squared deviations 9 + 3 x 1 = 12, s^2 = 4, s/sqrt(4) = 1.
//
// With gamma = 0.5 (step 2's reward halved): is: a: 0.5 (0 - 1) = -0.5,
// b: 1 (2 - 0.5) = 1.5, mean 1, s/2 = 0.5; pdis: a: -0.5, b: 4 - 0.5 = 3.5,
// mean 2.5, s/2 = 1. Returns G: a: -2, b: 1 (discounted: -1, 1.5).
const handBounds = "episode,step,reward,pi_b,pi_e\n" +
	"a,0,0,0.5,0.25\na,1,-2,0.5,0.5\n" +
	"b,0,2,0.5,1\nb,1,-1,0.5,0.25\n" +
	"c,0,2,0.5,1\nc,1,-1,0.5,0.25\n" +
	"d,0,2,0.5,1\nd,1,-1,0.5,0.25\n"

// tQuantile3 is the p-quantile of Student's t with 3 degrees of freedom,
// from its closed-form CDF F(x) = 1/2 + (atan(u) + u/(1 + u^2))/pi, u =
// x/sqrt(3), by bisection.
func tQuantile3(p float64) float64 {
	cdf := func(x float64) float64 {
		u := x / math.Sqrt(3)
		return 0.5 + (math.Atan(u)+u/(1+u*u))/math.Pi
	}
	lo, hi := 0.0, 100.0
	for range 200 {
		m := (lo + hi) / 2
		if cdf(m) < p {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// boundsJSON runs runexp estimate -json with args and decodes the object.
func boundsJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errOut := runMain(t, append([]string{"estimate", "-json"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return res
}

// lowerOf returns estimates.<name>.lower.<kind> of a -json result, and
// whether it is there as a number.
func lowerOf(res map[string]any, name, kind string) (float64, bool) {
	e, _ := res["estimates"].(map[string]any)[name].(map[string]any)
	lower, _ := e["lower"].(map[string]any)
	v, ok := lower[kind].(float64)
	return v, ok
}

// TestEstimateTBound: the t bound of SPEC 1e through the CLI on
// handBounds, mean - t_{1-delta,3} s/sqrt(n) with the means and s/sqrt(n)
// worked out there, at several delta and with -gamma; the t quantiles
// agree with the printed tables (NIST/SEMATECH e-Handbook 1.3.6.7.2, 3
// decimals: 1.638, 2.353, 3.182, 4.541).
func TestEstimateTBound(t *testing.T) {
	path := writeTemp(t, t.TempDir(), "hand.csv", handBounds)
	for p, table := range map[float64]float64{0.90: 1.638, 0.95: 2.353, 0.975: 3.182, 0.99: 4.541} {
		if q := tQuantile3(p); math.Abs(q-table) > 5e-4 {
			t.Fatalf("t_{%v,3} = %v, the table says %v", p, q, table)
		}
	}
	for _, tc := range []struct {
		delta, gamma string
		p            float64 // 1 - delta
		// mean and s/sqrt(n) of the is and pdis terms (handBounds)
		isMean, isSE, pdisMean, pdisSE float64
	}{
		{"0.05", "1", 0.95, 0.5, 0.5, 2, 1},
		{"0.1", "1", 0.90, 0.5, 0.5, 2, 1},
		{"0.025", "1", 0.975, 0.5, 0.5, 2, 1},
		{"0.01", "1", 0.99, 0.5, 0.5, 2, 1},
		{"0.05", "0.5", 0.95, 1, 0.5, 2.5, 1},
	} {
		res := boundsJSON(t, "-bootstrap", "0", "-bounds", "t", "-delta", tc.delta, "-gamma", tc.gamma, "-estimators", "is,pdis,wis", path)
		q := tQuantile3(tc.p)
		for _, w := range []struct {
			name     string
			mean, se float64
		}{{"is", tc.isMean, tc.isSE}, {"pdis", tc.pdisMean, tc.pdisSE}} {
			got, ok := lowerOf(res, w.name, "t")
			// 1e-9: the quantile is the bound's own numerical solution
			if want := w.mean - q*w.se; !ok || math.Abs(got-want) > 1e-9 {
				t.Errorf("-delta %s -gamma %s: %s t bound %v (present %v), want %v - %v x %v = %v", tc.delta, tc.gamma, w.name, got, ok, w.mean, q, w.se, want)
			}
			if v := res["estimates"].(map[string]any)[w.name].(map[string]any)["value"]; v != w.mean {
				t.Errorf("-delta %s -gamma %s: %s = %v, want the mean of its terms %v", tc.delta, tc.gamma, w.name, v, w.mean)
			}
		}
		if d, _ := strconv.ParseFloat(tc.delta, 64); res["delta"] != d {
			t.Errorf("-delta %s: \"delta\" = %v", tc.delta, res["delta"])
		}
	}
}

// TestEstimateHCOPEBound: the hcope bound of SPEC 1e through the CLI on
// 100 one-step episodes with reward 1 and weight 1, so X_i = (1 - LO) /
// (HI - LO) is one value x for every episode: the first ceil(100/5) = 20
// choose c = x (their only positive value), m = 80, every Y = min(x, c) =
// x, s^2(Y) = 0, so L = x - 7 x ln(2/delta) / (3 x 79) and the bound is
// LO + (HI - LO) L = LO + (1 - LO)(1 - 7 ln(2/delta)/237). The t bound of
// the same data is the mean, 1 (s = 0).
func TestEstimateHCOPEBound(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("episode,step,reward,pi_b,pi_e\n")
	for i := range 100 {
		sb.WriteString(strconv.Itoa(i) + ",0,1,0.5,0.5\n")
	}
	path := writeTemp(t, t.TempDir(), "flat.csv", sb.String())
	for _, tc := range []struct {
		rng, delta string
		want       float64
	}{
		// 1 - 7 ln 40/237 = 1 - 0.10895424548... = 0.89104575451984...
		{"0,2", "0.05", 1 - 7*math.Log(40)/237},
		{"-1,3", "0.05", -1 + 2*(1-7*math.Log(40)/237)},
		{"0,2", "0.1", 1 - 7*math.Log(20)/237},
		{"1,5", "0.05", 1}, // x = 0: no c, L = 0, the bound is LO
	} {
		res := boundsJSON(t, "-bootstrap", "0", "-bounds", "hcope,t", "-return-range", tc.rng, "-delta", tc.delta, "-estimators", "is,pdis", path)
		if got, ok := lowerOf(res, "is", "hcope"); !ok || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("-return-range %s -delta %s: hcope %v (present %v), want %v", tc.rng, tc.delta, got, ok, tc.want)
		}
		if got, ok := lowerOf(res, "is", "t"); !ok || got != 1 {
			t.Errorf("-return-range %s: t bound of is %v (present %v), want the mean 1", tc.rng, got, ok)
		}
		if _, ok := lowerOf(res, "pdis", "hcope"); ok {
			t.Errorf("pdis has an hcope bound: %v", res["estimates"])
		}
		if rr, _ := res["return_range"].([]any); len(rr) != 2 {
			t.Errorf("return_range %v", res["return_range"])
		}
	}
}

// TestEstimateBoundsBadInput: bad -bounds, -delta, -return-range and
// -interval, bounds no estimator computed has, too few episodes for a
// bound and returns outside -return-range exit 2 with a message naming
// the flag (and the file and episode), and nothing on standard output.
func TestEstimateBoundsBadInput(t *testing.T) {
	dir := t.TempDir()
	hand := writeTemp(t, dir, "hand.csv", handBounds)
	two := writeTemp(t, dir, "two.csv", "episode,step,reward,pi_b,pi_e\na,0,1,0.5,0.5\nb,0,2,0.5,0.5\n")
	one := writeTemp(t, dir, "one.csv", "episode,step,reward,pi_b,pi_e\na,0,1,0.5,0.5\n")
	tInfo, _ := confidence.Lookup(confidence.T)
	hInfo, _ := confidence.Lookup(confidence.HCOPE)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown bound", []string{"-bounds", "t,nonsense", hand}, []string{`unknown bound "nonsense" in -bounds`, "t, hcope"}},
		{"empty bounds", []string{"-bounds", " , ", hand}, []string{"-bounds is empty", "t, hcope"}},
		{"delta 0", []string{"-bounds", "t", "-delta", "0", hand}, []string{"-delta 0,", "(0, 1)"}},
		{"delta 1", []string{"-bounds", "t", "-delta", "1", hand}, []string{"-delta 1,", "(0, 1)"}},
		{"delta negative", []string{"-delta", "-0.1", hand}, []string{"-delta -0.1,", "(0, 1)"}},
		{"delta NaN", []string{"-bounds", "t", "-delta", "NaN", hand}, []string{"-delta NaN,"}},
		{"delta text", []string{"-delta", "five", hand}, []string{"-delta"}},
		{"range one number", []string{"-bounds", "hcope", "-return-range", "5", hand}, []string{`-return-range "5"`, "1 comma-separated fields", "LO,HI"}},
		{"range three numbers", []string{"-bounds", "hcope", "-return-range", "1,2,3", hand}, []string{`-return-range "1,2,3"`, "3 comma-separated fields"}},
		{"range words", []string{"-bounds", "hcope", "-return-range", "low,high", hand}, []string{"-return-range", `"low" is not a decimal number`}},
		{"range hexadecimal", []string{"-bounds", "hcope", "-return-range", "0x1p-1,2", hand}, []string{"-return-range", `"0x1p-1" is not a decimal number`}},
		{"range infinite", []string{"-bounds", "hcope", "-return-range", "-inf,2", hand}, []string{"-return-range", `"-inf" is not a decimal number`}},
		{"range NaN", []string{"-bounds", "hcope", "-return-range", "0,NaN", hand}, []string{"-return-range", `"NaN" is not a decimal number`}},
		{"range overflow", []string{"-bounds", "hcope", "-return-range", "-1e400,2", hand}, []string{"-return-range", "out of the float64 range"}},
		{"range reversed", []string{"-bounds", "hcope", "-return-range", "3,-3", hand}, []string{"-return-range", "LO = 3 is not below HI = -3"}},
		{"range too wide", []string{"-bounds", "hcope", "-return-range", "-1e308,1e308", hand}, []string{"-return-range", "HI - LO is beyond the float64 range"}},
		{"range empty", []string{"-bounds", "hcope", "-return-range", "2,2", hand}, []string{"-return-range", "LO = 2 is not below HI = 2"}},
		{"range missing", []string{"-bounds", "t,hcope", hand}, []string{"-bounds hcope", "needs -return-range"}},
		{"interval unknown", []string{"-interval", "studentized", hand}, []string{`-interval "studentized"`, "percentile or bca"}},
		{"no estimator has t", []string{"-bounds", "t", "-estimators", "wis,cwpdis", hand}, []string{"-bounds t", "no estimator computed (wis, cwpdis)", "computed for " + strings.Join(evaluate.EstimatorsWith("t"), ", ")}},
		{"no estimator has hcope", []string{"-bounds", "t,hcope", "-return-range", "-2,2", "-estimators", "pdis", hand}, []string{"-bounds hcope", "no estimator computed (pdis)"}},
		{"too few for t", []string{"-bounds", "t", "-estimators", "is", one}, []string{"one.csv", "the t bound (-bounds) needs at least " + strconv.Itoa(tInfo.MinN) + " episodes, the data has 1"}},
		{"too few for hcope", []string{"-bounds", "hcope", "-return-range", "0,3", "-estimators", "is", two}, []string{"two.csv", "the hcope bound (-bounds) needs at least " + strconv.Itoa(hInfo.MinN) + " episodes, the data has 2"}},
		// handBounds' returns: a -2, b, c, d 1
		{"return below", []string{"-bounds", "t,hcope", "-return-range", "-1.5,1.5", hand}, []string{"hand.csv: episode 0 (0-based, in file order: data records 1 to 2) has return -2, outside -return-range [-1.5, 1.5]", "hcope"}},
		{"return above", []string{"-bounds", "hcope", "-return-range", "-2,0.5", hand}, []string{"hand.csv: episode 1 (0-based, in file order: data records 3 to 4) has return 1, outside -return-range [-2, 0.5]"}},
		// discounted with 0.5: a -1, b 1.5
		{"discounted return above", []string{"-bounds", "hcope", "-return-range", "-2,1.25", "-gamma", "0.5", hand}, []string{"hand.csv: episode 1", "return discounted with gamma = 0.5 1.5", "[-2, 1.25]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runMain(t, append([]string{"estimate", "-bootstrap", "20"}, tc.args...)...)
			if code != 2 || out != "" {
				t.Errorf("exit %d, stdout %q; want 2 and nothing", code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q does not contain %q", errOut, w)
				}
			}
		})
	}
	// the range holds the discounted returns (-1, 1.5) and not the
	// undiscounted ones (a: -2): accepted with -gamma 0.5 only
	if code, _, errOut := runMain(t, "estimate", "-bootstrap", "0", "-bounds", "hcope", "-return-range", "-1.5,1.5", "-gamma", "0.5", hand); code != 0 {
		t.Errorf("discounted returns in range: exit %d: %s", code, errOut)
	}
}

// TestEstimateBoundsOutput: the JSON shape with -bounds (a number at
// estimates.<key>.lower.<bound> for the estimators whose registry entry
// has it, in the order asked, nothing for the others; "delta" and
// "return_range" at the top), and the table's columns ("t lower 95%",
// "-" where an estimator has no such bound) and legend.
func TestEstimateBoundsOutput(t *testing.T) {
	path := writeTemp(t, t.TempDir(), "hand.csv", handBounds)
	names := []string{"is", "pdis", "wis", "cwpdis"}
	args := []string{"-bootstrap", "50", "-bounds", "hcope,t", "-return-range", "-2,2", "-delta", "0.1", "-estimators", strings.Join(names, ","), path}
	code, out, errOut := runMain(t, append([]string{"estimate", "-json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res["delta"] != 0.1 || !slices.Equal(res["return_range"].([]any), []any{-2.0, 2.0}) {
		t.Errorf("delta %v, return_range %v", res["delta"], res["return_range"])
	}
	for _, n := range names {
		inf, _ := estimators.Lookup(n)
		e := res["estimates"].(map[string]any)[n].(map[string]any)
		lower, has := e["lower"].(map[string]any)
		var want []string
		for _, k := range []string{"hcope", "t"} {
			if slices.Contains(inf.Bounds, k) {
				want = append(want, k)
			}
		}
		if len(want) == 0 {
			if _, ok := e["lower"]; ok {
				t.Errorf("%s has no bound in the registry, yet lower = %v", n, e["lower"])
			}
			continue
		}
		if !has || len(lower) != len(want) {
			t.Errorf("%s: lower = %v, want the bounds %v", n, e["lower"], want)
		}
		for _, k := range want {
			if _, ok := lower[k].(float64); !ok {
				t.Errorf("%s: lower.%s = %v, want a number", n, k, lower[k])
			}
		}
	}
	// keys in the order asked: hcope before t in is's "lower"
	if i, j := strings.Index(out, `"hcope":`), strings.Index(out, `"t":`); i < 0 || j < i {
		t.Errorf("lower's keys not in -bounds order:\n%s", out)
	}
	code, out, errOut = runMain(t, append([]string{"estimate"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(out, "\n")
	if lines[3] != "one-sided lower bounds at 1 - delta = 90% (delta = 0.1), returns in [-2, 2]" {
		t.Errorf("legend %q", lines[3])
	}
	if !strings.HasSuffix(lines[5], "ess  hcope lower 90%  t lower 90%") {
		t.Errorf("header %q", lines[5])
	}
	for _, line := range lines[6 : 6+len(names)] {
		f := strings.Fields(line)
		inf, _ := estimators.Lookup(f[0])
		for k, kind := range []string{"hcope", "t"} {
			cell := f[len(f)-2+k]
			if has := slices.Contains(inf.Bounds, kind); has == (cell == "-") {
				t.Errorf("%s: %s cell %q; the registry lists %v", f[0], kind, cell, inf.Bounds)
			}
		}
	}
}

// TestEstimateDefaultOutputUnchanged: without the new flags the output is
// byte for byte what runexp estimate printed before they existed
// (testdata/estimate/*, written by the binary of the parent revision;
// rewritten when issue 32 added the importance weights' line and object);
// -delta or -return-range without -bounds, and -interval percentile in a
// table, change nothing on standard output.
func TestEstimateDefaultOutputUnchanged(t *testing.T) {
	const data, model = "../../examples/subepisode.csv", "../../examples/subepisode_model.csv"
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"default.txt", []string{"-bootstrap", "300", data}},
		{"default.txt", []string{"-bootstrap", "300", "-interval", "percentile", data}},
		{"default.txt", []string{"-bootstrap", "300", "-delta", "0.1", "-return-range", "-5,5", data}},
		{"default.json", []string{"-json", "-bootstrap", "300", "-seed", "5", data}},
		{"default.json", []string{"-json", "-bootstrap", "300", "-seed", "5", "-delta", "0.01", data}},
		{"model_gamma.json", []string{"-json", "-bootstrap", "100", "-gamma", "0.9", "-estimators", "pdis,wis,dm,dr,wdr,magic", model}},
		{"gamma_noboot.txt", []string{"-bootstrap", "0", "-gamma", "0.9", data}},
		{"gamma_noboot.txt", []string{"-bootstrap", "0", "-gamma", "0.9", "-interval", "bca", data}},
	} {
		want, err := os.ReadFile(filepath.Join("testdata", "estimate", tc.golden))
		if err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runMain(t, append([]string{"estimate"}, tc.args...)...)
		if code != 0 || out != string(want) {
			t.Errorf("%v: exit %d (%s), output\n%s\nwant testdata/estimate/%s:\n%s", tc.args, code, errOut, out, tc.golden, want)
		}
	}
}

// TestEstimateBCa: -interval bca gives BCa intervals (the table's legend
// and "interval": "bca" in -json say so), the same whatever -workers, and
// not the percentile intervals; -interval percentile in -json says so too.
func TestEstimateBCa(t *testing.T) {
	const data = "../../examples/subepisode.csv"
	for _, format := range [][]string{nil, {"-json"}} {
		var outs []string
		for _, w := range []string{"1", "3"} {
			args := append([]string{"estimate", "-bootstrap", "200", "-interval", "bca", "-bounds", "t", "-workers", w}, format...)
			code, out, errOut := runMain(t, append(args, data)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			outs = append(outs, out)
		}
		if outs[0] != outs[1] {
			t.Errorf("-interval bca: -workers 1 and 3 differ:\n%s\n%s", outs[0], outs[1])
		}
		if format == nil && !strings.Contains(outs[0], "95% BCa (bias-corrected and accelerated) bootstrap intervals over episodes (B = 200, seed 1)") {
			t.Errorf("table legend:\n%s", outs[0])
		}
	}
	bca := boundsJSON(t, "-bootstrap", "200", "-interval", "bca", data)
	pct := boundsJSON(t, "-bootstrap", "200", "-interval", "percentile", data)
	if b := bca["bootstrap"].(map[string]any); b["interval"] != "bca" {
		t.Errorf("bootstrap %v, want interval bca", b)
	}
	if b := pct["bootstrap"].(map[string]any); b["interval"] != "percentile" {
		t.Errorf("bootstrap %v, want interval percentile", b)
	}
	differ := false
	for n, e := range bca["estimates"].(map[string]any) {
		e, p := e.(map[string]any), pct["estimates"].(map[string]any)[n].(map[string]any)
		lo, hi := e["ci_low"].(float64), e["ci_high"].(float64)
		if !(lo < hi) {
			t.Errorf("%s: BCa interval [%v, %v]", n, lo, hi)
		}
		differ = differ || lo != p["ci_low"] || hi != p["ci_high"]
	}
	if !differ {
		t.Errorf("BCa intervals equal the percentile ones on every estimator")
	}
}

// TestEstimateBoundsHelp: runexp estimate -h documents the new flags, and
// every bound with its registry Doc.
func TestEstimateBoundsHelp(t *testing.T) {
	code, _, errOut := runMain(t, "estimate", "-h")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	flat := strings.Join(strings.Fields(errOut), " ")
	for _, w := range []string{"-bounds", "-delta", "-return-range", "-interval", "bca", "lower_errors", `"interval"`, `"delta": D`} {
		if !strings.Contains(errOut, w) {
			t.Errorf("estimate -h does not mention %q", w)
		}
	}
	for _, k := range confidence.Names() {
		bi, _ := confidence.Lookup(k)
		if doc := strings.Join(strings.Fields(bi.Doc), " "); !strings.Contains(flat, k+": "+doc) {
			t.Errorf("estimate -h lacks %s's Doc %q", k, doc)
		}
	}
}

// TestEstimateBoundsFailure: a bound that is not representable (is and
// pdis on a weight of 1e600, as in TestEstimateFailure) is "failed" in its
// cell and under "lower_errors" in -json, the others are printed, exit 1.
func TestEstimateBoundsFailure(t *testing.T) {
	path := writeTemp(t, t.TempDir(), "huge.csv", "episode,step,reward,pi_b,pi_e\n"+
		"a,0,1,1e-300,1\na,1,1,1e-300,1\nb,0,1,1,1\nc,0,2,1,1\n")
	args := []string{"-bootstrap", "0", "-estimators", "is,wis", "-bounds", "t,hcope", "-return-range", "0,2", path}
	code, out, errOut := runMain(t, append([]string{"estimate"}, args...)...)
	if code != 1 || !strings.Contains(errOut, "t lower bound of is") || !strings.Contains(errOut, "hcope lower bound of is") {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, want := range []string{"is failed - - 1.0 failed failed", "wis 2 - - 1.0 - -"} {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.Join(strings.Fields(l), " ") == want }) {
			t.Errorf("no row %q in\n%s", want, out)
		}
	}
	code, out, _ = runMain(t, append([]string{"estimate", "-json"}, args...)...)
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); code != 1 || err != nil {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	is := res["estimates"].(map[string]any)["is"].(map[string]any)
	if errs, _ := is["lower_errors"].(map[string]any); len(errs) != 2 || is["lower"] != nil {
		t.Errorf("is: lower %v, lower_errors %v; want the two bounds' errors only", is["lower"], is["lower_errors"])
	}
}

// TestEstimatePolicies: a file with candidate policies pi_e:A and pi_e:B
// and no pi_e is estimated for A, with a note, and -columns pi_e=pi_e:B
// estimates B. By hand, is = mean over episodes of W G: A: x has W =
// (0.25/0.5)(1/0.5) = 1, G = 1; y has W = 0.5/0.25 = 2, G = 2; (1 + 4)/2
// = 2.5. B: x has W = (0.75/0.5)(0/0.5) = 0; y 2 x 2 = 4; (0 + 4)/2 = 2.
func TestEstimatePolicies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policies.csv")
	data := "episode,step,reward,pi_b,pi_e:A,pi_e:B\nx,0,1,0.5,0.25,0.75\nx,1,0,0.5,1,0\ny,0,2,0.25,0.5,0.5\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cols string
		want string
	}{{"", "is 2.5 "}, {"pi_e=pi_e:B", "is 2 "}} {
		code, out, errOut := runMain(t, "estimate", "-bootstrap", "0", "-estimators", "is", "-columns", tt.cols, path)
		if code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), tt.want) || !strings.Contains(errOut, "candidate policies pi_e:") {
			t.Errorf("-columns %q: exit %d, output %q, stderr %q; want %q and a note", tt.cols, code, out, errOut, tt.want)
		}
	}
}
