package estimators

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/trajectory"
)

// INCRIS is Incremental Importance Sampling (paper, Algorithm 1; SPEC 1).
//
// For the reward at step t and each k = 0..t it splits the cumulative
// weight W_t into A_k = prod_{j<=t-k} rho_j (the dropped part) and
// B_k = prod_{t-k<j<=t} rho_j (the kept part), estimates the bias of
// dropping A_k by the sample covariance C_k = Cov(A_k, B_k r_t) (paper,
// eq. covtest) and the variance by V_k = s^2(B_k r_t)/n, both with
// denominator n-1, and keeps k* = argmin_k C_k^2 + V_k (ties to the larger
// k). The estimate is sum_t (1/n) sum_i B^i_{k*} r^i_t.
//
// With Printed set, V_k = s^2(B_k r_t) without the 1/n, as Algorithm 1 is
// printed; SPEC keeps the 1/n because the appendix's consistency proof
// needs an estimate of the variance of the mean.
//
// An INCRIS also implements GridEstimator: one pass over a batch gives the
// estimates (and k*) from each of several prefixes, bit-identical to
// Estimate on each prefix.
//
// The sums are added on one of two paths with bit-identical results (every
// cell takes the same terms, rounded alike, in trajectory order): the
// scalar path (addNarrow), and where the CPU has AVX2 (not with -tags
// noasm) the wide path (addWide), whose assembly kernels add blocks of
// incrisWide trajectories to four rows (AVX2) or, with AVX-512, eight rows
// at a time, one row per vector lane (incrisKernels).
type INCRIS struct {
	// Printed selects V_k without the 1/n (key "incris-printed").
	Printed bool

	view weightView

	h int // workspace horizon
	// cells holds, for each row s (step t = s+1), the moments of
	// X_k = B_k r_t for j = t-k = 0..t at cells[tri(s, j)] (rows in groups
	// of four, padded: see tri).
	cells []incrisCell
	// shifted[s] reports whether row s's moments are shifted by their c
	// (every trajectory so far had a nonzero reward at step s+1) or raw
	// (c = 0: some trajectory had reward 0 there).
	shifted []bool
	aref    []float64 // j = 0..hp: W_j of trajectory 0 (padded), the shift of A
	da      []float64 // j = 0..hp: sum_i (W^i_j - aref_j) over the trajectories added so far (padded)
	// per trajectory of the block being added: W_j - aref_j for j = 0..hp
	// (padded: W frozen after the trajectory's end).
	tda [incrisWide][]float64
	// the wide path's block of incrisWide trajectories q (wideBlock):
	// wrho[j*incrisWide+q] = rho_j (1 after the trajectory's end), j < hp;
	// wtda[j*incrisWide+q] = W_j - aref_j, j <= hp; wrew[g*4*incrisWide+
	// q*4+l] = r at step 4g+l+1 (0 after the end); wzero[s]: some
	// trajectory of the block has reward 0 at step s+1.
	// opts, if not nil, overrides the default kernels (tests run every
	// path); kern holds the kernels in use, chosen at reset.
	opts             *incrisKernels
	kern             incrisKernels
	wrho, wtda, wrew []float64
	wzero            []bool
	kstar            []int
	gridK            [][]int // k* at each grid point of the last EstimateGrid
	gridBuf          []int
}

// incrisCell holds, for one (t, j = t-k) and the trajectories added so far,
// the sums of d = X - c, d^2 and (A - aref_j) d, where X = B_k r_t,
// A = W_{t-k}, and c is the cell's shift: X of trajectory 0 while the row
// is shifted, 0 once it is raw. Steps with reward 0 add nothing to a raw
// row, so padding and sparse rewards cost nothing.
type incrisCell struct {
	c, s1, s2, s3 float64
}

// incrisBlock is the number of trajectories whose terms are added to the
// sums in one sweep of the scalar path (register blocking: each cell is
// loaded and stored once per block). The sums are added in trajectory
// order, so the result does not depend on the blocking.
const incrisBlock = 4

// incrisWide is the block of the wide path (addWide): the vector kernels
// take incrisWide trajectories at a time (their x in registers), with the
// four rows of a group as the four lanes of a vector.
const incrisWide = 8

