package lock

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// Lock is a held lock. Release it when done.
type Lock struct {
	path string
	mu   sync.Mutex
	f    *os.File // nil once released
}

// Info describes the holder of a lock, as recorded in its lock file.
type Info struct {
	// PID is the holder's process id.
	PID int `json:"pid"`
	// Host is the host name of the holder's machine.
	Host string `json:"host"`
	// Holder is what the holder said it is (e.g. its command line).
	Holder string `json:"holder"`
	// Since is when the holder took the lock, in UTC.
	Since time.Time `json:"since"`
}

// String returns i as "pid 4242 on host n01 (runexp run fig4.yaml) since
// 2026-11-26T04:40:00Z".
func (i Info) String() string {
	s := "pid " + strconv.Itoa(i.PID) + " on host " + i.Host
	if i.Holder != "" {
		s += " (" + i.Holder + ")"
	}
	if !i.Since.IsZero() {
		s += " since " + i.Since.UTC().Format(time.RFC3339)
	}
	return s
}

// HeldError reports a lock held by someone else. Acquire returns it marked
// as bad input (inputerr.Is reports true); errors.As finds it.
type HeldError struct {
	// Path is the lock file.
	Path string
	// Info is the holder as recorded in the lock file; its PID is 0 when
	// the holder has not recorded itself yet (it is in the middle of
	// Acquire) or the record is unreadable.
	Info Info
}

func (e *HeldError) Error() string {
	holder := "another process (not recorded in the file)"
	if e.Info.PID != 0 {
		holder = e.Info.String()
	}
	return fmt.Sprintf("lock file %s is held by %s%s", e.Path, holder, staleHint)
}

// maxAttempts bounds Acquire's retries when the lock file it opened was
// removed or replaced in the meantime (by a holder releasing it).
const maxAttempts = 100

// maxRecord bounds how much of a lock file is read as its record.
const maxRecord = 64 << 10

// Acquire locks path for holder, a description of the caller recorded in
// the lock file beside its process id, host name and the time (e.g. the
// command line). It creates the lock file if needed, in an existing
// directory. When the lock is held, Acquire returns at once an error
// wrapping a *HeldError, marked as bad input.
func Acquire(path, holder string) (*Lock, error) {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	rec, err := json.Marshal(Info{PID: os.Getpid(), Host: host, Holder: holder, Since: time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := acquire(path, append(rec, '\n'))
	if err != nil {
		return nil, err
	}
	return &Lock{path: path, f: f}, nil
}

// Path returns the lock file's path.
func (l *Lock) Path() string { return l.path }

// Release removes the lock file and releases the lock. Releasing a
// released lock does nothing.
func (l *Lock) Release() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := release(l.path, l.f)
	l.f = nil
	if err != nil {
		return fmt.Errorf("unlock %s: %w", l.path, err)
	}
	return nil
}

// writeRecord replaces the content of the lock file f with rec.
func writeRecord(f *os.File, rec []byte) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt(rec, 0)
	return err
}

// readRecord reads the holder recorded in f: the zero Info when there is
// none yet or it is unreadable.
func readRecord(f *os.File) Info {
	data, err := io.ReadAll(io.NewSectionReader(f, 0, maxRecord))
	var info Info
	if err != nil || json.Unmarshal(data, &info) != nil {
		return Info{}
	}
	return info
}

// A refused Acquire reads the holder's record. A holder between locking
// the file and recording itself leaves it empty for a moment: the reader
// tries recordTries times, recordPause apart (100 ms in all), before
// reporting a holder not recorded.
const (
	recordTries = 20
	recordPause = 5 * time.Millisecond
)

// heldError returns the error for a lock file held by info.
func heldError(path string, info Info) error {
	return inputerr.Mark(&HeldError{Path: path, Info: info})
}
