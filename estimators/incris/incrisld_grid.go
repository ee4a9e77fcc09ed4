package incris

// EstimateGrid of incris-ld (SPEC 1b; GridEstimator): the prefixes of a
// grid share one main pass.

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/incris/internal/kernel"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ldGrid is EstimateGrid's state: the grid's prefixes (q), their active
// counts (nactG), horizons, k*, r_hat per step, errors; the prefixes of
// more than one chunk share the main pass (op), which cuts its runs at
// their ends (cutOn, cutPos per step) and snapshots their sums there.
type ldGrid struct {
	gridB, prefB               trajectory.Batch
	grid                       []int
	gridH                      int
	nactG, kstarG, hG, errS    []int
	rG                         []float64
	errG                       []error
	op                         []int // indices q of the shared prefixes
	cutOn                      bool
	cutPos                     []int // per step g of the group: the shared prefixes' ends (positions)
	snapX, snapD, snapS, snapY []float64
	snapC, snapN               []int
	snapBad                    []bool
	alphaOp                    []float64
}

// EstimateGrid implements GridEstimator: out[j] is Estimate on the first
// grid[j] trajectories of b, bit for bit, errors included. The prefixes of
// more than ldChunk trajectories share one pass over the data: the pass
// cuts its runs where a prefix ends and records the prefix's sums there
// (every sum is a sum of chunk sums, and a prefix's chunks are those of
// the largest prefix up to its end), at every step where the prefix has
// the same first chunk, hence the same shifts; the rest (the Lepski
// rounds, rule 3) runs per prefix. Smaller prefixes, and the steps where
// a prefix's first chunk differs, are computed on their own, from the
// same table of ratios.
func (e *INCRISLD) EstimateGrid(b *trajectory.Batch, grid []int, out []float64) error {
	if err := estimators.CheckGrid(b, grid, out); err != nil {
		return err
	}
	if grid[0] < 2 {
		return estimators.GridError(grid[0], fmt.Errorf("%s: %w: n = %d, needs n >= 2 for sample variances", e.Name(), estimators.ErrTooFew, grid[0]))
	}
	vb := e.view.Of(b)
	nmax := grid[len(grid)-1]
	e.gridB = vb.Prefix(nmax)
	e.prepare(&e.gridB)
	h, nq := e.h, len(grid)
	e.growGrid(grid)
	// Active trajectories per step and horizon of every prefix.
	cnt := e.errS[:h] // scratch until the errors are reset below
	clear(cnt)
	hq, q := 0, 0
	for i := range nmax {
		start, end := e.gridB.Offsets[i], e.gridB.Offsets[i+1]
		hq = max(hq, end-start)
		for s, r := range e.gridB.Reward[start:end] {
			if r != 0 {
				cnt[s]++
			}
		}
		for ; q < nq && grid[q] == i+1; q++ {
			copy(e.nactG[q*h:(q+1)*h], cnt)
			e.hG[q] = hq
		}
	}
	for q := range nq {
		e.errG[q], e.errS[q] = nil, math.MaxInt
	}
	e.fillS = false
	gsz := ldGroupSize(h)
	// Prefixes of at most one chunk: on their own.
	for q := range nq {
		if grid[q] > ldChunk {
			continue
		}
		e.context(q)
		for s0 := 0; s0 < e.hG[q] && e.errG[q] == nil; s0 += gsz {
			s1 := min(e.hG[q], s0+gsz)
			e.group(s0, s1)
			for g := range s1 - s0 {
				e.result(q, s0+g, &e.gs[g])
			}
		}
	}
	// The others: one pass per group of steps.
	e.op = e.op[:0]
	for q := range nq {
		if grid[q] > ldChunk {
			e.op = append(e.op, q)
			e.alphaOp[len(e.op)-1] = 1 / (float64(grid[q]) - 1)
		}
	}
	cells := len(e.part)
	np := len(e.op)
	for s0 := 0; s0 < h && np > 0; s0 += gsz {
		s1 := min(h, s0+gsz)
		e.context(nq - 1)
		gs := e.initGroup(s0, s1)
		for g := range gs {
			for i, q := range e.op {
				e.cutPos[g*np+i] = -1
				if e.shares(q, s0+g) {
					e.cutPos[g*np+i] = e.nactG[q*h+s0+g]
				}
			}
		}
		e.cutOn = true
		e.shifts(s0, gs)
		e.pass(s0, gs)
		e.cutOn = false
		for i, q := range e.op {
			if e.errG[q] != nil && e.errS[q] < s0 {
				continue
			}
			e.context(q)
			any := false
			for g := range gs {
				s := s0 + g
				t := s + 1
				if s >= e.hG[q] || !e.shares(q, s) {
					gs[g] = ldStepState{t: t, skip: true}
					continue
				}
				any = true
				gs[g] = ldStepState{t: t, nact: e.nactG[q*h+s], bad: e.snapBad[i*len(e.gs)+g]}
				c, o := g*(h+1), i*cells+g*(h+1)
				copy(e.sumXA[c:c+t+1], e.snapX[o:o+t+1])
				copy(e.sumDA[c:c+t+1], e.snapD[o:o+t+1])
				copy(e.ssDA[c:c+t+1], e.snapS[o:o+t+1])
				copy(e.yA[c:c+t+1], e.snapY[o:o+t+1])
				copy(e.cntA[c:c+t+1], e.snapC[o:o+t+1])
				copy(e.negA[c:c+t+1], e.snapN[o:o+t+1])
				clear(e.rowSt[c : c+t+1])
				clear(e.rowQ[c : c+t+1])
			}
			if any {
				e.finalize(s0, gs)
				for g := range gs {
					if !gs[g].skip {
						e.result(q, s0+g, &gs[g])
					}
				}
			}
		}
		// The steps where a prefix has its own first chunk.
		for _, q := range e.op {
			e.context(q)
			for s := s0; s < min(s1, e.hG[q]) && s < e.errS[q]; s++ {
				switch {
				case e.shares(q, s):
				case e.nactG[q*h+s] == 0:
					e.rG[q*h+s], e.kstar[s] = 0, 0
				default:
					e.group(s, s+1)
					e.result(q, s, &e.gs[0])
				}
			}
		}
	}
	e.b = nil
	for q := range nq {
		if e.errG[q] != nil {
			return estimators.GridError(grid[q], e.errG[q])
		}
		total := 0.0
		for _, r := range e.rG[q*h : q*h+e.hG[q]] {
			total += r
		}
		v, err := estimators.Finite(e.Name(), total)
		if err != nil {
			return estimators.GridError(grid[q], err)
		}
		out[q] = v
	}
	return nil
}