// NewINCRIS returns an INCRIS estimator; printed selects the printed V_k.
func NewINCRIS(printed bool) *INCRIS { return &INCRIS{Printed: printed} }

// incrisKernels selects the path on which INCRIS adds its sums. Every
// choice gives the same bits (the tests run each against the scalar
// path); the zero value is the scalar path, and incrisDefaultKernels (in
// incris_amd64.go or incris_noasm.go) what the estimator uses unless a
// test chose otherwise (newINCRISWith).
type incrisKernels struct {
	// group, if not nil, selects the wide path (addWide) with this kernel
	// for a group of four rows (see incrisGroup).
	group func(cells []incrisCell, s0 int, rv *[4 * incrisWide]float64, rho, tda []float64)
	// pair, if not nil (group must be set too), is the wide path's kernel
	// for two groups of rows at once (see incrisPair).
	pair func(a, b []incrisCell, s0 int, rv *[8 * incrisWide]float64, rho, tda []float64)
}

// newINCRISWith is NewINCRIS with the kernels k instead of the default
// ones (for tests and benchmarks, which compare the paths).
func newINCRISWith(printed bool, k incrisKernels) *INCRIS {
	return &INCRIS{Printed: printed, opts: &k}
}

// Name returns "incris" or "incris-printed".
func (e *INCRIS) Name() string {
	if e.Printed {
		return "incris-printed"
	}
	return "incris"
}

// KStar returns, for each step t (index t-1), the number of most recent
// ratios kept by the last Estimate call (after EstimateGrid: at the last
// grid point). The slice is reused by the next call.
func (e *INCRIS) KStar() []int { return e.kstar }

// AppendDiagnostic implements Reporter: diagnostic 0 is k* (KStar).
func (e *INCRIS) AppendDiagnostic(dst []float64, d int) []float64 { return appendInts(dst, e.kstar) }

// AppendGridDiagnostic implements GridReporter: k* at grid point j of the
// last EstimateGrid call.
func (e *INCRIS) AppendGridDiagnostic(dst []float64, d, j int) []float64 {
	return appendInts(dst, e.gridK[j])
}

// appendInts appends xs to dst as float64s.
func appendInts(dst []float64, xs []int) []float64 {
	for _, x := range xs {
		dst = append(dst, float64(x))
	}
	return dst
}

// tri returns the index of (step index s = t-1, j) in the cells array,
// which holds j = 0..t for every t in rows grouped by four: group g
// (rows s = 4g..4g+3) is four rows of 4g+5 cells each (j = 0..4g+4; the
// cells with j > t are padding, and so are the rows s >= h of the last
// group). A group's cells at one j are then the four lanes of a vector,
// one per row, at a fixed stride.
func tri(s, j int) int {
	g, l := s>>2, s&3
	return 8*g*g + 12*g + l*(4*g+5) + j
}

// triSize returns the number of cells for horizon h (whole groups).
func triSize(h int) int {
	g := (h + 3) / 4
	return 8*g*g + 12*g
}

// Estimate returns the INCRIS estimate from b. It needs n >= 2.
//
// The moments are running sums, trajectory by trajectory, in a shifted form
// that stays accurate when the weights are huge and nearly equal: X_k is
// shifted by its value on trajectory 0 (while every trajectory so far has a
// nonzero reward at the step; after that the row switches once to raw sums,
// for which zeros are free), and A_k = W_{t-k} by trajectory 0's W_{t-k}.
func (e *INCRIS) Estimate(b *trajectory.Batch) (float64, error) {
	b = e.view.of(b)
	n, h := b.N(), b.Horizon()
	if n < 2 {
		return 0, e.tooFew(n)
	}
	e.reset(h)
	if err := e.add(b, 0, n); err != nil {
		return 0, err
	}
	e.kstar = resizeInts(e.kstar, h)
	return e.combine(n, h, e.kstar)
}

