package main

// Hostile input (issue 12): a table-driven suite that feeds every
// subcommand bad flags, bad configs, bad logged data, bad checkpoint and
// shard files, corrupt results directories, work too large for the memory
// budget and values that must not be silently accepted, and asserts the
// exit-status contract of `runexp` (exitStatus in main.go):
//
//   - exit 2 for bad input of any kind (flags, a config, logged data, a
//     checkpoint or shard file, a results directory read back, work refused
//     as too large for -max-memory, an output directory in use), with a
//     message naming the file, and the line and field where there is one;
//   - exit 1 for failures of the machine;
//   - nothing on standard output on error;
//   - nothing written: the case's whole temporary tree (inputs, the output
//     directory and its parents) holds exactly what it held before.
//
// The suite uses only Main and the standard library, so that it runs
// unchanged against older revisions of the command. Cases that could
// exhaust memory or never end when the contract is broken (endless input,
// refusals of huge work) run in a child process (TestHostileChild) under
// an address-space limit and a timeout, which reports how much it
// allocated.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// anyFailure as a case's code accepts any non-zero exit status (the issue
// asks for "exit non-zero" where bad input and a machine failure are both
// defensible readings).
const anyFailure = -1

// anyStatus as a case's code checks no exit status: the case's check says
// what matters (e.g. that a file outside the directory is untouched).
const anyStatus = -2

// refusalAlloc bounds what a refusal of huge work may allocate: it must be
// decided from sizes alone, never by trying.
const refusalAlloc = 256 << 20

// childTimeout bounds an isolated case; a conforming runexp answers each
// in well under a second.
const childTimeout = 5 * time.Second

type hostileCase struct {
	name string
	// args writes the case's inputs under e.dir and returns the command
	// line.
	args func(e *hostileEnv) []string
	// code is the expected exit status (anyFailure: any non-zero).
	code int
	// want are substrings stderr must hold, with the case's temporary
	// root written ROOT: a file name or a path as is; "@FILE:N" (see at)
	// FILE and its line N on one line of stderr, as FILE:N or FILE ...
	// line N; anything else (a field, a flag, a value) outside the file
	// names of the message, so that a field is not found in the name of
	// the file that holds it.
	want []string
	// badFlag marks a case whose point is an undefined flag; other cases
	// must not fail on one (a flag the contract relies on must exist).
	badFlag bool
	// isolate runs the case in a child process (TestHostileChild).
	isolate bool
	// stdin, with isolate, is the file the child reads as standard input
	// (default: none).
	stdin string
	// maxAlloc, when not 0, bounds the bytes Main may allocate.
	maxAlloc uint64
	// mayChange lists paths (relative to e.dir, filepath.Match patterns)
	// that a failing case may create or change: a checkpoint kept for
	// -resume, or a directory written to by another process.
	mayChange []string
	// check, when not nil, makes further assertions after the run.
	check func(t *testing.T, e *hostileEnv, stdout, stderr string)
}

// at asks for file and its line n in stderr (see hostileCase.want).
func at(file string, n int) string { return fmt.Sprintf("@%s:%d", file, n) }

// hostileEnv is one case's temporary tree: root is snapshotted before
// and after; the case's inputs go in dir = root/w/x, so that paths such
// as dir/res/../../evil or dir/out/.. stay inside root; out = dir/out is
// the output directory, absent unless the case creates it.
type hostileEnv struct {
	t              *testing.T
	root, dir, out string
}

// path returns rel under e.dir.
func (e *hostileEnv) path(rel string) string { return filepath.Join(e.dir, rel) }

// write writes data to rel under e.dir (creating its directory) and
// returns its path.
func (e *hostileEnv) write(rel, data string) string {
	e.t.Helper()
	p := e.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// mkdir creates the directory rel under e.dir and returns its path.
func (e *hostileEnv) mkdir(rel string) string {
	e.t.Helper()
	p := e.path(rel)
	if err := os.MkdirAll(p, 0o755); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// symlink makes rel under e.dir a symbolic link to target.
func (e *hostileEnv) symlink(rel, target string) string {
	e.t.Helper()
	p := e.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// read returns the contents of rel under e.dir.
func (e *hostileEnv) read(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(e.path(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// remove deletes rel under e.dir.
func (e *hostileEnv) remove(rel string) {
	e.t.Helper()
	if err := os.RemoveAll(e.path(rel)); err != nil {
		e.t.Fatal(err)
	}
}

// testdata returns a file of testdata/hostile.
func testdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hostile", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// edit replaces line n (1-based) of text by repl, which may hold several
// lines; n = number of lines + 1 appends. Replacing by "#" blanks a line
// and keeps the numbering of those after it.
type edit struct {
	n    int
	repl string
}

func applyEdits(t *testing.T, text string, edits []edit) string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	out := append([]string(nil), lines...)
	// apply from the last line up so that earlier numbers stay valid
	for i := len(edits) - 1; i >= 0; i-- {
		ed := edits[i]
		switch {
		case ed.n >= 1 && ed.n <= len(lines):
			out[ed.n-1] = ed.repl
		case ed.n == len(lines)+1:
			out = append(out, ed.repl)
		default:
			t.Fatalf("edit of line %d: the text has %d lines", ed.n, len(lines))
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// config writes testdata/hostile/base.yaml with edits applied as file
// under e.dir. base.yaml, by line:
//
//	 1 name: tiny
//	 2 seed: 3
//	 3 trials: 4
//	 4 n: [5, 10]
//	 5 series:
//	 6   - name: chain
//	 7     domain: chainmdp
//	 8     params: {horizon: 4, p_e: 0.9}
//	 9     estimators: [pdis, wis, incris]
//	10 claims:
//	11   - name: c1
//	12     subject: chain/incris
//	13     versus: [chain/pdis]
//	14     max_ratio: 2
//	15 plot:
//	16   diagnostic: {name: kstar}
func (e *hostileEnv) config(file string, edits ...edit) string {
	e.t.Helper()
	return e.write(file, applyEdits(e.t, testdata(e.t, "base.yaml"), edits))
}

// run returns `runexp run -quiet -out OUT flags... cfg`.
func (e *hostileEnv) run(cfg string, flags ...string) []string {
	return append(append([]string{"run", "-quiet", "-out", e.out}, flags...), cfg)
}

// runConfig is a case feeding base.yaml with edits, saved as file, to run.
func runConfig(file string, edits ...edit) func(e *hostileEnv) []string {
	return func(e *hostileEnv) []string { return e.run(e.config(file, edits...)) }
}

// estimate returns `runexp estimate -bootstrap 20 flags... data`.
func estimate(data string, flags ...string) []string {
	return append(append([]string{"estimate", "-bootstrap", "20"}, flags...), data)
}

// estimateData is a case feeding text, saved as file, to estimate.
func estimateData(file, text string, flags ...string) func(e *hostileEnv) []string {
	return func(e *hostileEnv) []string { return estimate(e.write(file, text), flags...) }
}

// csvHead is the header of the logged data files below.
const csvHead = "episode,step,reward,pi_b,pi_e\n"

// okCSV returns ok.csv with line n (1-based; line 1 is the header)
// replaced by repl.
func okCSV(t *testing.T, n int, repl string) string {
	return applyEdits(t, testdata(t, "ok.csv"), []edit{{n, repl}})
}

// --- fixtures: a finished run, its shards, a cached true value ---

// runFixture holds, in memory, what runexp wrote for base.yaml: the
// results directory of a whole run, and the shard files of -shard 0/2
// and 1/2 (and of 1/2 with -seed 9), as lines without newlines.
type runFixture struct {
	results        map[string][]byte
	shard0, shard1 []string
	shard1Seed9    []string
	err            error
}

var (
	fixtureOnce sync.Once
	fixture     runFixture
)

func getFixture(t *testing.T) *runFixture {
	t.Helper()
	fixtureOnce.Do(func() { fixture = makeFixture(t) })
	if fixture.err != nil {
		t.Fatalf("fixture: %v", fixture.err)
	}
	return &fixture
}

func makeFixture(t *testing.T) (f runFixture) {
	tmp, err := os.MkdirTemp("", "hostile-fixture")
	if err != nil {
		return runFixture{err: err}
	}
	defer os.RemoveAll(tmp)
	cfg := filepath.Join(tmp, "base.yaml")
	if err := os.WriteFile(cfg, []byte(testdata(t, "base.yaml")), 0o644); err != nil {
		return runFixture{err: err}
	}
	mustMain := func(args ...string) error {
		var o, e bytes.Buffer
		if code := Main(args, &o, &e); code != 0 {
			return fmt.Errorf("runexp %v: exit %d: %s", args, code, e.String())
		}
		return nil
	}
	res, sh, sh9 := filepath.Join(tmp, "res"), filepath.Join(tmp, "sh"), filepath.Join(tmp, "sh9")
	for _, args := range [][]string{
		{"run", "-quiet", "-out", res, cfg},
		{"run", "-quiet", "-shard", "0/2", "-out", sh, cfg},
		{"run", "-quiet", "-shard", "1/2", "-out", sh, cfg},
		{"run", "-quiet", "-shard", "1/2", "-seed", "9", "-out", sh9, cfg},
	} {
		if err := mustMain(args...); err != nil {
			return runFixture{err: err}
		}
	}
	f.results = map[string][]byte{}
	entries, err := os.ReadDir(res)
	if err != nil {
		return runFixture{err: err}
	}
	for _, d := range entries {
		b, err := os.ReadFile(filepath.Join(res, d.Name()))
		if err != nil {
			return runFixture{err: err}
		}
		f.results[d.Name()] = b
	}
	lines := func(p string) []string {
		b, err := os.ReadFile(p)
		if err != nil && f.err == nil {
			f.err = err
		}
		return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	}
	f.shard0 = lines(filepath.Join(sh, "shard-0-of-2.jsonl"))
	f.shard1 = lines(filepath.Join(sh, "shard-1-of-2.jsonl"))
	f.shard1Seed9 = lines(filepath.Join(sh9, "shard-1-of-2.jsonl"))
	if f.err == nil && (len(f.shard0) != 3 || len(f.shard1) != 3 || len(f.results) == 0) {
		f.err = fmt.Errorf("unexpected fixture: shards of %d and %d lines, %d result files", len(f.shard0), len(f.shard1), len(f.results))
	}
	return f
}

// results writes the fixture's results directory at rel under e.dir and
// returns its path.
func (e *hostileEnv) results(rel string) string {
	e.t.Helper()
	f := getFixture(e.t)
	for name, b := range f.results {
		e.write(filepath.Join(rel, name), string(b))
	}
	return e.path(rel)
}

// shardFile writes lines as a JSON Lines file rel under e.dir.
func (e *hostileEnv) shardFile(rel string, lines ...string) string {
	return e.write(rel, strings.Join(lines, "\n")+"\n")
}

// checkpointHeader is shard 0's header turned into that of a whole run's
// checkpoint (shard 0/1); the fingerprint does not depend on the shard.
func checkpointHeader(f *runFixture) string {
	return strings.Replace(f.shard0[0], `"shard":"0/2"`, `"shard":"0/1"`, 1)
}

// setJSON returns the JSON object line with key set to v.
func setJSON(t *testing.T, line, key string, v any) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatal(err)
	}
	m[key] = v
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// editMeta rewrites the meta.json of the results directory rel.
func (e *hostileEnv) editMeta(rel string, f func(meta, config map[string]any)) {
	e.t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(e.read(filepath.Join(rel, "meta.json"))), &m); err != nil {
		e.t.Fatal(err)
	}
	cfg, _ := m["config"].(map[string]any)
	f(m, cfg)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		e.t.Fatal(err)
	}
	e.write(filepath.Join(rel, "meta.json"), string(b)+"\n")
}

// editCSV sets field col (0-based) of line n (1-based) of the CSV file
// rel under e.dir; col < 0 replaces the whole line.
func (e *hostileEnv) editCSV(rel string, n, col int, value string) {
	e.t.Helper()
	lines := strings.Split(strings.TrimSuffix(e.read(rel), "\n"), "\n")
	if n < 1 || n > len(lines) {
		e.t.Fatalf("%s has %d lines, not %d", rel, len(lines), n)
	}
	if col < 0 {
		lines[n-1] = value
	} else {
		fields := strings.Split(lines[n-1], ",")
		fields[col] = value
		lines[n-1] = strings.Join(fields, ",")
	}
	e.write(rel, strings.Join(lines, "\n")+"\n")
}

// --- running a case ---

// snapshot maps every path under root (relative) to what it is: a
// directory, a symbolic link and its target, or a file and a hash of its
// bytes.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		switch {
		case err != nil:
			m[rel] = "unreadable: " + err.Error()
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			m[rel] = "symlink to " + target
		case d.IsDir():
			m[rel] = "directory"
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				m[rel] = "unreadable: " + err.Error()
				break
			}
			sum := sha256.Sum256(b)
			m[rel] = fmt.Sprintf("file of %d bytes %s", len(b), hex.EncodeToString(sum[:8]))
		default:
			m[rel] = "special " + d.Type().String()
		}
		return nil
	})
	return m
}

