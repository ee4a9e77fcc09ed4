package run

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/unit"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// TestReadCheckpointRejectsBadShapes: a unit line whose estimates do not
// have one value per n of the grid is an error naming the file and line
// (merging it would otherwise fail later, far from the cause).
func TestReadCheckpointRejectsBadShapes(t *testing.T) {
	r, err := config.Parse([]byte("trials: 2\nn: [2, 4]\nseries:\n  - {name: s, domain: subepisode, estimators: [pdis]}\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.jsonl")
	c, _, err := OpenCheckpoint(path, r, Shard{}, false)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"series":"s","trial":0,"estimates":[[1.5]]}` + "\n")
	f.Close()
	_, _, err = ReadCheckpoint(path)
	if err == nil || !strings.Contains(err.Error(), "c.jsonl:2: unit (s, trial 0): estimator 0 has 1 estimates, want one per n (2)") {
		t.Errorf("error %v", err)
	}
	// The effective sample sizes: one per n, each in [0, n] (Kish's ESS of
	// n weights is at most n).
	for _, tc := range []struct{ line, want string }{
		{`{"series":"s","trial":0,"estimates":[[1.5,2]]}`, "ess has 0 values, want one per n (2)"},
		{`{"series":"s","trial":0,"estimates":[[1.5,2]],"ess":[2,4],"min_step_ess":[1]}`, "min_step_ess has 1 values, want one per n (2)"},
		{`{"series":"s","trial":0,"estimates":[[1.5,2]],"ess":[2,4.5],"min_step_ess":[1,1]}`, "ess at n = 4 is 4.5, outside [0, 4]"},
		{`{"series":"s","trial":0,"estimates":[[1.5,2]],"ess":[2,4],"min_step_ess":[-1,1]}`, "min_step_ess at n = 2 is -1, outside [0, 2]"},
	} {
		c, _, err := OpenCheckpoint(path, r, Shard{}, false)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(tc.line + "\n")
		f.Close()
		_, _, err = ReadCheckpoint(path)
		if err == nil || !strings.Contains(err.Error(), "c.jsonl:2: unit (s, trial 0): "+tc.want) || !inputerr.Is(err) {
			t.Errorf("%s: error %v, want bad input containing %q", tc.line, err, tc.want)
		}
	}
}

func TestShardAssignmentCoversEveryUnitOnce(t *testing.T) {
	r, err := config.Load("../testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	all := Units(r)
	for _, n := range []int{1, 2, 3, 7, len(all) + 5} {
		count := map[Unit]int{}
		for i := 0; i < n; i++ {
			for _, u := range ShardUnits(r, Shard{Index: i, Count: n}) {
				count[u]++
			}
		}
		for _, u := range all {
			if count[u] != 1 {
				t.Errorf("N=%d: unit %v in %d shards", n, u, count[u])
			}
		}
		if len(count) != len(all) {
			t.Errorf("N=%d: %d units covered, want %d", n, len(count), len(all))
		}
	}
}

// tinyPlan is a plan of 2 series x 4 trials, one with diagnostics (incris),
// quick to run.
func tinyPlan(t *testing.T) *config.Plan {
	t.Helper()
	p, err := config.Parse([]byte(`name: tiny
seed: 3
trials: 4
n: [4, 12]
series:
  - {name: sub, domain: subepisode, params: {subepisodes: 3}, estimators: [pdis, incris]}
  - {name: chain, domain: chainmdp, params: {horizon: 4}, estimators: [wis]}
`), "tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkpointLines runs shard s of p into a fresh directory, keeps its
// checkpoint and returns its lines (header first, without newlines).
func checkpointLines(t *testing.T, p *config.Plan, s Shard) []string {
	t.Helper()
	dir := t.TempDir()
	o, err := Execute(context.Background(), p, dir, ExecOptions{Shard: s, Options: Options{Workers: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(o.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// writeLines writes lines, each ending in a newline, to dir/name.
func writeLines(t *testing.T, dir, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sorted returns results in canonical (series, trial) order.
func sorted(res []unit.Result) []unit.Result {
	out := slices.Clone(res)
	slices.SortFunc(out, func(a, b unit.Result) int {
		return cmp.Or(cmp.Compare(a.Series, b.Series), cmp.Compare(a.Trial, b.Trial))
	})
	return out
}

// reformat returns the JSON line with its numbers spelled differently but
// equal (1.5 as 1.50 and so on): the same unit, written by hand.
func reformat(t *testing.T, line string) string {
	t.Helper()
	var cl checkpointLine
	if err := json.Unmarshal([]byte(line), &cl); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{"trial": %d, "series": %q, "estimates": [`, cl.Trial, cl.Series)
	for e, est := range cl.Estimates {
		if e > 0 {
			b.WriteString(", ")
		}
		b.WriteString("[")
		for j, v := range est {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatFloat(v, 'e', 20, 64))
		}
		b.WriteString("]")
	}
	diags, _ := json.Marshal(cl.Diagnostics)
	ess, _ := json.Marshal(cl.ESS)
	minStep, _ := json.Marshal(cl.MinStepESS)
	fmt.Fprintf(&b, `], "diagnostics": %s, "min_step_ess": %s, "ess": %s}`, diags, minStep, ess)
	return b.String()
}

