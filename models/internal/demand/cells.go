// Package demand holds the sparse parts of package models' tabular
// learners: the cells (K, o) of the time-homogeneous dynamic program
// that the writes of q_hat and v_hat need (Cells), and the time-indexed
// model's values kept per observation (Times). Each computes or places
// the same values as the dense code it replaces, bit for bit.
package demand

import (
	"math"

	"github.com/ope-lab/longhorizon/internal/hugepage"
)

// pageSlack is package models' rounding allowance per allocated slice.
const pageSlack = 8 << 10

// grow is package models' grow: s resliced to length n, a new (advised)
// array when its capacity is short; the contents are not preserved.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return hugepage.Make[T](n)
	}
	return s[:n]
}

// Fit is what Cells reads of a fitted time-homogeneous model (models.Fitter)
// and of the batch it writes: the model's transition rows (pair p's
// distinct next observations next[row[p]:row[p+1]]), the observation
// id -> compact index table idx with the compact -> id table obs (an id
// o is in the model iff obs[idx[o]] == o), the number of steps it was
// fitted on, and the written batch's offsets, observation and action ids
// and columns.
type Fit struct {
	Row, Next  []int32
	Idx, Obs   []int32
	Steps      int
	Off        []int
	BObs, BAct []int32
	QHat, VHat []float64
}

// ratio is how much larger than the batch's steps the dense dynamic
// program (Horizon x pairs) must be before the cells the writes need are
// looked for: below it, the program costs less than the pass over the
// steps that finds them.
const ratio = 1

// cellsAllocs is the number of slices a Cells allocates.
const cellsAllocs = 7

// Cells is the set of cells (K, o) of Fitter's dynamic program whose
// V_K the writes read, closed under the program's own reads: N_K, for K =
// Horizon down to 1, is the observations visited at a step t = Horizon -
// K + 1 of the batch written (within the range of steps at which each is
// visited), and the successors of N_{K+1} in the model, whose V_K the
// Q_{K+1} of N_{K+1} read. Running the program on N_K alone gives every
// value the writes read, bit for bit (each is computed as before, from
// the same cells of V_{K-1}), and skips the rest: on a chain, whose
// observation at step t is one of the 2 at position t, N_K has about 2
// of its 2 H observations, and the program costs O(H) instead of O(H^2).
type Cells struct {
	tmax  []int32 // per observation: the last step t at which it is written (0: never)
	link  []int32 // per observation: its first step, then the next in its bucket (-1: none)
	own   []int32 // the observations whose range of steps holds the current K
	stamp []int32 // per observation: the last K whose N_K holds it
	pos   []int32 // first the bucket of each K (-1: empty), then N_K's start in cell
	cell  []int32 // N_Horizon, ..., N_1, one after the other
	used  bool    // the last build's answer
	// keep's: Q_K of the pairs of c and V_K(c), for the K from klo(c)
	// (link) to khi(c) (tmax), at kept[base(c) + (K - klo(c)) (na + 1)]
	// (base in own)
	kept []float64
	// NoKeep (tests) makes Keep refuse: the values are written a tile at
	// a time by the caller
	NoKeep bool
}

// Bytes bounds what a Cells allocates for a batch of steps steps,
// m observations, p pairs and the given horizon: nothing when the program
// is dense (horizon p <= steps), else 16 m + 4 (horizon + 2)
// + 12 steps (the cells, and the values keep keeps) and its slices'
// rounding.
func Bytes(steps, m, p, horizon float64) float64 {
	if horizon*p <= ratio*steps {
		return 0
	}
	return 16*m + 4*(horizon+2) + 12*steps + cellsAllocs*pageSlack
}

// At returns N_K, once Build has succeeded.
func (d *Cells) At(k int) []int32 { return d.cell[d.pos[k]:d.pos[k-1]] }

// Used reports the last Build's answer, and Kept whether the last Keep
// kept the values (tests).
func (d *Cells) Used() bool { return d.used }

// Kept reports whether values were kept since the Cells was made.
func (d *Cells) Kept() bool { return len(d.kept) > 0 }

// Build finds N_K for K = h..1 for the writes of f (np pairs, m
// observations, na actions) and reports whether the program is to run on
// them: not when the dense program is cheap (h np <= steps) or when the N_K hold more than min(steps, h m / 4)
// cells together (a dense model, where they would save little), steps
// being those the model was fitted on.
func (d *Cells) Build(f *Fit, h, np, m, na int) bool {
	d.used = d.find(f, h, np, m, na)
	return d.used
}

