// Package outdir checks and creates the output directory of a command
// (runexp run, merge and export -out): an output directory that is a
// file, lies under a file, or cannot be written is bad input (package
// inputerr), found before anything is written; and a command that creates
// the directory and then fails can remove what it created, so that a
// refused command leaves nothing behind.
package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// Check reports, without writing anything, whether dir can be a command's
// output directory: an existing directory it may write, or a path whose
// nearest existing ancestor is a directory it may write (where dir would
// be created). A dir that is not a directory, a path through a file, and
// a directory the process may not write (permissions, a read-only file
// system) are errors marked as bad input, naming dir; other errors (I/O)
// are not marked.
func Check(dir string) error {
	if dir == "" {
		return inputerr.Errorf("output directory: empty path")
	}
	p := filepath.Clean(dir)
	for {
		st, err := os.Stat(p)
		switch {
		case err == nil && !st.IsDir():
			if p == filepath.Clean(dir) {
				return inputerr.Errorf("output directory %s exists and is not a directory (%s)", dir, kind(st.Mode()))
			}
			return inputerr.Errorf("output directory %s cannot be created: %s is a %s, not a directory", dir, p, kind(st.Mode()))
		case err == nil:
			if werr := writable(p); werr != nil {
				if p == filepath.Clean(dir) {
					return inputerr.Errorf("output directory %s cannot be written: %v", dir, werr)
				}
				return inputerr.Errorf("output directory %s cannot be created in %s: %v", dir, p, werr)
			}
			return nil
		case errors.Is(err, fs.ErrNotExist), isNotDir(err):
			// missing, or through a file: look at the parent
		case errors.Is(err, fs.ErrPermission):
			return inputerr.Errorf("output directory %s: %v", dir, err)
		default:
			return fmt.Errorf("output directory %s: %w", dir, err)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return fmt.Errorf("output directory %s: no existing ancestor", dir)
		}
		p = parent
	}
}

// kind names what a non-directory is, for messages.
func kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "file of mode " + m.String()
}

// Create creates dir and its missing parents, as os.MkdirAll, and returns
// a function that removes the directories it created, deepest first, as
// long as they are empty (it never removes anything else, and does nothing
// when dir existed).
func Create(dir string) (undo func(), err error) {
	var created []string
	for p := filepath.Clean(dir); ; {
		if _, err := os.Lstat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		created = append(created, p)
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return func() {}, err
	}
	return func() {
		for _, p := range created {
			if os.Remove(p) != nil {
				return
			}
		}
	}, nil
}
