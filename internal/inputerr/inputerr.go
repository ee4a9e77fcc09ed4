// Package inputerr marks errors caused by bad input (flags, configs,
// logged data, checkpoints, shards, results directories read back) apart
// from failures of the machine (I/O, permissions, a full disk), so that a
// command can exit 2 for the first and 1 for the second.
//
// A marked error keeps its message and its chain: errors.Is(err,
// ErrBadInput) is true for it and for any error wrapping it, whatever
// wraps it on the way up.
package inputerr

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrBadInput is the mark: errors.Is(err, ErrBadInput) reports whether
// err is, or wraps, bad input.
var ErrBadInput = errors.New("bad input")

// marked is an error marked as bad input.
type marked struct{ err error }

func (m marked) Error() string        { return m.err.Error() }
func (m marked) Unwrap() error        { return m.err }
func (m marked) Is(target error) bool { return target == ErrBadInput }

// Mark returns err marked as bad input (nil for nil).
func Mark(err error) error {
	if err == nil || Is(err) {
		return err
	}
	return marked{err}
}

// Errorf is fmt.Errorf marked as bad input.
func Errorf(format string, args ...any) error {
	return marked{fmt.Errorf(format, args...)}
}

// Is reports whether err is, or wraps, bad input.
func Is(err error) bool { return errors.Is(err, ErrBadInput) }

// Open marks an error from opening or reading a file the user named as
// bad input when it says the file is not there, is a directory, or has a
// file where a directory should be in its path; other
// errors (permissions, I/O) stay failures of the machine.
//
// The message of a marked one is in plain words, naming the path: "X does
// not exist", "X is a directory, not a file", "X is a file, not a
// directory", where the system says "stat X: no such file or directory".
// The chain keeps the system's error (errors.Is(err, fs.ErrNotExist)).
func Open(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTDIR) {
		return Mark(plain(err))
	}
	return err
}

// plainPath is a path error in plain words, wrapping the original.
type plainPath struct {
	msg string
	err error
}

func (p plainPath) Error() string { return p.msg }
func (p plainPath) Unwrap() error { return p.err }

// plain rewords err when it is a bare *fs.PathError (not one already
// wrapped in context, whose message it leaves alone).
func plain(err error) error {
	pe, ok := err.(*fs.PathError)
	if !ok {
		return err
	}
	var msg string
	switch {
	case errors.Is(pe.Err, fs.ErrNotExist):
		msg = pe.Path + " does not exist"
	case errors.Is(pe.Err, syscall.EISDIR):
		msg = pe.Path + " is a directory, not a file"
	case errors.Is(pe.Err, syscall.ENOTDIR):
		msg = pe.Path + ": " + fileInPath(pe.Path) + " is a file, not a directory"
	}
	return plainPath{msg: msg, err: err}
}

// fileInPath returns the longest ancestor of path that is not a directory
// (the file that an ENOTDIR error stopped at), or path's parent when none
// can be found.
func fileInPath(path string) string {
	for dir := filepath.Dir(path); dir != "." && dir != string(filepath.Separator); dir = filepath.Dir(dir) {
		if st, err := os.Stat(dir); err == nil && !st.IsDir() {
			return dir
		}
	}
	return filepath.Dir(path)
}
