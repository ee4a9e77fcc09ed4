//go:build unix

package models

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used:
// on a machine shared with other jobs, a benchmark's CPU time per
// operation moves less than its wall time, which counts the time the
// process waited for a core.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
