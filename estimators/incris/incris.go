package incris

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/incris/internal/kernel"
	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
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
// scalar path (addNarrow), and the wide path (addWide), whose kernels
// (package kernel: assembly where the CPU has AVX2, their Go twins in a
// build without assembly) add blocks of kernel.Wide trajectories to four
// rows or, with AVX-512 (or the Go twins), eight rows at a time, one row
// per vector lane (incrisKernels). The wide path's block has its rows in
// groups of four, the four rows of a group the four lanes of a vector.
type INCRIS struct {
	// Printed selects V_k without the 1/n (key "incris-printed").
	Printed bool

	view weights.View

	h int // workspace horizon
	// cells holds, for each row s (step t = s+1), the moments of
	// X_k = B_k r_t for j = t-k = 0..t at cells[tri(s, j)] (rows in groups
	// of four, padded: see tri).
	cells []kernel.Cell
	// shifted[s] reports whether row s's moments are shifted by their C
	// (every trajectory so far had a nonzero reward at step s+1) or raw
	// (c = 0: some trajectory had reward 0 there).
	shifted []bool
	aref    []float64 // j = 0..hp: W_j of trajectory 0 (padded), the shift of A
	da      []float64 // j = 0..hp: sum_i (W^i_j - aref_j) over the trajectories added so far (padded)
	// per trajectory of the block being added: W_j - aref_j for j = 0..hp
	// (padded: W frozen after the trajectory's end).
	tda [kernel.Wide][]float64
	// the wide path's two blocks of kernel.Wide trajectories (wideBuf),
	// and da1, da over the trajectories before the second (addTiles).
	// opts, if not nil, overrides the default kernels (tests run every
	// path); kern holds the kernels in use, chosen at reset.
	opts    *incrisKernels
	kern    incrisKernels
	wb      [2]wideBuf
	da1     []float64
	kstar   []int
	gridK   [][]int // k* at each grid point of the last EstimateGrid
	gridBuf []int
}

// incrisBlock is the number of trajectories whose terms are added to the
// sums in one sweep of the scalar path (register blocking: each cell is
// loaded and stored once per block). The sums are added in trajectory
// order, so the result does not depend on the blocking.
const incrisBlock = 4

// NewINCRIS returns an INCRIS estimator; printed selects the printed V_k.
func NewINCRIS(printed bool) *INCRIS { return &INCRIS{Printed: printed} }

// incrisKernels selects the path on which INCRIS adds its sums. Every
// choice gives the same bits (the tests run each against the scalar
// path); the zero value is the scalar path, and incrisDefaultKernels what
// the estimator uses unless a test chose otherwise (newINCRISWith).
type incrisKernels struct {
	// group, if not nil, selects the wide path (addWide) with this kernel
	// for a group of four rows (see kernel.Group).
	group func(cells []kernel.Cell, s0 int, rv *[4 * kernel.Wide]float64, rho, tda []float64)
	// pair, if not nil (group must be set too), is the wide path's kernel
	// for two groups of rows at once (see kernel.Pair).
	// It also takes the last block of fewer than kernel.Wide trajectories.
	pair func(a, b []kernel.Cell, s0 int, rv *[8 * kernel.Wide]float64, rho, tda []float64, m int)
	// tile, if not 0, overrides incrisTile (tests run small tiles).
	tile int
}

// incrisDefaultKernels returns INCRIS's kernels: the wide path with
// kernel.Group where it runs (the AVX2 assembly, or its Go twin in a
// build without assembly), and kernel.Pair for pairs of groups where that
// runs too (AVX-512, or the Go twin); else the scalar path. The choice
// changes the speed, not the bits (every kernel adds the same terms in
// the same order, rounded alike: TestINCRISBitIdentical runs each path).
func incrisDefaultKernels() incrisKernels {
	var k incrisKernels
	if kernel.HasGroup() {
		k.group = kernel.Group
		if kernel.HasPair() {
			k.pair = kernel.Pair
		}
	}
	return k
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
	b = e.view.Of(b)
	n, h := b.N(), b.Horizon()
	if n < 2 {
		return 0, e.tooFew(n)
	}
	e.reset(h)
	if err := e.add(b, 0, n); err != nil {
		return 0, err
	}
	e.kstar = scratch.Grow(e.kstar, h)
	return e.combine(n, h, e.kstar)
}

