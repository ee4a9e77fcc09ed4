package incris

// incris-ld's pass and shifts on dense data (ldData.dense), eight steps at
// a time (kernel.Steps8, kernel.MeansSteps8): a block of trajectories is
// one chunk of every step, so every step's run over it starts at an even
// position and ends its chunk, and lane L of a vector is step s+L.

import "github.com/ope-lab/longhorizon/estimators/incris/internal/kernel"

// denseOK reports whether the passes can take eight steps at a time: dense
// data estimated whole (not a grid's prefix or a shared pass) with the
// option on.
func (e *INCRISLD) denseOK() bool {
	return e.dense && e.kern.steps8 && e.kern.pairs8 != nil && e.kern.pairs4 != nil && !e.cutOn && e.nt == e.n && ldBlock == ldChunk
}

// denseRun sets e.run to step g's (index s0+g) run over block blk of w
// trajectories, its rewards in e.rw.
func (e *INCRISLD) denseRun(s0, g, blk, w int) *ldRunInfo {
	r := &e.run
	e.block(blk, s0+g)
	r.g, r.s, r.t, r.blk, r.w, r.c = g, s0+g, s0+g+1, blk, w, blk
	r.pos0 = blk * ldBlock
	r.tab = e.rt[blk*ldBlock*e.h : (blk*ldBlock+w)*e.h]
	r.idx, r.rw = e.loc, e.rw[:w]
	r.odd, r.ends, r.lastOdd, r.contig, r.cut = false, true, w%2 == 1, true, false
	return r
}

// octets calls do for each block and each run of eight steps of the group
// that has four lags for the kernels (step index s >= 3), and of one
// step for the others: nl steps from g on.
func (e *INCRISLD) octets(s0 int, gs []ldStepState, blocks int, do func(blk, w, g, nl int)) {
	for blk := range blocks {
		w := min(ldBlock, e.n-blk*ldBlock)
		for g, nl := 0, 1; g < len(gs); g += nl {
			nl = 1
			if g+8 <= len(gs) && s0+g >= 3 {
				nl = 8
			}
			do(blk, w, g, nl)
		}
	}
}

// passDense is pass on dense data: per block, the lags k..k+3 with k+3 <=
// s of eight steps s..s+7 go through kernel.Steps8, the rest of each step
// through passRun, with B carried between them. (The cells' partial sums
// are 0 at a block's start: it is a chunk, and flush cleared them at the
// end of the last one.)
func (e *INCRISLD) passDense(s0 int, gs []ldStepState) {
	m0, h, b := e.h+1, e.h, e.b
	e.octets(s0, gs, (e.n+ldBlock-1)/ldBlock, func(blk, w, g, nl int) {
		if g == 0 {
			e.fmTable(e.denseRun(s0, 0, blk, w), s0+len(gs))
		}
		k, i0, c := 0, blk*ldBlock, g*m0
		if nl == 8 {
			ratio, rw := b.Ratio[i0*h:(i0+w)*h], b.Reward[i0*h:(i0+w)*h]
			k = kernel.PassSteps8(ratio, rw, h, s0+g, w, e.bk8, &e.s8, e.part[c:], e.cxA[c:], e.cdA[c:], m0)
		}
		for L := range nl {
			kernel.Lane(e.bk[:w], e.bk8, L, k)
			e.passRun(e.denseRun(s0, g+L, blk, w), k, true, e.clean && e.Guard)
		}
	})
}

// shiftsDense is the shifts' sweep on dense data: the first chunk is the
// first block, whose lags k..k+3 with k+3 <= s of eight steps s..s+7 go
// through kernel.MeansSteps8, the rest through meansRun.
func (e *INCRISLD) shiftsDense(s0 int, gs []ldStepState) {
	m0, h, b := e.h+1, e.h, e.b
	e.octets(s0, gs, 1, func(blk, w, g, nl int) {
		k, c := 0, g*m0
		if nl == 8 {
			k = kernel.MeansStepsAll(b.Ratio[:w*h], b.Reward[:w*h], h, s0+g, w, e.bk8, &e.m8, e.cxA[c:], e.cdA[c:], m0)
		}
		for L := range nl {
			kernel.Lane(e.bk[:w], e.bk8, L, k)
			e.meansRun(e.denseRun(s0, g+L, blk, w), k)
		}
	})
}