// changes lists the paths whose snapshot entries differ, but for those
// matching a mayChange pattern (relative to dir).
func changes(root, dir string, before, after map[string]string, mayChange []string) []string {
	var out []string
	allowed := func(rel string) bool {
		r, err := filepath.Rel(dir, filepath.Join(root, rel))
		if err != nil {
			return false
		}
		for _, pat := range mayChange {
			if ok, _ := filepath.Match(pat, r); ok {
				return true
			}
		}
		return false
	}
	for p, a := range after {
		if b, ok := before[p]; !ok {
			if !allowed(p) {
				out = append(out, "new "+p+" ("+a+")")
			}
		} else if a != b && !allowed(p) {
			out = append(out, "changed "+p+" ("+b+" -> "+a+")")
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok && !allowed(p) {
			out = append(out, "removed "+p)
		}
	}
	return out
}

// locPattern matches FILE and its line N on one line of stderr.
func locPattern(want string) *regexp.Regexp {
	file, n, _ := strings.Cut(want[1:], ":")
	// FILE:N, FILE: line N, FILE, line N, or FILE ... line N
	return regexp.MustCompile(regexp.QuoteMeta(file) + `(?::` + n + `\b|[^\n]*\bline ` + n + `\b)`)
}

// fileToken matches a file name in a message.
var fileToken = regexp.MustCompile(`[\w.+-]+\.(?:yaml|csv|jsonl|json|txt|png|svg)\b`)

// crashMarks are what a Go runtime crash prints (exit status 2, like bad
// input): their presence fails a case whatever its status.
var crashMarks = []string{"panic:", "fatal error:", "goroutine ", "[signal "}

// codePanicked and codeKilled stand for the exit status of a Main that
// panicked, and of a child process killed after childTimeout.
const (
	codePanicked = -100
	codeKilled   = -101
)

// result is what one invocation of Main did.
type result struct {
	code           int
	stdout, stderr string
	alloc          uint64 // bytes allocated (TotalAlloc) during Main
	allocKnown     bool
}

// mainInProcess calls Main, turning a panic into a failed result.
func mainInProcess(args []string) (r result) {
	var o, e bytes.Buffer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	defer func() {
		if p := recover(); p != nil {
			r = result{code: codePanicked, stdout: o.String(), stderr: e.String() + fmt.Sprintf("\npanic: %v", p)}
		}
	}()
	code := Main(args, &o, &e)
	runtime.ReadMemStats(&after)
	return result{code: code, stdout: o.String(), stderr: e.String(), alloc: after.TotalAlloc - before.TotalAlloc, allocKnown: true}
}

// childEnv and allocEnv carry an isolated case to TestHostileChild.
const (
	childEnv = "RUNEXP_HOSTILE_CHILD"
	allocEnv = "RUNEXP_HOSTILE_ALLOC"
)

// startChild starts this test binary as runexp with args (see
// TestHostileChild).
func startChild(ctx context.Context, t *testing.T, args []string, stdout, stderr *bytes.Buffer, allocFile, stdin string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal(args)
	cmd := exec.CommandContext(ctx, exe, "-test.run=^TestHostileChild$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(spec), allocEnv+"="+allocFile,
		"TMPDIR="+t.TempDir()) // whatever the child's TestMain creates is removed with it
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if stdin != "" {
		f, err := os.Open(stdin)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		cmd.Stdin = f
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// inChild runs Main in a child process with a timeout.
func inChild(t *testing.T, args []string, stdin string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	var o, e bytes.Buffer
	allocFile := filepath.Join(t.TempDir(), "alloc")
	cmd := startChild(ctx, t, args, &o, &e, allocFile, stdin)
	err := cmd.Wait()
	r := result{code: cmd.ProcessState.ExitCode(), stdout: o.String(), stderr: e.String()}
	if ctx.Err() != nil {
		r.code = codeKilled
		r.stderr += fmt.Sprintf("\n(killed after %v: no answer)", childTimeout)
		return r
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(allocFile); err == nil {
		r.alloc, _ = strconv.ParseUint(string(b), 10, 64)
		r.allocKnown = true
	} else {
		r.stderr += "\n(the child died before reporting: " + cmd.ProcessState.String() + ")"
	}
	return r
}

// TestHostileChild is not a test: run by inChild with RUNEXP_HOSTILE_CHILD
// set to a JSON array of arguments, it is runexp under an address-space
// limit of 2 GiB beyond what the process has reserved, and it writes the
// bytes Main allocated to the file RUNEXP_HOSTILE_ALLOC.
func TestHostileChild(t *testing.T) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		t.Skip("helper of the TestHostile cases that run in a child process")
	}
	var args []string
	if err := json.Unmarshal([]byte(spec), &args); err != nil {
		fmt.Fprintln(os.Stderr, "bad", childEnv, err)
		os.Exit(3)
	}
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		var kb uint64
		for _, l := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(l, "VmSize:"); ok {
				kb, _ = strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			}
		}
		if kb > 0 {
			lim := syscall.Rlimit{Cur: kb<<10 + 2<<30, Max: kb<<10 + 2<<30}
			syscall.Setrlimit(syscall.RLIMIT_AS, &lim)
		}
	}
	// die with the test that started us, never outlive it
	go func(parent int) {
		for range time.Tick(100 * time.Millisecond) {
			if os.Getppid() != parent {
				os.Exit(4)
			}
		}
	}(os.Getppid())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code := Main(args, os.Stdout, os.Stderr)
	runtime.ReadMemStats(&after)
	if f := os.Getenv(allocEnv); f != "" {
		os.WriteFile(f, []byte(strconv.FormatUint(after.TotalAlloc-before.TotalAlloc, 10)), 0o644)
	}
	os.Exit(code)
}

// runHostile runs the cases as subtests of t and logs how many failed.
func runHostile(t *testing.T, cases []hostileCase) {
	t.Helper()
	seen := map[string]bool{}
	failed := 0
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("two cases named %q", c.name)
		}
		seen[c.name] = true
		if !t.Run(c.name, func(t *testing.T) { runCase(t, c) }) {
			failed++
		}
	}
	t.Logf("%s: %d cases, %d failed", t.Name(), len(cases), failed)
}

func runCase(t *testing.T, c hostileCase) {
	// the user's truth cache is never read or written
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	e := &hostileEnv{t: t, root: root, dir: filepath.Join(root, "w", "x")}
	e.out = e.path("out")
	e.mkdir(".")
	args := c.args(e)
	before := snapshot(t, root)

	var r result
	if c.isolate {
		r = inChild(t, args, c.stdin)
	} else {
		r = mainInProcess(args)
	}
	if os.Getenv("HOSTILE_SHOW") != "" {
		t.Logf("runexp %s\nexit %d\nstdout: %.300q\nstderr: %.600s", strings.Join(shorten(e, args), " "), r.code, r.stdout, r.stderr)
	}
	var problems []string
	fail := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	switch {
	case c.code == anyStatus:
	case c.code == anyFailure && r.code == 0:
		fail("exit 0, want non-zero")
	case r.code == codePanicked:
		fail("Main panicked, want exit %d", c.code)
	case r.code == codeKilled:
		fail("no answer within %v, want exit %d", childTimeout, c.code)
	case c.code != anyFailure && r.code != c.code:
		fail("exit %d, want %d", r.code, c.code)
	}
	if r.code != 0 && r.stdout != "" {
		fail("exit %d with standard output %q, want nothing on standard output on error", r.code, r.stdout)
	}
	// Wants are matched with the case's temporary root (whose name holds
	// the test's) written ROOT; a want that is not a file or a path is
	// matched with the file names taken out, so that a field is named by
	// the message, not found in the name of the file that holds it.
	norm := strings.ReplaceAll(r.stderr, root, "ROOT")
	noFiles := fileToken.ReplaceAllString(norm, "FILE")
	for _, w := range c.want {
		file, line, _ := strings.Cut(strings.TrimPrefix(w, "@"), ":")
		switch {
		case strings.HasPrefix(w, "@"):
			if !locPattern(w).MatchString(norm) {
				fail("stderr does not name %s and its line %s", file, line)
			}
		case fileToken.MatchString(w) || strings.Contains(w, "/"):
			if !strings.Contains(norm, w) {
				fail("stderr does not name %q", w)
			}
		case !strings.Contains(noFiles, w):
			fail("stderr does not contain %q (file names aside)", w)
		}
	}
	for _, m := range crashMarks {
		if strings.Contains(r.stderr, m) {
			fail("runexp crashed (%q on stderr)", m)
			break
		}
	}
	if !c.badFlag && strings.Contains(r.stderr, "flag provided but not defined") {
		fail("a flag the case relies on is not defined")
	}
	if c.maxAlloc > 0 {
		switch {
		case !r.allocKnown:
			fail("allocation unknown (the child died)")
		case r.alloc > c.maxAlloc:
			fail("allocated %d MiB, want at most %d MiB: a refusal must be decided from sizes alone", r.alloc>>20, c.maxAlloc>>20)
		}
	}
	if c.code != 0 && c.code != anyStatus {
		if ch := changes(root, e.dir, before, snapshot(t, root), c.mayChange); len(ch) > 0 {
			sort.Strings(ch)
			fail("a failing command changed files:\n    %s", strings.Join(ch, "\n    "))
		}
	}
	if len(problems) > 0 {
		s := r.stderr
		if len(s) > 1200 {
			s = s[:600] + "\n[...]\n" + s[len(s)-400:]
		}
		t.Errorf("%s\n  runexp %s\n  exit %d, stderr:\n%s", strings.Join(problems, "\n"), strings.Join(shorten(e, args), " "), r.code, s)
	}
	if c.check != nil {
		c.check(t, e, r.stdout, r.stderr)
	}
}

// shorten writes the case's paths relative to its tree, for messages.
func shorten(e *hostileEnv, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		a = strings.ReplaceAll(a, e.dir+string(filepath.Separator), "")
		if len(a) > 80 {
			a = a[:40] + "..." + a[len(a)-20:]
		}
		out[i] = a
	}
	return out
}

// runOutputs are the files a run of base.yaml writes to its directory.
var runOutputs = []string{"curve.csv", "trials.csv", "series.csv", "kstar.csv", "claims.csv", "claims.md", "meta.json", "tiny.png", "tiny.svg"}

// noOutputs checks that none of the files is a regular file in e.out.
func noOutputs(files ...string) func(t *testing.T, e *hostileEnv, stdout, stderr string) {
	return func(t *testing.T, e *hostileEnv, stdout, stderr string) {
		for _, f := range files {
			if st, err := os.Stat(filepath.Join(e.out, f)); err == nil && st.Mode().IsRegular() {
				t.Errorf("%s written by a failed command: outputs must be all or nothing", f)
			}
		}
	}
}

// --- class 1: flags and argument counts ---

// TestHostileFlags: bad flags and wrong argument counts of every
// subcommand. Contract: exit 2 (bad input: flags), the message names the
// flag, nothing on standard output, nothing written.
func TestHostileFlags(t *testing.T) {
	base := func(e *hostileEnv) string { return e.config("base.yaml") }
	okData := func(e *hostileEnv) string { return e.write("ok.csv", testdata(e.t, "ok.csv")) }
	runFlags := func(flags ...string) func(e *hostileEnv) []string {
		return func(e *hostileEnv) []string { return e.run(base(e), flags...) }
	}
	estFlags := func(flags ...string) func(e *hostileEnv) []string {
		return func(e *hostileEnv) []string { return estimate(okData(e), flags...) }
	}
	fixed := func(args ...string) func(e *hostileEnv) []string {
		return func(e *hostileEnv) []string { return args }
	}
	runexpCases := []hostileCase{
		// contract: runexp without arguments prints the usage: exit 2
		{name: "no arguments", args: fixed(), code: 2, want: []string{"Usage"}},
		{name: "unknown command", args: fixed("frobnicate"), code: 2, want: []string{`"frobnicate"`}},
		{name: "help of an unknown topic", args: fixed("help", "frobnicate"), code: 2, want: []string{`"frobnicate"`}},
		{name: "help of two topics", args: fixed("help", "run", "merge"), code: 2, want: []string{"help"}},
	}
	runCases := []hostileCase{
		// contract: bad flags are bad input, exit 2 naming the flag
		{name: "run unknown flag", args: runFlags("-frob"), code: 2, want: []string{"-frob"}, badFlag: true},
		// flags may follow the config (issue 32): an unknown one is named
		{name: "run unknown flag after the config", args: func(e *hostileEnv) []string {
			return []string{"run", "-quiet", "-out", e.out, base(e), "-frob"}
		}, code: 2, want: []string{"-frob"}, badFlag: true},
		{name: "run without a config", args: func(e *hostileEnv) []string { return []string{"run", "-quiet", "-out", e.out} }, code: 2, want: []string{"CONFIG.yaml"}},
		{name: "run two configs", args: func(e *hostileEnv) []string { return append(e.run(base(e)), base(e)) }, code: 2, want: []string{"CONFIG.yaml"}},
		{name: "run -workers 0", args: runFlags("-workers", "0"), code: 2, want: []string{"-workers"}},
		{name: "run -workers -3", args: runFlags("-workers", "-3"), code: 2, want: []string{"-workers"}},
		{name: "run -workers x", args: runFlags("-workers", "x"), code: 2, want: []string{"-workers"}},
		{name: "run -shard 3/2", args: runFlags("-shard", "3/2"), code: 2, want: []string{"-shard", "3/2"}},
		{name: "run -shard x", args: runFlags("-shard", "x"), code: 2, want: []string{"-shard", `"x"`}},
		{name: "run -shard 0/0", args: runFlags("-shard", "0/0"), code: 2, want: []string{"-shard", "0/0"}},
		{name: "run -shard -1/2", args: runFlags("-shard", "-1/2"), code: 2, want: []string{"-shard", "-1/2"}},
		{name: "run -shard 1/2/3", args: runFlags("-shard", "1/2/3"), code: 2, want: []string{"-shard", "1/2/3"}},
		{name: "run -seed -1", args: runFlags("-seed", "-1"), code: 2, want: []string{"-seed"}},
		{name: "run -seed 2^64", args: runFlags("-seed", "18446744073709551616"), code: 2, want: []string{"-seed", "18446744073709551616"}},
		{name: "run -seed 1.5", args: runFlags("-seed", "1.5"), code: 2, want: []string{"-seed"}},
		{name: "run -seed 0x10", args: runFlags("-seed", "0x10"), code: 2, want: []string{"-seed"}},
		{name: "run -trials -1", args: runFlags("-trials", "-1"), code: 2, want: []string{"-trials"}},
		{name: "run -trials x", args: runFlags("-trials", "x"), code: 2, want: []string{"-trials"}},
		{name: "run -trials 2.5", args: runFlags("-trials", "2.5"), code: 2, want: []string{"-trials"}},
		{name: "run -max-memory garbage", args: runFlags("-max-memory", "garbage"), code: 2, want: []string{"-max-memory", "garbage"}},
		{name: "run -max-memory 0", args: runFlags("-max-memory", "0"), code: 2, want: []string{"-max-memory"}},
		{name: "run -max-memory -1GiB", args: runFlags("-max-memory", "-1GiB"), code: 2, want: []string{"-max-memory"}},
		{name: "run -max-memory 150%", args: runFlags("-max-memory", "150%"), code: 2, want: []string{"-max-memory"}},
		{name: "run -max-memory 1e999", args: runFlags("-max-memory", "1e999"), code: 2, want: []string{"-max-memory"}},
		{name: "run -resume=maybe", args: runFlags("-resume=maybe"), code: 2, want: []string{"-resume"}},
	}
	otherCases := []hostileCase{
		{name: "merge without arguments", args: fixed("merge"), code: 2, want: []string{"usage: runexp merge"}},
		{name: "merge -out without arguments", args: func(e *hostileEnv) []string { return []string{"merge", "-out", e.out} }, code: 2, want: []string{"usage: runexp merge"}},
		{name: "merge unknown flag", args: func(e *hostileEnv) []string { return []string{"merge", "-frob", e.path("x.jsonl")} }, code: 2, want: []string{"-frob"}, badFlag: true},
		{name: "plot without arguments", args: fixed("plot"), code: 2, want: []string{"usage: runexp plot"}},
		{name: "plot two directories", args: func(e *hostileEnv) []string { return []string{"plot", e.mkdir("a"), e.mkdir("b")} }, code: 2, want: []string{"usage: runexp plot"}},
		{name: "plot unknown flag", args: func(e *hostileEnv) []string { return []string{"plot", "-frob", e.mkdir("a")} }, code: 2, want: []string{"-frob"}, badFlag: true},
		{name: "claims without arguments", args: fixed("claims"), code: 2, want: []string{"usage: runexp claims"}},
		{name: "claims unknown flag", args: func(e *hostileEnv) []string { return []string{"claims", "-frob", e.mkdir("a")} }, code: 2, want: []string{"-frob"}, badFlag: true},
		{name: "estimate without arguments", args: fixed("estimate"), code: 2, want: []string{"DATA"}},
		{name: "estimate two files", args: func(e *hostileEnv) []string { return estimate(okData(e), okData(e)) }, code: 2, want: []string{"DATA"}},
		{name: "estimate unknown flag", args: estFlags("-frob"), code: 2, want: []string{"-frob"}, badFlag: true},
		{name: "estimate -confidence 1.5", args: estFlags("-confidence", "1.5"), code: 2, want: []string{"-confidence 1.5"}},
		{name: "estimate -confidence 0", args: estFlags("-confidence", "0"), code: 2, want: []string{"-confidence 0"}},
		{name: "estimate -confidence NaN", args: estFlags("-confidence", "NaN"), code: 2, want: []string{"-confidence NaN"}},
		{name: "estimate -confidence x", args: estFlags("-confidence", "x"), code: 2, want: []string{"-confidence"}},
		{name: "estimate -format xml", args: estFlags("-format", "xml"), code: 2, want: []string{`"xml"`}},
		{name: "estimate -bootstrap -1", args: estFlags("-bootstrap", "-1"), code: 2, want: []string{"-bootstrap -1"}},
		{name: "estimate -bootstrap 2.5", args: estFlags("-bootstrap", "2.5"), code: 2, want: []string{"-bootstrap"}},
		{name: "estimate -seed -1", args: estFlags("-seed", "-1"), code: 2, want: []string{"-seed"}},
		{name: "estimate -seed 2^64", args: estFlags("-seed", "18446744073709551616"), code: 2, want: []string{"-seed"}},
		{name: "estimate -workers 0", args: estFlags("-workers", "0"), code: 2, want: []string{"-workers 0"}},
		{name: "estimate -estimators nonsense", args: estFlags("-estimators", "pdis,nonsense"), code: 2, want: []string{`"nonsense"`}},
		{name: "estimate -estimators empty", args: estFlags("-estimators", ","), code: 2, want: []string{"-estimators"}},
		{name: "estimate -max-steps 0", args: estFlags("-max-steps", "0"), code: 2, want: []string{"-max-steps 0"}},
		{name: "estimate -max-memory garbage", args: estFlags("-max-memory", "garbage"), code: 2, want: []string{"-max-memory", "garbage"}},
		// Issues 14 and 15: discounting, bounds and intervals.
		{name: "estimate -gamma 0", args: estFlags("-gamma", "0"), code: 2, want: []string{"-gamma"}},
		{name: "estimate -gamma 1.5", args: estFlags("-gamma", "1.5"), code: 2, want: []string{"-gamma"}},
		{name: "estimate -estimators dr without model columns", args: estFlags("-estimators", "dr"), code: 2, want: []string{"dr", "q_hat", "v_hat"}},
		{name: "estimate -bounds nonsense", args: estFlags("-bounds", "nonsense"), code: 2, want: []string{`"nonsense"`}},
		{name: "estimate -delta 0", args: estFlags("-bounds", "t", "-delta", "0"), code: 2, want: []string{"-delta"}},
		{name: "estimate -bounds hcope without a range", args: estFlags("-bounds", "hcope"), code: 2, want: []string{"-return-range"}},
		{name: "estimate -return-range reversed", args: estFlags("-bounds", "hcope", "-return-range", "2,1"), code: 2, want: []string{"-return-range"}},
		{name: "estimate -interval x", args: estFlags("-interval", "x"), code: 2, want: []string{"-interval"}},
	}
	runHostile(t, append(append(runexpCases, runCases...), otherCases...))
}

