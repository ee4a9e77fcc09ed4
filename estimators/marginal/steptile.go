package marginal

import "github.com/ope-lab/longhorizon/estimators/internal/scratch"

// tileSteps is the most steps a stepTile holds, and tileCells the most
// (step, observation) cells beyond one step's.
const (
	tileSteps = 32
	tileCells = 1 << 15
)

// stepTile holds the factor of drl's and drl-mis's weight per observation
// at the steps of a tile of the forward pass (up to tileSteps of them), so
// that the steps of the other fold's trajectories are written trajectory
// by trajectory once per tile: adjacent in memory, where the steps t of
// all trajectories lie a trajectory's length apart (12 KB at H = 3000: a
// TLB miss a read when written step by step). A cell is set at step t if
// its stamp is t + 1. Memory: 12 bytes a cell, at most 12 max(m,
// tileCells) bytes (drlBytes).
type stepTile struct {
	fac   []float64
	stamp []int32
	steps int // steps a tile
	m     int // observations
}

// reset sizes the tile for m observations and h steps and marks every
// cell unset.
func (st *stepTile) reset(m, h int) {
	st.m = max(m, 1)
	st.steps = max(1, min(tileSteps, h, tileCells/st.m))
	st.fac = scratch.Grow(st.fac, st.steps*st.m)
	st.stamp = scratch.Grow(st.stamp, st.steps*st.m)
	clear(st.stamp)
}

// set stores x as the factor of observation o at step t.
func (st *stepTile) set(t, o int, x float64) {
	c := t%st.steps*st.m + o
	st.fac[c], st.stamp[c] = x, int32(t+1)
}

// setAt reports whether the factor of o at step t is set.
func (st *stepTile) setAt(t, o int) bool { return st.stamp[t%st.steps*st.m+o] == int32(t+1) }

// get returns the factor of o at step t and whether it is set.
func (st *stepTile) get(t, o int) (float64, bool) {
	c := t%st.steps*st.m + o
	return st.fac[c], st.stamp[c] == int32(t+1)
}

// flushes reports whether step t ends a tile.
func (st *stepTile) flushes(t int) bool { return (t+1)%st.steps == 0 }

// tileStart returns the first step of t's tile.
func (st *stepTile) tileStart(t int) int { return t - t%st.steps }

// longest returns the length of the longest of the trajectories ids of
// offsets off.
func longest(off []int, ids []int32) int {
	l := 0
	for _, i := range ids {
		l = max(l, off[i+1]-off[i])
	}
	return l
}
