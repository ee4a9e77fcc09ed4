package hugepage

import (
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestAligned checks the whole huge pages of a range, by hand: Size = 2^21.
func TestAligned(t *testing.T) {
	for _, c := range []struct {
		p, size, start, n uintptr
	}{
		{0, Size, 0, Size},                         // exactly one page
		{1, Size, Size, 0},                         // straddles two, holds neither
		{Size - 8, 2 * Size, Size, Size},           // one whole page inside
		{3 * Size, 5*Size + 7, 3 * Size, 5 * Size}, // five, and 7 bytes past
		{100, 50, Size, 0},                         // tiny
	} {
		start, n := aligned(c.p, c.size)
		if n != c.n || (n != 0 && start != c.start) {
			t.Errorf("aligned(%#x, %#x) = %#x, %#x; want %#x, %#x", c.p, c.size, start, n, c.start, c.n)
		}
	}
}

// TestGrowKeepsContents checks that Grow is slices.Grow: the same length,
// contents and at least the capacity asked for, with an advised (large)
// and an unadvised (small) array, and that Make's buffer starts zeroed and
// keeps what is written to it.
func TestGrowKeepsContents(t *testing.T) {
	for _, n := range []int{10, MinBytes / 8 * 3} {
		s := make([]float64, 5, 7)
		for i := range s {
			s[i] = float64(i) + 0.5
		}
		want := slices.Clone(s)
		s = Grow(s, n)
		if !slices.Equal(s, want) || cap(s)-len(s) < n {
			t.Errorf("n = %d: Grow gave len %d cap %d, %v...", n, len(s), cap(s), s[:min(len(s), 5)])
		}
		s = s[:len(s)+n]
		for i := range s {
			s[i] = float64(i)
		}
		for i, x := range s {
			if x != float64(i) {
				t.Fatalf("n = %d: s[%d] = %v after writing %d", n, i, x, i)
			}
		}
		m := Make[int32](n)
		if len(m) != n || slices.ContainsFunc(m, func(x int32) bool { return x != 0 }) {
			t.Errorf("Make(%d): len %d, not all zero", n, len(m))
		}
	}
}

// TestAdviseHugePages checks, on Linux with transparent huge pages
// available ("always" or "madvise"), that an advised buffer's whole huge
// pages are marked for them: the kernel lists the range with the "hg"
// flag in /proc/self/smaps. Elsewhere there is nothing to check.
func TestAdviseHugePages(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if runtime.GOOS != "linux" || err != nil || strings.Contains(string(mode), "[never]") {
		t.Skip("no transparent huge pages here")
	}
	buf := Make[byte](4 * Size)
	start, _ := aligned(uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	if !hasHugeFlag(string(smaps), start) {
		t.Errorf("the mapping holding %#x has no hg flag after Advise", start)
	}
	runtime.KeepAlive(buf)
}

// hasHugeFlag reports whether the smaps entry of the mapping holding addr
// lists VmFlags with "hg" (MADV_HUGEPAGE).
func hasHugeFlag(smaps string, addr uintptr) bool {
	in := false
	for _, line := range strings.Split(smaps, "\n") {
		if lo, hi, ok := addrRange(line); ok {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return slices.Contains(strings.Fields(line)[1:], "hg")
		}
	}
	return false
}

// addrRange parses the "lo-hi" that starts a mapping's line in smaps.
func addrRange(line string) (lo, hi uintptr, ok bool) {
	f, _, _ := strings.Cut(line, " ")
	a, b, found := strings.Cut(f, "-")
	if !found {
		return 0, 0, false
	}
	x, err1 := strconv.ParseUint(a, 16, 64)
	y, err2 := strconv.ParseUint(b, 16, 64)
	return uintptr(x), uintptr(y), err1 == nil && err2 == nil
}
