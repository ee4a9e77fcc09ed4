//go:build !unix || aix || (solaris && !illumos) || lockexcl

package lock

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// staleHint follows a HeldError's message: without flock a lock file
// outlives a killed holder.
const staleHint = "; if that process is no longer running, remove the lock file"

// acquire creates path exclusively (O_EXCL) and writes rec in it. An
// existing lock file is a held lock, whether or not its holder still runs.
func acquire(path string, rec []byte) (*os.File, error) {
	for range maxAttempts {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			info, err := readFile(path)
			if errors.Is(err, os.ErrNotExist) {
				continue // released in the meantime
			}
			return nil, heldError(path, info)
		}
		if err != nil {
			return nil, fmt.Errorf("lock: %w", err)
		}
		if err := writeRecord(f, rec); err != nil {
			release(path, f)
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("lock %s: the lock file appeared and vanished %d times while locking it", path, maxAttempts)
}

// readFile reads the record of the lock file at path, waiting for a
// holder that has created it but not yet recorded itself.
func readFile(path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	var info Info
	for try := 1; try <= recordTries; try++ {
		if info = readRecord(f); info.PID != 0 {
			break
		}
		time.Sleep(recordPause)
	}
	return info, nil
}

// release closes the lock file, then removes it (Windows cannot remove an
// open file).
func release(path string, f *os.File) error {
	err := f.Close()
	if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
		err = rerr
	}
	return err
}