// TestReadCheckpointDuplicates: a unit line repeating an earlier one with
// identical numbers (however spelled) is ignored; with different numbers
// it is refused as bad input naming the file and both lines.
func TestReadCheckpointDuplicates(t *testing.T) {
	p := tinyPlan(t)
	lines := checkpointLines(t, p, Shard{})
	hdr, u1, u2, u3 := lines[0], lines[1], lines[2], lines[3]
	var cl checkpointLine
	json.Unmarshal([]byte(u2), &cl)
	cl.Estimates[0][0] += 1
	conflict, _ := json.Marshal(cl)
	_, want, err := ReadCheckpoint(writeLines(t, t.TempDir(), "c.jsonl", hdr, u1, u2, u3))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		lines []string
		dups  int
		err   string // "" for no error
	}{
		{"no duplicate", []string{hdr, u1, u2, u3}, 0, ""},
		{"a line twice in a row", []string{hdr, u1, u2, u2, u3}, 1, ""},
		{"a line again at the end", []string{hdr, u1, u2, u3, u1}, 1, ""},
		{"every line twice", []string{hdr, u1, u2, u3, u1, u2, u3}, 3, ""},
		{"a line three times", []string{hdr, u2, u1, u2, u3, u2}, 2, ""},
		{"the same numbers spelled differently", []string{hdr, u1, u2, reformat(t, u2), u3}, 1, ""},
		{"conflicting duplicate", []string{hdr, u1, u2, u3, string(conflict)}, 0, "c.jsonl:5: unit (sub, trial 1) is also on line 3, with different numbers: delete both lines and rerun with -resume"},
		{"conflicting duplicate first", []string{hdr, string(conflict), u1, u2}, 0, "c.jsonl:4: unit (sub, trial 1) is also on line 2, with different numbers"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeLines(t, t.TempDir(), "c.jsonl", c.lines...)
			f, err := readCheckpoint(path, checkpointLimits())
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !inputerr.Is(err) {
					t.Fatalf("error %v, want one marked as bad input containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.dups != c.dups {
				t.Errorf("%d duplicates ignored, want %d", f.dups, c.dups)
			}
			if !reflect.DeepEqual(sorted(f.results), sorted(want)) {
				t.Error("results differ from the file without duplicates")
			}
		})
	}
}

