package external

import (
	"os"
	"syscall"
)

// sysProcAttr puts an external estimator in its own process group, so that
// stopping it stops what it started too, and has the kernel kill it when
// the thread that started it (and so runexp) dies, SIGKILL included.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
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
