package experiments

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/report"
	"github.com/ope-lab/longhorizon/experiments/run"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// listTree returns every path under dir, relative to it, sorted.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, _ os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, path)
		out = append(out, rel)
		return nil
	})
	slices.Sort(out)
	return out
}

// TestOutputsCheckedFirst: a directory (or a FIFO) where a whole run
// writes meta.json, a CSV (curve.csv, a diagnostic's kstar.csv, the
// claims' claims.md), the PNG or the SVG is bad input found before the
// first unit runs: Run and Merge return an error marked as bad input
// naming the path and the file, and nothing is written into the output
// directory, not even a checkpoint or a lock file. The names checked are
// exactly those the run writes: report.Outputs of the plan and the
// figure's two.
func TestOutputsCheckedFirst(t *testing.T) {
	p := loadPlan(t, "testdata/small.yaml")
	want := []string{"curve.csv", "trials.csv", "series.csv", "kstar.csv", "claims.csv", "claims.md", "meta.json"}
	if got := report.Outputs(p); !slices.Equal(got, want) {
		t.Fatalf("report.Outputs = %v, want %v", got, want)
	}
	ran := runInto(t, p, 2)
	var written []string
	for _, e := range listTree(t, ran) {
		if e != "." {
			written = append(written, e)
		}
	}
	if expect := append(slices.Clone(want), "small.png", "small.svg"); !slices.Equal(written, sortedCopy(expect)) {
		t.Fatalf("the run wrote %v, want %v", written, sortedCopy(expect))
	}
	for _, name := range []string{"meta.json", "curve.csv", "kstar.csv", "claims.md", "small.png", "small.svg", "fifo:curve.csv"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			file, kind := name, "a directory"
			if f, ok := strings.CutPrefix(name, "fifo:"); ok {
				file, kind = f, "not a regular file"
				if err := syscall.Mkfifo(filepath.Join(dir, file), 0o644); err != nil {
					t.Skip("no FIFO here:", err)
				}
			} else if err := os.Mkdir(filepath.Join(dir, file), 0o755); err != nil {
				t.Fatal(err)
			}
			before := listTree(t, dir)
			_, err := Run(context.Background(), p, dir, Options{Workers: 2})
			if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), filepath.Join(dir, file)) ||
				!strings.Contains(err.Error(), kind) || !strings.Contains(err.Error(), "where the run writes its "+file) {
				t.Errorf("Run: %v; want bad input naming %s as %s", err, filepath.Join(dir, file), kind)
			}
			if after := listTree(t, dir); !slices.Equal(before, after) {
				t.Errorf("Run wrote %v (before: %v)", after, before)
			}
		})
	}
}

// TestOutputsReadOnlyReplaced: a read-only regular file where the run
// writes curve.csv is no obstacle (the run writes beside it and renames
// over it, as every rerun into a results directory does): the run writes
// its files. And a merge checks its outputs before writing, as Run does.
func TestOutputsReadOnlyReplaced(t *testing.T) {
	p := loadPlan(t, "testdata/small.yaml")
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "curve.csv"), []byte("old"), 0o444); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), p, dir, Options{Workers: 2}); err != nil {
		t.Fatalf("a read-only curve.csv: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "curve.csv")); strings.HasPrefix(string(b), "old") {
		t.Error("curve.csv not replaced")
	}
	shards := t.TempDir()
	var files []string
	for i := range 2 {
		res, err := Run(context.Background(), p, shards, Options{Workers: 1, Shard: run.Shard{Index: i, Count: 2}})
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, res.Checkpoint)
	}
	out := filepath.Join(t.TempDir(), "merged")
	if err := os.MkdirAll(filepath.Join(out, "meta.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := listTree(t, out)
	if _, err := Merge(files, out, Options{}); err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "meta.json is a directory") {
		t.Errorf("Merge into a directory with a directory meta.json: %v", err)
	}
	if after := listTree(t, out); !slices.Equal(before, after) {
		t.Errorf("Merge wrote %v", after)
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