// find is build without recording its answer.
func (d *Cells) find(f *Fit, h, np, m, na int) bool {
	steps := f.Steps
	if float64(h)*float64(np) <= ratio*float64(steps) {
		return false
	}
	budget := min(steps, h*m/4)
	d.ranges(f, m)
	// the sum of the observations' own ranges bounds what they add
	own := 0
	d.pos = grow(d.pos, h+2)
	for k := range d.pos {
		d.pos[k] = -1
	}
	for c := range m {
		if tmax := int(d.tmax[c]); tmax > 0 {
			tmin := int(d.link[c])
			own += tmax - tmin + 1
			hi := h - tmin + 1 // the largest K at which c is written
			d.link[c], d.pos[hi] = d.pos[hi], int32(c)
		}
	}
	if own > budget {
		return false
	}
	d.stamp = grow(d.stamp, m)
	clear(d.stamp) // no K is 0
	d.cell = grow(d.cell, budget)[:0]
	d.own = grow(d.own, m)[:0]
	row, next := f.Row, f.Next
	prev := 0 // N_{K+1} is d.cell[prev:]
	for k := h; k >= 1; k-- {
		k32 := int32(k)
		for c := d.pos[k]; c >= 0; c = d.link[c] {
			d.own = append(d.own, c)
		}
		start := len(d.cell)
		d.pos[k] = int32(start)
		// c's own range of K is h - tmax + 1 .. h - tmin + 1
		kept := d.own[:0]
		for _, c := range d.own {
			if h-int(d.tmax[c])+1 > k {
				continue // past its range
			}
			kept = append(kept, c)
			if len(d.cell) == budget {
				return false
			}
			d.stamp[c] = k32
			d.cell = append(d.cell, c)
		}
		d.own = kept
		for _, c := range d.cell[prev:start] {
			for p := int(c) * na; p < (int(c)+1)*na; p++ {
				for _, o := range next[row[p]:row[p+1]] {
					if d.stamp[o] == k32 {
						continue
					}
					if len(d.cell) == budget {
						return false
					}
					d.stamp[o] = k32
					d.cell = append(d.cell, o)
				}
			}
		}
		prev = start
	}
	d.pos[0] = int32(len(d.cell))
	return true
}

// ranges sets, for every observation c of f's model written into f's batch, the
// first and last 1-based step t at which it is (link[c] and tmax[c]; tmax
// 0 for the others).
func (d *Cells) ranges(f *Fit, m int) {
	d.tmax = grow(d.tmax, m)
	d.link = grow(d.link, m)
	clear(d.tmax)
	for c := range d.link {
		d.link[c] = math.MaxInt32
	}
	off, obs, idx := f.Off, f.BObs, f.Idx
	for i := 0; i+1 < len(off); i++ {
		lo, hi := off[i], off[i+1]
		for s := lo; s < hi; s++ {
			o := obs[s]
			c := idx[o]
			if c < 0 || int(c) >= m || f.Obs[c] != o {
				continue // never visited by the fit: written as 0
			}
			t := int32(s - lo + 1)
			d.link[c] = min(d.link[c], t)
			d.tmax[c] = max(d.tmax[c], t)
		}
	}
}

// Keep prepares to keep the values of every cell of the N_K (store), so
// that write can write them trajectory by trajectory, in memory order,
// instead of a tile of steps at a time across the trajectories; it
// reports false when they would take more than steps float64 (m
// observations, na actions). It reuses tmax, link and own, which Build no
// longer needs.
func (d *Cells) Keep(m, na, steps int) bool {
	if d.NoKeep {
		return false
	}
	d.own = d.own[:m] // capacity m (build)
	klo, khi, base := d.link, d.tmax, d.own
	clear(khi) // no K is 0
	for c := range klo {
		klo[c] = math.MaxInt32
	}
	for k := len(d.pos) - 2; k >= 1; k-- {
		for _, c := range d.At(k) {
			klo[c], khi[c] = min(klo[c], int32(k)), max(khi[c], int32(k))
		}
	}
	n := 0
	for c := range m {
		base[c] = int32(n)
		if khi[c] > 0 {
			n += int(khi[c]-klo[c]+1) * (na + 1)
			if n > steps {
				return false
			}
		}
	}
	d.kept = grow(d.kept, n)
	return true
}

// Store keeps Q_K of the pairs of the observations cells and their V_K,
// from the program's q and v.
func (d *Cells) Store(k int, cells []int32, q, v []float64, na int) {
	klo, base := d.link, d.own
	for _, c := range cells {
		e := int(base[c]) + (k-int(klo[c]))*(na+1)
		copy(d.kept[e:e+na], q[int(c)*na:(int(c)+1)*na])
		d.kept[e+na] = v[c]
	}
}

// Write writes q_hat and v_hat at every step of f's batch from the kept
// values, trajectory by trajectory: at 1-based step t, K = h - t + 1 (as
// Fitter.write), 0 at an observation the model never visited.
func (d *Cells) Write(f *Fit, h, na int) {
	m := len(f.Obs)
	klo, base, kept := d.link, d.own, d.kept
	off, obs, act, idx, qHat, vHat := f.Off, f.BObs, f.BAct, f.Idx, f.QHat, f.VHat
	for i := 0; i+1 < len(off); i++ {
		lo, hi := off[i], off[i+1]
		for s := lo; s < hi; s++ {
			o := obs[s]
			c := idx[o]
			if c < 0 || int(c) >= m || f.Obs[c] != o { // never visited (FitTo)
				qHat[s], vHat[s] = 0, 0
				continue
			}
			k := h - (s - lo)
			e := int(base[c]) + (k-int(klo[c]))*(na+1)
			qHat[s], vHat[s] = kept[e+int(act[s])], kept[e+na]
		}
	}
}

// BellmanAt is models.Fitter's bellman at the observations cells alone:
// Q_K of their pairs into q and V_K into v from V_{K-1} in vp, the same
// operations on the same operands; the other cells of q and v are left as
// they were. row, next and prob are the model's transition rows, r its
// mean rewards and pie pi_e per pair.
func BellmanAt(q, v, vp []float64, gamma float64, na int, cells, row, next []int32, prob, r, pie []float64) {
	for _, c32 := range cells {
		c := int(c32)
		for p := c * na; p < (c+1)*na; p++ {
			s := 0.0
			for j := row[p]; j < row[p+1]; j++ {
				s += prob[j] * vp[next[j]]
			}
			q[p] = r[p] + gamma*s
		}
		s := 0.0
		for a, w := range pie[c*na : (c+1)*na] {
			s += w * q[c*na+a]
		}
		v[c] = s
	}
}