// EstimateGrid sets out[j] to the estimate from the first grid[j]
// trajectories of b, in one pass; AppendGridDiagnostic(dst, 0, j) gives
// the k* choices at grid point j.
// The results are bit-identical to Estimate on each prefix.
func (e *INCRIS) EstimateGrid(b *trajectory.Batch, grid []int, out []float64) error {
	b = e.view.of(b)
	if err := checkGrid(b, grid, out); err != nil {
		return err
	}
	h := b.Horizon()
	e.reset(h)
	if cap(e.gridBuf) < len(grid)*h {
		e.gridBuf = make([]int, len(grid)*h)
	}
	if cap(e.gridK) < len(grid) {
		e.gridK = make([][]int, len(grid))
	}
	e.gridK = e.gridK[:len(grid)]
	prev, hn := 0, 0
	for j, n := range grid {
		if n < 2 {
			return gridErr(n, e.tooFew(n))
		}
		if err := e.add(b, prev, n); err != nil {
			return gridErr(n, err)
		}
		for i := prev; i < n; i++ {
			hn = max(hn, b.Len(i))
		}
		prev = n
		ks := e.gridBuf[j*h : j*h+hn]
		e.gridK[j] = ks
		v, err := e.combine(n, hn, ks)
		if err != nil {
			return gridErr(n, err)
		}
		out[j] = v
	}
	e.kstar = append(e.kstar[:0], e.gridK[len(grid)-1]...)
	return nil
}

func (e *INCRIS) tooFew(n int) error {
	return fmt.Errorf("%s: %w: n = %d, needs n >= 2 for sample covariances", e.Name(), ErrTooFew, n)
}

// reset sizes the workspace for horizon h and empties it.
func (e *INCRIS) reset(h int) {
	e.h = h
	size := triSize(h)
	if cap(e.cells) < size {
		e.cells = make([]incrisCell, size)
	}
	e.cells = e.cells[:size]
	clear(e.cells)
	if cap(e.shifted) < h {
		e.shifted = make([]bool, h)
	}
	e.shifted = e.shifted[:h]
	clear(e.shifted)
	hp := (h + 3) &^ 3 // rows, padded to whole groups
	e.aref = zeroFloats(e.aref, hp+1)
	e.da = zeroFloats(e.da, hp+1)
	for q := range e.tda {
		e.tda[q] = zeroFloats(e.tda[q], hp+1)
	}
	if e.opts != nil {
		e.kern = *e.opts
	} else {
		e.kern = incrisDefaultKernels()
	}
	if e.kern.group != nil {
		e.wrho = zeroFloats(e.wrho, incrisWide*hp)
		e.wtda = zeroFloats(e.wtda, incrisWide*(hp+1))
		e.wrew = zeroFloats(e.wrew, incrisWide*hp)
		if cap(e.wzero) < hp {
			e.wzero = make([]bool, hp)
		}
		e.wzero = e.wzero[:hp]
	}
}

// add adds trajectories from..to-1 of b (from is 0 or the count added so
// far) to the running sums: on the wide path (if e.kern.group is set) in
// blocks of incrisWide, the rest on the scalar path in blocks of
// incrisBlock.
func (e *INCRIS) add(b *trajectory.Batch, from, to int) error {
	if from == 0 && to > 0 {
		if err := e.first(b); err != nil {
			return err
		}
		from = 1
	}
	if e.kern.group != nil && to-from >= incrisWide {
		if err := e.addWideBlocks(b, from, to); err != nil {
			return err
		}
		from += (to - from) / incrisWide * incrisWide
	}
	return e.addNarrow(b, from, to)
}

// addWideBlocks adds the whole blocks of incrisWide trajectories from
// from..to-1 on the wide path, the cells in lanes form meanwhile.
func (e *INCRIS) addWideBlocks(b *trajectory.Batch, from, to int) error {
	e.flipAll()
	defer e.flipAll()
	for ; to-from >= incrisWide; from += incrisWide {
		finite, err := e.wideBlock(b, from)
		if err != nil {
			return err
		}
		if !finite {
			// a ratio or weight that is not finite: the scalar path,
			// which skips zero rewards rather than adding 0 * rho
			e.flipAll()
			err := e.addNarrow(b, from, from+incrisWide)
			e.flipAll()
			if err != nil {
				return err
			}
			continue
		}
		e.addWide(b, from)
		// da += each trajectory's W_j - aref_j, in trajectory order
		// (as addNarrow adds them)
		wtda := e.wtda[:incrisWide*len(e.da)]
		for j, d := range e.da {
			for _, v := range wtda[j*incrisWide : j*incrisWide+incrisWide] {
				d += v
			}
			e.da[j] = d
		}
	}
	return nil
}

