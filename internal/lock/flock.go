//go:build ((unix && !aix && !solaris) || illumos) && !lockexcl

package lock

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// staleHint follows a HeldError's message: nothing to add where a lock
// dies with its process.
const staleHint = ""

// acquire opens path, creating it, and locks it with flock(2) without
// waiting. When another holder released (removed) the file between our
// open and our flock, the path no longer names the locked file and
// acquire starts over. It returns the locked file with rec written in it.
func acquire(path string, rec []byte) (*os.File, error) {
	for range maxAttempts {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock: %w", err)
		}
		err = flock(f)
		for try := 1; errors.Is(err, syscall.EWOULDBLOCK); try++ {
			if info := readRecord(f); info.PID != 0 || try == recordTries {
				f.Close()
				return nil, heldError(path, info)
			}
			time.Sleep(recordPause) // the holder is recording itself, or leaving
			err = flock(f)
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		same, err := names(path, f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !same {
			f.Close() // unlocks the orphaned file
			continue
		}
		if err := writeRecord(f, rec); err != nil {
			release(path, f)
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("lock %s: the lock file was replaced %d times while locking it", path, maxAttempts)
}

// flock takes an exclusive lock on f without waiting.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}

// names reports whether path still names the open file f.
func names(path string, f *os.File) (bool, error) {
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	pi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(fi, pi), nil
}

// release removes the lock file while still holding its lock, then closes
// it, which unlocks it: whoever locks the removed file afterwards finds
// that path no longer names it and starts over. A lock file that someone
// removed by hand (and maybe another process recreated) is left alone.
func release(path string, f *os.File) error {
	var err error
	if same, serr := names(path, f); serr == nil && same {
		if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = rerr
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
