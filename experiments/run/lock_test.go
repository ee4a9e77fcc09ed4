package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ope-lab/longhorizon/experiments/unit"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/lock"
)

// gate is a Progress that tells started its name when a run starts its
// units (its locks taken, its checkpoint open), then holds the run there
// until release is closed.
type gate struct {
	name    string
	started chan<- string
	release <-chan struct{}
}

func (g *gate) Start(int) { g.started <- g.name; <-g.release }
func (g *gate) Add(int)   {}
func (g *gate) Finish()   {}

// execResult is what one Execute of a test returned.
type execResult struct {
	name string
	o    *Outcome
	err  error
}

// startExecs starts one Execute of plan tinyPlan into dir per name, each
// with its shard and holder "runexp run NAME", held at the start of its
// units until release is closed. Names arrive on started as runs start,
// results on the returned channel as they end.
func startExecs(t *testing.T, dir string, resume bool, release <-chan struct{}, runs map[string]Shard) (<-chan string, <-chan execResult) {
	t.Helper()
	p := tinyPlan(t)
	started := make(chan string, len(runs))
	done := make(chan execResult, len(runs))
	for name, s := range runs {
		go func() {
			o, err := Execute(context.Background(), p, dir, ExecOptions{Shard: s, Resume: resume, Holder: "runexp run " + name,
				Options: Options{Workers: 1, Progress: &gate{name: name, started: started, release: release}}})
			done <- execResult{name, o, err}
		}()
	}
	return started, done
}

// lockFiles lists the lock files in dir.
func lockFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".lock") {
			out = append(out, e.Name())
		}
	}
	return out
}

