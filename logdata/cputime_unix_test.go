//go:build unix

package logdata_test

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU time so far, every thread
// (the garbage collector's too): on a machine shared with other work it
// measures a benchmark where wall time does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