// context makes grid prefix q the data being estimated.
func (e *INCRISLD) context(q int) {
	h := e.gridH
	e.prefB = e.gridB.Prefix(e.grid[q])
	e.b, e.n = &e.prefB, e.grid[q]
	e.nact = e.nactG[q*h : (q+1)*h]
	e.kstar = e.kstarG[q*h : q*h+e.hG[q]]
}

// result records step index s of grid prefix q: its r_hat, or its error
// if it is the prefix's first (in step order).
func (e *INCRISLD) result(q, s int, st *ldStepState) {
	e.rG[q*e.gridH+s] = st.r
	if st.err != nil && s < e.errS[q] {
		e.errG[q], e.errS[q] = st.err, s
	}
}

// growGrid sizes EstimateGrid's workspace for grid (after prepare).
func (e *INCRISLD) growGrid(grid []int) {
	nq, h := len(grid), e.h
	e.grid, e.gridH = append(e.grid[:0], grid...), h
	if cap(e.nactG) < nq*h {
		e.nactG = make([]int, nq*h)
		e.kstarG = make([]int, nq*h)
		e.rG = make([]float64, nq*h)
	}
	if cap(e.hG) < max(nq, h) {
		e.hG = make([]int, max(nq, h))
		e.errS = make([]int, max(nq, h))
		e.errG = make([]error, max(nq, h))
	}
	np := 0
	for _, n := range grid {
		if n > ldChunk {
			np++
		}
	}
	cells, gsz := len(e.part), len(e.gs)
	if cap(e.op) < np {
		e.op = make([]int, 0, np)
		e.alphaOp = make([]float64, np)
	}
	if len(e.snapX) < np*cells {
		fl := make([]float64, 4*np*cells)
		e.snapX, e.snapD, e.snapS, e.snapY = fl[:np*cells], fl[np*cells:2*np*cells], fl[2*np*cells:3*np*cells], fl[3*np*cells:]
		in := make([]int, 2*np*cells)
		e.snapC, e.snapN = in[:np*cells], in[np*cells:]
	}
	if len(e.snapBad) < np*gsz {
		e.snapBad = make([]bool, np*gsz)
		e.cutPos = make([]int, np*gsz)
	}
}

// AppendGridDiagnostic implements GridReporter: k* at grid point j of the
// last EstimateGrid call.
func (e *INCRISLD) AppendGridDiagnostic(dst []float64, d, j int) []float64 {
	return appendInts(dst, e.kstarG[j*e.gridH:j*e.gridH+e.hG[j]])
}

// shares reports whether grid prefix q takes its sums at step index s
// from the main pass: it has active trajectories, and the same first
// chunk (so the same shifts) as the largest prefix.
func (e *INCRISLD) shares(q, s int) bool {
	p, all := e.nactG[q*e.h+s], e.nactG[(len(e.grid)-1)*e.h+s]
	return p > 0 && (p >= ldChunk || p == all)
}

// snap records, at the end pe of a run, the sums of every shared prefix
// that ends there: the totals so far plus the open chunk's partial sums
// (a chunk of that prefix ends there), and its y. The partial sums then
// go on for the longer prefixes.
func (e *INCRISLD) snap(r *ldRunInfo, pe int) {
	g, t := r.g, r.t
	s := e.s0 + g
	c0 := g * (e.h + 1)
	cells := len(e.part)
	for i, q := range e.op {
		if !e.shares(q, s) || e.nactG[q*e.h+s] != pe {
			continue
		}
		o := i*cells + c0
		if r.ends {
			copy(e.snapX[o:o+t+1], e.sumXA[c0:c0+t+1])
			copy(e.snapD[o:o+t+1], e.sumDA[c0:c0+t+1])
			copy(e.snapS[o:o+t+1], e.ssDA[c0:c0+t+1])
		} else {
			for k := 0; k <= t; k++ {
				p := &e.part[c0+k]
				e.snapX[o+k] = e.sumXA[c0+k] + p.SX
				e.snapD[o+k] = e.sumDA[c0+k] + p.SD
				e.snapS[o+k] = e.ssDA[c0+k] + p.SS
				e.snapY[o+k] = kernel.GemvY(e.snapY[o+k], r.c, e.alphaOp[i], kernel.Combine(p.L0, p.L1, p.Last, r.lastOdd, k == t))
			}
		}
		copy(e.snapC[o:o+t+1], e.cntA[c0:c0+t+1])
		copy(e.snapN[o:o+t+1], e.negA[c0:c0+t+1])
		e.snapBad[i*len(e.gs)+g] = e.gs[g].bad
	}
	if !r.ends && r.lastOdd {
		// The prefix's odd last product goes on into the even lane.
		for k := 0; k <= t; k++ {
			p := &e.part[c0+k]
			p.L0 += p.Last
			p.Last = 0
		}
	}
}
