package selection

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/trajectory"
)

// BehaviourDiff returns "" when batches a and b hold the same behaviour
// data bit for bit: trajectory lengths, rewards, split points, option
// starts, observation and action ids and pi_b (the columns that do not
// depend on pi_e); otherwise the first column and place where they
// differ. Ratios, pi_e and model columns are not compared.
func BehaviourDiff(a, b *trajectory.Batch) string {
	if !slices.Equal(a.Offsets, b.Offsets) {
		return "the trajectories' lengths"
	}
	floats := []struct {
		name string
		x, y []float64
	}{{"reward", a.Reward, b.Reward}, {"pi_b", a.PiB, b.PiB}, {"mu_b", a.MuB, b.MuB}}
	for _, c := range floats {
		if i := firstDiff(len(c.x), len(c.y), func(i int) bool { return math.Float64bits(c.x[i]) == math.Float64bits(c.y[i]) }); i >= 0 {
			return where(c.name, a, i)
		}
	}
	ints := []struct {
		name string
		x, y []int32
	}{{"observation id", a.Obs, b.Obs}, {"action id", a.Action, b.Action}}
	for _, c := range ints {
		if i := firstDiff(len(c.x), len(c.y), func(i int) bool { return c.x[i] == c.y[i] }); i >= 0 {
			return where(c.name, a, i)
		}
	}
	bools := []struct {
		name string
		x, y []bool
	}{{"split point", a.Split, b.Split}, {"option start", a.OptionStart, b.OptionStart}}
	for _, c := range bools {
		if i := firstDiff(len(c.x), len(c.y), func(i int) bool { return c.x[i] == c.y[i] }); i >= 0 {
			return where(c.name, a, i)
		}
	}
	return ""
}

// firstDiff returns the first index where two columns of lengths n and m
// differ (same(i) false), n when only their lengths differ, or -1.
func firstDiff(n, m int, same func(int) bool) int {
	for i := range min(n, m) {
		if !same(i) {
			return i
		}
	}
	if n != m {
		return min(n, m)
	}
	return -1
}

// where names column name at flat step i of batch b: its trajectory and
// step, 1-based.
func where(name string, b *trajectory.Batch, i int) string {
	for t := 0; t+1 < len(b.Offsets); t++ {
		if i < b.Offsets[t+1] {
			return fmt.Sprintf("the %s of trajectory %d, step %d", name, t+1, i-b.Offsets[t]+1)
		}
	}
	return strings.TrimSpace("the " + name + " column's length")
}