// listDir returns the names and contents of the files in dir.
func listDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// checkInUse checks that err is the refusal of a run by a lock held by
// this process for holder, naming what is in use and the lock file.
func checkInUse(t *testing.T, err error, what, lockFile, holder string) {
	t.Helper()
	var he *lock.HeldError
	if !errors.As(err, &he) || !inputerr.Is(err) {
		t.Fatalf("error %v, want a lock.HeldError marked as bad input", err)
	}
	host, _ := os.Hostname()
	for _, want := range []string{what + " is in use: lock file " + lockFile + " is held by ", fmt.Sprintf("pid %d on host %s (%s) since ", os.Getpid(), host, holder)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestExecuteSameCheckpointAtOnce: two Executes of one shard into one
// directory at once: exactly one runs, the other is refused at once,
// naming the directory, the lock file and the holder, having written
// nothing; the winner's lock files are gone once it is done.
func TestExecuteSameCheckpointAtOnce(t *testing.T) {
	for _, c := range []struct {
		name   string
		shard  Shard
		resume bool
		what   string // what is in use, after dir
		lock   string // the lock file the loser meets
	}{
		{"whole run", Shard{}, false, "", DirLockName},
		{"whole run, resuming", Shard{}, true, "", DirLockName},
		{"shard 1/2", Shard{1, 2}, false, "shard 1/2 of ", "shard-1-of-2.jsonl.lock"},
		{"shard 1/2, resuming", Shard{1, 2}, true, "shard 1/2 of ", "shard-1-of-2.jsonl.lock"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			release := make(chan struct{})
			started, done := startExecs(t, dir, c.resume, release, map[string]Shard{"A": c.shard, "B": c.shard})
			var winner string
			var loser execResult
			timeout := time.After(10 * time.Second)
			for winner == "" || loser.name == "" {
				select {
				case winner = <-started:
				case loser = <-done:
				case <-timeout:
					close(release)
					t.Fatal("neither run was refused")
				}
			}
			if loser.name == winner || loser.err == nil {
				close(release)
				t.Fatalf("winner %s, loser %s (error %v)", winner, loser.name, loser.err)
			}
			checkInUse(t, loser.err, c.what+dir, filepath.Join(dir, c.lock), "runexp run "+winner)
			// The directory holds the winner's files only: its locks record
			// it, its checkpoint is a header.
			files := listDir(t, dir)
			ckpt := filepath.Base(CheckpointPath(dir, c.shard))
			want := []string{ckpt, ckpt + ".lock"}
			if c.shard.Count <= 1 {
				want = append(want, DirLockName)
			}
			if names := slices.Sorted(maps.Keys(files)); !reflect.DeepEqual(names, slices.Sorted(slices.Values(want))) {
				t.Errorf("files %v, want %v", names, want)
			}
			for _, name := range want[1:] {
				if !strings.Contains(files[name], `"holder":"runexp run `+winner+`"`) {
					t.Errorf("%s records %s, want the winner %s", name, files[name], winner)
				}
			}
			if n := strings.Count(files[ckpt], "\n"); n != 1 {
				t.Errorf("checkpoint of %d lines, want the header only", n)
			}
			close(release)
			w := <-done
			if w.err != nil {
				t.Fatal(w.err)
			}
			if len(w.o.Results) != len(ShardUnits(tinyPlan(t), c.shard)) {
				t.Errorf("%d results, want %d", len(w.o.Results), len(ShardUnits(tinyPlan(t), c.shard)))
			}
			if err := w.o.Discard(); err != nil {
				t.Fatal(err)
			}
			if err := w.o.Close(); err != nil {
				t.Errorf("Close after Discard: %v", err)
			}
			if entries := listDir(t, dir); len(entries) != 0 {
				t.Errorf("files left after Discard: %v", entries)
			}
		})
	}
}

// TestExecuteShardsAtOnce: the shards of a run execute into one directory
// at the same time, and merge into the whole run's results; they leave
// their checkpoints and no lock files.
func TestExecuteShardsAtOnce(t *testing.T) {
	dir := t.TempDir()
	release := make(chan struct{})
	runs := map[string]Shard{"0": {0, 3}, "1": {1, 3}, "2": {2, 3}}
	started, done := startExecs(t, dir, false, release, runs)
	for range runs {
		select {
		case <-started:
		case r := <-done:
			close(release)
			t.Fatalf("shard %s ended before all started: %v", r.name, r.err)
		case <-time.After(20 * time.Second):
			t.Fatal("the shards did not all start")
		}
	}
	close(release)
	var paths []string
	for range runs {
		r := <-done
		if r.err != nil {
			t.Fatalf("shard %s: %v", r.name, r.err)
		}
		if err := r.o.Close(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, r.o.Checkpoint)
	}
	if l := lockFiles(t, dir); len(l) != 0 {
		t.Errorf("lock files left: %v", l)
	}
	_, got, err := Merge(paths)
	if err != nil {
		t.Fatal(err)
	}
	want := runAll(t, tinyPlan(t), 2)
	if !reflect.DeepEqual(sorted(got), want) {
		t.Error("merged shards differ from the whole run")
	}
}

// TestLockDir: LockDir (a merge writing the outputs) keeps a whole run out
// of the directory, not a shard; a whole run keeps LockDir out; the
// default holder is "runexp".
func TestLockDir(t *testing.T) {
	p := tinyPlan(t)
	dir := filepath.Join(t.TempDir(), "new", "out")
	l, err := LockDir(dir, "runexp merge")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Execute(context.Background(), p, dir, ExecOptions{})
	checkInUse(t, err, dir, filepath.Join(dir, DirLockName), "runexp merge")
	if _, err := os.Stat(CheckpointPath(dir, Shard{})); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused run wrote its checkpoint: %v", err)
	}
	o, err := Execute(context.Background(), p, dir, ExecOptions{Shard: Shard{0, 2}})
	if err != nil {
		t.Fatalf("a shard beside a merge: %v", err)
	}
	o.Close()
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if l := lockFiles(t, dir); len(l) != 0 {
		t.Errorf("lock files left: %v", l)
	}

	release := make(chan struct{})
	started, done := startExecs(t, dir, false, release, map[string]Shard{"A": {}})
	<-started
	_, err = LockDir(dir, "")
	checkInUse(t, err, dir, filepath.Join(dir, DirLockName), "runexp run A")
	close(release)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	r.o.Discard()

	l, _ = LockDir(dir, "")
	_, err = Execute(context.Background(), p, dir, ExecOptions{})
	checkInUse(t, err, dir, filepath.Join(dir, DirLockName), "runexp")
	l.Release()
}

