//go:build linux

package hugepage

import (
	"syscall"
	"unsafe"
)

// madvCollapse is Linux's MADV_COLLAPSE (6.1 and later), which the
// frozen syscall package does not name; golang.org/x/sys/unix does, but
// the domains' dependencies stay within the standard library.
const madvCollapse = 25

// Advise asks the kernel to back the whole huge pages of the size bytes
// at p with huge pages: MADV_HUGEPAGE for the pages faulted in later,
// MADV_COLLAPSE for those present. The memory's contents do not change.
func Advise(p unsafe.Pointer, size uintptr) {
	start, n := aligned(uintptr(p), size)
	if n == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, start-uintptr(p))), n)
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	_ = syscall.Madvise(b, madvCollapse)
}
