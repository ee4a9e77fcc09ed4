package outdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// TestCheck: a directory (existing or to create) that can be written
// passes; a file, a path under a file, and (when not root, whom
// permission bits do not stop) a read-only directory are bad input naming
// the path; nothing is written either way.
func TestCheck(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{root, filepath.Join(root, "new"), filepath.Join(root, "a", "b", "c")} {
		if err := Check(ok); err != nil {
			t.Errorf("Check(%s): %v", ok, err)
		}
	}
	bad := map[string]string{
		file:                                 "is not a directory",
		filepath.Join(file, "sub"):           "is a regular file, not a directory",
		filepath.Join(file, "sub", "deeper"): "is a regular file, not a directory",
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(root, "ro")
		if err := os.Mkdir(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		bad[ro] = "cannot be written"
		bad[filepath.Join(ro, "sub")] = "cannot be created in"
	}
	for dir, want := range bad {
		err := Check(dir)
		if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), dir) {
			t.Errorf("Check(%s) = %v (bad input: %v), want bad input naming it and %q", dir, err, inputerr.Is(err), want)
		}
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1+btoi(os.Geteuid() != 0) {
		t.Errorf("Check wrote into %s: %v", root, entries)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestCreateUndo: undo removes exactly the directories Create made, and
// nothing that has been written into since.
func TestCreateUndo(t *testing.T) {
	root := t.TempDir()
	undo, err := Create(filepath.Join(root, "a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	undo()
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("after undo %s holds %v, want nothing", root, entries)
	}
	undo, err = Create(filepath.Join(root, "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	undo()
	if _, err := os.Stat(filepath.Join(root, "a", "b")); err == nil {
		t.Error("undo left the empty a/b it created")
	}
	if _, err := os.Stat(filepath.Join(root, "a", "keep")); err != nil {
		t.Errorf("undo removed a file written meanwhile: %v", err)
	}
	// an existing directory is never removed
	undo, err = Create(root)
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(root, "a"))
	undo()
	if _, err := os.Stat(root); err != nil {
		t.Errorf("undo removed a directory that existed: %v", err)
	}
}