// TestExecuteReleasesOnError: every error return of Execute releases its
// locks (no lock file remains, the next run proceeds); Close keeps the
// checkpoint and removes the locks.
func TestExecuteReleasesOnError(t *testing.T) {
	p := tinyPlan(t)
	lines := checkpointLines(t, p, Shard{})
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name   string
		ctx    context.Context
		shard  Shard
		ckpt   string // checkpoint content, "" for none
		resume bool
		err    string
	}{
		{"canceled", canceled, Shard{}, "", false, "context canceled"},
		{"canceled shard", canceled, Shard{1, 2}, "", false, "context canceled"},
		{"corrupt checkpoint", context.Background(), Shard{}, lines[0] + "\nnot JSON\n", true, "checkpoint.jsonl:2"},
		{"another seed's checkpoint", context.Background(), Shard{}, strings.Replace(lines[0], `"seed":3`, `"seed":4`, 1) + "\n", true, "checkpoint.jsonl:1"},
		{"checkpoint a directory", context.Background(), Shard{}, "/", true, "checkpoint.jsonl"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := CheckpointPath(dir, c.shard)
			switch c.ckpt {
			case "":
			case "/":
				os.Mkdir(path, 0o755)
			default:
				os.WriteFile(path, []byte(c.ckpt), 0o644)
			}
			_, err := Execute(c.ctx, p, dir, ExecOptions{Shard: c.shard, Resume: c.resume})
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("error %v, want one containing %q", err, c.err)
			}
			if l := lockFiles(t, dir); len(l) != 0 {
				t.Errorf("lock files left after the error: %v", l)
			}
			os.RemoveAll(path)
			o, err := Execute(context.Background(), p, dir, ExecOptions{Shard: c.shard})
			if err != nil {
				t.Fatalf("the next run: %v", err)
			}
			if err := o.Close(); err != nil {
				t.Fatal(err)
			}
			if l := lockFiles(t, dir); len(l) != 0 {
				t.Errorf("lock files left after Close: %v", l)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("Close did not keep the checkpoint: %v", err)
			}
		})
	}
}

// TestResumeDuplicates: a checkpoint where units appear twice (as two
// runs resuming it at once wrote before locks) resumes to the same
// results as without the duplicates when they are exact, and is refused
// naming the file and both lines when they conflict.
func TestResumeDuplicates(t *testing.T) {
	p := tinyPlan(t)
	lines := checkpointLines(t, p, Shard{})
	want := runAll(t, p, 1)
	resume := func(t *testing.T, ckpt ...string) ([]unit.Result, []string, error) {
		dir := t.TempDir()
		path := writeLines(t, dir, "checkpoint.jsonl", ckpt...)
		var log []string
		o, err := Execute(context.Background(), p, dir, ExecOptions{Resume: true, Log: func(s string) { log = append(log, s) }})
		if l := lockFiles(t, dir); err != nil && len(l) != 0 {
			t.Errorf("lock files left after the error: %v", l)
		}
		if err != nil {
			return nil, log, err
		}
		defer func() {
			if err := o.Discard(); err != nil {
				t.Error(err)
			}
			if entries := listDir(t, dir); len(entries) != 0 {
				t.Errorf("files left after Discard: %v", entries)
			}
		}()
		if _, err := os.Stat(path + ".lock"); err != nil {
			t.Errorf("no lock file while the outcome is open: %v", err)
		}
		return o.Results, log, nil
	}
	plain, _, err := resume(t, lines[0], lines[1], lines[2], lines[3])
	if err != nil {
		t.Fatal(err)
	}
	dup, log, err := resume(t, lines[0], lines[1], lines[2], lines[2], lines[3], lines[1])
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sorted(dup), want) || !reflect.DeepEqual(sorted(plain), want) {
		t.Error("resumed results differ from an uninterrupted run")
	}
	for _, s := range []string{"ignored 2 duplicate lines", "3 units already done, 5 to run"} {
		if !strings.Contains(strings.Join(log, "\n"), s) {
			t.Errorf("log %q lacks %q", log, s)
		}
	}

	var cl checkpointLine
	if err := json.Unmarshal([]byte(lines[2]), &cl); err != nil {
		t.Fatal(err)
	}
	cl.Estimates[1][0] = 1e6
	b, _ := json.Marshal(cl)
	_, _, err = resume(t, lines[0], lines[1], lines[2], lines[3], string(b))
	if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "checkpoint.jsonl:5: unit (sub, trial 1) is also on line 3, with different numbers") {
		t.Errorf("conflicting duplicate: %v", err)
	}
}
