//go:build unix && !linux

package external

import (
	"os"
	"syscall"
)

// sysProcAttr puts an external estimator in its own process group, so that
// stopping it stops what it started too. (Only Linux also kills it when
// runexp is killed with SIGKILL.)
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills p's process group (p leads it).
func killGroup(p *os.Process) {
	if p == nil {
		return
	}
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		p.Kill()
	}
}
