//go:build !unix

package external

import (
	"os"
	"syscall"
)

// sysProcAttr is the default: no process group outside Unix.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// killGroup kills p.
func killGroup(p *os.Process) {
	if p != nil {
		p.Kill()
	}
}