// TestReadCheckpointBadInput: every error about a checkpoint's content
// is marked as bad input and names the file and line.
func TestReadCheckpointBadInput(t *testing.T) {
	p := tinyPlan(t)
	lines := checkpointLines(t, p, Shard{})
	hdr, u := lines[0], lines[1]
	shard0 := checkpointLines(t, p, Shard{Index: 0, Count: 2})
	shard1 := checkpointLines(t, p, Shard{Index: 1, Count: 2})
	set := func(line, key string, v any) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		m[key] = v
		b, _ := json.Marshal(m)
		return string(b)
	}
	// a header whose plan has two series of one name, fingerprinted anew
	twin := *p
	twin.Series = []config.Series{p.Series[0], p.Series[0]}
	twinHdr, _ := json.Marshal(CheckpointHeader{Format: checkpointFormat, Fingerprint: Fingerprint(&twin), Shard: "0/1", Config: &twin})
	for _, c := range []struct {
		name  string
		text  string
		small bool // lower the line limits to 1 KiB (unit) and 2 KiB (header)
		want  string
	}{
		{"empty file", "", false, "c.jsonl: empty checkpoint"},
		{"header cut short", hdr[:40], false, "c.jsonl: empty checkpoint"},
		{"garbage header", "not a checkpoint\n" + u + "\n", false, "c.jsonl:1: not a checkpoint header"},
		{"binary garbage", "\x00\x01\xfe\xff\n", false, "c.jsonl:1: not a checkpoint header"},
		{"header config not an object", set(hdr, "config", 7) + "\n", false, "c.jsonl:1: not a checkpoint header"},
		{"header of format 1", set(hdr, "format", 1) + "\n", false, "c.jsonl:1: checkpoint format 1"},
		{"wrong fingerprint", set(hdr, "fingerprint", "00") + "\n", false, "c.jsonl:1: header fingerprint"},
		{"bad shard", set(hdr, "shard", "3/2") + "\n", false, "c.jsonl:1: shard \"3/2\""},
		{"two series of one name", string(twinHdr) + "\n", false, `c.jsonl:1: two series named "sub"`},
		{"unit not JSON", hdr + "\n" + u[:30] + "\n", false, "c.jsonl:2: "},
		{"unit null", hdr + "\nnull\n", false, "c.jsonl:2: unit (, trial 0) does not fit"},
		{"unit {}", hdr + "\n{}\n", false, "c.jsonl:2: unit (, trial 0) does not fit"},
		{"unknown series", hdr + "\n" + set(u, "series", "ghost") + "\n", false, "c.jsonl:2: unit (ghost, trial 0) does not fit"},
		{"trial 99", hdr + "\n" + set(u, "trial", 99) + "\n", false, "c.jsonl:2: unit (sub, trial 99) does not fit"},
		{"trial -1", hdr + "\n" + set(u, "trial", -1) + "\n", false, "c.jsonl:2: unit (sub, trial -1) does not fit"},
		{"trial 1.5", hdr + "\n" + set(u, "trial", 1.5) + "\n", false, "c.jsonl:2: "},
		{"estimates a string", hdr + "\n" + set(u, "estimates", "many") + "\n", false, "c.jsonl:2: "},
		{"estimate 1e999", hdr + "\n" + strings.Replace(set(u, "estimates", [][]float64{{7, 7}, {7, 7}}), "[7,7]", "[1e999,7]", 1) + "\n", false, "c.jsonl:2: "},
		{"too few estimators", hdr + "\n" + set(u, "estimates", [][]float64{{1, 2}}) + "\n", false, "c.jsonl:2: unit (sub, trial 0) does not fit"},
		{"too few sizes", hdr + "\n" + set(u, "estimates", [][]float64{{1}, {2}}) + "\n", false, "c.jsonl:2: unit (sub, trial 0): estimator 0 has 1 estimates"},
		{"diagnostics of the wrong shape", hdr + "\n" + set(u, "diagnostics", [][][][]float64{{}, {{{1}}}}) + "\n", false, "c.jsonl:2: unit (sub, trial 0): estimator incris has diagnostic 0 for 1 sizes"},
		{"unit of another shard", shard0[0] + "\n" + shard0[1] + "\n" + shard1[1] + "\n", false, "c.jsonl:3: unit (sub, trial 1) does not belong to the header's shard 0/2"},
		{"unit line too long", hdr + "\n" + u + "\n" + strings.Repeat(" ", 2000) + u + "\n", true, "c.jsonl:3: line longer than 1024 bytes"},
		{"partial line too long", hdr + "\n" + strings.Repeat("x", 5000), true, "c.jsonl:2: line longer than"},
		{"header line too long", strings.Repeat("\x00", 5000), true, "c.jsonl:1: line longer than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			lim := checkpointLimits()
			if c.small {
				lim = lineLimits{header: 2 << 10, unit: 1 << 10}
			}
			path := filepath.Join(t.TempDir(), "c.jsonl")
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readCheckpoint(path, lim)
			if err == nil || !strings.Contains(err.Error(), c.want) || !inputerr.Is(err) {
				t.Errorf("error %v, want one marked as bad input containing %q", err, c.want)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		_, _, err := ReadCheckpoint(filepath.Join(t.TempDir(), "c.jsonl"))
		if !errors.Is(err, fs.ErrNotExist) || !inputerr.Is(err) {
			t.Errorf("error %v", err)
		}
	})
	t.Run("directory", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "c.jsonl")
		os.Mkdir(path, 0o755)
		_, _, err := ReadCheckpoint(path)
		if err == nil || !strings.Contains(err.Error(), "c.jsonl") || !inputerr.Is(err) {
			t.Errorf("error %v", err)
		}
	})
}

