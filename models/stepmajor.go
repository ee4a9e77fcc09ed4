package models

import "github.com/ope-lab/longhorizon/trajectory"

// StepMajor is a fold of a CrossFit laid out step by step: column t
// (0-based) holds the steps t of the fold's trajectories that have one, in
// the fold's trajectory order, at Start[t] to Start[t+1]-1. A forward pass
// that goes step by step over the trajectories of a batch (drl's marginal
// ratios) reads a trajectory's step t a trajectory's length apart from
// the next trajectory's (12 KB at H = 3000: a TLB miss a read); here a
// column is contiguous.
type StepMajor struct {
	// Start has one entry per step of the fold's longest trajectory, and
	// one more.
	Start []int32
	// Obs and Action are the compact ids of the steps (CrossFit.Obs),
	// Next the compact observation of the trajectory's next step, -1
	// after its last, and Ratio the step's ratio (the fold's, empty when
	// the batch has none).
	Obs, Action, Next []int32
	Ratio             []float64

	cur []int32 // the transposition's cursor per column
}

// The transposition copies blocks of stepBlock steps of trajBlock
// trajectories, step by step: it reads trajBlock pages at a time (a
// trajectory's steps of the block are adjacent) and writes each column's
// part of the block contiguously.
const (
	stepBlock = 64
	trajBlock = 16
)

// StepMajorBytes bounds what CrossFit.StepMajor allocates for both folds
// of a batch of steps steps and horizon h: 20 bytes a step and 8 (h + 1)
// a fold.
func StepMajorBytes(steps, h float64) float64 { return 20*steps + 16*(h+1) }

// StepMajor returns fold k (0: A, 1: B) of the last Fit laid out step by
// step, building it on the first call after a Fit. It is the CrossFit's
// and changes with the next Fit; it is built where it is read (a reader
// of a shared CrossFit runs while no other reads it, CrossFitShare).
func (c *CrossFit) StepMajor(k int) *StepMajor {
	sm := &c.stepMajor[k]
	if c.stepMajorOK[k] {
		return sm
	}
	sm.build(&c.fold[k])
	c.stepMajorOK[k] = true
	return sm
}

// build lays out fold f (offsets from 0) step by step, a block of steps
// and trajectories at a time.
func (sm *StepMajor) build(f *trajectory.Batch) {
	off := f.Offsets
	n, steps := len(off)-1, len(f.Obs)
	h := 0
	for i := range n {
		h = max(h, off[i+1]-off[i])
	}
	// cur[l] counts the trajectories of length l; Start[t] the ones of
	// length > t, then where column t starts
	sm.cur = grow(sm.cur, h+1)
	clear(sm.cur)
	for i := range n {
		sm.cur[off[i+1]-off[i]]++
	}
	sm.Start = grow(sm.Start, h+1)
	alive := int32(0)
	for t := h - 1; t >= 0; t-- {
		alive += sm.cur[t+1]
		sm.Start[t] = alive
	}
	pos := int32(0)
	for t := range h {
		a := sm.Start[t]
		sm.Start[t] = pos
		pos += a
	}
	sm.Start[h] = pos
	copy(sm.cur, sm.Start[:h])
	sm.Obs = grow(sm.Obs, steps)
	sm.Action = grow(sm.Action, steps)
	sm.Next = grow(sm.Next, steps)
	ratios := len(f.Ratio) == steps
	sm.Ratio = sm.Ratio[:0]
	if ratios {
		sm.Ratio = grow(sm.Ratio, steps)
	}
	for t0 := 0; t0 < h; t0 += stepBlock {
		t1 := min(t0+stepBlock, h)
		for g0 := 0; g0 < n; g0 += trajBlock {
			g1 := min(g0+trajBlock, n)
			for t := t0; t < t1; t++ {
				j := sm.cur[t]
				for i := g0; i < g1; i++ {
					s, hi := off[i]+t, off[i+1]
					if s >= hi {
						continue
					}
					next := int32(-1)
					if s+1 < hi {
						next = f.Obs[s+1]
					}
					sm.Obs[j], sm.Action[j], sm.Next[j] = f.Obs[s], f.Action[s], next
					if ratios {
						sm.Ratio[j] = f.Ratio[s]
					}
					j++
				}
				sm.cur[t] = j
			}
		}
	}
}

// Column returns the positions of column t, empty beyond the longest
// trajectory.
func (sm *StepMajor) Column(t int) (lo, hi int) {
	if t+1 >= len(sm.Start) {
		return 0, 0
	}
	return int(sm.Start[t]), int(sm.Start[t+1])
}
