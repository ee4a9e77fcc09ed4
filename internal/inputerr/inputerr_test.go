package inputerr

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestMarkSurvivesWrapping(t *testing.T) {
	base := errors.New("n[1]: 10.5 is not an integer")
	err := fmt.Errorf("config a.yaml:3: %w", Mark(base))
	if !Is(err) || !errors.Is(err, base) {
		t.Fatalf("wrapped mark lost: Is %v, chain %v", Is(err), errors.Is(err, base))
	}
	if err.Error() != "config a.yaml:3: n[1]: 10.5 is not an integer" {
		t.Errorf("message changed: %q", err)
	}
	if Is(base) || Is(errors.New("disk full")) || Mark(nil) != nil {
		t.Error("unmarked errors count as bad input")
	}
}

func TestOpen(t *testing.T) {
	_, missing := os.ReadFile(t.TempDir() + "/none.yaml")
	_, dir := os.ReadFile(t.TempDir())
	for _, err := range []error{missing, dir} {
		if !Is(Open(err)) {
			t.Errorf("%v: not marked as bad input", err)
		}
	}
	if Is(Open(errors.New("input/output error"))) {
		t.Error("an I/O error is marked as bad input")
	}
}

// TestOpenPlainWords: the messages of files that are not there, or not
// what they should be, in plain words naming the path (issue 32: a raw
// "stat" error), and the system's error still in the chain.
func TestOpenPlainWords(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, missing := os.Stat(filepath.Join(dir, "none.yaml"))
	_, isDir := os.ReadFile(dir)
	_, notDir := os.Stat(filepath.Join(file, "meta.json"))
	for _, c := range []struct {
		err  error
		want string
		is   error
	}{
		{missing, filepath.Join(dir, "none.yaml") + " does not exist", fs.ErrNotExist},
		{isDir, dir + " is a directory, not a file", syscall.EISDIR},
		{notDir, filepath.Join(file, "meta.json") + ": " + file + " is a file, not a directory", syscall.ENOTDIR},
	} {
		got := Open(c.err)
		if got.Error() != c.want || !Is(got) || !errors.Is(got, c.is) {
			t.Errorf("Open(%v) = %q (bad input %v, chain %v), want %q", c.err, got, Is(got), errors.Is(got, c.is), c.want)
		}
	}
	wrapped := fmt.Errorf("config: %w", missing)
	if got := Open(wrapped); got.Error() != wrapped.Error() {
		t.Errorf("Open of a wrapped error reworded it: %q", got)
	}
}