// EstimateGrid sets out[j] to the estimate from the first grid[j]
// trajectories of b, in one pass; AppendGridDiagnostic(dst, 0, j) gives
// the k* choices at grid point j.
// The results are bit-identical to Estimate on each prefix.
func (e *INCRIS) EstimateGrid(b *trajectory.Batch, grid []int, out []float64) error {
	b = e.view.Of(b)
	if err := estimators.CheckGrid(b, grid, out); err != nil {
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
			return estimators.GridError(n, e.tooFew(n))
		}
		if err := e.add(b, prev, n); err != nil {
			return estimators.GridError(n, err)
		}
		for i := prev; i < n; i++ {
			hn = max(hn, b.Len(i))
		}
		prev = n
		ks := e.gridBuf[j*h : j*h+hn]
		e.gridK[j] = ks
		v, err := e.combine(n, hn, ks)
		if err != nil {
			return estimators.GridError(n, err)
		}
		out[j] = v
	}
	e.kstar = append(e.kstar[:0], e.gridK[len(grid)-1]...)
	return nil
}

func (e *INCRIS) tooFew(n int) error {
	return fmt.Errorf("%s: %w: n = %d, needs n >= 2 for sample covariances", e.Name(), estimators.ErrTooFew, n)
}

// reset sizes the workspace for horizon h and empties it.
func (e *INCRIS) reset(h int) {
	e.h = h
	e.cells = scratch.Zero(e.cells, triSize(h))
	if cap(e.shifted) < h {
		e.shifted = make([]bool, h)
	}
	e.shifted = e.shifted[:h]
	clear(e.shifted)
	hp := (h + 3) &^ 3 // rows, padded to whole groups
	e.aref = scratch.Zero(e.aref, hp+1)
	e.da = scratch.Zero(e.da, hp+1)
	for q := range e.tda {
		e.tda[q] = scratch.Zero(e.tda[q], hp+1)
	}
	if e.opts != nil {
		e.kern = *e.opts
	} else {
		e.kern = incrisDefaultKernels()
	}
	if e.kern.group != nil {
		for k := range e.wb {
			e.wb[k].reset(hp)
		}
		e.da1 = scratch.Zero(e.da1, hp+1)
	}
}

// add adds trajectories from..to-1 of b (from is 0 or the count added so
// far) to the running sums: on the wide path (if e.kern.group is set) in
// blocks of kernel.Wide and, with the pair kernel, a last block of at
// least minLast; the rest on the scalar path in blocks of incrisBlock.
func (e *INCRIS) add(b *trajectory.Batch, from, to int) error {
	if from == 0 && to > 0 {
		if err := e.first(b); err != nil {
			return err
		}
		from = 1
	}
	if e.kern.group != nil && e.wideCount(to-from) > 0 {
		if err := e.addWideBlocks(b, from, to); err != nil {
			return err
		}
		from += e.wideCount(to - from)
	}
	return e.addNarrow(b, from, to)
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
		if weights.LeftNormal(cur, f, prev) {
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
	return fmt.Errorf("%s: importance weights leave the normal float64 range, so the covariances are %w", e.Name(), estimators.ErrNotRepresentable)
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
		row[s+1].C = x
		for j := s; j >= 0; j-- {
			x *= rho[j]
			row[j].C = x
		}
	}
	return nil
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
			kernel.AddRow4(row, r[0], r[1], r[2], r[3], rho[0], rho[1], rho[2], rho[3],
				e.tda[0], e.tda[1], e.tda[2], e.tda[3])
			continue
		}
		for q := range m {
			switch {
			case r[q] != 0:
				kernel.AddRow1(row, r[q], rho[q], e.tda[q])
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
func (e *INCRIS) unshift(s int, row []kernel.Cell, cnt, q int) {
	nf := float64(cnt)
	for j := range row {
		// sum_i (A - aref_j) over the first cnt trajectories, added in
		// trajectory order as e.da will be.
		sa := e.da[j]
		for p := range q {
			sa += e.tda[p][j]
		}
		cl := &row[j]
		c := cl.C
		cl.S3 += c * sa
		cl.S2 += c * (2*cl.S1 + nf*c)
		cl.S1 += nf * c
		cl.C = 0
	}
	e.shifted[s] = false
}

// moments returns cell cl's mean of X, sample covariance C of (A, X) and
// sample variance s^2 of X over n = nf trajectories (denominator n-1), da
// being sum_i (A - aref_j) over them.
func moments(cl *kernel.Cell, da, nf float64) (mean, c, v float64) {
	mx := cl.S1 / nf
	return cl.C + mx, (cl.S3 - da*mx) / (nf - 1), max(0, (cl.S2-nf*mx*mx)/(nf-1))
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
			_, c, v := moments(&row[j], da[j], nf)
			if !e.Printed {
				v /= nf
			}
			mse := c*c + v
			if math.IsNaN(mse) || math.IsInf(mse, 0) {
				return 0, fmt.Errorf("%s: step %d, k = %d: estimated MSE %w", e.Name(), s+1, s+1-j, estimators.ErrNotRepresentable)
			}
			if mse <= best { // ties to the larger k
				best, bestJ = mse, j
			}
		}
		kstar[s] = s + 1 - bestJ
		total += row[bestJ].C + row[bestJ].S1/nf
	}
	return estimators.Finite(e.Name(), total)
}
