package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// File is one file of a set: its name within the set's directory and its
// whole content.
type File struct {
	Name string
	Data []byte
}

// WriteAll writes a set of files into dir (created if missing) all or
// nothing: it checks that no name is taken by anything but a regular file,
// writes every file to a temporary file beside its destination, and only
// when all are written and synced renames them into place. Any failure
// before the renames leaves dir as it was. A rename can fail only if the
// directory changes under it; then the files renamed so far are named in
// the error.
func WriteAll(dir string, files []File) (err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if f.Name == "" || f.Name != filepath.Base(f.Name) || f.Name == "." || f.Name == ".." {
			return fmt.Errorf("atomicfile: %q is not a plain file name", f.Name)
		}
		path := filepath.Join(dir, f.Name)
		st, err := os.Lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		case !st.Mode().IsRegular():
			return inputerr.Errorf("%s exists and is not a regular file (%s): move it away", path, st.Mode().Type())
		}
	}
	tmps := make([]string, len(files)) // "" where a file was not staged
	defer func() {
		if err != nil {
			for _, t := range tmps {
				if t != "" {
					os.Remove(t)
				}
			}
		}
	}()
	// Staged all at once: each file waits for the disk to confirm its
	// sync, and the waits overlap (one after the other, Figure 4's nine
	// files took 2 to 40 ms on a shared machine; BenchmarkWriteAll).
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Go(func() { tmps[i], errs[i] = stage(filepath.Join(dir, f.Name), f.Data) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err // the first in the set's order
		}
	}
	for i, f := range files {
		if err := os.Rename(tmps[i], filepath.Join(dir, f.Name)); err != nil {
			tmps = tmps[i:]
			return fmt.Errorf("%w (after %d of %d files were renamed into place)", err, i, len(files))
		}
	}
	return nil
}

// stage writes data to a synced temporary file beside path and returns
// its name.
func stage(path string, data []byte) (name string, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return "", err
	}
	if err = tmp.Sync(); err != nil {
		return "", err
	}
	if err = tmp.Close(); err != nil {
		return "", err
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", err
	}
	return tmp.Name(), nil
}
