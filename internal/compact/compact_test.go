package compact

import (
	"runtime"
	"slices"
	"testing"
)

// TestBuild: indices in order of first appearance, the same with the dense
// table (small ids) and the map (an id beyond 4 len + 64), and a warm IDs
// reindexes ids of the same size without allocating.
func TestBuild(t *testing.T) {
	for _, tc := range []struct {
		name string
		ids  []int32
		want []int32
		n    int
	}{
		{"empty", nil, []int32{}, 0},
		{"dense", []int32{5, 2, 5, 0, 2}, []int32{0, 1, 0, 2, 1}, 3},
		{"map", []int32{5, 2, 5, 1 << 30, 2}, []int32{0, 1, 0, 2, 1}, 3},
	} {
		var c IDs
		out := make([]int32, len(tc.ids))
		if n := c.Build(tc.ids, out); n != tc.n || !slices.Equal(out, tc.want) {
			t.Errorf("%s: %v, %d distinct; want %v, %d", tc.name, out, n, tc.want, tc.n)
		}
		if a := testing.AllocsPerRun(5, func() { c.Build(tc.ids, out) }); a != 0 {
			t.Errorf("%s: a warm Build allocates %v times", tc.name, a)
		}
	}
}

// TestBytes: a cold Build allocates within Bytes, for dense ids (the
// table up to the largest), sparse ones (a map of every distinct id) and
// unknown ones; and the dense bound is the table itself, not loose.
func TestBytes(t *testing.T) {
	const n = 1 << 14
	for _, tc := range []struct {
		name   string
		id     func(s int) int32
		values float64 // as a caller knows it (0: unknown)
	}{
		{"dense, known", func(s int) int32 { return int32(s % 500) }, 500},
		{"dense, unknown", func(s int) int32 { return int32(4*n + 63 - s%7) }, 0},
		{"sparse, known", func(s int) int32 { return int32(s) * 1000 }, 1000 * n},
		{"sparse, unknown", func(s int) int32 { return int32(s) * 1000 }, 0},
	} {
		ids := make([]int32, n)
		for s := range ids {
			ids[s] = tc.id(s)
		}
		out := make([]int32, n)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var c IDs
		c.Build(ids, out)
		runtime.ReadMemStats(&after)
		got, bound := float64(after.TotalAlloc-before.TotalAlloc), Bytes(tc.values, n)
		if got > bound+8<<10 {
			t.Errorf("%s: allocated %.0f bytes, Bytes says at most %.0f", tc.name, got, bound)
		}
		if tc.name == "dense, known" && got < bound {
			t.Errorf("%s: allocated %.0f bytes, less than the table's %.0f", tc.name, got, bound)
		}
	}
}
