package plot

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeAtomic writes data to path through a temporary file in the same
// directory, renamed into place once complete, so that path is either the
// old file or the whole new one. The directory is created if missing; the
// temporary file is removed on any failure.
func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("plot: writing %s: %w", path, err)
	}
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("plot: writing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("plot: writing %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}