// --- class 1: config files ---

// TestHostileConfig: configs that are missing, not YAML, of the wrong
// shape, or out of range. Contract: exit 2 (bad input: a config), the
// message names the file, and the line and field where there is one;
// nothing written (the output directory does not exist afterwards).
func TestHostileConfig(t *testing.T) {
	cases := []hostileCase{
		{name: "missing file", args: func(e *hostileEnv) []string { return e.run(e.path("missing.yaml")) }, code: 2, want: []string{"missing.yaml"}},
		{name: "a directory", args: func(e *hostileEnv) []string { return e.run(e.mkdir("dir.yaml")) }, code: 2, want: []string{"dir.yaml"}},
		// contract: a config that cannot be read for lack of permission is a
		// failure of the machine, exit 1 (root reads anything: skipped)
		{name: "unreadable file", args: func(e *hostileEnv) []string {
			if os.Geteuid() == 0 {
				e.t.Skip("root reads any file")
			}
			p := e.config("secret.yaml")
			os.Chmod(p, 0)
			return e.run(p)
		}, code: 1, want: []string{"secret.yaml"}},
		{name: "empty file", args: func(e *hostileEnv) []string { return e.run(e.write("empty.yaml", "")) }, code: 2, want: []string{"empty.yaml"}},
		{name: "only a comment", args: func(e *hostileEnv) []string { return e.run(e.write("comment.yaml", "# nothing\n")) }, code: 2, want: []string{"comment.yaml"}},
		{name: "binary garbage", args: func(e *hostileEnv) []string {
			return e.run(e.write("garbage.yaml", "\x00\x01\x02\xfe\xff\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
		}, code: 2, want: []string{"garbage.yaml"}},
		{name: "invalid UTF-8", args: func(e *hostileEnv) []string { return e.run(e.write("utf8.yaml", "name: \xff\xfe\n")) }, code: 2, want: []string{"utf8.yaml"}},
		{name: "a list at the top", args: func(e *hostileEnv) []string { return e.run(e.write("list.yaml", "- name: tiny\n- n: [5]\n")) }, code: 2, want: []string{"list.yaml"}},
		{name: "a scalar at the top", args: func(e *hostileEnv) []string { return e.run(e.write("scalar.yaml", "42\n")) }, code: 2, want: []string{"scalar.yaml"}},
		{name: "YAML syntax error", args: runConfig("syntax.yaml", edit{4, "n: [5, 10"}), code: 2, want: []string{"syntax.yaml"}},
		{name: "tab indentation", args: runConfig("tab.yaml", edit{7, "\tdomain: chainmdp"}), code: 2, want: []string{"tab.yaml"}},
		// an alias bomb expands to 9^9 strings: it must be refused, not expanded
		{name: "alias bomb", args: func(e *hostileEnv) []string { return e.run(e.write("bomb.yaml", testdata(e.t, "aliasbomb.yaml"))) },
			code: 2, want: []string{"bomb.yaml"}, isolate: true, maxAlloc: refusalAlloc},
		{name: "unknown top-level key", args: runConfig("trails.yaml", edit{3, "trails: 4"}), code: 2, want: []string{at("trails.yaml", 3), "trails"}},
		{name: "unknown series key", args: runConfig("domian.yaml", edit{7, "    domain: chainmdp\n    domian: chainmdp"}), code: 2, want: []string{at("domian.yaml", 8), "domian"}},
		{name: "key in the wrong case", args: runConfig("case.yaml", edit{3, "Trials: 4"}), code: 2, want: []string{at("case.yaml", 3), "Trials"}},
		// a config nested 100000 deep must be refused, not recursed into
		{name: "nesting 100000 deep", args: func(e *hostileEnv) []string {
			return e.run(e.config("deep.yaml", edit{4, "n: " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000)}))
		}, code: 2, want: []string{"deep.yaml"}, isolate: true, maxAlloc: refusalAlloc},
		{name: "unknown parameter", args: runConfig("horizn.yaml", edit{8, "    params: {horizn: 4, p_e: 0.9}"}), code: 2, want: []string{at("horizn.yaml", 8), "horizn"}},
		{name: "unknown claim key", args: runConfig("maxratio.yaml", edit{14, "    max_ratio: 2\n    maxratio: 3"}), code: 2, want: []string{at("maxratio.yaml", 15), "maxratio"}},
		{name: "unknown plot key", args: runConfig("diagnostc.yaml", edit{16, "  diagnostc: {name: kstar}"}), code: 2, want: []string{at("diagnostc.yaml", 16), "diagnostc"}},
		{name: "repeated key", args: runConfig("repeat.yaml", edit{2, "trials: 5"}), code: 2, want: []string{at("repeat.yaml", 3), "trials"}},
		{name: "repeated parameter", args: runConfig("repeat-param.yaml", edit{8, "    params: {horizon: 4, horizon: 5}"}), code: 2, want: []string{at("repeat-param.yaml", 8), "horizon"}},
		{name: "trials a word", args: runConfig("trials-word.yaml", edit{3, "trials: many"}), code: 2, want: []string{at("trials-word.yaml", 3), "trials"}},
		{name: "n a scalar", args: runConfig("n-scalar.yaml", edit{4, "n: 5"}), code: 2, want: []string{at("n-scalar.yaml", 4), "n:"}},
		{name: "n of words", args: runConfig("n-words.yaml", edit{4, "n: [five, ten]"}), code: 2, want: []string{at("n-words.yaml", 4), "n["}},
		{name: "series a number", args: runConfig("series-number.yaml", edit{5, "series: 7"}, edit{6, "#"}, edit{7, "#"}, edit{8, "#"}, edit{9, "#"}),
			code: 2, want: []string{at("series-number.yaml", 5), "series"}},
		{name: "series empty", args: runConfig("series-empty.yaml", edit{5, "series: []"}, edit{6, "#"}, edit{7, "#"}, edit{8, "#"}, edit{9, "#"}),
			code: 2, want: []string{"series-empty.yaml", "series"}},
		{name: "estimators a string", args: runConfig("est-string.yaml", edit{9, "    estimators: pdis"}), code: 2, want: []string{at("est-string.yaml", 9), "estimators"}},
		{name: "params a list", args: runConfig("params-list.yaml", edit{8, "    params: [4, 0.9]"}), code: 2, want: []string{at("params-list.yaml", 8), "params"}},
		{name: "parameter a word", args: runConfig("param-word.yaml", edit{8, "    params: {horizon: four, p_e: 0.9}"}), code: 2, want: []string{at("param-word.yaml", 8), "horizon"}},
		{name: "unknown domain", args: runConfig("domain.yaml", edit{7, "    domain: chainmpd"}), code: 2, want: []string{at("domain.yaml", 7), "chainmpd"}},
		{name: "unknown estimator", args: runConfig("estimator.yaml", edit{9, "    estimators: [pdis, wiz, incris]"}), code: 2, want: []string{at("estimator.yaml", 9), "wiz"}},
		{name: "estimator twice", args: runConfig("estimator-twice.yaml", edit{9, "    estimators: [pdis, pdis]"}), code: 2, want: []string{at("estimator-twice.yaml", 9), "pdis"}},
		{name: "no estimators", args: runConfig("no-estimators.yaml", edit{9, "#"}), code: 2, want: []string{"no-estimators.yaml", "estimators"}},
		{name: "no domain", args: runConfig("no-domain.yaml", edit{7, "#"}), code: 2, want: []string{"no-domain.yaml", "domain"}},
		{name: "series named twice", args: runConfig("series-twice.yaml", edit{9, "    estimators: [pdis]\n  - name: chain\n    domain: chainmdp\n    estimators: [wis]"}),
			code: 2, want: []string{at("series-twice.yaml", 10), "chain"}},
		{name: "horizon 0", args: runConfig("horizon0.yaml", edit{8, "    params: {horizon: 0, p_e: 0.9}"}), code: 2, want: []string{at("horizon0.yaml", 8), "horizon"}},
		{name: "horizon 2^20+1", args: runConfig("horizon-big.yaml", edit{8, "    params: {horizon: 1048577, p_e: 0.9}"}), code: 2, want: []string{at("horizon-big.yaml", 8), "horizon"}},
		{name: "p_e 1.5", args: runConfig("pe.yaml", edit{8, "    params: {horizon: 4, p_e: 1.5}"}), code: 2, want: []string{at("pe.yaml", 8), "p_e"}},
		{name: "p_e -0.1", args: runConfig("pe-neg.yaml", edit{8, "    params: {horizon: 4, p_e: -0.1}"}), code: 2, want: []string{at("pe-neg.yaml", 8), "p_e"}},
		{name: "p_b 0", args: runConfig("pb.yaml", edit{8, "    params: {horizon: 4, p_e: 0.9, p_b: 0}"}), code: 2, want: []string{at("pb.yaml", 8), "p_b"}},
		{name: "subepisodes 0", args: runConfig("sub0.yaml", edit{7, "    domain: subepisode"}, edit{8, "    params: {subepisodes: 0}"}, edit{16, "#"}),
			code: 2, want: []string{at("sub0.yaml", 8), "subepisodes"}},
		{name: "eps_b 2", args: runConfig("epsb.yaml", edit{7, "    domain: noisytaxi"}, edit{8, "    params: {eps_b: 2}"}, edit{16, "#"}),
			code: 2, want: []string{at("epsb.yaml", 8), "eps_b"}},
		{name: "trials 0", args: runConfig("trials0.yaml", edit{3, "trials: 0"}), code: 2, want: []string{at("trials0.yaml", 3), "trials"}},
		{name: "trials -4", args: runConfig("trials-neg.yaml", edit{3, "trials: -4"}), code: 2, want: []string{at("trials-neg.yaml", 3), "trials"}},
		{name: "n empty", args: runConfig("n-empty.yaml", edit{4, "n: []"}), code: 2, want: []string{at("n-empty.yaml", 4), "n:"}},
		{name: "n decreasing", args: runConfig("n-down.yaml", edit{4, "n: [10, 5]"}), code: 2, want: []string{at("n-down.yaml", 4), "n["}},
		{name: "n repeated", args: runConfig("n-repeat.yaml", edit{4, "n: [5, 5]"}), code: 2, want: []string{at("n-repeat.yaml", 4), "n["}},
		{name: "n 0", args: runConfig("n0.yaml", edit{4, "n: [0, 5]"}), code: 2, want: []string{at("n0.yaml", 4), "n["}},
		{name: "no n", args: runConfig("no-n.yaml", edit{4, "#"}), code: 2, want: []string{"no-n.yaml", "n:"}},
		{name: "data sideways", args: runConfig("data.yaml", edit{2, "data: sideways"}), code: 2, want: []string{at("data.yaml", 2), "sideways"}},
		{name: "claim of an unknown curve", args: runConfig("subject.yaml", edit{12, "    subject: chain/nope"}), code: 2, want: []string{at("subject.yaml", 12), "subject", "nope"}},
		{name: "claim versus an unknown curve", args: runConfig("versus.yaml", edit{13, "    versus: [chain/nope]"}), code: 2, want: []string{at("versus.yaml", 13), "versus", "nope"}},
		{name: "max_ratio -1", args: runConfig("ratio-neg.yaml", edit{14, "    max_ratio: -1"}), code: 2, want: []string{at("ratio-neg.yaml", 14), "max_ratio"}},
		{name: "max_ratio a word", args: runConfig("ratio-word.yaml", edit{14, "    max_ratio: big"}), code: 2, want: []string{at("ratio-word.yaml", 14), "max_ratio"}},
		{name: "claim at sometimes", args: runConfig("claim-at.yaml", edit{14, "    max_ratio: 2\n    at: sometimes"}), code: 2, want: []string{at("claim-at.yaml", 15), "sometimes"}},
		{name: "unknown diagnostic", args: runConfig("diagnostic.yaml", edit{16, "  diagnostic: {name: nonsense}"}), code: 2, want: []string{at("diagnostic.yaml", 16), "nonsense"}},
		{name: "plot panel y unknown", args: runConfig("panel-y.yaml", edit{16, "  panels:\n    - {y: happiness}"}), code: 2, want: []string{at("panel-y.yaml", 17), "happiness"}},
	}
	runHostile(t, cases)
}

// --- class 3: wrong values that must not be silently accepted ---

// TestHostileSilent: values a lenient reader would round, wrap or ignore.
// Contract: bad input, exit 2, naming the file, line and field.
func TestHostileSilent(t *testing.T) {
	cases := []hostileCase{
		{name: "trials 2.5", args: runConfig("trials.yaml", edit{3, "trials: 2.5"}), code: 2, want: []string{at("trials.yaml", 3), "trials"}},
		{name: "trials a quoted number", args: runConfig("trials-str.yaml", edit{3, `trials: "4"`}), code: 2, want: []string{at("trials-str.yaml", 3), "trials"}},
		{name: "trials true", args: runConfig("trials-bool.yaml", edit{3, "trials: true"}), code: 2, want: []string{at("trials-bool.yaml", 3), "trials"}},
		{name: "n [10.5, 20]", args: runConfig("n-frac.yaml", edit{4, "n: [10.5, 20]"}), code: 2, want: []string{at("n-frac.yaml", 4), "n["}},
		{name: "seed 1.9", args: runConfig("seed-frac.yaml", edit{2, "seed: 1.9"}), code: 2, want: []string{at("seed-frac.yaml", 2), "seed"}},
		{name: "seed 2^64", args: runConfig("seed-big.yaml", edit{2, "seed: 18446744073709551616"}), code: 2, want: []string{at("seed-big.yaml", 2), "seed"}},
		{name: "seed -1", args: runConfig("seed-neg.yaml", edit{2, "seed: -1"}), code: 2, want: []string{at("seed-neg.yaml", 2), "seed"}},
		{name: "seed a quoted number", args: runConfig("seed-str.yaml", edit{2, `seed: "7"`}), code: 2, want: []string{at("seed-str.yaml", 2), "seed"}},
		{name: "a second YAML document", args: runConfig("two-docs.yaml", edit{17, "---\nseed: 9"}), code: 2, want: []string{"two-docs.yaml"}},
		{name: "claim range holds no n", args: runConfig("claim-range.yaml", edit{14, "    max_ratio: 2\n    n_min: 6\n    n_max: 9"}), code: 2, want: []string{"claim-range.yaml", "claims[0]"}},
		{name: "claim n_min above n_max", args: runConfig("claim-minmax.yaml", edit{14, "    max_ratio: 2\n    n_min: 10\n    n_max: 5"}), code: 2, want: []string{"claim-minmax.yaml", "claims[0]"}},
		{name: "claim n_min 7.5", args: runConfig("claim-frac.yaml", edit{14, "    max_ratio: 2\n    n_min: 7.5"}), code: 2, want: []string{at("claim-frac.yaml", 15), "n_min"}},
		{name: "max_ratio .inf", args: runConfig("ratio-inf.yaml", edit{14, "    max_ratio: .inf"}), code: 2, want: []string{at("ratio-inf.yaml", 14), "max_ratio"}},
		{name: "max_ratio 1e400", args: runConfig("ratio-huge.yaml", edit{14, "    max_ratio: 1e400"}), code: 2, want: []string{at("ratio-huge.yaml", 14), "max_ratio"}},
		{name: "max_ratio .nan", args: runConfig("ratio-nan.yaml", edit{14, "    max_ratio: .nan"}), code: 2, want: []string{at("ratio-nan.yaml", 14), "max_ratio"}},
		{name: "name with a newline", args: runConfig("name-nl.yaml", edit{1, `name: "ti\nny"`}), code: 2, want: []string{at("name-nl.yaml", 1), "name"}},
		{name: "series name with a newline", args: runConfig("series-nl.yaml", edit{6, `  - name: "ch\nain"`}), code: 2, want: []string{at("series-nl.yaml", 6), "name"}},
		{name: "series name with a comma", args: runConfig("series-comma.yaml", edit{6, `  - name: "ch,ain"`}, edit{12, "    subject: ch,ain/incris"}, edit{13, "    versus: [pdis]"}),
			code: 2, want: []string{at("series-comma.yaml", 6), "name"}},
		{name: "experiment a list", args: runConfig("experiment.yaml", edit{2, "experiment: [a, b]"}), code: 2, want: []string{at("experiment.yaml", 2), "experiment"}},
		{name: "horizon 2.5", args: runConfig("horizon-frac.yaml", edit{8, "    params: {horizon: 2.5, p_e: 0.9}"}), code: 2, want: []string{at("horizon-frac.yaml", 8), "horizon"}},
		{name: "horizon a quoted number", args: runConfig("horizon-str.yaml", edit{8, `    params: {horizon: "4", p_e: 0.9}`}), code: 2, want: []string{at("horizon-str.yaml", 8), "horizon"}},
		{name: "p_e a quoted number", args: runConfig("pe-str.yaml", edit{8, `    params: {horizon: 4, p_e: "0.9"}`}), code: 2, want: []string{at("pe-str.yaml", 8), "p_e"}},
		{name: "p_e .nan", args: runConfig("pe-nan.yaml", edit{8, "    params: {horizon: 4, p_e: .nan}"}), code: 2, want: []string{at("pe-nan.yaml", 8), "p_e"}},
		{name: "bottom_absorbing 2", args: runConfig("bool2.yaml", edit{8, "    params: {horizon: 4, bottom_absorbing: 2}"}), code: 2, want: []string{at("bool2.yaml", 8), "bottom_absorbing"}},
		{name: "bottom_absorbing 0.5", args: runConfig("bool-half.yaml", edit{8, "    params: {horizon: 4, bottom_absorbing: 0.5}"}), code: 2, want: []string{at("bool-half.yaml", 8), "bottom_absorbing"}},
		{name: "eps_step .inf", args: runConfig("eps-inf.yaml", edit{7, "    domain: subepisode"}, edit{8, "    params: {subepisodes: 2, eps_step: .inf}"}, edit{16, "#"}),
			code: 2, want: []string{at("eps-inf.yaml", 8), "eps_step"}},
		{name: "changed 1.5", args: runConfig("changed.yaml", edit{7, "    domain: optionschain"}, edit{8, "    params: {changed: 1.5}"}, edit{9, "    estimators: [pdis]"}, edit{12, "    subject: chain/pdis"}, edit{16, "#"}),
			code: 2, want: []string{at("changed.yaml", 8), "changed"}},
		// logged data: numbers are decimal or exponent notation only (runexp help data)
		{name: "data reward 1_000", args: estimateData("underscore.csv", csvHead+"a,0,1_000,0.5,0.5\nb,0,1,0.5,0.5\n"), code: 2, want: []string{at("underscore.csv", 2), "reward"}},
		{name: "data pi_e 0x1p-1", args: estimateData("hexfloat.csv", csvHead+"a,0,1,0.5,0x1p-1\nb,0,1,0.5,0.5\n"), code: 2, want: []string{at("hexfloat.csv", 2), "pi_e"}},
		{name: "data pi_b 0x1p-1", args: estimateData("hexfloat-pib.csv", csvHead+"a,0,1,0.5,0.5\nb,0,1,0x1p-1,0.5\n"), code: 2, want: []string{at("hexfloat-pib.csv", 3), "pi_b"}},
		{name: "data step 0x1", args: estimateData("hexstep.csv", csvHead+"a,0,1,0.5,0.5\na,0x1,1,0.5,0.5\n"), code: 2, want: []string{at("hexstep.csv", 3), "step"}},
		{name: "data step 1.0", args: estimateData("step-float.csv", csvHead+"a,0,1,0.5,0.5\na,1.0,1,0.5,0.5\n"), code: 2, want: []string{at("step-float.csv", 3), "step"}},
		{name: "data step 2^64", args: estimateData("step-big.csv", csvHead+"a,0,1,0.5,0.5\na,18446744073709551616,1,0.5,0.5\n"), code: 2, want: []string{at("step-big.csv", 3), "step"}},
		{name: "data JSON step 1e0", args: estimateData("step-exp.jsonl", `{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.5}`+"\n"+`{"episode":"a","step":1e0,"reward":1,"pi_b":0.5,"pi_e":0.5}`+"\n"),
			code: 2, want: []string{at("step-exp.jsonl", 2), "step"}},
		{name: "data step +1", args: estimateData("step-plus.csv", csvHead+"a,0,1,0.5,0.5\na,+1,1,0.5,0.5\n"), code: 2, want: []string{at("step-plus.csv", 3), "step"}},
		{name: "data reward Infinity", args: estimateData("infinity.csv", csvHead+"a,0,Infinity,0.5,0.5\nb,0,1,0.5,0.5\n"), code: 2, want: []string{at("infinity.csv", 2), "reward"}},
		{name: "data reward nan", args: estimateData("nan.csv", csvHead+"a,0,1,0.5,0.5\nb,0,nan,0.5,0.5\n"), code: 2, want: []string{at("nan.csv", 3), "reward"}},
		{name: "data reward 1e400", args: estimateData("huge.csv", csvHead+"a,0,1e400,0.5,0.5\nb,0,1,0.5,0.5\n"), code: 2, want: []string{at("huge.csv", 2), "reward"}},
		{name: "data reward Arabic-Indic digit", args: estimateData("digit.csv", csvHead+"a,0,\u0661,0.5,0.5\nb,0,1,0.5,0.5\n"), code: 2, want: []string{at("digit.csv", 2), "reward"}},
		{name: "data split 2", args: estimateData("split2.csv", "episode,step,reward,pi_b,pi_e,split\na,0,1,0.5,0.5,2\nb,0,1,0.5,0.5,0\n"), code: 2, want: []string{at("split2.csv", 2), "split"}},
		{name: "data JSON key twice", args: estimateData("dupkey.jsonl", `{"episode":"a","step":0,"reward":1,"reward":5,"pi_b":0.5,"pi_e":0.5}`+"\n"+`{"episode":"b","step":0,"reward":1,"pi_b":0.5,"pi_e":0.5}`+"\n"),
			code: 2, want: []string{at("dupkey.jsonl", 1), "reward"}},
		{name: "data JSON reward 1e400", args: estimateData("huge.jsonl", `{"episode":"a","step":0,"reward":1e400,"pi_b":0.5,"pi_e":0.5}`+"\n"+`{"episode":"b","step":0,"reward":1,"pi_b":0.5,"pi_e":0.5}`+"\n"),
			code: 2, want: []string{at("huge.jsonl", 1), "reward"}},
		{name: "data JSON step 1.5", args: estimateData("step.jsonl", `{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.5}`+"\n"+`{"episode":"a","step":1.5,"reward":1,"pi_b":0.5,"pi_e":0.5}`+"\n"),
			code: 2, want: []string{at("step.jsonl", 2), "step"}},
	}
	runHostile(t, cases)
}

// --- class 1: logged data ---

// TestHostileData: logged data runexp estimate must refuse. Contract:
// exit 2 (bad input: logged data), the message names the file, line and
// column, nothing on standard output.
func TestHostileData(t *testing.T) {
	const j0 = `{"episode":"a","step":0,"reward":1,"pi_b":0.5,"pi_e":0.5}`
	const j1 = `{"episode":"b","step":0,"reward":1,"pi_b":0.5,"pi_e":0.5}`
	cases := []hostileCase{
		{name: "missing file", args: func(e *hostileEnv) []string { return estimate(e.path("missing.csv")) }, code: 2, want: []string{"missing.csv"}},
		{name: "a directory", args: func(e *hostileEnv) []string { return estimate(e.mkdir("dir.csv")) }, code: 2, want: []string{"dir.csv"}},
		// contract: a file that cannot be opened for lack of permission is a
		// failure of the machine, exit 1 (root reads anything: skipped)
		{name: "unreadable file", args: func(e *hostileEnv) []string {
			if os.Geteuid() == 0 {
				e.t.Skip("root reads any file")
			}
			p := e.write("secret.csv", testdata(e.t, "ok.csv"))
			os.Chmod(p, 0)
			return estimate(p)
		}, code: 1, want: []string{"secret.csv"}},
		{name: "empty file", args: estimateData("empty.csv", ""), code: 2, want: []string{"empty.csv"}},
		{name: "header only", args: estimateData("header.csv", csvHead), code: 2, want: []string{at("header.csv", 1)}},
		{name: "binary garbage", args: estimateData("garbage.csv", "\x00\x01\x02\xfe\xff\x89PNG\r\n\x1a\n\x00\x00"), code: 2, want: []string{at("garbage.csv", 1)}},
		{name: "missing column", args: estimateData("no-pie.csv", "episode,step,reward,pi_b\na,0,1,0.5\n"), code: 2, want: []string{at("no-pie.csv", 1), "pi_e"}},
		{name: "unknown column", args: estimateData("action.csv", "episode,step,reward,pi_b,pi_e,action\na,0,1,0.5,0.5,x\n"), code: 2, want: []string{at("action.csv", 1), "action"}},
		{name: "column twice", args: estimateData("twice.csv", "episode,step,reward,pi_b,pi_e,reward\na,0,1,0.5,0.5,1\n"), code: 2, want: []string{at("twice.csv", 1), "reward"}},
		{name: "mu_b without option_start", args: estimateData("mub.csv", "episode,step,reward,pi_b,pi_e,mu_b\na,0,1,0.5,0.5,1\n"), code: 2, want: []string{at("mub.csv", 1), "mu_b"}},
		{name: "option_changed without options", args: estimateData("changed.csv", "episode,step,reward,pi_b,pi_e,option_changed\na,0,1,0.5,0.5,0\n"), code: 2, want: []string{at("changed.csv", 1), "option_changed"}},
		{name: "reward a word", args: func(e *hostileEnv) []string { return estimate(e.write("word.csv", okCSV(e.t, 3, "a,1,one,0.5,0.75"))) }, code: 2, want: []string{at("word.csv", 3), "reward"}},
		{name: "pi_b 0", args: func(e *hostileEnv) []string { return estimate(e.write("pib0.csv", okCSV(e.t, 2, "a,0,1,0,0.25"))) }, code: 2, want: []string{at("pib0.csv", 2), "pi_b"}},
		{name: "pi_b 1.5", args: func(e *hostileEnv) []string { return estimate(e.write("pib.csv", okCSV(e.t, 4, "b,0,0,1.5,0.25"))) }, code: 2, want: []string{at("pib.csv", 4), "pi_b"}},
		{name: "pi_e -0.5", args: func(e *hostileEnv) []string { return estimate(e.write("pie.csv", okCSV(e.t, 5, "b,1,1,0.5,-0.5"))) }, code: 2, want: []string{at("pie.csv", 5), "pi_e"}},
		{name: "pi_b empty", args: func(e *hostileEnv) []string { return estimate(e.write("pib-empty.csv", okCSV(e.t, 2, "a,0,1,,0.25"))) }, code: 2, want: []string{at("pib-empty.csv", 2), "pi_b"}},
		{name: "episode empty", args: func(e *hostileEnv) []string { return estimate(e.write("ep-empty.csv", okCSV(e.t, 6, ",0,1,0.5,0.75"))) }, code: 2, want: []string{at("ep-empty.csv", 6), "episode"}},
		{name: "step skipped", args: func(e *hostileEnv) []string { return estimate(e.write("skip.csv", okCSV(e.t, 3, "a,2,0,0.5,0.75"))) }, code: 2, want: []string{at("skip.csv", 3), "step"}},
		{name: "step negative", args: func(e *hostileEnv) []string {
			return estimate(e.write("step-neg.csv", okCSV(e.t, 2, "a,-1,1,0.5,0.25")))
		}, code: 2, want: []string{at("step-neg.csv", 2), "step"}},
		{name: "episode not contiguous", args: func(e *hostileEnv) []string { return estimate(e.write("contig.csv", okCSV(e.t, 7, "a,2,1,0.5,0.75"))) }, code: 2, want: []string{at("contig.csv", 7), "episode"}},
		{name: "too few fields", args: func(e *hostileEnv) []string { return estimate(e.write("few.csv", okCSV(e.t, 3, "a,1,0,0.5"))) }, code: 2, want: []string{at("few.csv", 3)}},
		{name: "too many fields", args: func(e *hostileEnv) []string { return estimate(e.write("many.csv", okCSV(e.t, 3, "a,1,0,0.5,0.75,9"))) }, code: 2, want: []string{at("many.csv", 3)}},
		{name: "unterminated quote", args: func(e *hostileEnv) []string { return estimate(e.write("quote.csv", okCSV(e.t, 3, `"a,1,0,0.5,0.75`))) }, code: 2, want: []string{at("quote.csv", 3)}},
		{name: "NUL byte in a row", args: func(e *hostileEnv) []string { return estimate(e.write("nul.csv", okCSV(e.t, 3, "a,1,0\x00,0.5,0.75"))) }, code: 2, want: []string{at("nul.csv", 3)}},
		{name: "a line over 1 MiB", args: func(e *hostileEnv) []string {
			return estimate(e.write("long.csv", okCSV(e.t, 3, "a"+strings.Repeat("x", 1<<20+10)+",1,0,0.5,0.75")))
		}, code: 2, want: []string{at("long.csv", 3)}},
		{name: "more steps than -max-steps", args: func(e *hostileEnv) []string {
			return estimate(e.write("steps.csv", testdata(e.t, "ok.csv")), "-max-steps", "4")
		},
			code: 2, want: []string{at("steps.csv", 6), "-max-steps"}},
		{name: "one episode for incris", args: estimateData("one.csv", csvHead+"a,0,1,0.5,0.5\n"), code: 2, want: []string{"one.csv", "incris"}},
		{name: "CSV read as JSON Lines", args: func(e *hostileEnv) []string {
			return estimate(e.write("csv.txt", testdata(e.t, "ok.csv")), "-format", "jsonl")
		}, code: 2, want: []string{at("csv.txt", 1)}},
		{name: "JSON Lines not an object", args: estimateData("array.jsonl", "[1, 2, 3]\n"+j1+"\n"), code: 2, want: []string{at("array.jsonl", 1)}},
		{name: "JSON Lines garbage line", args: estimateData("garbage.jsonl", j0+"\n{\"episode\":\n"), code: 2, want: []string{at("garbage.jsonl", 2)}},
		{name: "JSON Lines two objects on a line", args: estimateData("two.jsonl", j0+" "+j1+"\n"), code: 2, want: []string{at("two.jsonl", 1)}},
		{name: "JSON Lines reward a string", args: estimateData("reward-str.jsonl", j0+"\n"+strings.Replace(j1, `"reward":1`, `"reward":"1"`, 1)+"\n"), code: 2, want: []string{at("reward-str.jsonl", 2), "reward"}},
		{name: "JSON Lines pi_b true", args: estimateData("pib-bool.jsonl", strings.Replace(j0, `"pi_b":0.5`, `"pi_b":true`, 1)+"\n"+j1+"\n"), code: 2, want: []string{at("pib-bool.jsonl", 1), "pi_b"}},
		{name: "JSON Lines unknown field", args: estimateData("field.jsonl", strings.Replace(j0, `}`, `,"state":3}`, 1)+"\n"+j1+"\n"), code: 2, want: []string{at("field.jsonl", 1), "state"}},
		{name: "JSON Lines field the first lacked", args: estimateData("later.jsonl", j0+"\n"+strings.Replace(j1, `}`, `,"split":1}`, 1)+"\n"), code: 2, want: []string{at("later.jsonl", 2), "split"}},
		{name: "JSON Lines BOM on line 2", args: estimateData("bom2.jsonl", j0+"\n\ufeff"+j1+"\n"), code: 2, want: []string{at("bom2.jsonl", 2)}},
	}
	runHostile(t, cases)
}

// --- class 1: checkpoints ---

// TestHostileCheckpoint: run -resume from a checkpoint or shard file that
// is not one of this run's. Contract: exit 2 (bad input: a checkpoint
// file), naming the file and line; the output directory holds exactly
// what it held before (the checkpoint untouched).
func TestHostileCheckpoint(t *testing.T) {
	const ckpt = "out/checkpoint.jsonl"
	// resume writes content as OUT/checkpoint.jsonl and resumes base.yaml.
	resume := func(content func(e *hostileEnv, f *runFixture) string, flags ...string) func(e *hostileEnv) []string {
		return func(e *hostileEnv) []string {
			e.write(ckpt, content(e, getFixture(e.t)))
			return e.run(e.config("base.yaml"), append([]string{"-resume"}, flags...)...)
		}
	}
	// lines is a checkpoint of the header and the given lines.
	lines := func(mk func(e *hostileEnv, f *runFixture) []string) func(e *hostileEnv, f *runFixture) string {
		return func(e *hostileEnv, f *runFixture) string {
			return strings.Join(append([]string{checkpointHeader(f)}, mk(e, f)...), "\n") + "\n"
		}
	}
	unit := func(t *testing.T, f *runFixture, key string, v any) string { return setJSON(t, f.shard0[1], key, v) }
	cases := []hostileCase{
		{name: "garbage header", args: resume(func(e *hostileEnv, f *runFixture) string { return "this is not a checkpoint\n" + f.shard0[1] + "\n" }),
			code: 2, want: []string{at("checkpoint.jsonl", 1)}},
		{name: "binary garbage", args: resume(func(e *hostileEnv, f *runFixture) string { return "\x00\x01\xfe\xff\n\x00\n" }), code: 2, want: []string{at("checkpoint.jsonl", 1)}},
		{name: "empty file", args: resume(func(e *hostileEnv, f *runFixture) string { return "" }), code: 2, want: []string{"checkpoint.jsonl"}},
		{name: "header cut short", args: resume(func(e *hostileEnv, f *runFixture) string { return checkpointHeader(f)[:40] }), code: 2, want: []string{"checkpoint.jsonl"}},
		{name: "header of format 1", args: resume(func(e *hostileEnv, f *runFixture) string {
			return setJSON(e.t, checkpointHeader(f), "format", 1) + "\n"
		}), code: 2, want: []string{at("checkpoint.jsonl", 1), "format"}},
		{name: "header with a wrong fingerprint", args: resume(func(e *hostileEnv, f *runFixture) string {
			return setJSON(e.t, checkpointHeader(f), "fingerprint", "00000000000000000000000000000000") + "\n" + f.shard0[1] + "\n"
		}), code: 2, want: []string{at("checkpoint.jsonl", 1), "fingerprint"}},
		{name: "header config not an object", args: resume(func(e *hostileEnv, f *runFixture) string {
			return setJSON(e.t, checkpointHeader(f), "config", 7) + "\n"
		}), code: 2, want: []string{at("checkpoint.jsonl", 1)}},
		{name: "checkpoint of another seed", args: resume(func(e *hostileEnv, f *runFixture) string { return checkpointHeader(f) + "\n" }, "-seed", "4"),
			code: 2, want: []string{"checkpoint.jsonl"}},
		{name: "checkpoint of another shard", args: resume(func(e *hostileEnv, f *runFixture) string { return strings.Join(f.shard0, "\n") + "\n" }),
			code: 2, want: []string{"checkpoint.jsonl", "0/2"}},
		{name: "shard file of another shard", args: func(e *hostileEnv) []string {
			f := getFixture(e.t)
			e.shardFile("out/shard-1-of-2.jsonl", f.shard0...)
			return e.run(e.config("base.yaml"), "-resume", "-shard", "1/2")
		}, code: 2, want: []string{"shard-1-of-2.jsonl", "0/2"}},
		{name: "shard file with a unit of another shard", args: func(e *hostileEnv) []string {
			f := getFixture(e.t)
			e.shardFile("out/shard-0-of-2.jsonl", f.shard0[0], f.shard0[1], f.shard1[1])
			return e.run(e.config("base.yaml"), "-resume", "-shard", "0/2")
		}, code: 2, want: []string{at("shard-0-of-2.jsonl", 3)}},
		{name: "truncated line in the middle", args: resume(lines(func(e *hostileEnv, f *runFixture) []string {
			return []string{f.shard0[1][:len(f.shard0[1])/2], f.shard0[2]}
		})), code: 2, want: []string{at("checkpoint.jsonl", 2)}},
		{name: "conflicting duplicate unit", args: resume(lines(func(e *hostileEnv, f *runFixture) []string {
			return []string{f.shard0[1], unit(e.t, f, "estimates", [][]float64{{1, 2}, {3, 4}, {5, 6}})}
		})), code: 2, want: []string{at("checkpoint.jsonl", 3)}},
		{name: "unit of an unknown series", args: resume(lines(func(e *hostileEnv, f *runFixture) []string { return []string{unit(e.t, f, "series", "ghost")} })),
			code: 2, want: []string{at("checkpoint.jsonl", 2), "ghost"}},
		{name: "unit trial 99", args: resume(lines(func(e *hostileEnv, f *runFixture) []string { return []string{unit(e.t, f, "trial", 99)} })),
			code: 2, want: []string{at("checkpoint.jsonl", 2), "99"}},
		{name: "unit trial -1", args: resume(lines(func(e *hostileEnv, f *runFixture) []string { return []string{unit(e.t, f, "trial", -1)} })),
			code: 2, want: []string{at("checkpoint.jsonl", 2)}},
		{name: "unit trial 1.5", args: resume(lines(func(e *hostileEnv, f *runFixture) []string { return []string{unit(e.t, f, "trial", 1.5)} })),
			code: 2, want: []string{at("checkpoint.jsonl", 2)}},
		{name: "unit with too few estimators", args: resume(lines(func(e *hostileEnv, f *runFixture) []string {
			return []string{unit(e.t, f, "estimates", [][]float64{{1, 2}})}
		})), code: 2, want: []string{at("checkpoint.jsonl", 2)}},
		{name: "unit with too few sizes", args: resume(lines(func(e *hostileEnv, f *runFixture) []string {
			return []string{unit(e.t, f, "estimates", [][]float64{{1}, {2}, {3}})}
		})), code: 2, want: []string{at("checkpoint.jsonl", 2)}},
		{name: "unit estimates a string", args: resume(lines(func(e *hostileEnv, f *runFixture) []string { return []string{unit(e.t, f, "estimates", "many")} })),
			code: 2, want: []string{at("checkpoint.jsonl", 2)}},
		{name: "unit estimate 1e999", args: resume(lines(func(e *hostileEnv, f *runFixture) []string {
			return []string{strings.Replace(unit(e.t, f, "estimates", [][]float64{{7, 7}, {7, 7}, {7, 7}}), "[7,7]", "[1e999,7]", 1)}
		})), code: 2, want: []string{at("checkpoint.jsonl", 2)}},
		{name: "unit diagnostics of the wrong shape", args: resume(lines(func(e *hostileEnv, f *runFixture) []string {
			return []string{unit(e.t, f, "diagnostics", [][][][]float64{{}, {}, {{{1}}}})}
		})), code: 2, want: []string{at("checkpoint.jsonl", 2)}},
		{name: "unit null", args: resume(lines(func(e *hostileEnv, f *runFixture) []string { return []string{"null"} })), code: 2, want: []string{at("checkpoint.jsonl", 2)}},
		{name: "unit {}", args: resume(lines(func(e *hostileEnv, f *runFixture) []string { return []string{"{}"} })), code: 2, want: []string{at("checkpoint.jsonl", 2)}},
		{name: "checkpoint a directory", args: func(e *hostileEnv) []string {
			e.mkdir(ckpt)
			return e.run(e.config("base.yaml"), "-resume")
		}, code: 2, want: []string{"checkpoint.jsonl"}},
		// contract (run's help): a kill leaves at most a partial last line,
		// which -resume drops: this one is not hostile, it must work
		{name: "partial last line resumes", args: resume(func(e *hostileEnv, f *runFixture) string {
			return checkpointHeader(f) + "\n" + f.shard0[1] + "\n" + f.shard0[2][:20]
		}), code: 0, check: func(t *testing.T, e *hostileEnv, stdout, stderr string) {
			if _, err := os.Stat(filepath.Join(e.out, "curve.csv")); err != nil {
				t.Errorf("no curve.csv after resuming: %v", err)
			}
		}},
	}
	runHostile(t, cases)
}

// --- class 1: merge ---

// TestHostileMerge: merge of shard files that do not make one whole run.
// Contract: exit 2 (bad input: shard files), naming the file and line
// where there is one; nothing written.
func TestHostileMerge(t *testing.T) {
	merge := func(e *hostileEnv, files ...string) []string {
		return append([]string{"merge", "-quiet", "-out", e.out}, files...)
	}
	// shards writes shard 0 and shard 1 into dir sh and returns them.
	shards := func(e *hostileEnv) (string, string) {
		f := getFixture(e.t)
		return e.shardFile("sh/shard-0-of-2.jsonl", f.shard0...), e.shardFile("sh/shard-1-of-2.jsonl", f.shard1...)
	}
	cases := []hostileCase{
		{name: "a directory with no shards", args: func(e *hostileEnv) []string { return merge(e, e.mkdir("empty")) }, code: 2, want: []string{"x/empty"}},
		{name: "a directory of other files", args: func(e *hostileEnv) []string {
			e.write("other/notes.txt", "hello\n")
			e.write("other/checkpoint.jsonl", "{}\n")
			return merge(e, e.path("other"))
		}, code: 2, want: []string{"x/other"}},
		{name: "a missing file", args: func(e *hostileEnv) []string { return merge(e, e.path("shard-0-of-2.jsonl")) }, code: 2, want: []string{"shard-0-of-2.jsonl"}},
		{name: "an empty file", args: func(e *hostileEnv) []string { return merge(e, e.write("empty.jsonl", "")) }, code: 2, want: []string{"empty.jsonl"}},
		{name: "a garbage file", args: func(e *hostileEnv) []string { return merge(e, e.write("garbage.jsonl", "garbage\n")) }, code: 2, want: []string{at("garbage.jsonl", 1)}},
		{name: "a CSV file", args: func(e *hostileEnv) []string {
			s0, _ := shards(e)
			return merge(e, s0, e.write("curve.csv", string(getFixture(e.t).results["curve.csv"])))
		}, code: 2, want: []string{at("curve.csv", 1)}},
		{name: "missing units", args: func(e *hostileEnv) []string { s0, _ := shards(e); return merge(e, s0) }, code: 2, want: []string{"missing"}},
		{name: "shards of different seeds", args: func(e *hostileEnv) []string {
			s0, _ := shards(e)
			return merge(e, s0, e.shardFile("sh9/shard-1-of-2.jsonl", getFixture(e.t).shard1Seed9...))
		}, code: 2, want: []string{"sh9/shard-1-of-2.jsonl"}},
		{name: "the same shard twice", args: func(e *hostileEnv) []string { s0, _ := shards(e); return merge(e, s0, s0) }, code: 2, want: []string{"shard-0-of-2.jsonl"}},
		{name: "a copy of a shard", args: func(e *hostileEnv) []string {
			s0, s1 := shards(e)
			return merge(e, s0, s1, e.shardFile("copy.jsonl", getFixture(e.t).shard0...))
		}, code: 2, want: []string{"copy.jsonl"}},
		{name: "truncated line in the middle", args: func(e *hostileEnv) []string {
			s0, _ := shards(e)
			f := getFixture(e.t)
			return merge(e, s0, e.shardFile("cut/shard-1-of-2.jsonl", f.shard1[0], f.shard1[1][:30], f.shard1[2]))
		}, code: 2, want: []string{at("shard-1-of-2.jsonl", 2)}},
		{name: "conflicting duplicate unit", args: func(e *hostileEnv) []string {
			s0, _ := shards(e)
			f := getFixture(e.t)
			return merge(e, s0, e.shardFile("dup/shard-1-of-2.jsonl", f.shard1[0], f.shard1[1], setJSON(e.t, f.shard1[1], "estimates", [][]float64{{1, 2}, {3, 4}, {5, 6}}), f.shard1[2]))
		}, code: 2, want: []string{at("shard-1-of-2.jsonl", 3)}},
		{name: "header of format 1", args: func(e *hostileEnv) []string {
			s0, _ := shards(e)
			f := getFixture(e.t)
			return merge(e, s0, e.shardFile("old/shard-1-of-2.jsonl", append([]string{setJSON(e.t, f.shard1[0], "format", 1)}, f.shard1[1:]...)...))
		}, code: 2, want: []string{at("shard-1-of-2.jsonl", 1)}},
		{name: "header with a wrong fingerprint", args: func(e *hostileEnv) []string {
			s0, _ := shards(e)
			f := getFixture(e.t)
			return merge(e, s0, e.shardFile("fp/shard-1-of-2.jsonl", append([]string{setJSON(e.t, f.shard1[0], "fingerprint", "ffffffffffffffffffffffffffffffff")}, f.shard1[1:]...)...))
		}, code: 2, want: []string{at("shard-1-of-2.jsonl", 1)}},
		{name: "unit of an unknown series", args: func(e *hostileEnv) []string {
			s0, _ := shards(e)
			f := getFixture(e.t)
			return merge(e, s0, e.shardFile("ghost/shard-1-of-2.jsonl", f.shard1[0], setJSON(e.t, f.shard1[1], "series", "ghost"), f.shard1[2]))
		}, code: 2, want: []string{at("shard-1-of-2.jsonl", 2), "ghost"}},
		{name: "shard with a unit of another shard", args: func(e *hostileEnv) []string {
			_, s1 := shards(e)
			f := getFixture(e.t)
			return merge(e, e.shardFile("odd/shard-0-of-2.jsonl", f.shard0[0], f.shard0[1], f.shard1[1]), s1)
		}, code: 2, want: []string{"shard-0-of-2.jsonl"}},
	}
	runHostile(t, cases)
}

// --- class 1: results directories read back by plot and claims ---

// TestHostileResults: plot and claims on results directories that are
// missing files or hold corrupt ones. Contract: exit 2 (bad input: a
// results directory read back), naming the file and line where there is
// one; nothing on standard output (claims prints its table only whole);
// nothing written (plot leaves the old figure as it was).
func TestHostileResults(t *testing.T) {
	// plotAfter writes the good results directory res, lets corrupt change
	// it, and plots it.
	plotAfter := func(corrupt func(e *hostileEnv)) func(e *hostileEnv) []string {
		return func(e *hostileEnv) []string {
			res := e.results("res")
			corrupt(e)
			return []string{"plot", res}
		}
	}
	claimsAfter := func(corrupt func(e *hostileEnv)) func(e *hostileEnv) []string {
		return func(e *hostileEnv) []string {
			res := e.results("res")
			corrupt(e)
			return []string{"claims", res}
		}
	}
	// curve.csv of base.yaml: line 1 the header, lines 2-7 the rows
	// (pdis, wis, incris at n = 5, 10); columns experiment, series,
	// estimator, n, trials, true_value, mean_estimate, bias, variance, mse,
	// mse_se. claims.csv: claim, n, ratio, holds, lo, hi, p_le, p_gt; rows
	// c1 at n = 5, 10.
	const curve, claims, kstar, meta = "res/curve.csv", "res/claims.csv", "res/kstar.csv", "res/meta.json"
	cases := []hostileCase{
		{name: "plot a missing directory", args: func(e *hostileEnv) []string { return []string{"plot", e.path("nowhere")} }, code: 2, want: []string{"x/nowhere"}},
		{name: "plot a file", args: func(e *hostileEnv) []string { return []string{"plot", e.write("file", "x\n")} }, code: 2, want: []string{"x/file"}},
		{name: "plot an empty directory", args: func(e *hostileEnv) []string { return []string{"plot", e.mkdir("res")} }, code: 2, want: []string{"meta.json"}},
		{name: "plot without meta.json", args: plotAfter(func(e *hostileEnv) { e.remove(meta) }), code: 2, want: []string{"meta.json"}},
		{name: "plot meta.json garbage", args: plotAfter(func(e *hostileEnv) { e.write(meta, "garbage{\n") }), code: 2, want: []string{"meta.json"}},
		{name: "plot meta.json empty", args: plotAfter(func(e *hostileEnv) { e.write(meta, "") }), code: 2, want: []string{"meta.json"}},
		{name: "plot meta.json a list", args: plotAfter(func(e *hostileEnv) { e.write(meta, "[1, 2]\n") }), code: 2, want: []string{"meta.json"}},
		{name: "plot meta.json without config", args: plotAfter(func(e *hostileEnv) { e.write(meta, "{}\n") }), code: 2, want: []string{"meta.json"}},
		{name: "plot meta.json config a number", args: plotAfter(func(e *hostileEnv) { e.editMeta("res", func(m, c map[string]any) { m["config"] = 7 }) }), code: 2, want: []string{"meta.json"}},
		{name: "plot meta.json trials -1", args: plotAfter(func(e *hostileEnv) { e.editMeta("res", func(m, c map[string]any) { c["trials"] = -1 }) }), code: 2, want: []string{"meta.json", "trials"}},
		{name: "plot meta.json no series", args: plotAfter(func(e *hostileEnv) { e.editMeta("res", func(m, c map[string]any) { c["series"] = []any{} }) }), code: 2, want: []string{"meta.json", "series"}},
		{name: "plot meta.json unknown estimator", args: plotAfter(func(e *hostileEnv) {
			e.editMeta("res", func(m, c map[string]any) {
				c["series"].([]any)[0].(map[string]any)["estimators"] = []any{"pdis", "wiz", "incris"}
			})
		}), code: 2, want: []string{"meta.json", "wiz"}},
		{name: "plot without curve.csv", args: plotAfter(func(e *hostileEnv) { e.remove(curve) }), code: 2, want: []string{"curve.csv"}},
		{name: "plot curve.csv a directory", args: plotAfter(func(e *hostileEnv) { e.remove(curve); e.mkdir(curve) }), code: 2, want: []string{"curve.csv"}},
		{name: "plot curve.csv empty", args: plotAfter(func(e *hostileEnv) { e.write(curve, "") }), code: 2, want: []string{"curve.csv"}},
		{name: "plot curve.csv header only", args: plotAfter(func(e *hostileEnv) { e.write(curve, strings.SplitAfter(e.read(curve), "\n")[0]) }), code: 2, want: []string{"curve.csv"}},
		{name: "plot curve.csv binary garbage", args: plotAfter(func(e *hostileEnv) { e.write(curve, "\x00\x01\xfe\xff\x89PNG\r\n") }), code: 2, want: []string{at("curve.csv", 1)}},
		{name: "plot curve.csv bad header", args: plotAfter(func(e *hostileEnv) { e.editCSV(curve, 1, 0, "exp") }), code: 2, want: []string{at("curve.csv", 1)}},
		{name: "plot curve.csv columns swapped", args: plotAfter(func(e *hostileEnv) { e.editCSV(curve, 1, 9, "mse_se"); e.editCSV(curve, 1, 10, "mse") }), code: 2, want: []string{at("curve.csv", 1)}},
		{name: "plot curve.csv a column short", args: plotAfter(func(e *hostileEnv) { e.editCSV(curve, 3, -1, ",chain,pdis,10,4,0.6561,1.3,0.65,0.2,0.63") }), code: 2, want: []string{at("curve.csv", 3)}},
		{name: "plot curve.csv a column extra", args: plotAfter(func(e *hostileEnv) { e.editCSV(curve, 4, -1, strings.Split(e.read(curve), "\n")[3]+",9") }), code: 2, want: []string{at("curve.csv", 4)}},
		{name: "plot curve.csv mse a word", args: plotAfter(func(e *hostileEnv) { e.editCSV(curve, 4, 9, "abc") }), code: 2, want: []string{at("curve.csv", 4), "mse"}},
		{name: "plot curve.csv variance Inf", args: plotAfter(func(e *hostileEnv) { e.editCSV(curve, 2, 8, "Inf") }), code: 2, want: []string{at("curve.csv", 2), "variance"}},
		{name: "plot curve.csv mse -1", args: plotAfter(func(e *hostileEnv) { e.editCSV(curve, 2, 9, "-1") }), code: 2, want: []string{at("curve.csv", 2), "mse"}},
		{name: "plot curve.csv mean 0x1p-1", args: plotAfter(func(e *hostileEnv) { e.editCSV(curve, 5, 6, "0x1p-1") }), code: 2, want: []string{at("curve.csv", 5), "mean_estimate"}},
		{name: "plot curve.csv trials 4.5", args: plotAfter(func(e *hostileEnv) { e.editCSV(curve, 2, 4, "4.5") }), code: 2, want: []string{at("curve.csv", 2), "trials"}},
		{name: "plot curve.csv n off the grid", args: plotAfter(func(e *hostileEnv) { e.editCSV(curve, 2, 3, "7") }), code: 2, want: []string{at("curve.csv", 2), "7"}},
		{name: "plot curve.csv unknown series", args: plotAfter(func(e *hostileEnv) { e.editCSV(curve, 2, 1, "ghost") }), code: 2, want: []string{at("curve.csv", 2), "ghost"}},
		{name: "plot curve.csv row twice", args: plotAfter(func(e *hostileEnv) { e.editCSV(curve, 3, -1, strings.Split(e.read(curve), "\n")[1]) }), code: 2, want: []string{at("curve.csv", 3)}},
		{name: "plot curve.csv unterminated quote", args: plotAfter(func(e *hostileEnv) { e.editCSV(curve, 3, 1, `"chain`) }), code: 2, want: []string{at("curve.csv", 3)}},
		{name: "plot without kstar.csv", args: plotAfter(func(e *hostileEnv) { e.remove(kstar) }), code: 2, want: []string{"kstar.csv"}},
		{name: "plot kstar.csv bad header", args: plotAfter(func(e *hostileEnv) { e.editCSV(kstar, 1, 0, "serie") }), code: 2, want: []string{at("kstar.csv", 1)}},
		{name: "plot kstar.csv NaN", args: plotAfter(func(e *hostileEnv) { e.editCSV(kstar, 2, 4, "NaN") }), code: 2, want: []string{at("kstar.csv", 2)}},
		{name: "plot kstar.csv of an estimator without k*", args: plotAfter(func(e *hostileEnv) { e.editCSV(kstar, 2, 1, "pdis") }), code: 2, want: []string{at("kstar.csv", 2), "pdis"}},
		{name: "plot meta.json n not increasing", args: plotAfter(func(e *hostileEnv) { e.editMeta("res", func(m, c map[string]any) { c["n"] = []any{10, 5} }) }), code: 2, want: []string{"meta.json"}},
		{name: "claims a missing directory", args: func(e *hostileEnv) []string { return []string{"claims", e.path("nowhere")} }, code: 2, want: []string{"x/nowhere"}},
		{name: "claims an empty directory", args: func(e *hostileEnv) []string { return []string{"claims", e.mkdir("res")} }, code: 2, want: []string{"x/res"}},
		{name: "claims without meta.json", args: claimsAfter(func(e *hostileEnv) { e.remove(meta) }), code: 2, want: []string{"meta.json"}},
		{name: "claims meta.json garbage", args: claimsAfter(func(e *hostileEnv) { e.write(meta, "\x00garbage\n") }), code: 2, want: []string{"meta.json"}},
		{name: "claims without claims.csv", args: claimsAfter(func(e *hostileEnv) { e.remove(claims) }), code: 2, want: []string{"claims.csv"}},
		{name: "claims claims.csv a directory", args: claimsAfter(func(e *hostileEnv) { e.remove(claims); e.mkdir(claims) }), code: 2, want: []string{"claims.csv"}},
		{name: "claims claims.csv empty", args: claimsAfter(func(e *hostileEnv) { e.write(claims, "") }), code: 2, want: []string{"claims.csv"}},
		{name: "claims claims.csv bad header", args: claimsAfter(func(e *hostileEnv) { e.editCSV(claims, 1, 2, "ratios") }), code: 2, want: []string{at("claims.csv", 1)}},
		{name: "claims claims.csv a column short", args: claimsAfter(func(e *hostileEnv) { e.editCSV(claims, 2, -1, "c1,5,1") }), code: 2, want: []string{at("claims.csv", 2)}},
		{name: "claims claims.csv holds maybe", args: claimsAfter(func(e *hostileEnv) { e.editCSV(claims, 2, 3, "maybe") }), code: 2, want: []string{at("claims.csv", 2), "holds"}},
		{name: "claims claims.csv ratio a word", args: claimsAfter(func(e *hostileEnv) { e.editCSV(claims, 3, 2, "abc") }), code: 2, want: []string{at("claims.csv", 3), "ratio"}},
		{name: "claims claims.csv unknown claim", args: claimsAfter(func(e *hostileEnv) { e.editCSV(claims, 2, 0, "c9") }), code: 2, want: []string{at("claims.csv", 2), "c9"}},
		{name: "claims claims.csv n off the grid", args: claimsAfter(func(e *hostileEnv) { e.editCSV(claims, 3, 1, "7") }), code: 2, want: []string{at("claims.csv", 3)}},
		{name: "claims claims.csv ratio -1", args: claimsAfter(func(e *hostileEnv) { e.editCSV(claims, 2, 2, "-1") }), code: 2, want: []string{at("claims.csv", 2), "ratio"}},
		{name: "claims claims.csv row twice", args: claimsAfter(func(e *hostileEnv) { e.editCSV(claims, 3, -1, strings.Split(e.read(claims), "\n")[1]) }), code: 2, want: []string{at("claims.csv", 3)}},
		{name: "claims claims.csv a row missing", args: claimsAfter(func(e *hostileEnv) { e.write(claims, strings.Join(strings.Split(e.read(claims), "\n")[:2], "\n")+"\n") }), code: 2, want: []string{"claims.csv"}},
		// c1 holds at n when ratio <= max_ratio = 2: a ratio of 5 that holds is an edited file
		{name: "claims claims.csv holds against its ratio", args: claimsAfter(func(e *hostileEnv) { e.editCSV(claims, 3, 2, "5"); e.editCSV(claims, 3, 3, "true") }), code: 2, want: []string{at("claims.csv", 3), "holds"}},
		{name: "claims claims.csv hi below lo", args: claimsAfter(func(e *hostileEnv) { e.editCSV(claims, 2, 4, "2"); e.editCSV(claims, 2, 5, "1") }), code: 2, want: []string{at("claims.csv", 2), "hi"}},
		{name: "claims claims.csv p_le 0", args: claimsAfter(func(e *hostileEnv) { e.editCSV(claims, 2, 6, "0") }), code: 2, want: []string{at("claims.csv", 2), "p_le"}},
		{name: "claims claims.csv p_gt a word", args: claimsAfter(func(e *hostileEnv) { e.editCSV(claims, 3, 7, "abc") }), code: 2, want: []string{at("claims.csv", 3), "p_gt"}},
		{name: "claims second directory corrupt", args: func(e *hostileEnv) []string {
			good, bad := e.results("good"), e.results("bad")
			e.write("bad/claims.csv", "garbage\n")
			return []string{"claims", good, bad}
		}, code: 2, want: []string{at("bad/claims.csv", 1)}},
	}
	runHostile(t, cases)
}

// --- class 2: work too large for the memory budget, endless input ---

// TestHostileMemory: work that would need more memory than the budget,
// and input that never ends. Contract: exit 2 (bad input: work refused as
// too large for -max-memory; a config, logged data, a checkpoint or
// results file), naming the file and field; decided before anything
// large is allocated: each case runs in a child process and may allocate
// at most refusalAlloc.
func TestHostileMemory(t *testing.T) {
	refuse := func(c hostileCase) hostileCase {
		c.code, c.isolate, c.maxAlloc = 2, true, refusalAlloc
		return c
	}
	taxi := func(e *hostileEnv) string { return e.write("taxi.yaml", testdata(e.t, "taxi.yaml")) }
	cases := []hostileCase{
		refuse(hostileCase{name: "n [10, 1e11]", args: runConfig("big-n.yaml", edit{4, "n: [10, 100000000000]"}), want: []string{"big-n.yaml", "n["}}),
		refuse(hostileCase{name: "n [5, 1e8] under -max-memory 1GiB", args: func(e *hostileEnv) []string {
			return e.run(e.config("n1e8.yaml", edit{4, "n: [5, 100000000]"}), "-max-memory", "1GiB")
		}, want: []string{"n1e8.yaml", "memory"}}),
		refuse(hostileCase{name: "trials 1e11", args: runConfig("big-trials.yaml", edit{3, "trials: 100000000000"}), want: []string{"big-trials.yaml", "trials"}}),
		refuse(hostileCase{name: "-trials 1e11", args: func(e *hostileEnv) []string { return e.run(e.config("base.yaml"), "-trials", "100000000000") }, want: []string{"-trials"}}),
		refuse(hostileCase{name: "trials 1e7 under -max-memory 1GiB", args: func(e *hostileEnv) []string {
			return e.run(e.config("trials1e7.yaml", edit{3, "trials: 10000000"}), "-max-memory", "1GiB")
		}, want: []string{"trials1e7.yaml", "memory"}}),
		refuse(hostileCase{name: "chainmdp horizon 2^20 with incris", args: func(e *hostileEnv) []string {
			return e.run(e.config("h20.yaml", edit{8, "    params: {horizon: 1048576, p_e: 0.9}"}), "-max-memory", "1GiB")
		}, want: []string{"h20.yaml", "memory", "horizon"}}),
		refuse(hostileCase{name: "65536 sub-episodes with incris", args: func(e *hostileEnv) []string {
			return e.run(e.config("sub65536.yaml", edit{7, "    domain: subepisode"}, edit{8, "    params: {subepisodes: 65536}"}, edit{16, "#"}), "-max-memory", "1GiB")
		}, want: []string{"sub65536.yaml", "memory"}}),
		// the need follows the episodes' real lengths (the pilot drawn when
		// the config is validated), not the cap: a random behavior's
		// episodes last about 700 steps, 1e7 of them are far above 1 GiB
		refuse(hostileCase{name: "noisytaxi of long episodes (eps_b 1, cap 1e5) at n = 1e7 with incris", args: func(e *hostileEnv) []string {
			return e.run(e.config("taxi-cap.yaml", edit{4, "n: [5, 10000000]"}, edit{7, "    domain: noisytaxi"},
				edit{8, "    params: {cap: 100000, eps_b: 1, mc_episodes: 0}"}, edit{16, "#"}), "-max-memory", "1GiB")
		}, want: []string{"taxi-cap.yaml", "memory", "n[1]"}}),
		refuse(hostileCase{name: "shard of a huge run", args: func(e *hostileEnv) []string {
			return e.run(e.config("h20-shard.yaml", edit{8, "    params: {horizon: 1048576, p_e: 0.9}"}), "-max-memory", "1GiB", "-shard", "1/3")
		}, want: []string{"h20-shard.yaml", "memory"}}),
		refuse(hostileCase{name: "noisytaxi truth of 1e12 Monte Carlo episodes", args: func(e *hostileEnv) []string {
			return e.run(e.write("taxi-mc.yaml", applyEdits(e.t, testdata(e.t, "taxi.yaml"), []edit{{8, "    params: {cap: 20, mc_episodes: 1000000000000}"}})), "-max-memory", "1GiB")
		}, want: []string{"taxi-mc.yaml", "mc_episodes"}}),
		refuse(hostileCase{name: "estimate -bootstrap 1e9", args: func(e *hostileEnv) []string {
			return estimate(e.write("ok.csv", testdata(e.t, "ok.csv")), "-bootstrap", "1000000000", "-max-memory", "1GiB")
		}, want: []string{"-bootstrap", "1000000000"}}),
		refuse(hostileCase{name: "estimate incris at H = 20000", args: func(e *hostileEnv) []string {
			var b strings.Builder
			b.WriteString(csvHead)
			for s := range 20000 {
				fmt.Fprintf(&b, "a,%d,0,0.5,0.5\n", s)
			}
			b.WriteString("b,0,1,0.5,0.5\n")
			return estimate(e.write("long.csv", b.String()), "-bootstrap", "0", "-estimators", "incris", "-max-memory", "1GiB")
		}, want: []string{"long.csv", "incris"}}),
		refuse(hostileCase{name: "run /dev/zero", args: func(e *hostileEnv) []string { return e.run("/dev/zero") }, want: []string{"/dev/zero"}}),
		refuse(hostileCase{name: "estimate /dev/zero", args: func(e *hostileEnv) []string { return estimate("/dev/zero") }, want: []string{"/dev/zero"}}),
		refuse(hostileCase{name: "estimate -format jsonl /dev/zero", args: func(e *hostileEnv) []string { return estimate("/dev/zero", "-format", "jsonl") }, want: []string{"/dev/zero"}}),
		refuse(hostileCase{name: "merge /dev/zero", args: func(e *hostileEnv) []string { return []string{"merge", "-quiet", "-out", e.out, "/dev/zero"} }, want: []string{"/dev/zero"}}),
		refuse(hostileCase{name: "resume a checkpoint linked to /dev/zero", args: func(e *hostileEnv) []string {
			e.symlink("out/checkpoint.jsonl", "/dev/zero")
			return e.run(e.config("base.yaml"), "-resume")
		}, want: []string{"checkpoint.jsonl"}}),
		refuse(hostileCase{name: "plot curve.csv linked to /dev/zero", args: func(e *hostileEnv) []string {
			res := e.results("res")
			e.remove("res/curve.csv")
			e.symlink("res/curve.csv", "/dev/zero")
			return []string{"plot", res}
		}, want: []string{"curve.csv"}}),
		refuse(hostileCase{name: "plot meta.json linked to /dev/zero", args: func(e *hostileEnv) []string {
			res := e.results("res")
			e.remove("res/meta.json")
			e.symlink("res/meta.json", "/dev/zero")
			return []string{"plot", res}
		}, want: []string{"meta.json"}}),
		refuse(hostileCase{name: "claims claims.csv linked to /dev/zero", args: func(e *hostileEnv) []string {
			res := e.results("res")
			e.remove("res/claims.csv")
			e.symlink("res/claims.csv", "/dev/zero")
			return []string{"claims", res}
		}, want: []string{"claims.csv"}}),
		// -workers is how many goroutines, never what they need: a huge one
		// is capped by the work, not refused and not allocated
		{name: "run -workers 1e9", args: func(e *hostileEnv) []string { return e.run(e.config("base.yaml"), "-workers", "1000000000") }, code: 0, isolate: true, maxAlloc: refusalAlloc},
		{name: "estimate -workers 1e9", args: func(e *hostileEnv) []string {
			return estimate(e.write("ok.csv", testdata(e.t, "ok.csv")), "-workers", "1000000000")
		}, code: 0, isolate: true, maxAlloc: refusalAlloc},
		refuse(hostileCase{name: "estimate - with /dev/zero on standard input", args: func(e *hostileEnv) []string { return estimate("-") }, stdin: "/dev/zero", want: []string{"standard input"}}),
		refuse(hostileCase{name: "estimate -format jsonl - with /dev/zero on standard input", args: func(e *hostileEnv) []string { return estimate("-", "-format", "jsonl") }, stdin: "/dev/zero", want: []string{"standard input"}}),
		// a sanity check of the budget itself: the tiny taxi run fits in 1 GiB
		{name: "a small run fits -max-memory 1GiB", args: func(e *hostileEnv) []string { return e.run(taxi(e), "-max-memory", "1GiB") }, code: 0},
	}
	runHostile(t, cases)
}

// --- class 4: outputs all or nothing ---

// TestHostileAllOrNothing: runs, merges and redraws whose outputs cannot
// all be written. Contract (and the issue): a non-zero exit and none of
// curve.csv, claims.csv, meta.json... written: the output directory holds
// what it held before, but for the checkpoint a run keeps for -resume. A
// directory where a run or a merge writes one of its files is bad input
// found before the first unit runs (issue 29 item 7): exit 2, naming it,
// and nothing written, not even a checkpoint.
func TestHostileAllOrNothing(t *testing.T) {
	keep := []string{"out", "out/checkpoint.jsonl"}
	// blocked pre-creates file as a directory in OUT and runs base.yaml.
	blocked := func(file string) hostileCase {
		return hostileCase{name: "run with " + file + " a directory", args: func(e *hostileEnv) []string {
			e.mkdir(filepath.Join("out", file))
			return e.run(e.config("base.yaml"))
		}, code: 2, want: []string{file, "is a directory, where the run writes its " + file}, check: noOutputs(runOutputs...)}
	}
	cases := []hostileCase{
		{name: "run with a 300-character name", args: runConfig("long-name.yaml", edit{1, "name: " + strings.Repeat("n", 300)}),
			code: anyFailure, want: []string{"name"}, mayChange: keep, check: noOutputs("curve.csv", "series.csv", "kstar.csv", "claims.csv", "claims.md", "meta.json")},
		blocked("curve.csv"),
		blocked("series.csv"),
		blocked("kstar.csv"),
		blocked("claims.csv"),
		blocked("claims.md"),
		blocked("meta.json"),
		blocked("tiny.png"),
		blocked("tiny.svg"),
		{name: "run with checkpoint.jsonl a directory", args: func(e *hostileEnv) []string {
			e.mkdir("out/checkpoint.jsonl")
			return e.run(e.config("base.yaml"))
		}, code: anyFailure, want: []string{"checkpoint.jsonl"}, check: noOutputs(runOutputs...)},
		{name: "run with -out a file", args: func(e *hostileEnv) []string {
			e.write("out", "not a directory\n")
			return e.run(e.config("base.yaml"))
		}, code: 2, want: []string{"x/out"}},
		{name: "rerun over old results with the figure blocked", args: func(e *hostileEnv) []string {
			e.results("out")
			e.remove("out/tiny.svg")
			e.mkdir("out/tiny.svg")
			return e.run(e.config("base.yaml"), "-seed", "4")
		}, code: 2, want: []string{"tiny.svg", "is a directory"}},
		{name: "merge with curve.csv a directory", args: func(e *hostileEnv) []string {
			f := getFixture(e.t)
			s0, s1 := e.shardFile("sh/shard-0-of-2.jsonl", f.shard0...), e.shardFile("sh/shard-1-of-2.jsonl", f.shard1...)
			e.mkdir("out/curve.csv")
			return []string{"merge", "-quiet", "-out", e.out, s0, s1}
		}, code: 2, want: []string{"curve.csv", "is a directory"}, check: noOutputs(runOutputs...)},
		{name: "plot with the svg a directory", args: func(e *hostileEnv) []string {
			res := e.results("res")
			e.remove("res/tiny.svg")
			e.mkdir("res/tiny.svg")
			return []string{"plot", res}
		}, code: anyFailure, want: []string{"tiny.svg"}},
		{name: "plot with the png a directory", args: func(e *hostileEnv) []string {
			res := e.results("res")
			e.remove("res/tiny.png")
			e.mkdir("res/tiny.png")
			return []string{"plot", res}
		}, code: anyFailure, want: []string{"tiny.png"}},
	}
	runHostile(t, cases)
}

// --- class 5: an output directory in use ---

// TestHostileLock: a second runexp on an output directory a running one
// writes to. Contract: exit 2 (an output directory or checkpoint in use
// by another runexp), naming it; nothing of the second run written. The
// holder is a real child process running slow.yaml.
func TestHostileLock(t *testing.T) {
	// busyShard starts a child runexp of slow.yaml into e.out, with
	// -shard shard unless empty, and waits until it checkpoints.
	busyShard := func(e *hostileEnv, shard string) {
		ctx, cancel := context.WithCancel(context.Background())
		var o, errBuf bytes.Buffer
		args := []string{"run", "-quiet", "-workers", "1", "-out", e.out}
		ckpt := "checkpoint.jsonl"
		if shard != "" {
			args = append(args, "-shard", shard)
			i, n, _ := strings.Cut(shard, "/")
			ckpt = "shard-" + i + "-of-" + n + ".jsonl"
		}
		cmd := startChild(ctx, e.t, append(args, e.write("slow.yaml", testdata(e.t, "slow.yaml"))),
			&o, &errBuf, filepath.Join(e.t.TempDir(), "alloc"), "")
		e.t.Cleanup(func() { cancel(); cmd.Wait() })
		// 30 s: a loaded machine (load 10 on 2 cores) once took over 5 s
		// to checkpoint the first unit; the wait is a precondition, not
		// what the test measures.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if b, err := os.ReadFile(filepath.Join(e.out, ckpt)); err == nil && bytes.Count(b, []byte("\n")) >= 2 {
				return
			}
			if time.Now().After(deadline) {
				e.t.Fatalf("the holder did not start: %s", errBuf.String())
			}
		}
	}
	busy := func(e *hostileEnv) { busyShard(e, "") }
	inUse := []string{"out", "out/*"} // the holder writes there meanwhile
	cases := []hostileCase{
		{name: "run into a directory in use", args: func(e *hostileEnv) []string { busy(e); return e.run(e.config("base.yaml")) },
			code: 2, want: []string{"x/out"}, mayChange: inUse, isolate: true, check: noOutputs(runOutputs...)},
		{name: "resume a checkpoint in use", args: func(e *hostileEnv) []string {
			busy(e)
			return e.run(e.write("slow.yaml", testdata(e.t, "slow.yaml")), "-resume", "-workers", "1")
		}, code: 2, want: []string{"x/out"}, mayChange: inUse, isolate: true, check: noOutputs("curve.csv", "meta.json", "slow.png")},
		// (other shards of one run may share a directory: each has its own file)
		{name: "run a shard whose file is in use", args: func(e *hostileEnv) []string {
			busyShard(e, "1/2")
			return e.run(e.write("slow.yaml", testdata(e.t, "slow.yaml")), "-shard", "1/2", "-workers", "1")
		}, code: 2, want: []string{"shard-1-of-2.jsonl"}, mayChange: inUse, isolate: true},
		{name: "merge into a directory in use", args: func(e *hostileEnv) []string {
			busy(e)
			f := getFixture(e.t)
			return []string{"merge", "-quiet", "-out", e.out, e.shardFile("sh/shard-0-of-2.jsonl", f.shard0...), e.shardFile("sh/shard-1-of-2.jsonl", f.shard1...)}
		}, code: 2, want: []string{"x/out"}, mayChange: inUse, isolate: true, check: noOutputs(runOutputs...)},
	}
	runHostile(t, cases)
}