// TestReadLine: lines up to the limit are read whole, across the reader's
// buffer; longer ones are refused.
func TestReadLine(t *testing.T) {
	long := strings.Repeat("y", 100)
	br := bufio.NewReaderSize(strings.NewReader("a\n"+long+"\n"+long+"z\n"+"end"), 16)
	for _, want := range []struct {
		line string
		err  error
	}{{"a\n", nil}, {long + "\n", nil}, {"", errLongLine}} {
		line, err := readLine(br, 101)
		if string(line) != want.line || err != want.err {
			t.Fatalf("readLine = %q, %v; want %q, %v", line, err, want.line, want.err)
		}
	}
	br = bufio.NewReaderSize(strings.NewReader("end"), 16)
	if line, err := readLine(br, 101); string(line) != "end" || err != io.EOF {
		t.Errorf("last line = %q, %v", line, err)
	}
}

// TestResumeDropsPartialLine: resuming after a kill cut a line short drops
// it and appends after the last whole line.
func TestResumeDropsPartialLine(t *testing.T) {
	p := tinyPlan(t)
	lines := checkpointLines(t, p, Shard{})
	dir := t.TempDir()
	path := CheckpointPath(dir, Shard{})
	os.WriteFile(path, []byte(lines[0]+"\n"+lines[1]+"\n"+lines[2][:25]), 0o644)
	o, err := Execute(context.Background(), p, dir, ExecOptions{Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	_, res, err := ReadCheckpoint(path)
	if err != nil {
		t.Fatalf("checkpoint after resuming: %v", err)
	}
	if len(res) != len(Units(p)) {
		t.Errorf("%d units in the checkpoint, want %d", len(res), len(Units(p)))
	}
}

// TestMergeDuplicates: units in two files count once when their numbers
// are identical; different numbers, a file named twice, and two files of
// one shard are refused, naming the files (and lines).
func TestMergeDuplicates(t *testing.T) {
	p := tinyPlan(t)
	dir := t.TempDir()
	s02, s12 := checkpointLines(t, p, Shard{0, 2}), checkpointLines(t, p, Shard{1, 2})
	s03 := checkpointLines(t, p, Shard{0, 3})
	whole := checkpointLines(t, p, Shard{})
	a := writeLines(t, dir, "shard-0-of-2.jsonl", s02...)
	b := writeLines(t, dir, "shard-1-of-2.jsonl", s12...)
	c := writeLines(t, dir, "shard-0-of-3.jsonl", s03...)
	w := writeLines(t, dir, "checkpoint.jsonl", whole...)
	cp := writeLines(t, dir, "copy.jsonl", s02...)
	var cl checkpointLine
	json.Unmarshal([]byte(s12[2]), &cl)
	cl.Estimates[1][1] = -1
	conflict, _ := json.Marshal(cl)
	bad := writeLines(t, t.TempDir(), "shard-1-of-2.jsonl", s12[0], s12[1], string(conflict))
	_, want, err := ReadCheckpoint(w)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		paths []string
		err   string
	}{
		{"two shards", []string{a, b}, ""},
		{"two splits of one run", []string{a, b, c}, ""},
		{"a whole run and its shards", []string{w, a, b}, ""},
		{"the same file twice", []string{a, b, a}, "shard-0-of-2.jsonl are the same file"},
		{"a copy of a shard", []string{a, b, cp}, "copy.jsonl are both shard 0/2"},
		{"conflicting numbers", []string{a, c, bad}, fmt.Sprintf("unit (sub, trial 3) has different numbers in %s:3 and %s:3", c, bad)},
		{"missing units", []string{a}, "units missing"},
		{"a missing file", []string{a, filepath.Join(dir, "nothing.jsonl")}, "nothing.jsonl"},
		{"no files", nil, "no checkpoint files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, res, err := Merge(tc.paths)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !inputerr.Is(err) {
					t.Errorf("error %v, want one marked as bad input containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if Fingerprint(cfg) != Fingerprint(p) || !reflect.DeepEqual(sorted(res), sorted(want)) {
				t.Error("merged results differ from the whole run's")
			}
		})
	}
}
