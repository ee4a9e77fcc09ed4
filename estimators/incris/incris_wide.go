package incris

// INCRIS's wide path: blocks of kernel.Wide trajectories added to groups
// of four rows of cells at a time (package kernel), two blocks at a time
// tile by tile.

import (
	"cmp"
	"unsafe"

	"github.com/ope-lab/longhorizon/estimators/incris/internal/kernel"
	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// incrisTile bounds the bytes of cells in one tile of groups (addTiles):
// at H = 3000 a wide block's ratios and W_j - aref_j take 384 KB, so two
// blocks and a tile stay within a 2 MB L2 cache. A tile size changes the
// speed, not the bits.
const incrisTile = 512 << 10

// wideBuf is a wide block of m <= kernel.Wide trajectories q, as the
// kernels read it (wideBlock): rho[j*kernel.Wide+q] = rho_j (1 after the
// trajectory's end), j < hp; tda[j*kernel.Wide+q] = W_j - aref_j, j <=
// hp; rew[g*4*kernel.Wide+q*4+l] = r at step 4g+l+1 (0 after the end);
// zero[s]: some trajectory of the block has reward 0 at step s+1; live[s]:
// some trajectory of the block has a nonzero reward at step s+1. The
// slots q >= m (a last block's) hold rho 1, tda 0 and reward 0, and are
// not counted in zero and live.
type wideBuf struct {
	rho, tda, rew []float64
	zero, live    []bool
	m             int
}

// minLast is the fewest trajectories the pair kernel takes as a last
// block (kernel.Pair's m): it costs as much as a whole block, and the
// scalar path is cheaper for one trajectory.
const minLast = 2

// wideCount returns how many of k trajectories the wide path adds: the
// whole blocks, and with the pair kernel a last block of at least
// minLast.
func (e *INCRIS) wideCount(k int) int {
	n := k / kernel.Wide * kernel.Wide
	if e.kern.pair != nil && k-n >= minLast {
		n = k
	}
	return n
}

// reset sizes the block for hp rows (whole groups) and empties it.
func (wb *wideBuf) reset(hp int) {
	wb.rho = scratch.Zero(wb.rho, kernel.Wide*hp)
	wb.tda = scratch.Zero(wb.tda, kernel.Wide*(hp+1))
	wb.rew = scratch.Zero(wb.rew, kernel.Wide*hp)
	if cap(wb.zero) < hp {
		wb.zero = make([]bool, hp)
		wb.live = make([]bool, hp)
	}
	wb.zero, wb.live = wb.zero[:hp], wb.live[:hp]
}

// addWideBlocks adds the whole blocks of kernel.Wide trajectories from
// from..to-1 on the wide path, the cells in lanes form meanwhile: two at
// a time where both are finite (addTiles), a block that is not (a ratio
// or weight) on the scalar path, which skips zero rewards rather than
// adding 0 * rho.
func (e *INCRIS) addWideBlocks(b *trajectory.Batch, from, to int) error {
	const w = kernel.Wide
	to = from + e.wideCount(to-from)
	e.flipAll()
	defer e.flipAll()
	for from < to {
		k, i := 0, from // finite blocks filled, from trajectory i on
		for k < len(e.wb) && i < to {
			m := min(w, to-i)
			finite, err := e.wideBlock(b, i, m, &e.wb[k])
			if err != nil {
				return err
			}
			if !finite {
				break
			}
			k++
			i += m
		}
		if k > 0 {
			e.addTiles(b, from, k)
			from = i
			continue
		}
		m := min(w, to-from)
		e.flipAll()
		err := e.addNarrow(b, from, from+m)
		e.flipAll()
		if err != nil {
			return err
		}
		from += m
	}
	return nil
}

// addTiles adds the k <= 2 filled blocks from trajectory i on, tile by
// tile of groups (tileLow), each tile the first block's trajectories then
// the second's: a tile's cells come from memory once for both blocks, not
// once for each. Every cell still takes the trajectories in order, the
// groups are independent, and each block's unshifts see da over the
// trajectories before it, so the bits are those of one block after the
// other.
func (e *INCRIS) addTiles(b *trajectory.Batch, i, k int) {
	das := [2][]float64{e.da, e.da1}
	copy(das[1], das[0])
	addDA(das[1], e.wb[0].tda)
	for hi := e.groups() - 1; hi >= 0; {
		lo := e.tileLow(hi)
		for q := range k {
			e.da = das[q]
			e.addWide(b, i+q*kernel.Wide, &e.wb[q], hi, lo)
		}
		hi = lo - 1
	}
	if k == 2 {
		addDA(das[1], e.wb[1].tda)
	}
	e.da, e.da1 = das[1], das[0]
}

// addDA adds a block's W_j - aref_j (tda, as wideBuf's) to da[j], in
// trajectory order (as addNarrow adds them).
func addDA(da, tda []float64) {
	const w = kernel.Wide
	tda = tda[:w*len(da)]
	for j, d := range da {
		for _, v := range tda[j*w : j*w+w] {
			d += v
		}
		da[j] = d
	}
}

// groups returns the number of groups of rows of the workspace.
func (e *INCRIS) groups() int { return (len(e.aref) - 1) / 4 }

// tileLow returns the lowest group of the tile whose highest group is hi:
// groups hi, hi-1, ... until their cells take incrisTile bytes (or the
// kernels' tile), in an even number where there are groups left, so that
// the pair kernel takes them all (a group left over would go alone
// through kernel.Group, at half the width).
func (e *INCRIS) tileLow(hi int) int {
	limit := cmp.Or(e.kern.tile, incrisTile)
	const cell = int(unsafe.Sizeof(kernel.Cell{}))
	size := 0
	g := hi
	for ; g > 0; g-- {
		size += 4 * (4*g + 5) * cell
		if size >= limit {
			break
		}
	}
	if (hi-g)%2 == 0 && g > 0 {
		g--
	}
	return g
}

// flipAll switches every group of cells between the cells form (each cell
// holds its C, S1, S2, S3) and the lanes form (kernel.Flip).
func (e *INCRIS) flipAll() {
	for g := range (e.h + 3) / 4 {
		kernel.Flip(e.groupCells(g), 4*g)
	}
}

// groupCells returns the cells of group g (rows 4g..4g+3).
func (e *INCRIS) groupCells(g int) []kernel.Cell {
	return e.cells[8*g*g+12*g : 8*g*g+12*g+4*(4*g+5)]
}

// wideBlock fills the wide block wb from the m trajectories i..i+m-1
// (the slots after them: rho 1, tda 0, reward 0), computing their
// weights as weights does and failing as it does. It reports whether every ratio and every
// W_j - aref_j is finite: only then does a zero reward add exactly nothing
// (x = 0 * rho_j ... = +-0, and d = +-0 leaves every sum as it is), which
// lets the kernel add all four rows of a group whatever their rewards.
func (e *INCRIS) wideBlock(b *trajectory.Batch, i, m int, wb *wideBuf) (bool, error) {
	const w = kernel.Wide
	hp := len(e.aref) - 1
	aref := e.aref[:hp+1]
	wrho, wtda, wrew, zero, live := wb.rho[:w*hp], wb.tda[:w*(hp+1)], wb.rew[:w*hp], wb.zero[:hp], wb.live[:hp]
	clear(zero)
	clear(live)
	wb.m = m
	for q := range w {
		lo, hi := 0, 0 // an empty trajectory in the slots q >= m
		if q < m {
			lo, hi = b.Offsets[i+q], b.Offsets[i+q+1]
		}
		rho, rew := b.Ratio[lo:hi], b.Reward[lo:hi]
		rew = rew[:len(rho)]
		for s, f := range rho {
			wrho[s*w+q] = f
		}
		for s := len(rho); s < hp; s++ { // padding: rho 1, r 0
			wrho[s*w+q] = 1
			zero[s] = zero[s] || q < m
		}
		for s0 := 0; s0 < hp; s0 += 4 { // wrew[g*4w+q*4+l], g = s0/4
			r := wrew[s0*w+q*4 : s0*w+q*4+4]
			if s0+4 <= len(rew) {
				r[0], r[1], r[2], r[3] = rew[s0], rew[s0+1], rew[s0+2], rew[s0+3]
				continue
			}
			for l := range r {
				r[l] = 0
				if s0+l < len(rew) {
					r[l] = rew[s0+l]
				}
			}
		}
		for s, r := range rew {
			if r == 0 {
				zero[s] = true
			} else {
				live[s] = true
			}
		}
	}
	// W_j for the block's trajectories side by side (independent chains),
	// each the product weights computes: the padding ratios 1 freeze W
	// and never fail the range test.
	c0, c1, c2, c3, c4, c5, c6, c7 := 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0
	for q := range w {
		wtda[q] = 1 - aref[0]
	}
	bad := 0.0 // x - x is 0 for finite x, NaN otherwise
	for j := range hp {
		f := wrho[j*w : j*w+w]
		p0, p1, p2, p3, p4, p5, p6, p7 := c0, c1, c2, c3, c4, c5, c6, c7
		c0 *= f[0]
		c1 *= f[1]
		c2 *= f[2]
		c3 *= f[3]
		c4 *= f[4]
		c5 *= f[5]
		c6 *= f[6]
		c7 *= f[7]
		if weights.LeftNormal(c0, f[0], p0) || weights.LeftNormal(c1, f[1], p1) || weights.LeftNormal(c2, f[2], p2) || weights.LeftNormal(c3, f[3], p3) ||
			weights.LeftNormal(c4, f[4], p4) || weights.LeftNormal(c5, f[5], p5) || weights.LeftNormal(c6, f[6], p6) || weights.LeftNormal(c7, f[7], p7) {
			return false, e.errWeights()
		}
		a := aref[j+1]
		v := wtda[(j+1)*w : (j+1)*w+w]
		v[0], v[1], v[2], v[3] = c0-a, c1-a, c2-a, c3-a
		v[4], v[5], v[6], v[7] = c4-a, c5-a, c6-a, c7-a
		bad += ((v[0] - v[0]) + (v[1] - v[1]) + ((v[2] - v[2]) + (v[3] - v[3]))) +
			((v[4] - v[4]) + (v[5] - v[5]) + ((v[6] - v[6]) + (v[7] - v[7])))
	}
	for q := m; q < w; q++ { // the empty slots add nothing (kernel.Pair)
		for j := range hp + 1 {
			wtda[j*w+q] = 0
		}
	}
	// A ratio that is not finite makes W (and so W - aref) not finite, or
	// fails the range test.
	return bad == 0, nil
}

// addWide adds the block's trajectories i..i+wb.m-1 (their data in the
// wide block wb) to the groups hi down to lo, the cells in lanes form:
// with the vector kernels where every row of the group is raw or every
// trajectory has a nonzero reward in it (kernel.Group only for a whole
// block), else (a row turns raw here, once per row; or a last block's
// lone group) with the scalar kernels, on the group flipped to the cells
// form. A group whose rows are all raw and all of whose rewards in the
// block are 0 is skipped (idle).
func (e *INCRIS) addWide(b *trajectory.Batch, i int, wb *wideBuf, hi, lo int) {
	const w = kernel.Wide
	hp := len(e.aref) - 1
	wrho, wtda := wb.rho[:w*hp], wb.tda[:w*(hp+1)]
	narrow := false // e.tda holds the block's W_j - aref_j
	for g := hi; g >= lo; g-- {
		if e.idle(g, wb) {
			continue
		}
		turnsRaw := e.turnsRaw(g, wb)
		if !turnsRaw && e.kern.pair != nil && g > lo && !e.turnsRaw(g-1, wb) && !e.idle(g-1, wb) {
			rv := (*[8 * w]float64)(wb.rew[(g-1)*4*w : (g+1)*4*w])
			e.kern.pair(e.groupCells(g), e.groupCells(g-1), 4*(g-1), rv, wrho, wtda, wb.m)
			g--
			continue
		}
		if !turnsRaw && wb.m == w {
			rv := (*[4 * w]float64)(wb.rew[g*4*w : (g+1)*4*w])
			e.kern.group(e.groupCells(g), 4*g, rv, wrho, wtda)
			continue
		}
		if !narrow {
			e.narrowTDA(wtda)
			narrow = true
		}
		kernel.Flip(e.groupCells(g), 4*g)
		e.addGroupNarrow(b, i, 4*g, wb.m)
		kernel.Flip(e.groupCells(g), 4*g)
	}
}

// narrowTDA copies a wide block's W_j - aref_j (wtda) to e.tda, where the
// scalar kernels read them.
func (e *INCRIS) narrowTDA(wtda []float64) {
	for q := range kernel.Wide {
		tda := e.tda[q][:len(e.aref)]
		for j := range tda {
			tda[j] = wtda[j*kernel.Wide+q]
		}
	}
}

// idle reports whether adding the wide block to group g changes no bit:
// its rows are raw (C = 0) and every trajectory of the block has reward 0
// in them (the padding rows past the horizon have none). Then every term
// is +-0 (d = X = 0 B_k, finite: addWide runs only on a finite block), and
// a sum plus +-0 is the sum: the sums start at +0 and a sum of two
// numbers is -0 only when both are, so none is ever -0. The scalar path
// skips these zero rewards too.
func (e *INCRIS) idle(g int, wb *wideBuf) bool {
	for s := 4 * g; s < min(4*g+4, e.h); s++ {
		if e.shifted[s] || wb.live[s] {
			return false
		}
	}
	return true
}

// turnsRaw reports whether a row of group g is shifted and some trajectory
// of the wide block has reward 0 in it.
func (e *INCRIS) turnsRaw(g int, wb *wideBuf) bool {
	for s := 4 * g; s < min(4*g+4, e.h); s++ {
		if e.shifted[s] && wb.zero[s] {
			return true
		}
	}
	return false
}

// addGroupNarrow adds trajectories i..i+m-1 (their W_j - aref_j in
// e.tda) to the rows of the group starting at row s0 with the scalar
// kernels, turning rows raw where needed.
func (e *INCRIS) addGroupNarrow(b *trajectory.Batch, i, s0, m int) {
	for s := s0; s < min(s0+4, e.h); s++ {
		row := e.cells[tri(s, 0) : tri(s, 0)+s+2]
		for q := range m {
			lo, hi := b.Offsets[i+q], b.Offsets[i+q+1]
			r := 0.0
			if s < hi-lo {
				r = b.Reward[lo+s]
			}
			switch {
			case r != 0:
				kernel.AddRow1(row, r, b.Ratio[lo:hi], e.tda[q])
			case e.shifted[s]:
				e.unshift(s, row, i+q, q)
			}
		}
	}
}