// flipAll switches every group of cells between the cells form (each cell
// holds its c, s1, s2, s3) and the lanes form (flipGroup).
func (e *INCRIS) flipAll() {
	for g := range (e.h + 3) / 4 {
		flipGroup(e.groupCells(g), 4*g)
	}
}

// groupCells returns the cells of group g (rows 4g..4g+3).
func (e *INCRIS) groupCells(g int) []incrisCell {
	return e.cells[8*g*g+12*g : 8*g*g+12*g+4*(4*g+5)]
}

// flipGroup switches the group of rows s0..s0+3 (cells: 4 rows of s0+5)
// between the cells form and the lanes form: at each j the four cells of
// the group, (row s0+l, j) for l = 0..3, are a 4 x 4 matrix (row l: c, s1,
// s2, s3), which the lanes form holds transposed, so that the cell
// (s0+l, j) holds component l (c, s1, s2 or s3) of the four rows: one
// vector of four lanes, one lane a row. The flip is its own inverse.
func flipGroup(cells []incrisCell, s0 int) {
	rl := s0 + 5
	r0, r1, r2, r3 := cells[:rl], cells[rl:2*rl], cells[2*rl:3*rl], cells[3*rl:4*rl]
	for j := range r0 {
		a, b, c, d := &r0[j], &r1[j], &r2[j], &r3[j]
		a.s1, b.c = b.c, a.s1
		a.s2, c.c = c.c, a.s2
		a.s3, d.c = d.c, a.s3
		b.s2, c.s1 = c.s1, b.s2
		b.s3, d.s1 = d.s1, b.s3
		c.s3, d.s2 = d.s2, c.s3
	}
}

// addNarrow adds trajectories from..to-1 (from >= 1) with the scalar
// kernels, in blocks of incrisBlock.
func (e *INCRIS) addNarrow(b *trajectory.Batch, from, to int) error {
	for i := from; i < to; i += incrisBlock {
		m := min(incrisBlock, to-i)
		for q := range m {
			if err := e.weights(b, i+q, q); err != nil {
				return err
			}
		}
		e.addBlock(b, i, m)
		for q := range m {
			tda := e.tda[q][:len(e.da)]
			for j, v := range tda {
				e.da[j] += v
			}
		}
	}
	return nil
}

// weights fills e.tda[q] with W_j - aref_j, j = 0..hp, for trajectory i
// (W padded: frozen after its end). It fails, as the weighted estimators'
// fast path does, as soon as a weight overflows, underflows or turns
// subnormal: INCRIS's covariances have no scaled form.
func (e *INCRIS) weights(b *trajectory.Batch, i, q int) error {
	lo, hi := b.Offsets[i], b.Offsets[i+1]
	rho := b.Ratio[lo:hi]
	aref := e.aref
	da := e.tda[q][:len(aref)]
	da[0] = 1 - aref[0]
	cur := 1.0
	for s, f := range rho {
		prev := cur
		cur *= f
		if leftNormal(cur, f, prev) {
			return e.errWeights()
		}
		da[s+1] = cur - aref[s+1]
	}
	for j := len(rho) + 1; j < len(da); j++ {
		da[j] = cur - aref[j]
	}
	return nil
}

func (e *INCRIS) errWeights() error {
	return fmt.Errorf("%s: importance weights leave the normal float64 range, so the covariances are %w", e.Name(), ErrNotRepresentable)
}

// first starts the sums with trajectory 0: it fixes the shifts (aref = its
// weights; c = its X_k in rows where its reward is nonzero) and leaves
// every sum 0.
func (e *INCRIS) first(b *trajectory.Batch) error {
	clear(e.aref) // so that weights gives W_j itself
	if err := e.weights(b, 0, 0); err != nil {
		return err
	}
	copy(e.aref, e.tda[0])
	clear(e.tda[0])
	lo, hi := b.Offsets[0], b.Offsets[1]
	rho, rew := b.Ratio[lo:hi], b.Reward[lo:hi]
	for s, r := range rew {
		if r == 0 {
			continue
		}
		e.shifted[s] = true
		row := e.cells[tri(s, 0) : tri(s, 0)+s+2]
		x := r
		row[s+1].c = x
		for j := s; j >= 0; j-- {
			x *= rho[j]
			row[j].c = x
		}
	}
	return nil
}

