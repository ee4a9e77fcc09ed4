package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestWriteReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := WriteBytes(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "old" {
		t.Errorf("after a failed fill the file holds %q, want the old content", data)
	}
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "new" {
		t.Errorf("file holds %q, want new", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only f.txt (no temporary file left)", len(entries))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
}

func TestWriteAllIsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	// b.csv is a directory: nothing may be written, not even a.csv.
	if err := os.Mkdir(filepath.Join(dir, "b.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := []File{{"a.csv", []byte("a")}, {"b.csv", []byte("b")}}
	if err := WriteAll(dir, files); err == nil {
		t.Fatal("WriteAll over a directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("after a refused WriteAll the directory holds %d entries, want only b.csv", len(entries))
	}
	// A name too long for the file system fails while staging, before any
	// rename: a.csv is not written either.
	long := strings.Repeat("x", 300) + ".png"
	if err := WriteAll(dir, []File{{"a.csv", []byte("a")}, {long, []byte("x")}}); err == nil {
		t.Fatal("WriteAll of a 300-character name succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "a.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a.csv written although the set failed: %v", err)
	}
	os.Remove(filepath.Join(dir, "b.csv"))
	if err := WriteAll(dir, files); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if data, _ := os.ReadFile(filepath.Join(dir, f.Name)); string(data) != string(f.Data) {
			t.Errorf("%s holds %q, want %q", f.Name, data, f.Data)
		}
	}
	for _, bad := range []string{"../x", "", "a/b", ".."} {
		if err := WriteAll(dir, []File{{bad, nil}}); err == nil {
			t.Errorf("WriteAll accepted the name %q", bad)
		}
	}
}

// BenchmarkWriteAll writes a set of the sizes of a run's outputs (Figure
// 4's nine files, results/fig4) into a fresh directory each time: its cost
// is mostly the disk's answer to each file's sync.
func BenchmarkWriteAll(b *testing.B) {
	sizes := []int{345579, 188440, 35134, 34824, 8032, 4672, 3513, 3397, 192}
	files := make([]File, len(sizes))
	for i, n := range sizes {
		files[i] = File{Name: fmt.Sprintf("f%d.csv", i), Data: bytes.Repeat([]byte{'x'}, n)}
	}
	root := b.TempDir()
	i := 0
	for b.Loop() {
		if err := WriteAll(filepath.Join(root, strconv.Itoa(i)), files); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
