//go:build unix

package outdir

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// writable reports why the process may not create entries in directory
// dir (nil when it may), as the kernel decides it for the effective user:
// root may write any directory but on a read-only file system.
func writable(dir string) error {
	err := unix.Faccessat(unix.AT_FDCWD, dir, unix.W_OK|unix.X_OK, unix.AT_EACCESS)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) {
		err = unix.Access(dir, unix.W_OK|unix.X_OK)
	}
	return err
}

// isNotDir reports whether err says a path goes through a file.
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
