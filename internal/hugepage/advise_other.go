//go:build !linux

package hugepage

import "unsafe"

// Advise does nothing here: transparent huge pages are Linux's.
func Advise(p unsafe.Pointer, size uintptr) {}
