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

// gathered holds the other fold's columns over a tile of a forward pass,
// step-major: cell u ns + j is step t0 + u of the j-th trajectory alive
// at the tile's first step t0 (ns of them), so that a step reads them
// adjacent in memory; obs has one step more than the tile (the next
// observation of its last step). Memory: at most 4 (tile + 1) ns + 8 tile
// ns + 8 ns bytes (drlBytes).
type gathered struct {
	obs, act []int32
	rho      []float64
	rem      []int32 // per trajectory: its steps from t0 on
	pos      []int32 // the trajectories alive at the current step
	ns       int
	open     bool // pos indexes the trajectories of the last gather
}

// gather copies steps t0 .. t0 + tile (obs) and t0 .. t0 + tile - 1 (act
// if act is not nil, rho if rho is not nil) of the trajectories src of
// offsets off, all alive at t0, and marks them all alive.
func (g *gathered) gather(t0, tile int, src []int32, off []int, obs, act []int32, rho []float64) {
	ns := len(src)
	g.ns = ns
	g.obs = scratch.Grow(g.obs, (tile+1)*ns)
	if act != nil {
		g.act = scratch.Grow(g.act, tile*ns)
	}
	if rho != nil {
		g.rho = scratch.Grow(g.rho, tile*ns)
	}
	g.rem = scratch.Grow(g.rem, ns)
	g.pos = scratch.Grow(g.pos, ns)
	for j, i := range src {
		lo := off[i] + t0
		r := off[i+1] - lo
		g.rem[j], g.pos[j] = int32(r), int32(j)
		for u, o := range obs[lo : lo+min(r, tile+1)] {
			g.obs[u*ns+j] = o
		}
		if act != nil {
			for u, a := range act[lo : lo+min(r, tile)] {
				g.act[u*ns+j] = a
			}
		}
		if rho != nil {
			for u, x := range rho[lo : lo+min(r, tile)] {
				g.rho[u*ns+j] = x
			}
		}
	}
	g.open = true
}

// live returns src less the trajectories that ended since the last
// gather (src is that gather's).
func (g *gathered) live(src []int32) []int32 {
	if !g.open {
		return src
	}
	for k, j := range g.pos {
		src[k] = src[j]
	}
	g.open = false
	return src[:len(g.pos)]
}
