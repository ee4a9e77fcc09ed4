package incris

// The passes of incris-ld (SPEC 1b) over its data: the ratio table
// (prepare), the shifts, the main pass that adds up the sums of every
// (step, lag) cell of a group of steps chunk by chunk, and the sums of B_k
// for rule 3. Their inner loops are in package kernel.

import (
	"math"

	"github.com/ope-lab/longhorizon/estimators/incris/internal/kernel"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ldData is the data being estimated, as the passes read it (set by
// prepare, and for each grid prefix by context).
type ldData struct {
	b       *trajectory.Batch // the batch of the current Estimate (views it)
	n, h    int               // trajectories and horizon (of the batch or prefix being estimated)
	nt      int               // trajectories in the ratio table rt (EstimateGrid: the largest prefix)
	nact    []int             // number of active trajectories per step index
	nactAll []int             // nact's storage for Estimate
	// check: some product of ratios may leave the normal float64 range,
	// so the pass checks every one.
	check bool
	// clean: every value is finite and the products of ratios, rewards and
	// ratios minus 1 are far from underflow and overflow, so that the
	// increment D^i_k is nonzero exactly when rho^i_{t-k} != 1 and no ratio
	// kept so far is 0, with the sign of (rho - 1) r: the counts of rule
	// 1(b) then come from bit masks instead of the inner loop.
	clean bool
	// dense: every trajectory runs the whole horizon with a nonzero
	// reward at every step, so every step has the same active
	// trajectories (passDense).
	dense bool
	// rt holds the ratios block by block, step-major within a block of
	// w = min(ldBlock, nt - blk ldBlock) trajectories: rt[blk ldBlock h +
	// s w + j] (only those of running trajectories are read). With clean
	// and Guard, eq1, lt1 and zero mark the ratios equal to 1, below 1 and
	// equal to 0: bit j of word ((blk h + s) ldBlock/64 + j/64).
	rt             []float64
	eq1, lt1, zero []uint64
}

// ldCells holds the current group of steps (step indices s0 ..
// s0+len(gs)-1) and, per (step g of the group, lag k) cell at g*(h+1)+k,
// the sums of the pass and the statistics of SPEC 1b made of them.
type ldCells struct {
	s0   int
	gs   []ldStepState
	part []kernel.Part // the open chunk's partial sums
	// Totals over the chunks ended so far: sums of X_k, B_k (rule 3 only)
	// and D_k, the centred sum of squares of D_k, and y, the sum of the
	// chunks' alpha-scaled (X_k - cx)^2 (S_kk before the rank-1
	// corrections, Gemv's y).
	sumXA, sumBA, sumDA, ssDA, yA []float64
	// cx and cd: the shifts, the means of X_k and D_k over the first
	// chunk (shifts).
	cxA, cdA []float64
	// From finish: S_kk, the means of X_k and D_k, mean - cx, sqrt(y) (for
	// the Cauchy-Schwarz bounds of scanRow) and the sum of the ssD of the
	// lags below k (for the scores).
	sA, meanA, deltaA, dmA, sqA, ppA []float64
	// The numbers of nonzero and of negative D_k (rule 1(b)).
	cntA, negA []int
}

// ldScratch is the scratch of the passes over one run of trajectories.
type ldScratch struct {
	run  ldRunInfo   // the current run of a sweep
	loc  []int       // the block's active trajectories at a step
	rw   []float64   // their rewards
	bk   []float64   // running B_k
	rc   []float64   // gathered ratios of a run (up to 4 rows)
	rc2  []float64   // gathered ratios minus 1
	fm   []float64   // ratios minus 1 of a block, as rt
	abuf []float64   // regenerated shifted X of a run: (K+1) rows
	acc4 kernel.Acc4 // kernel.Lag4's sums
	acc8 kernel.Acc8 // kernel.Lag8's sums
	rho8 [8][]float64
	bk8  []float64 // B of eight steps per trajectory (passDense)
	s8   kernel.Steps8Acc
	m8   kernel.MeansSteps8Acc
}

// prepare sizes the workspace for b and counts the active trajectories of
// every step. It sets e.check unless every product of at most h nonzero
// ratios of b is bound to stay in the normal float64 range, and e.clean
// (see INCRISLD).
func (e *INCRISLD) prepare(b *trajectory.Batch) {
	n, h := b.N(), b.Horizon()
	e.grow(n, h)
	if e.opts != nil {
		e.kern = *e.opts
	} else {
		e.kern = ldDefaultOptions()
	}
	e.b, e.n, e.h, e.nt = b, n, h, n
	e.nact = e.nactAll[:h]
	e.kstar = e.kstarAll[:h]
	window := func() (int, int) { return weights.WindowBounds(b) }
	e.check, e.clean, e.dense = kernel.Bounds(b.Offsets, b.Reward, b.Ratio, h, e.nact, window)
	e.table(b)
}

// table fills the ratio table rt and, with clean and Guard, the bit masks.
func (e *INCRISLD) table(b *trajectory.Batch) {
	kernel.Table(b.Offsets, b.Ratio, b.N(), b.Horizon(), ldBlock, e.rt, e.clean && e.Guard, e.eq1, e.lt1, e.zero)
}

// ldRunInfo describes a run of active trajectories for a sweep's
// callback: step g (index s, t = s+1), block blk of w trajectories with
// its ratio table tab (tab[s*w+j]), the run's block-local indices idx
// (consecutive if contiguous) and rewards rw, all within chunk c; odd: the
// run starts at an odd position in the chunk; ends: it ends the chunk;
// lastOdd: it ends a chunk of odd width. first: the run is the first of
// its block in the sweep.
type ldRunInfo struct {
	g, s, t, blk, w, c                int
	pos0                              int // the position of the run's first trajectory among the step's active ones
	tab                               []float64
	idx                               []int
	rw                                []float64
	odd, ends, lastOdd, contig, first bool
	cut                               bool // the run ends where a shared prefix does
}

// sweep calls do for every run of the first upto(g) active trajectories
// (in trajectory order) of every step g of gs (step index s0+g), block by
// block of trajectories and, within a block, step by step.
func (e *INCRISLD) sweep(s0 int, gs []ldStepState, upto func(g int) int, do func(r *ldRunInfo)) {
	for g := range gs {
		gs[g].pos = 0
	}
	r := &e.run
	np := len(e.op)
	for blk := 0; blk*ldBlock < e.n; blk++ {
		w := min(ldBlock, e.nt-blk*ldBlock)
		r.blk, r.w, r.first = blk, w, true
		r.tab = e.rt[blk*ldBlock*e.h : (blk*ldBlock+w)*e.h]
		more := false
		for g := range gs {
			st := &gs[g]
			lim := upto(g)
			if st.pos >= lim {
				continue
			}
			more = true
			s := s0 + g
			e.block(blk, s)
			loc := e.loc
			if len(loc) > lim-st.pos {
				loc = loc[:lim-st.pos]
			}
			if len(loc) == 0 {
				continue
			}
			r.g, r.s, r.t = g, s, st.t
			r.contig = loc[len(loc)-1]-loc[0] == len(loc)-1
			for p := 0; p < len(loc); {
				cut := math.MaxInt
				if e.cutOn {
					for _, c := range e.cutPos[g*np : (g+1)*np] {
						if c > st.pos && c < cut {
							cut = c
						}
					}
				}
				l, c, odd, ends, lastOdd, atCut := kernel.Run(st.pos, len(loc)-p, st.nact, cut, ldChunk)
				r.idx, r.rw, r.c = loc[p:p+l], e.rw[p:p+l], c
				r.odd, r.ends, r.lastOdd, r.cut = odd, ends, lastOdd, atCut
				r.pos0 = st.pos
				do(r)
				r.first = false
				st.pos += l
				p += l
			}
		}
		if !more {
			return
		}
	}
}

// rows returns the ratios rho_{t-k} of the run's trajectories (from
// e.rc, gathered, unless the run is contiguous).
func (r *ldRunInfo) rows(k int, rc []float64) []float64 {
	row := r.tab[(r.s-k)*r.w : (r.s-k+1)*r.w]
	if r.contig {
		return row[r.idx[0] : r.idx[0]+len(r.idx)]
	}
	rc = rc[:len(r.idx)]
	for j, i := range r.idx {
		rc[j] = row[i]
	}
	return rc
}

// block gathers the active trajectories of block blk at step index s into
// e.loc (indices within the block) and their rewards into e.rw.
func (e *INCRISLD) block(blk, s int) {
	b := e.b
	i0 := blk * ldBlock
	e.loc = e.loc[:0]
	if e.dense { // every trajectory is active, its steps at i h
		for j := range min(e.n, i0+ldBlock) - i0 {
			e.rw[j] = b.Reward[(i0+j)*e.h+s]
			e.loc = append(e.loc, j)
		}
		return
	}
	for i := i0; i < min(e.n, i0+ldBlock); i++ {
		p := b.Offsets[i] + s
		if p < b.Offsets[i+1] && b.Reward[p] != 0 {
			e.rw[len(e.loc)] = b.Reward[p]
			e.loc = append(e.loc, i-i0)
		}
	}
}

// shifts sets cx[k] and cd[k] of the steps of the group to the means of
// X_k and D_k over their first chunk of active trajectories (all of them
// when there are at most ldChunk), with the products of the pass.
func (e *INCRISLD) shifts(s0 int, gs []ldStepState) {
	m0 := e.h + 1
	for g := range gs {
		c := g * m0
		clear(e.cxA[c : c+gs[g].t+1])
		clear(e.cdA[c : c+gs[g].t+1])
	}
	if e.denseOK() {
		e.shiftsDense(s0, gs)
	} else {
		e.sweep(s0, gs, func(g int) int { return min(ldChunk, gs[g].nact) }, func(r *ldRunInfo) {
			bk := e.bk[:len(r.idx)]
			for j := range bk {
				bk[j] = 1
			}
			e.meansRun(r, 0)
		})
	}
	for g := range gs {
		c, t := g*m0, gs[g].t
		if gs[g].nact == 0 {
			continue
		}
		cf := float64(min(ldChunk, gs[g].nact))
		sx, sd := e.cxA[c:c+t+1], e.cdA[c:c+t+1]
		for k := range t {
			sx[k], sd[k] = sx[k]/cf, sd[k]/cf
		}
		sx[t] /= cf
	}
}

// meansRun adds the run's X_k and D_k (from lag k on, bk holding B_k) to
// the shifts' sums of its step.
func (e *INCRISLD) meansRun(r *ldRunInfo, k int) {
	c := r.g * (e.h + 1)
	sx, sd := e.cxA[c:c+r.t+1], e.cdA[c:c+r.t+1]
	bk := e.bk[:len(r.idx)]
	l := len(bk)
	for ; k+7 < r.t; k += 8 { // kernel.Means8: the bits of Means
		for L := range e.rho8 {
			e.rho8[L] = r.rows(k+L, e.rc[L*l:(L+1)*l])
		}
		kernel.Means8(&e.rho8, r.rw, bk, sx[k:k+8], sd[k:k+8])
	}
	for ; k+3 < r.t; k += 4 {
		l := len(bk)
		rc := e.rc[:4*l]
		kernel.Means4(r.rows(k, rc[:l]), r.rows(k+1, rc[l:2*l]), r.rows(k+2, rc[2*l:3*l]), r.rows(k+3, rc[3*l:]),
			r.rw, bk, sx[k:k+4], sd[k:k+4])
	}
	for ; k < r.t; k++ {
		kernel.Means(r.rows(k, e.rc), r.rw, bk, &sx[k], &sd[k])
	}
	x := sx[r.t]
	for j, b := range bk {
		x += float64(b * r.rw[j])
	}
	sx[r.t] = x
}

// pass is the main pass over the data for the steps of the group: block
// by block, step by step, lag by lag, it adds up the partial sums of every
// cell and flushes them at the end of each chunk.
func (e *INCRISLD) pass(s0 int, gs []ldStepState) {
	fast := !e.check && (e.clean || !e.Guard)
	masks := e.clean && e.Guard
	s1 := s0 + len(gs)
	if fast && e.denseOK() {
		e.passDense(s0, gs)
		return
	}
	e.sweep(s0, gs, func(g int) int { return gs[g].nact }, func(r *ldRunInfo) {
		if fast && r.first {
			e.fmTable(r, s1)
		}
		bk := e.bk[:len(r.idx)]
		for j := range bk {
			bk[j] = 1
		}
		e.passRun(r, 0, fast, masks)
	})
}

// fmTable fills e.fm with rho - 1 of the run's block, steps up to s1:
// where Lag4 runs, only the first three, since Lag takes only a step's
// last (t-k) mod 4 lags k, at steps t-1-k <= 2.
func (e *INCRISLD) fmTable(r *ldRunInfo, s1 int) {
	if e.kern.pairs4 != nil {
		s1 = min(s1, 3)
	}
	fmtab := e.fm[:s1*r.w]
	for q, f := range r.tab[:s1*r.w] {
		fmtab[q] = f - 1
	}
}

// passRun adds the run's cells from lag k on (bk holding B_k) to the
// partial sums of its step, and flushes them at the end of a chunk.
func (e *INCRISLD) passRun(r *ldRunInfo, k int, fast, masks bool) {
	st := &e.gs[r.g]
	c0 := r.g * (e.h + 1)
	t, l := r.t, len(r.idx)
	part := e.part[c0 : c0+t+1]
	cx, cd := e.cxA[c0:c0+t+1], e.cdA[c0:c0+t+1]
	bk := e.bk[:l]
	fmtab := e.fm
	if fast && e.kern.pairs8 != nil && e.kern.pairs4 != nil {
		// eight lags at a time (kernel.Lag8: the same bits as kernel.Lag)
		rc := e.rc[:8*l]
		for ; k+7 < t; k += 8 {
			for L := range e.rho8 {
				e.rho8[L] = r.rows(k+L, rc[L*l:(L+1)*l])
			}
			kernel.Lag8(e.kern.pairs8, e.kern.pairs4, &e.acc8, &e.acc4, &e.rho8, r.rw, bk, cx[k:k+8], cd[k:k+8], part[k:k+8], r.odd, r.lastOdd)
		}
	}
	if fast && e.kern.pairs4 != nil {
		// four lags at a time (kernel.Lag4: the same bits as kernel.Lag)
		rc := e.rc[:4*l]
		var rho4 [4][]float64
		for ; k+3 < t; k += 4 {
			for L := range rho4 {
				rho4[L] = r.rows(k+L, rc[L*l:(L+1)*l])
			}
			kernel.Lag4(e.kern.pairs4, &e.acc4, &rho4, r.rw, bk, cx[k:k+4], cd[k:k+4], part[k:k+4], r.odd, r.lastOdd)
		}
	}
	for ; k < t; k++ {
		rho := r.rows(k, e.rc)
		if fast {
			fm := fmtab[(r.s-k)*r.w : (r.s-k+1)*r.w]
			if r.contig {
				fm = fm[r.idx[0] : r.idx[0]+l]
			} else {
				fm = kernel.Gather(fm, r.idx, e.rc2)
			}
			kernel.Lag(rho, fm, r.rw, bk, cx[k], cd[k], &part[k], r.odd, r.lastOdd)
		} else {
			cn, ng, bad := kernel.LagGeneral(rho, r.rw, bk, cx[k], cd[k], &part[k], r.odd, r.lastOdd, e.check)
			e.cntA[c0+k] += cn
			e.negA[c0+k] += ng
			st.bad = st.bad || bad
		}
	}
	kernel.Top(r.rw, bk, cx[t], &part[t], r.odd, r.lastOdd)
	if masks {
		e.countMasks(r)
	}
	if r.ends {
		e.flush(r.g, r.c, r.lastOdd, st.pos+l)
	}
	if r.cut {
		e.snap(r, st.pos+l)
	}
}

// countMasks adds the counts of nonzero and of negative increments of a
// run's trajectories, for every lag, from the bit masks (valid when
// e.clean).
func (e *INCRISLD) countMasks(r *ldRunInfo) {
	c0, q := r.g*(e.h+1), r.blk*e.h*(ldBlock/64)
	q1 := q + e.h*(ldBlock/64)
	kernel.CountRun(r.idx, r.rw, r.s, e.h, e.eq1[q:q1], e.lt1[q:q1], e.zero[q:q1], e.cntA[c0:c0+r.t], e.negA[c0:c0+r.t])
}

// flush ends chunk c of step g at position pe: it adds the chunk's
// partial sums of every lag to the totals and its Gemv product to y (the
// diagonal of S before the rank-1 corrections), and to the y of every
// shared prefix that holds the whole chunk; cw is odd when lastOdd.
func (e *INCRISLD) flush(g, c int, lastOdd bool, pe int) {
	st := &e.gs[g]
	t := st.t
	c0 := g * (e.h + 1)
	alpha := 1 / (float64(e.n) - 1)
	cells := len(e.part)
	for k := 0; k <= t; k++ {
		p := &e.part[c0+k]
		e.sumXA[c0+k] += p.SX
		e.sumDA[c0+k] += p.SD
		e.ssDA[c0+k] += p.SS
		dot := kernel.Combine(p.L0, p.L1, p.Last, lastOdd, k == t)
		e.yA[c0+k] = kernel.GemvY(e.yA[c0+k], c, alpha, dot)
		if e.cutOn {
			for i, q := range e.op {
				if e.shares(q, e.s0+g) && e.nactG[q*e.h+e.s0+g] >= pe {
					y := &e.snapY[i*cells+c0+k]
					*y = kernel.GemvY(*y, c, e.alphaOp[i], dot)
				}
			}
		}
		*p = kernel.Part{}
	}
}

// bsums sets sumB[k] of the steps of the group for k = 1..kb(g) (sum_i B_k
// over the active trajectories, chunk by chunk, with the products of the
// pass); sumB[0] is the number of active trajectories.
func (e *INCRISLD) bsums(s0 int, gs []ldStepState, kb func(g int) int) {
	m0 := e.h + 1
	for g := range gs {
		c := g * m0
		clear(e.sumBA[c : c+gs[g].t+1])
		e.sumBA[c] = float64(gs[g].nact)
	}
	e.sweep(s0, gs, func(g int) int {
		if kb(g) == 0 {
			return 0
		}
		return gs[g].nact
	}, func(r *ldRunInfo) {
		c0 := r.g * m0
		K := kb(r.g)
		part := e.part[c0 : c0+K+1]
		bk := e.bk[:len(r.idx)]
		for j := range bk {
			bk[j] = 1
		}
		k := 1
		for ; k+3 <= K; k += 4 {
			l := len(bk)
			rc := e.rc[:4*l]
			kernel.BSum4(r.rows(k-1, rc[:l]), r.rows(k, rc[l:2*l]), r.rows(k+1, rc[2*l:3*l]), r.rows(k+2, rc[3*l:]), bk,
				&part[k].SB, &part[k+1].SB, &part[k+2].SB, &part[k+3].SB)
		}
		for ; k <= K; k++ {
			kernel.BSum(r.rows(k-1, e.rc), bk, &part[k].SB)
		}
		if r.ends {
			for k := 1; k <= K; k++ {
				e.sumBA[c0+k] += part[k].SB
				part[k].SB = 0
			}
		}
	})
}
