package compact

import (
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