// --- class 6: writes outside the results directory, corrupt results ---

// TestHostileOutside: names that would put a file outside its directory,
// and results files a reader must refuse rather than draw. Contract: exit
// 2 (bad input: a config, a results directory read back), naming the
// file; nothing written anywhere (the snapshot covers the parents of the
// results and output directories).
func TestHostileOutside(t *testing.T) {
	plotNamed := func(name func(e *hostileEnv) string) func(e *hostileEnv) []string {
		return func(e *hostileEnv) []string {
			res := e.results("res")
			e.editMeta("res", func(m, c map[string]any) { c["name"] = name(e) })
			return []string{"plot", res}
		}
	}
	named := func(s string) func(e *hostileEnv) string { return func(*hostileEnv) string { return s } }
	cases := []hostileCase{
		{name: "plot meta.json name ../../evil", args: plotNamed(named("../../evil")), code: 2, want: []string{"meta.json", "name"},
			check: func(t *testing.T, e *hostileEnv, stdout, stderr string) {
				for _, p := range []string{filepath.Join(e.root, "w", "evil.png"), filepath.Join(e.root, "w", "evil.svg")} {
					if _, err := os.Stat(p); err == nil {
						t.Errorf("plot wrote %s, outside the results directory", p)
					}
				}
			}},
		{name: "plot meta.json name ..", args: plotNamed(named("..")), code: 2, want: []string{"meta.json", "name"}},
		{name: "plot meta.json name .", args: plotNamed(named(".")), code: 2, want: []string{"meta.json", "name"}},
		{name: "plot meta.json name an absolute path", args: plotNamed(func(e *hostileEnv) string { return filepath.Join(e.root, "abs-evil") }), code: 2, want: []string{"meta.json", "name"}},
		{name: "plot meta.json name with a newline", args: plotNamed(named("ti\nny")), code: 2, want: []string{"meta.json", "name"}},
		{name: "plot meta.json series ../x", args: func(e *hostileEnv) []string {
			res := e.results("res")
			e.editMeta("res", func(m, c map[string]any) { c["series"].([]any)[0].(map[string]any)["name"] = "../x" })
			return []string{"plot", res}
		}, code: 2, want: []string{"meta.json"}},
		{name: "run config name ..", args: runConfig("dotdot.yaml", edit{1, "name: .."}), code: 2, want: []string{at("dotdot.yaml", 1), "name"}},
		{name: "run config name .", args: runConfig("dot.yaml", edit{1, "name: ."}), code: 2, want: []string{at("dot.yaml", 1), "name"}},
		{name: "run config name ../evil", args: runConfig("evil.yaml", edit{1, "name: ../evil"}), code: 2, want: []string{at("evil.yaml", 1), "name"}},
		{name: "run config name an absolute path", args: func(e *hostileEnv) []string {
			return e.run(e.config("abs.yaml", edit{1, "name: " + filepath.Join(e.root, "abs-evil")}))
		}, code: 2, want: []string{at("abs.yaml", 1), "name"}},
		// an output that is a symbolic link to a file elsewhere: whether the
		// command refuses or replaces the link, the file it points to is
		// never written
		{name: "plot with the png a link outside", args: func(e *hostileEnv) []string {
			res := e.results("res")
			victim := e.write("../victim.png", "victim\n")
			e.remove("res/tiny.png")
			e.symlink("res/tiny.png", victim)
			return []string{"plot", res}
		}, code: anyStatus, check: untouched("../victim.png", "victim\n")},
		{name: "rerun with curve.csv a link outside", args: func(e *hostileEnv) []string {
			e.results("out")
			victim := e.write("../victim.csv", "victim\n")
			e.remove("out/curve.csv")
			e.symlink("out/curve.csv", victim)
			return e.run(e.config("base.yaml"), "-seed", "4")
		}, code: anyStatus, check: untouched("../victim.csv", "victim\n")},
		{name: "run with the checkpoint a link outside", args: func(e *hostileEnv) []string {
			victim := e.write("../victim.jsonl", "victim\n")
			e.symlink("out/checkpoint.jsonl", victim)
			return e.run(e.config("base.yaml"))
		}, code: anyStatus, check: untouched("../victim.jsonl", "victim\n")},
		{name: "plot curve.csv holding NaN", args: func(e *hostileEnv) []string {
			res := e.results("res")
			e.editCSV("res/curve.csv", 3, 9, "NaN")
			return []string{"plot", res}
		}, code: 2, want: []string{at("curve.csv", 3), "mse"}},
		{name: "plot curve.csv holding NaN bias", args: func(e *hostileEnv) []string {
			res := e.results("res")
			e.editCSV("res/curve.csv", 6, 7, "NaN")
			return []string{"plot", res}
		}, code: 2, want: []string{at("curve.csv", 6), "bias"}},
		{name: "claims corrupt claims.csv", args: func(e *hostileEnv) []string {
			res := e.results("res")
			e.write("res/claims.csv", "\x00\x01garbage\xff\n")
			return []string{"claims", res}
		}, code: 2, want: []string{at("claims.csv", 1)}},
		{name: "claims claims.csv ratio NaN", args: func(e *hostileEnv) []string {
			res := e.results("res")
			e.editCSV("res/claims.csv", 2, 2, "NaN")
			return []string{"claims", res}
		}, code: 2, want: []string{at("claims.csv", 2), "ratio"}},
	}
	runHostile(t, cases)
}

