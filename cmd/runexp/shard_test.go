package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test re-run this binary as runexp itself: with
// RUNEXP_AS_MAIN=1 the process is the command, so a test can kill a real
// child process mid-run.
func TestMain(m *testing.M) {
	if os.Getenv("RUNEXP_AS_MAIN") == "1" {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	// The truth cache lives in the user's cache directory: point it at a
	// temporary one, so that tests neither read stale values nor write to
	// the user's cache (child processes inherit it).
	dir, _ := os.MkdirTemp("", "truthcache")
	// The go command's build cache lives there too: keep it where it was,
	// so that the programs tests build (the external PDIS) come from it.
	if os.Getenv("GOCACHE") == "" {
		if d, err := os.UserCacheDir(); err == nil {
			os.Setenv("GOCACHE", filepath.Join(d, "go-build"))
		}
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const smallConfig = "../../experiments/testdata/small.yaml"

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	var o, e bytes.Buffer
	if code := Main(args, &o, &e); code != 0 {
		t.Fatalf("runexp %v: exit %d\n%s", args, code, e.String())
	}
	return o.String()
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestShardMergeEqualsUnsharded: for N = 1, 2, 3, 7, running every shard
// and merging gives the same curve.csv and kstar.csv bytes as one run.
func TestShardMergeEqualsUnsharded(t *testing.T) {
	base := t.TempDir()
	whole := filepath.Join(base, "whole")
	mustRun(t, "run", "-quiet", "-out", whole, smallConfig)
	for _, n := range []int{1, 2, 3, 7} {
		dir := filepath.Join(base, fmt.Sprintf("n%d", n))
		for i := 0; i < n; i++ {
			mustRun(t, "run", "-quiet", "-workers", "2", "-shard", fmt.Sprintf("%d/%d", i, n), "-out", dir, smallConfig)
		}
		if n == 1 {
			// -shard 0/1 is the whole run: it writes the outputs directly.
			if !bytes.Equal(readFile(t, filepath.Join(dir, "curve.csv")), readFile(t, filepath.Join(whole, "curve.csv"))) {
				t.Errorf("N=1: curve.csv differs")
			}
			continue
		}
		mustRun(t, "merge", "-quiet", dir)
		for _, f := range []string{"curve.csv", "kstar.csv", "claims.csv"} {
			if !bytes.Equal(readFile(t, filepath.Join(dir, f)), readFile(t, filepath.Join(whole, f))) {
				t.Errorf("N=%d: merged %s differs from the unsharded run", n, f)
			}
		}
	}
}

func TestMergeRefusesMixedOrIncomplete(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	mustRun(t, "run", "-quiet", "-shard", "0/2", "-out", a, smallConfig)
	mustRun(t, "run", "-quiet", "-shard", "1/2", "-seed", "99", "-out", b, smallConfig)
	var o, e bytes.Buffer
	code := Main([]string{"merge", filepath.Join(a, "shard-0-of-2.jsonl"), filepath.Join(b, "shard-1-of-2.jsonl")}, &o, &e)
	if code == 0 || !strings.Contains(e.String(), "different configs or seeds") {
		t.Errorf("mixed seeds: exit %d, %q", code, e.String())
	}
	e.Reset()
	code = Main([]string{"merge", a}, &o, &e)
	if code == 0 || !strings.Contains(e.String(), "units missing") {
		t.Errorf("missing shard: exit %d, %q", code, e.String())
	}
	e.Reset()
	code = Main([]string{"merge", filepath.Join(a, "shard-0-of-2.jsonl"), filepath.Join(a, "shard-0-of-2.jsonl")}, &o, &e)
	if code == 0 || !strings.Contains(e.String(), "is in both") {
		t.Errorf("duplicate shard: exit %d, %q", code, e.String())
	}
}

func TestResumeRefusesOtherConfig(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "run", "-quiet", "-shard", "0/2", "-out", dir, smallConfig)
	var o, e bytes.Buffer
	code := Main([]string{"run", "-quiet", "-resume", "-seed", "5", "-shard", "0/2", "-out", dir, smallConfig}, &o, &e)
	if code == 0 || !strings.Contains(e.String(), "seed is 7 there and 5 here (-seed 7 resumes it)") {
		t.Errorf("exit %d, %q", code, e.String())
	}
}

// TestKillAndResume really stops a child runexp mid-run, by SIGKILL and by
// SIGINT (which must exit 130 after checkpointing), resumes in-process, and
// checks that the result equals an uninterrupted run byte for byte and that
// no finished unit was redone.
func TestKillAndResume(t *testing.T) {
	base := t.TempDir()
	cfg := filepath.Join(base, "slow.yaml")
	// 4 series x 40 trials of subepisode data, one worker: a few seconds.
	os.WriteFile(cfg, []byte(`name: slow
seed: 5
trials: 40
n: [50, 400]
series:
  - name: s
    domain: subepisode
    params: {p_e: [0.6, 0.75, 0.9, 1.0]}
    estimators: [pdis, cwpdis, incris]
`), 0o644)
	const units = 160
	whole := filepath.Join(base, "whole")
	mustRun(t, "run", "-quiet", "-out", whole, cfg)

	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := filepath.Join(base, fmt.Sprint(int(sig)))
			cmd := exec.Command(os.Args[0], "run", "-quiet", "-workers", "1", "-out", dir, cfg)
			cmd.Env = append(os.Environ(), "RUNEXP_AS_MAIN=1")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			ckpt := filepath.Join(dir, "checkpoint.jsonl")
			deadline := time.Now().Add(60 * time.Second)
			for countLines(ckpt) < 1+20 { // header + 20 units
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("child wrote no checkpoint lines in time")
				}
				time.Sleep(2 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			if sig == syscall.SIGINT {
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
					t.Errorf("after SIGINT: %v, want exit status 130", err)
				}
			}
			done := countLines(ckpt) - 1
			if done >= units {
				t.Fatalf("child finished all %d units before the signal: make the config slower", units)
			}
			var o, e bytes.Buffer
			if code := Main([]string{"run", "-resume", "-quiet", "-out", dir, cfg}, &o, &e); code != 0 {
				t.Fatalf("resume: exit %d: %s", code, e.String())
			}
			want := fmt.Sprintf("%d units already done, %d to run", done, units-done)
			if !strings.Contains(e.String(), want) {
				t.Errorf("resume said %q, want %q", e.String(), want)
			}
			for _, f := range []string{"curve.csv", "kstar.csv"} {
				if !bytes.Equal(readFile(t, filepath.Join(dir, f)), readFile(t, filepath.Join(whole, f))) {
					t.Errorf("%s after %v and resume differs from the uninterrupted run", f, sig)
				}
			}
			if _, err := os.Stat(ckpt); !os.IsNotExist(err) {
				t.Error("checkpoint left behind after a finished run")
			}
		})
	}
}

// countLines counts complete lines (a partial last line is not counted).
func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	r := bufio.NewReader(f)
	for {
		if _, err := r.ReadBytes('\n'); err != nil {
			return n
		}
		n++
	}
}
