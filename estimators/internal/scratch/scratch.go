package scratch

import "github.com/ope-lab/longhorizon/internal/hugepage"

// Grow returns s resliced to length n, allocating when its capacity is
// short; the contents are not preserved.
func Grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return hugepage.Make[T](n)
	}
	return s[:n]
}

// Zero returns s resliced to length n with every element zero, allocating
// when its capacity is short.
func Zero[T any](s []T, n int) []T {
	if cap(s) < n {
		return hugepage.Make[T](n)
	}
	s = s[:n]
	clear(s)
	return s
}