// untouched checks that the file rel (under e.dir) still holds content.
func untouched(rel, content string) func(t *testing.T, e *hostileEnv, stdout, stderr string) {
	return func(t *testing.T, e *hostileEnv, stdout, stderr string) {
		if b, err := os.ReadFile(e.path(rel)); err != nil || string(b) != content {
			t.Errorf("%s, outside the output directory, was written through a link: now %q (%v)", rel, b, err)
		}
	}
}

// --- class 7: the truth cache ---

// truthFixture is a cached true value of taxi.yaml: the cache entries
// (relative path under XDG_CACHE_HOME and bytes) and the value meta.json
// records.
type truthFixture struct {
	entries map[string][]byte
	value   float64
	err     error
}

var (
	truthOnce sync.Once
	truth     truthFixture
)

// getTruth runs taxi.yaml once with an empty cache (XDG_CACHE_HOME as the
// calling case set it) and keeps what it cached.
func getTruth(t *testing.T) *truthFixture {
	t.Helper()
	truthOnce.Do(func() {
		tmp, err := os.MkdirTemp("", "hostile-truth")
		if err != nil {
			truth.err = err
			return
		}
		defer os.RemoveAll(tmp)
		cache := os.Getenv("XDG_CACHE_HOME")
		cfg := filepath.Join(tmp, "taxi.yaml")
		os.WriteFile(cfg, []byte(testdata(t, "taxi.yaml")), 0o644)
		var o, e bytes.Buffer
		if code := Main([]string{"run", "-quiet", "-out", filepath.Join(tmp, "out"), cfg}, &o, &e); code != 0 {
			truth.err = fmt.Errorf("exit %d: %s", code, e.String())
			return
		}
		truth.value, truth.err = metaTruth(filepath.Join(tmp, "out"))
		truth.entries = map[string][]byte{}
		filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				rel, _ := filepath.Rel(cache, p)
				truth.entries[rel], _ = os.ReadFile(p)
			}
			return nil
		})
		if truth.err == nil && len(truth.entries) != 1 {
			truth.err = fmt.Errorf("%d cache entries after a run of taxi.yaml, want 1", len(truth.entries))
		}
	})
	if truth.err != nil {
		t.Fatalf("truth fixture: %v", truth.err)
	}
	return &truth
}

