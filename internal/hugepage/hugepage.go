package hugepage

import (
	"slices"
	"unsafe"
)

// Size is the size of a huge page that Advise aligns to.
const Size = 2 << 20

// MinBytes is the smallest buffer Grow and Make advise: two huge pages,
// so that an advised buffer has at least one whole aligned page inside.
const MinBytes = 2 * Size

// Grow is slices.Grow(s, n), advising the backing array (Advise) when it
// is newly allocated and at least MinBytes long.
func Grow[S ~[]E, E any](s S, n int) S {
	old := unsafe.SliceData(s)
	s = slices.Grow(s, n)
	if unsafe.SliceData(s) != old {
		adviseCap(s)
	}
	return s
}

// Make returns make([]E, n), advised (Advise) when it is at least
// MinBytes long.
func Make[E any](n int) []E {
	s := make([]E, n)
	adviseCap(s)
	return s
}

// adviseCap advises s's backing array up to its capacity when it is at
// least MinBytes long.
func adviseCap[S ~[]E, E any](s S) {
	var e E
	size := uintptr(cap(s)) * unsafe.Sizeof(e)
	if size < MinBytes {
		return
	}
	Advise(unsafe.Pointer(unsafe.SliceData(s[:cap(s)])), size)
}

// aligned returns the whole huge pages of [p, p+size): their start and
// length (0 if there are none).
func aligned(p, size uintptr) (start, n uintptr) {
	start = (p + Size - 1) &^ (Size - 1)
	end := (p + size) &^ (Size - 1)
	if end <= start {
		return start, 0
	}
	return start, end - start
}