// wideBlock fills the wide block (wrho, wtda, wrew, wzero) from
// trajectories i..i+incrisWide-1, computing their weights as weights does
// and failing as it does. It reports whether every ratio and every
// W_j - aref_j is finite: only then does a zero reward add exactly nothing
// (x = 0 * rho_j ... = +-0, and d = +-0 leaves every sum as it is), which
// lets the kernel add all four rows of a group whatever their rewards.
func (e *INCRIS) wideBlock(b *trajectory.Batch, i int) (bool, error) {
	const w = incrisWide
	hp := len(e.aref) - 1
	aref := e.aref[:hp+1]
	wrho, wtda, wrew, zero := e.wrho[:w*hp], e.wtda[:w*(hp+1)], e.wrew[:w*hp], e.wzero[:hp]
	clear(zero)
	for q := range w {
		lo, hi := b.Offsets[i+q], b.Offsets[i+q+1]
		rho, rew := b.Ratio[lo:hi], b.Reward[lo:hi]
		rew = rew[:len(rho)]
		for s, f := range rho {
			wrho[s*w+q] = f
		}
		for s := len(rho); s < hp; s++ { // padding: rho 1, r 0
			wrho[s*w+q] = 1
			zero[s] = true
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
		if leftNormal(c0, f[0], p0) || leftNormal(c1, f[1], p1) || leftNormal(c2, f[2], p2) || leftNormal(c3, f[3], p3) ||
			leftNormal(c4, f[4], p4) || leftNormal(c5, f[5], p5) || leftNormal(c6, f[6], p6) || leftNormal(c7, f[7], p7) {
			return false, e.errWeights()
		}
		a := aref[j+1]
		v := wtda[(j+1)*w : (j+1)*w+w]
		v[0], v[1], v[2], v[3] = c0-a, c1-a, c2-a, c3-a
		v[4], v[5], v[6], v[7] = c4-a, c5-a, c6-a, c7-a
		bad += ((v[0] - v[0]) + (v[1] - v[1]) + ((v[2] - v[2]) + (v[3] - v[3]))) +
			((v[4] - v[4]) + (v[5] - v[5]) + ((v[6] - v[6]) + (v[7] - v[7])))
	}
	// A ratio that is not finite makes W (and so W - aref) not finite, or
	// fails the range test.
	return bad == 0, nil
}

// addWide adds trajectories i..i+incrisWide-1 (their data in the wide
// block) group by group, the cells in lanes form: with the vector kernel
// where every row of the group is raw or every trajectory has a nonzero
// reward in it, else (a row turns raw here, once per row) with the scalar
// kernels, on the group flipped to the cells form.
func (e *INCRIS) addWide(b *trajectory.Batch, i int) {
	const w = incrisWide
	hp := len(e.aref) - 1
	wrho, wtda := e.wrho[:w*hp], e.wtda[:w*(hp+1)]
	narrow := false // e.tda holds the block's W_j - aref_j
	for g := hp/4 - 1; g >= 0; g-- {
		if e.turnsRaw(g) {
			if !narrow {
				for q := range w {
					tda := e.tda[q][:hp+1]
					for j := range tda {
						tda[j] = wtda[j*w+q]
					}
				}
				narrow = true
			}
			flipGroup(e.groupCells(g), 4*g)
			e.addGroupNarrow(b, i, 4*g)
			flipGroup(e.groupCells(g), 4*g)
			continue
		}
		if e.kern.pair != nil && g > 0 && !e.turnsRaw(g-1) {
			rv := (*[8 * w]float64)(e.wrew[(g-1)*4*w : (g+1)*4*w])
			e.kern.pair(e.groupCells(g), e.groupCells(g-1), 4*(g-1), rv, wrho, wtda)
			g--
			continue
		}
		rv := (*[4 * w]float64)(e.wrew[g*4*w : (g+1)*4*w])
		e.kern.group(e.groupCells(g), 4*g, rv, wrho, wtda)
	}
}

// turnsRaw reports whether a row of group g is shifted and some trajectory
// of the wide block has reward 0 in it.
func (e *INCRIS) turnsRaw(g int) bool {
	for s := 4 * g; s < min(4*g+4, e.h); s++ {
		if e.shifted[s] && e.wzero[s] {
			return true
		}
	}
	return false
}

// addGroupNarrow adds trajectories i..i+incrisWide-1 (their W_j - aref_j
// in e.tda) to the rows of the group starting at row s0 with the scalar
// kernels, turning rows raw where needed.
func (e *INCRIS) addGroupNarrow(b *trajectory.Batch, i, s0 int) {
	for s := s0; s < min(s0+4, e.h); s++ {
		row := e.cells[tri(s, 0) : tri(s, 0)+s+2]
		for q := range incrisWide {
			lo, hi := b.Offsets[i+q], b.Offsets[i+q+1]
			r := 0.0
			if s < hi-lo {
				r = b.Reward[lo+s]
			}
			switch {
			case r != 0:
				addRow1(row, r, b.Ratio[lo:hi], e.tda[q])
			case e.shifted[s]:
				e.unshift(s, row, i+q, q)
			}
		}
	}
}

// addBlock adds trajectories i..i+m-1 (m <= incrisBlock, their weights in
// e.tda[0..m-1]) row by row.
func (e *INCRIS) addBlock(b *trajectory.Batch, i, m int) {
	var rho, rew [incrisBlock][]float64
	for q := range m {
		lo, hi := b.Offsets[i+q], b.Offsets[i+q+1]
		rho[q], rew[q] = b.Ratio[lo:hi], b.Reward[lo:hi]
	}
	for s := 0; s < e.h; s++ {
		row := e.cells[tri(s, 0) : tri(s, 0)+s+2]
		var r [incrisBlock]float64
		all := m == incrisBlock
		for q := range m {
			if s < len(rew[q]) {
				r[q] = rew[q][s]
			}
			if r[q] == 0 {
				all = false
			}
		}
		if all {
			addRow4(row, r[0], r[1], r[2], r[3], rho[0], rho[1], rho[2], rho[3],
				e.tda[0], e.tda[1], e.tda[2], e.tda[3])
			continue
		}
		for q := range m {
			switch {
			case r[q] != 0:
				addRow1(row, r[q], rho[q], e.tda[q])
			case e.shifted[s]:
				e.unshift(s, row, i+q, q)
			}
		}
	}
}

// unshift turns row s's sums, over the first cnt trajectories (all with a
// nonzero reward at step s+1), from the shifted to the raw form, before
// trajectory cnt (block slot q) adds its reward 0. The raw form is accurate
// from here on: with a zero among them the X_k are not all nearly equal.
func (e *INCRIS) unshift(s int, row []incrisCell, cnt, q int) {
	nf := float64(cnt)
	for j := range row {
		// sum_i (A - aref_j) over the first cnt trajectories, added in
		// trajectory order as e.da will be.
		sa := e.da[j]
		for p := range q {
			sa += e.tda[p][j]
		}
		cl := &row[j]
		c := cl.c
		cl.s3 += c * sa
		cl.s2 += c * (2*cl.s1 + nf*c)
		cl.s1 += nf * c
		cl.c = 0
	}
	e.shifted[s] = false
}

// addRow1 adds one trajectory's terms at step t = len(row)-1 (reward
// r != 0, ratios rho[0..t-1], tda[j] = W_j - aref_j) to the row's cells
// j = 0..t: X = r rho[j] ... rho[t-1], d = X - c, and (A - aref_j) d with
// A = W_j.
//
// addRow1, add4 and addRow4 must round alike (the result may not depend on
// the blocking): every product is rounded on its own (float64(...) forbids
// fusing it into an FMA, which some architectures would do).
func addRow1(row []incrisCell, r float64, rho, tda []float64) {
	t := len(row) - 1
	rho = rho[:t]
	tda = tda[:t+1]
	x := r
	cl := &row[t]
	d := x - cl.c
	cl.s1 += d
	cl.s2 += float64(d * d)
	cl.s3 += float64(tda[t] * d)
	for j := t - 1; j >= 0; j-- {
		x *= rho[j]
		cl := &row[j]
		d := x - cl.c
		cl.s1 += d
		cl.s2 += float64(d * d)
		cl.s3 += float64(tda[j] * d)
	}
}

// addRow4 is addRow1 for four trajectories at once, each cell's sums taking
// the four terms in trajectory order (so the result is that of four
// addRow1 calls). The rho slices have length >= t = len(row)-1.
func addRow4(row []incrisCell, r0, r1, r2, r3 float64, rho0, rho1, rho2, rho3, da0, da1, da2, da3 []float64) {
	t := len(row) - 1
	rho0, rho1, rho2, rho3 = rho0[:t], rho1[:t], rho2[:t], rho3[:t]
	da0, da1, da2, da3 = da0[:t+1], da1[:t+1], da2[:t+1], da3[:t+1]
	x0, x1, x2, x3 := r0, r1, r2, r3
	add4(&row[t], x0, x1, x2, x3, da0[t], da1[t], da2[t], da3[t])
	for j := t - 1; j >= 0; j-- {
		x0 *= rho0[j]
		x1 *= rho1[j]
		x2 *= rho2[j]
		x3 *= rho3[j]
		// add4, inlined by hand (the hot loop)
		cl := &row[j]
		c := cl.c
		d0, d1, d2, d3 := x0-c, x1-c, x2-c, x3-c
		s1 := cl.s1 + d0
		s1 += d1
		s1 += d2
		s1 += d3
		s3 := cl.s3 + float64(da0[j]*d0)
		s3 += float64(da1[j] * d1)
		s3 += float64(da2[j] * d2)
		s3 += float64(da3[j] * d3)
		d0 = float64(d0 * d0)
		d1 = float64(d1 * d1)
		d2 = float64(d2 * d2)
		d3 = float64(d3 * d3)
		s2 := cl.s2 + d0
		s2 += d1
		s2 += d2
		s2 += d3
		cl.s1, cl.s2, cl.s3 = s1, s2, s3
	}
}

// add4 adds four trajectories' terms x (X) and a (A - aref_j), in order, to
// one cell.
func add4(cl *incrisCell, x0, x1, x2, x3, a0, a1, a2, a3 float64) {
	c := cl.c
	d0, d1, d2, d3 := x0-c, x1-c, x2-c, x3-c
	s1 := cl.s1 + d0
	s1 += d1
	s1 += d2
	s1 += d3
	s3 := cl.s3 + float64(a0*d0)
	s3 += float64(a1 * d1)
	s3 += float64(a2 * d2)
	s3 += float64(a3 * d3)
	s2 := cl.s2 + float64(d0*d0)
	s2 += float64(d1 * d1)
	s2 += float64(d2 * d2)
	s2 += float64(d3 * d3)
	cl.s1, cl.s2, cl.s3 = s1, s2, s3
}

// moments returns the cell's mean of X, sample covariance C of (A, X) and
// sample variance s^2 of X over n = nf trajectories (denominator n-1), da
// being sum_i (A - aref_j) over them.
func (cl *incrisCell) moments(da, nf float64) (mean, c, v float64) {
	mx := cl.s1 / nf
	return cl.c + mx, (cl.s3 - da*mx) / (nf - 1), max(0, (cl.s2-nf*mx*mx)/(nf-1))
}

// combine picks k* per step from the sums over the first n trajectories
// (rows 0..h-1), writes it to kstar and returns sum_t r_hat_t.
func (e *INCRIS) combine(n, h int, kstar []int) (float64, error) {
	nf := float64(n)
	total := 0.0
	for s := 0; s < h; s++ {
		row := e.cells[tri(s, 0) : tri(s, 0)+s+2]
		da := e.da[:len(row)]
		best, bestJ := math.Inf(1), 0
		for j := len(row) - 1; j >= 0; j-- { // k = s+1-j = 0, 1, ..., s+1
			_, c, v := row[j].moments(da[j], nf)
			if !e.Printed {
				v /= nf
			}
			mse := c*c + v
			if math.IsNaN(mse) || math.IsInf(mse, 0) {
				return 0, fmt.Errorf("%s: step %d, k = %d: estimated MSE %w", e.Name(), s+1, s+1-j, ErrNotRepresentable)
			}
			if mse <= best { // ties to the larger k
				best, bestJ = mse, j
			}
		}
		kstar[s] = s + 1 - bestJ
		total += row[bestJ].c + row[bestJ].s1/nf
	}
	return finite(e.Name(), total)
}

func resizeInts(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}