// metaTruth reads the first true value meta.json records.
func metaTruth(dir string) (float64, error) {
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return 0, err
	}
	var m struct {
		Truths []struct {
			Value float64 `json:"value"`
		} `json:"truths"`
	}
	if err := json.Unmarshal(b, &m); err != nil || len(m.Truths) == 0 {
		return 0, fmt.Errorf("meta.json without truths: %v", err)
	}
	return m.Truths[0].Value, nil
}

// TestHostileTruthCache: cache entries edited by hand. Contract (the
// issue; truthcache.Cache "saves time, it never decides a result"): the
// run succeeds, warns on stderr about an entry that disagrees with the
// recomputed value, and records the recomputed value.
func TestHostileTruthCache(t *testing.T) {
	// tampered writes the cache entry, changed by edit, under e.dir/cache
	// and points XDG_CACHE_HOME there.
	tampered := func(edit func(e *hostileEnv, entry map[string]any) string) func(e *hostileEnv) []string {
		return func(e *hostileEnv) []string {
			tr := getTruth(e.t)
			for rel, b := range tr.entries {
				var entry map[string]any
				if err := json.Unmarshal(b, &entry); err != nil {
					e.t.Fatal(err)
				}
				e.write(filepath.Join("cache", rel), edit(e, entry))
			}
			e.t.Setenv("XDG_CACHE_HOME", e.path("cache"))
			return e.run(e.write("taxi.yaml", testdata(e.t, "taxi.yaml")))
		}
	}
	asJSON := func(e *hostileEnv, v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			e.t.Fatal(err)
		}
		return string(b)
	}
	recomputed := func(t *testing.T, e *hostileEnv, stdout, stderr string) {
		v, err := metaTruth(e.out)
		if err != nil {
			t.Fatal(err)
		}
		if want := getTruth(t).value; v != want {
			t.Errorf("meta.json records the true value %v, want the recomputed %v", v, want)
		}
	}
	cases := []hostileCase{
		{name: "entry value edited to 999", args: tampered(func(e *hostileEnv, entry map[string]any) string {
			entry["value"] = 999
			return asJSON(e, entry)
		}), code: 0, want: []string{"cache"}, check: recomputed},
		{name: "entry value and exact_value edited to 999", args: tampered(func(e *hostileEnv, entry map[string]any) string {
			entry["value"] = 999
			if x, ok := entry["extra"].(map[string]any); ok {
				x["exact_value"] = 999
			}
			return asJSON(e, entry)
		}), code: 0, want: []string{"cache"}, check: recomputed},
		{name: "entry garbage", args: tampered(func(e *hostileEnv, entry map[string]any) string { return "\x00garbage" }), code: 0, check: recomputed},
		{name: "entry value a string", args: tampered(func(e *hostileEnv, entry map[string]any) string {
			entry["value"] = "999"
			return asJSON(e, entry)
		}), code: 0, check: recomputed},
		{name: "cache directory a file", args: func(e *hostileEnv) []string {
			getTruth(e.t) // before pointing the cache at the file
			e.write("cache/ope-longhorizon", "not a directory\n")
			e.t.Setenv("XDG_CACHE_HOME", e.path("cache"))
			return e.run(e.write("taxi.yaml", testdata(e.t, "taxi.yaml")))
		}, code: 0, check: recomputed},
	}
	runHostile(t, cases)
}

// --- class 8: byte order marks ---

// TestHostileBOM: logged data with a UTF-8 byte order mark, which `runexp
// help data` says is ignored. Contract: exit 0, the estimates printed.
func TestHostileBOM(t *testing.T) {
	printed := func(t *testing.T, e *hostileEnv, stdout, stderr string) {
		if !strings.Contains(stdout, "3 episodes, 6 steps, horizon 2") {
			t.Errorf("stdout does not describe the data:\n%s", stdout)
		}
	}
	bom := func(file, fixture string, crlf bool, flags ...string) func(e *hostileEnv) []string {
		return func(e *hostileEnv) []string {
			text := testdata(e.t, fixture)
			if crlf {
				text = strings.ReplaceAll(text, "\n", "\r\n")
			}
			return estimate(e.write(file, "\ufeff"+text), flags...)
		}
	}
	cases := []hostileCase{
		{name: "JSON Lines with a BOM", args: bom("bom.jsonl", "ok.jsonl", false), code: 0, check: printed},
		{name: "JSON Lines with a BOM and -format jsonl", args: bom("bom.txt", "ok.jsonl", false, "-format", "jsonl"), code: 0, check: printed},
		{name: "JSON Lines with a BOM and CRLF", args: bom("bom-crlf.jsonl", "ok.jsonl", true), code: 0, check: printed},
		{name: "CSV with a BOM", args: bom("bom.csv", "ok.csv", false), code: 0, check: printed},
		{name: "CSV with a BOM and CRLF", args: bom("bom-crlf.csv", "ok.csv", true), code: 0, check: printed},
	}
	runHostile(t, cases)
}
