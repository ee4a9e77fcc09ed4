package estimators

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ope-lab/longhorizon/trajectory"
)

// Constants of incris-ld (SPEC 1b). ldAlpha and ldZL are part of the
// estimator's definition, not tuning knobs; ldChunk fixes the order of its
// floating-point sums (changing it changes estimates in the last bits).
const (
	// ldAlpha is the level spent over the adjacent-increment tests.
	ldAlpha = 0.05
	// ldZL is the Lepski comparison's multiple of the standard error.
	ldZL = 2.0
	// ldChunk is the number of active trajectories per partial sum: every
	// sum over trajectories is a sum of per-chunk sums, and the sums of
	// squares and products are taken about the means of the first chunk
	// (the shifted-data algorithm).
	ldChunk = 512
)

// Tuning of the computation; none of these changes a result.
const (
	// ldBlock is the number of trajectories whose ratios the pass holds in
	// a step-major table at a time (a multiple of 64, for the bit masks).
	ldBlock = 512
	// ldGroupCells bounds (steps per group) x (H+1): the pass keeps partial
	// sums for every (step, lag) cell of a group of steps.
	ldGroupCells = 1 << 15
	// ldFullM: a step with t+1 <= ldFullM gets its whole covariance matrix
	// S (it costs little there), so e.s holds all of it.
	ldFullM = 16
	// ldPendRows is the number of undecided Lepski rows a step requests
	// exact covariances for in one round.
	ldPendRows = 8
	// ldFirstAsk is the number of a row's undecided comparisons requested
	// in its first round (the most likely to fail first); the next round
	// asks for the rest.
	ldFirstAsk = 3
)

// INCRISLD is `incris-ld` (SPEC 1b): INCRIS's idea of dropping old ratios
// when that costs no bias, with the bias tested one dropped ratio at a time
// and a Lepski comparison between the candidate k.
//
// At step t, with X_k = B_k r_t for k = 0..t (k = number of most recent
// ratios kept), it keeps lag k if the adjacent increment
// D_k = X_{k+1} - X_k = (rho_{t-k} - 1) X_k has a significant mean
// (|delta_k| > z_k se_k with z_k = Phi^{-1}(1 - alpha/(2(k+1)(k+2)))), or,
// with Guard set, if that test had no power and the nonzero D_k share one
// sign; k_D = 1 + the largest kept lag. The Lepski step takes k_L = the
// smallest k whose mean X_k is within z_L standard errors of every mean
// X_{k'}, k' > k, with the standard errors from the sample covariance
// matrix S of (X_0..X_t). Then k* = max(k_D, k_L) and
// r_hat_t = sum_i X^i_{k*} / sum_i B^i_{k*} (0/0 := 0); the estimate is
// sum_t r_hat_t. Trajectories shorter than the horizon are padded with
// r = 0 and rho = 1, and every sum runs over all n.
//
// How (issue 13; the values are bit for bit those of the first, O(n H^3)
// implementation, which is kept as a test reference in
// incrisld_ref_test.go):
//
// Every sum over trajectories is taken in chunks of ldChunk active
// trajectories (r_t != 0), each chunk's sum added in order, and the sums
// of squares and products are taken about the means of the first chunk
// and corrected to the sample means at the end (the shifted-data
// algorithm: as accurate as two-pass centring, and exactly it when one
// chunk holds every trajectory). One pass per group of steps computes, for
// every (t, k), the sums of X_k and D_k, the centred sum of squares of D_k
// and the diagonal S_kk, in the exact order of operations of the first
// implementation (its BLAS calls included: Gemv's two lanes per row,
// Syr's rank-1 corrections). The pass goes block by block of ldBlock
// trajectories, whose ratios a step-major copy holds, through every step
// of the group, with partial sums carried from block to block: O(n H^2)
// multiply-adds over data in cache. Sums of B_k are needed only at k*
// (rule 3) and come from a short pass at the end.
//
// The Lepski rule needs an off-diagonal S_kk' only where its comparison is
// not already decided by the diagonal: with Y the sums of products before
// the rank-1 corrections, |Y_kk'| <= (1+eps) sqrt(Y_kk Y_k'k') by
// Cauchy-Schwarz, eps a bound of their rounding errors, and the comparison
// is monotone in S_kk' (and every floating-point operation is monotone),
// so this interval decides most comparisons, exactly. The others (tens per
// step) are computed exactly, in Gemv's order, in rounds of a second pass
// that regenerates the X values (the same products) of the steps that need
// them, the comparisons most likely to fail first. Cost: O(n H^2) for the
// pass plus O(n K) per round and step, K the largest lag involved, instead
// of O(n H^3) for the whole S.
//
// EstimateGrid shares the pass between the prefixes of a grid (see there).
//
// Workspace: the ratios in step-major blocks (8 n H bytes, as before), bit
// masks, partial sums for the (step, lag) cells of a group of steps (at
// most ldGroupCells), S of one step (e.step) and O(H ldBlock) scratch
// (incrisLDBytes). An INCRISLD reuses its workspace: once warm, Estimate
// and EstimateGrid do not allocate. It is not safe for concurrent use.
type INCRISLD struct {
	// Guard enables rule 1(b), keeping powerless lags whose nonzero
	// increments share one sign (key "incris-ld"; without it
	// "incris-ld-noguard").
	Guard bool

	view weightView
	// opts, if not nil, overrides ldDefaultOptions (tests run every
	// path); kern holds the options in use, chosen by prepare.
	opts *ldOptions
	kern ldOptions

	z     []float64 // z_k, k = 0..len-1, grown as horizons grow
	kstar []int     // k* per step (a view of kstarAll, or of kstarG)

	kstarAll, nactAll []int
	// check: some product of ratios may leave the normal float64 range,
	// so the pass checks every one.
	check bool
	// clean: every value is finite and the products of ratios, rewards and
	// ratios minus 1 are far from underflow and overflow, so that the
	// increment D^i_k is nonzero exactly when rho^i_{t-k} != 1 and no ratio
	// kept so far is 0, with the sign of (rho - 1) r: the counts of rule
	// 1(b) then come from bit masks instead of the inner loop.
	clean bool

	b    *trajectory.Batch // the batch of the current Estimate (views it)
	n, h int               // trajectories and horizon (of the batch or prefix being estimated)
	nt   int               // trajectories in the ratio table e.rt (EstimateGrid: the largest prefix)
	nact []int             // number of active trajectories per step index
	// rt holds the ratios block by block, step-major within a block of
	// w = min(ldBlock, nt - blk ldBlock) trajectories: rt[blk ldBlock h +
	// s w + j] (only those of running trajectories are read). With e.clean
	// and Guard, eq1, lt1 and zero mark the ratios equal to 1, below 1 and
	// equal to 0: bit j of word ((blk h + s) ldBlock/64 + j/64).
	rt             []float64
	eq1, lt1, zero []uint64

	// The current group of steps: step indices s0 .. s0+len(gs)-1.
	s0 int
	gs []ldStepState
	// Per (step g of the group, lag k), at g*(h+1)+k.
	part                                             []ldPart
	sumXA, sumBA, sumDA, ssDA, yA, sA, meanA, deltaA []float64
	cxA, cdA, dmA, sqA, ppA                          []float64
	cntA, negA                                       []int
	rowSt                                            []uint8 // Lepski row states
	rowQ                                             []int32
	refA                                             []bool    // rows a round's requests use
	ent                                              []ldEntry // the round's requested covariances
	unk                                              []ldUnknown
	fillS                                            bool // step(): keep S of the step in e.s

	// Views of the step last finalised (g*(h+1) ... + t+1).
	sumX, sumB, sumD, ssD, mean, delta []float64
	cnt, neg                           []int
	// act and ina list the active and inactive trajectories of the step
	// last computed by step (the single-step path).
	act, ina []int
	// s holds S of the step last computed by step, upper triangle, stride
	// t+1: the diagonal and the entries the Lepski rule computed (all of
	// them when t+1 <= ldFullM).
	s []float64

	// EstimateGrid: the grid's prefixes (q), their active counts (nactG),
	// horizons, k*, r_hat per step, errors; the prefixes of more than one
	// chunk share the main pass (op), which cuts its runs at their ends
	// (cutOn, cutPos per step) and snapshots their sums there.
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

	// Pass scratch.
	run  ldRunInfo // the current run of a sweep
	loc  []int     // the block's active trajectories at a step
	rw   []float64 // their rewards
	bk   []float64 // running B_k
	rc   []float64 // gathered ratios of a run (up to 4 rows)
	rc2  []float64 // gathered ratios minus 1
	fm   []float64 // ratios minus 1 of a block, as e.rt
	abuf []float64 // regenerated shifted X of a run: (K+1) rows
	acc4 ldAcc4    // ldKernel4's sums
}

// ldPart holds the partial sums of one (step, lag) cell over the current
// chunk: of X_k, B_k, D_k, (D_k - cd)^2, and the two lanes and the odd
// last product of (X_k - cx)^2 in Gemv's order.
type ldPart struct {
	sx, sb, sd, ss, l0, l1, last float64
}

// ldStepState is the state of one step of a group.
type ldStepState struct {
	t, nact int
	skip    bool  // not computed in this group (EstimateGrid)
	bad     bool  // a product of ratios left the normal range
	err     error // the step's error, if any
	nonzero bool  // some mean differs from its shift
	kD, ks  int
	done    bool // ks is known
	r       float64
	pos     int // active trajectories passed so far in the current pass
	e0, e1  int // the step's requests in e.ent
	kmax    int // the largest lag they involve
}

// ldEntry is a requested off-diagonal covariance S_kk' of step g: the
// lanes of the current chunk's dot product and y, the sum of the chunks'
// alpha-scaled products (Gemv's y).
type ldEntry struct {
	g, k, k2     int32
	l0, l1, last float64
	y            float64
}

// ldUnknown is an undecided Lepski comparison (k, k2) and its likelihood
// of failing.
type ldUnknown struct {
	k2    int
	score float64
}

// Lepski row states.
const (
	ldRowNew  = iota // not scanned
	ldRowFail        // some comparison fails
	ldRowPass        // every comparison passes
	ldRowOpen        // undecided comparisons remain; rowQ of them (in
	// score order) were computed and passed
)

// NewINCRISLD returns an incris-ld estimator; guard selects rule 1(b).
func NewINCRISLD(guard bool) *INCRISLD { return &INCRISLD{Guard: guard} }

// ldOptions selects how incris-ld's pass computes its sums. Every choice
// gives the same bits (the tests run each); the zero value is the pass
// lag by lag (ldKernel), and ldDefaultOptions (incrisld_amd64.go or
// incrisld_noasm.go) what an INCRISLD uses unless a test chose otherwise
// (newINCRISLDWith).
type ldOptions struct {
	// pairs4, if not nil, makes the pass take four lags at a time
	// (ldKernel4) with this inner loop.
	pairs4 ldPairs4Func
}

// newINCRISLDWith is NewINCRISLD with the options o instead of the
// default ones (for tests and benchmarks, which compare the paths).
func newINCRISLDWith(guard bool, o ldOptions) *INCRISLD {
	return &INCRISLD{Guard: guard, opts: &o}
}

// Name returns "incris-ld" or "incris-ld-noguard".
func (e *INCRISLD) Name() string {
	if e.Guard {
		return "incris-ld"
	}
	return "incris-ld-noguard"
}

// KStar returns, for each step t (index t-1), the number of most recent
// ratios kept by the last Estimate call.
func (e *INCRISLD) KStar() []int { return e.kstar }

// AppendDiagnostic implements Reporter: diagnostic 0 is k* (KStar).
func (e *INCRISLD) AppendDiagnostic(dst []float64, d int) []float64 { return appendInts(dst, e.kstar) }

// ldZ returns z_k = Phi^{-1}(1 - alpha/(2(k+1)(k+2))), computed as
// -Phi^{-1}(alpha/(2(k+1)(k+2))) so that it stays accurate for large k.
func ldZ(k int) float64 {
	p := ldAlpha / (2 * float64(k+1) * float64(k+2))
	return -distuv.UnitNormal.Quantile(p)
}

// ldGroupSize is the number of steps per group for horizon h.
func ldGroupSize(h int) int { return max(1, min(h, ldGroupCells/(h+1))) }

// ldAskCap bounds the covariances one step requests in one round.
func ldAskCap(t int) int { return max(2*(t+1), ldFullM*(ldFullM-1)/2) }

// incrisLDBytes bounds the workspace of an INCRISLD for n trajectories of
// horizon h (estimators.Info.Memory); incrisLDBytesDoc is its formula.
func incrisLDBytes(n, h float64) float64 {
	cells := float64(ldGroupSize(int(h))) * (h + 1)
	return 16*n*h + 192*h*math.Ceil(n/ldBlock) + 16*n + 8*(h+1)*(h+1) + 8*ldBlock*(2*h+1) +
		280*cells + 6000*h + 20*ldBlock*8
}

const incrisLDBytesDoc = "16 n H (factors, ratios by block) + 192 H ceil(n/512) (bit masks) + 16 n + 8 (H+1)^2 (S) + " +
	"8192 (2H+1) (block scratch) + 280 G (H+1) (sums per (step, lag) of a group of G = max(1, min(H, 32768/(H+1))) steps, requests) + " +
	"6000 H + 81920 bytes"

// grow sizes the workspace for n trajectories and horizon h; it allocates
// only when n or h exceeds every size seen before.
func (e *INCRISLD) grow(n, h int) {
	for k := len(e.z); k < h; k++ {
		e.z = append(e.z, ldZ(k))
	}
	m := h + 1
	if cap(e.kstarAll) < h {
		e.kstarAll = make([]int, h)
		e.nactAll = make([]int, h)
		e.unk = make([]ldUnknown, m)
		e.s = make([]float64, m*m)
		e.abuf = make([]float64, ldBlock*m)
		e.fm = make([]float64, ldBlock*h)
	}
	gsz := ldGroupSize(h)
	if len(e.gs) < gsz {
		e.gs = make([]ldStepState, gsz)
	}
	if cells := gsz * m; len(e.part) < cells {
		e.part = make([]ldPart, cells)
		fl := make([]float64, 13*cells)
		for i, p := range []*[]float64{&e.sumXA, &e.sumBA, &e.sumDA, &e.ssDA, &e.yA, &e.sA, &e.meanA,
			&e.deltaA, &e.cxA, &e.cdA, &e.dmA, &e.sqA, &e.ppA} {
			*p = fl[i*cells : (i+1)*cells : (i+1)*cells]
		}
		in := make([]int, 2*cells)
		e.cntA, e.negA = in[:cells:cells], in[cells:]
		e.rowSt = make([]uint8, cells)
		e.refA = make([]bool, cells)
		e.rowQ = make([]int32, cells)
	}
	if c := gsz * ldAskCap(h); cap(e.ent) < c {
		e.ent = make([]ldEntry, 0, c)
	}
	if cap(e.rt) < n*h {
		e.rt = make([]float64, n*h)
	}
	e.rt = e.rt[:n*h]
	if w := ldMaskWords(n, h); cap(e.eq1) < w {
		masks := make([]uint64, 3*w)
		e.eq1, e.lt1, e.zero = masks[:w:w], masks[w:2*w:2*w], masks[2*w:]
	}
	if cap(e.loc) < ldBlock {
		e.loc = make([]int, 0, ldBlock)
		e.rw = make([]float64, ldBlock)
		e.bk = make([]float64, ldBlock)
		e.rc = make([]float64, 4*ldBlock)
		e.rc2 = make([]float64, ldBlock)
	}
	if cap(e.act) < n {
		e.act = make([]int, 0, n)
		e.ina = make([]int, 0, n)
	}
}

// ldMaskWords is the length of each bit mask for n trajectories and
// horizon h: ldBlock/64 words per block and step.
func ldMaskWords(n, h int) int { return (n + ldBlock - 1) / ldBlock * h * (ldBlock / 64) }

// Estimate returns the incris-ld estimate from b. It needs n >= 2.
func (e *INCRISLD) Estimate(b *trajectory.Batch) (float64, error) {
	b = e.view.of(b)
	n, h := b.N(), b.Horizon()
	if n < 2 {
		return 0, fmt.Errorf("%s: %w: n = %d, needs n >= 2 for sample variances", e.Name(), ErrTooFew, n)
	}
	e.prepare(b)
	total := 0.0
	e.fillS = false
	for s0, gsz := 0, ldGroupSize(h); s0 < h; s0 += gsz {
		s1 := min(h, s0+gsz)
		e.group(s0, s1)
		for g := range s1 - s0 {
			st := &e.gs[g]
			if st.err != nil {
				e.b = nil
				return 0, st.err
			}
			total += st.r
		}
	}
	e.b = nil
	return finite(e.Name(), total)
}

// step computes k* and r_hat_t for step index s = t-1 alone, after
// prepare(b); it leaves the step's sums in e.sumX ... e.neg, its active
// and inactive trajectories in e.act and e.ina and its S in e.s.
func (e *INCRISLD) step(b *trajectory.Batch, s int) (float64, error) {
	e.b = b
	e.fillS = true
	e.group(s, s+1)
	st := &e.gs[0]
	e.act, e.ina = e.act[:0], e.ina[:0]
	for i := range b.N() {
		if e.active(i, s) {
			e.act = append(e.act, i)
		} else {
			e.ina = append(e.ina, i)
		}
	}
	if st.err != nil {
		return 0, st.err
	}
	return st.r, nil
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
	if err := checkGrid(b, grid, out); err != nil {
		return err
	}
	if grid[0] < 2 {
		return gridErr(grid[0], fmt.Errorf("%s: %w: n = %d, needs n >= 2 for sample variances", e.Name(), ErrTooFew, grid[0]))
	}
	vb := e.view.of(b)
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
			return gridErr(grid[q], e.errG[q])
		}
		total := 0.0
		for _, r := range e.rG[q*h : q*h+e.hG[q]] {
			total += r
		}
		v, err := finite(e.Name(), total)
		if err != nil {
			return gridErr(grid[q], err)
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
	clear(e.nact)
	lo, hi := 1.0, 1.0 // smallest nonzero and largest ratio
	// For e.clean: the smallest nonzero and largest |r| and |rho - 1|.
	rlo, rhi, flo, fhi := math.Inf(1), 0.0, math.Inf(1), 0.0
	finiteAll := true
	for i := range n {
		start, end := b.Offsets[i], b.Offsets[i+1]
		for s, f := range b.Ratio[start:end] {
			if f > hi {
				hi = f
			}
			if f < lo && f != 0 {
				lo = f
			}
			if !(f >= 0 && f <= math.MaxFloat64) {
				finiteAll = false
			}
			if fm := math.Abs(f - 1); fm != 0 {
				flo, fhi = min(flo, fm), max(fhi, fm)
			}
			r := b.Reward[start+s]
			if r != 0 {
				e.nact[s]++
				a := math.Abs(r)
				if !(a <= math.MaxFloat64) {
					finiteAll = false
				}
				rlo, rhi = min(rlo, a), max(rhi, a)
			}
		}
	}
	// Every nonzero ratio is in [2^(el-1), 2^eh), so a product of at most
	// h of them is in [2^(h(el-1)), 2^(h eh)).
	_, eh := math.Frexp(hi)
	_, el := math.Frexp(lo)
	e.check = math.IsInf(hi, 0) || h*max(eh, 1-el) > 1020
	e.clean = false
	if finiteAll && !e.check {
		if math.IsInf(rlo, 1) { // no nonzero reward: no step is active
			rlo, rhi = 1, 1
		}
		if math.IsInf(flo, 1) {
			flo, fhi = 1, 1
		}
		// |B| in [2^bl, 2^bh] (B_0 = 1 included; one more binade for the
		// roundings), |r| in [2^(erl-1), 2^erh), |rho - 1| in [2^(efl-1),
		// 2^efh): |D| = |(rho-1) B r| is at least 2^(bl+erl+efl-2) and
		// |X|, |D| at most 2^(bh+erh+efh).
		bl := min(0, int(math.Floor(float64(h)*math.Log2(lo)))-1)
		bh := max(0, int(math.Ceil(float64(h)*math.Log2(hi)))+1)
		_, erl := math.Frexp(rlo)
		_, erh := math.Frexp(rhi)
		_, efl := math.Frexp(flo)
		_, efh := math.Frexp(fhi)
		e.clean = bl+erl+efl-2 >= -1060 && bh+erh+max(efh, 0) <= 1000
	}
	// The ratios, block by block, step-major; the masks.
	masks := e.clean && e.Guard
	const nw = ldBlock / 64
	if masks {
		w := ldMaskWords(n, h)
		clear(e.eq1[:w])
		clear(e.lt1[:w])
		clear(e.zero[:w])
	}
	for blk := 0; blk*ldBlock < n; blk++ {
		i0 := blk * ldBlock
		w := min(ldBlock, n-i0)
		tab := e.rt[i0*h : (i0+w)*h]
		off := b.Offsets[i0 : i0+w+1]
		hb := 0
		for j := range w {
			hb = max(hb, off[j+1]-off[j])
		}
		for s := range hb {
			row := tab[s*w : (s+1)*w]
			for j := range row {
				if p := off[j] + s; p < off[j+1] {
					row[j] = b.Ratio[p]
				}
			}
			if !masks {
				continue
			}
			q := (blk*h + s) * nw
			eq1, lt1, zero := e.eq1[q:q+nw], e.lt1[q:q+nw], e.zero[q:q+nw]
			for j := range row {
				if off[j]+s >= off[j+1] {
					continue
				}
				// Without branches, for a ratio f >= 0 (or -0): u is its
				// bits without the sign; f < 1 iff u < one, f == 0 iff
				// u == 0, f == 1 iff u == one.
				const one = 0x3ff0000000000000 << 1
				u := math.Float64bits(row[j]) << 1
				sh := uint(j & 63)
				lt1[j>>6] |= (u - one) >> 63 << sh
				zero[j>>6] |= ((u|-u)>>63 ^ 1) << sh
				v := u ^ one
				eq1[j>>6] |= ((v|-v)>>63 ^ 1) << sh
			}
		}
	}
}

// active reports whether trajectory i is active at step index s: still
// running, with a nonzero reward.
func (e *INCRISLD) active(i, s int) bool {
	p := e.b.Offsets[i] + s
	return p < e.b.Offsets[i+1] && e.b.Reward[p] != 0
}

// errWeights reports a product of ratios outside the normal float64 range.
func (e *INCRISLD) errWeights(s int) error {
	return fmt.Errorf("%s: step %d: a product of importance ratios leaves the normal float64 range, so the covariances are %w", e.Name(), s+1, ErrNotRepresentable)
}

// ldBadProduct reports whether nb = bk * f left the normal float64 range:
// overflow, or a subnormal or zero product of nonzero factors.
func ldBadProduct(nb, bk, f float64) bool {
	return leftNormal(nb, f, bk)
}

// group computes k* and r_hat_t (or the error) of the steps with indices
// s0 .. s1-1 into e.gs and e.kstar.
func (e *INCRISLD) group(s0, s1 int) {
	gs := e.initGroup(s0, s1)
	e.shifts(s0, gs)
	e.pass(s0, gs)
	e.finalize(s0, gs)
}

// initGroup starts the group of steps s0 .. s1-1: fresh step states and
// zero sums.
func (e *INCRISLD) initGroup(s0, s1 int) []ldStepState {
	m0 := e.h + 1
	e.s0 = s0
	gs := e.gs[:s1-s0]
	for g := range gs {
		s := s0 + g
		t := s + 1
		gs[g] = ldStepState{t: t, nact: e.nact[s]}
		c := g * m0
		clear(e.part[c : c+t+1])
		for _, a := range [][]float64{e.sumXA, e.sumBA, e.sumDA, e.ssDA, e.yA} {
			clear(a[c : c+t+1])
		}
		clear(e.cntA[c : c+t+1])
		clear(e.negA[c : c+t+1])
		clear(e.rowSt[c : c+t+1])
		clear(e.rowQ[c : c+t+1])
	}
	return gs
}

// finalize turns the sums of the group's steps (not skipped) into k* and
// r_hat_t, or the step's error: rules 1 and 2 (with the rounds of exact
// covariances the Lepski rule needs) and 3.
func (e *INCRISLD) finalize(s0 int, gs []ldStepState) {
	m0 := e.h + 1
	// Finalise in step order; a step's error ends the group (the steps
	// after it are not needed).
	for g := range gs {
		st := &gs[g]
		if st.skip {
			st.done = true
			continue
		}
		if st.nact == 0 {
			// Every X and D is 0: no lag is kept (delta = 0, c = 0), every
			// Lepski comparison is 0 <= 0, so k* = 0 and r_hat = 0/n.
			st.done, st.ks, st.r = true, 0, 0
			e.kstar[s0+g] = 0
			continue
		}
		if e.finish(g); st.err != nil {
			gs = gs[:g+1]
			break
		}
	}
	// Lepski: rounds of exact covariances until every step is decided.
	for {
		e.ent = e.ent[:0]
		for g := range gs {
			st := &gs[g]
			st.e0, st.e1, st.kmax = len(e.ent), len(e.ent), 0
			if st.err == nil && !st.done {
				e.resolve(g)
				st.e1 = len(e.ent)
			}
		}
		if len(e.ent) == 0 {
			break
		}
		e.entries(s0, gs)
		e.judge(gs)
	}
	// Rule 3.
	e.bsums(s0, gs, func(g int) int {
		st := &gs[g]
		switch {
		case st.skip || st.err != nil || st.nact == 0:
			return 0
		case e.fillS:
			return st.t
		}
		return st.ks
	})
	for g := range gs {
		st := &gs[g]
		if st.skip || st.err != nil || st.nact == 0 {
			continue
		}
		e.kstar[s0+g] = st.ks
		den, ok := e.inactiveB(s0+g, st.ks)
		if !ok {
			st.err = e.errWeights(s0 + g)
			continue
		}
		c := g * m0
		st.r = ratio(e.sumXA[c+st.ks], e.sumBA[c+st.ks]+den)
	}
	if len(gs) > 0 {
		e.view1(len(gs) - 1)
	}
}

// view1 points e.sumX ... e.neg at step g of the group.
func (e *INCRISLD) view1(g int) {
	c, m := g*(e.h+1), e.gs[g].t+1
	e.sumX, e.sumB, e.sumD, e.ssD = e.sumXA[c:c+m], e.sumBA[c:c+m], e.sumDA[c:c+m], e.ssDA[c:c+m]
	e.mean, e.delta = e.meanA[c:c+m], e.deltaA[c:c+m]
	e.cnt, e.neg = e.cntA[c:c+m], e.negA[c:c+m]
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
	tab                               []float64
	idx                               []int
	rw                                []float64
	odd, ends, lastOdd, contig, first bool
	cut                               bool // the run ends where a shared prefix does
}

// ldRun describes the next run of a sweep: l active trajectories from
// position pos on, within one chunk (c, at offset off, of width cw) and
// not past position cut. lastOdd: the run's last trajectory is the last
// of a chunk of odd width, or of a prefix's last chunk of odd width (at
// cut).
func ldRun(pos, left, nact, cut int) (l, c int, odd, ends, lastOdd, atCut bool) {
	c = pos / ldChunk
	off := pos - c*ldChunk
	cw := min(ldChunk, nact-c*ldChunk)
	l = min(left, cw-off, cut-pos)
	ends = off+l == cw
	atCut = pos+l == cut
	return l, c, off%2 == 1, ends, (off+l)%2 == 1 && (ends || atCut), atCut
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
				l, c, odd, ends, lastOdd, atCut := ldRun(st.pos, len(loc)-p, st.nact, cut)
				r.idx, r.rw, r.c = loc[p:p+l], e.rw[p:p+l], c
				r.odd, r.ends, r.lastOdd, r.cut = odd, ends, lastOdd, atCut
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
	e.sweep(s0, gs, func(g int) int { return min(ldChunk, gs[g].nact) }, func(r *ldRunInfo) {
		c := r.g * m0
		sx, sd := e.cxA[c:c+r.t+1], e.cdA[c:c+r.t+1]
		bk := e.bk[:len(r.idx)]
		for j := range bk {
			bk[j] = 1
		}
		k := 0
		for ; k+3 < r.t; k += 4 {
			l := len(bk)
			rc := e.rc[:4*l]
			ldMeans4(r.rows(k, rc[:l]), r.rows(k+1, rc[l:2*l]), r.rows(k+2, rc[2*l:3*l]), r.rows(k+3, rc[3*l:]),
				r.rw, bk, sx[k:k+4], sd[k:k+4])
		}
		for ; k < r.t; k++ {
			ldMeans(r.rows(k, e.rc), r.rw, bk, &sx[k], &sd[k])
		}
		x := sx[r.t]
		for j, b := range bk {
			x += b * r.rw[j]
		}
		sx[r.t] = x
	})
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

// ldMeans adds X_k and D_k of a run to *sx and *sd (the shifts' sums) and
// moves bk on to B_{k+1}.
func ldMeans(rho, rw, bk []float64, sx, sd *float64) {
	n := len(rho)
	rw, bk = rw[:n], bk[:n]
	x0, d0 := *sx, *sd
	for j, f := range rho {
		bj := bk[j]
		x := bj * rw[j]
		x0 += x
		d0 += (f - 1) * x
		bk[j] = bj * f
	}
	*sx, *sd = x0, d0
}

// ldMeans4 is ldMeans for four lags at once (sx, sd: theirs).
func ldMeans4(rho0, rho1, rho2, rho3, rw, bk []float64, sx, sd []float64) {
	n := len(bk)
	rho0, rho1, rho2, rho3, rw = rho0[:n], rho1[:n], rho2[:n], rho3[:n], rw[:n]
	sx, sd = sx[:4], sd[:4]
	x0, x1, x2, x3 := sx[0], sx[1], sx[2], sx[3]
	d0, d1, d2, d3 := sd[0], sd[1], sd[2], sd[3]
	for j, bj := range bk {
		r := rw[j]
		f := rho0[j]
		x := bj * r
		x0 += x
		d0 += (f - 1) * x
		bj = bj * f
		f = rho1[j]
		x = bj * r
		x1 += x
		d1 += (f - 1) * x
		bj = bj * f
		f = rho2[j]
		x = bj * r
		x2 += x
		d2 += (f - 1) * x
		bj = bj * f
		f = rho3[j]
		x = bj * r
		x3 += x
		d3 += (f - 1) * x
		bk[j] = bj * f
	}
	sx[0], sx[1], sx[2], sx[3] = x0, x1, x2, x3
	sd[0], sd[1], sd[2], sd[3] = d0, d1, d2, d3
}

// pass is the main pass over the data for the steps of the group: block
// by block, step by step, lag by lag, it adds up the partial sums of every
// cell and flushes them at the end of each chunk.
func (e *INCRISLD) pass(s0 int, gs []ldStepState) {
	fast := !e.check && (e.clean || !e.Guard)
	masks := e.clean && e.Guard
	m0 := e.h + 1
	s1 := s0 + len(gs)
	var fmtab []float64 // rho - 1 of the block, as its table
	e.sweep(s0, gs, func(g int) int { return gs[g].nact }, func(r *ldRunInfo) {
		if fast && r.first {
			fmtab = e.fm[:s1*r.w]
			for q, f := range r.tab[:s1*r.w] {
				fmtab[q] = f - 1
			}
		}
		st := &gs[r.g]
		c0 := r.g * m0
		t, l := r.t, len(r.idx)
		part := e.part[c0 : c0+t+1]
		cx, cd := e.cxA[c0:c0+t+1], e.cdA[c0:c0+t+1]
		bk := e.bk[:l]
		for j := range bk {
			bk[j] = 1
		}
		k := 0
		if fast && e.kern.pairs4 != nil {
			// four lags at a time (ldKernel4: the same bits as ldKernel)
			rc := e.rc[:4*l]
			var rho4 [4][]float64
			for ; k+3 < t; k += 4 {
				for L := range rho4 {
					rho4[L] = r.rows(k+L, rc[L*l:(L+1)*l])
				}
				ldKernel4(e.kern.pairs4, &e.acc4, &rho4, r.rw, bk, cx[k:k+4], cd[k:k+4], part[k:k+4], r.odd, r.lastOdd)
			}
		}
		for ; k < t; k++ {
			rho := r.rows(k, e.rc)
			if fast {
				fm := fmtab[(r.s-k)*r.w : (r.s-k+1)*r.w]
				if r.contig {
					fm = fm[r.idx[0] : r.idx[0]+l]
				} else {
					fm = ldGather(fm, r.idx, e.rc2)
				}
				ldKernel(rho, fm, r.rw, bk, cx[k], cd[k], &part[k], r.odd, r.lastOdd)
			} else {
				cn, ng, bad := ldKernelGen(rho, r.rw, bk, cx[k], cd[k], &part[k], r.odd, r.lastOdd, e.check)
				e.cntA[c0+k] += cn
				e.negA[c0+k] += ng
				st.bad = st.bad || bad
			}
		}
		ldTop(r.rw, bk, cx[t], &part[t], r.odd, r.lastOdd)
		if masks {
			e.countMasks(r)
		}
		if r.ends {
			e.flush(r.g, r.c, r.lastOdd, st.pos+l)
		}
		if r.cut {
			e.snap(r, st.pos+l)
		}
	})
}

// ldGather returns row[idx[j]] in buf.
func ldGather(row []float64, idx []int, buf []float64) []float64 {
	buf = buf[:len(idx)]
	for j, i := range idx {
		buf[j] = row[i]
	}
	return buf
}

// countMasks adds the counts of nonzero and of negative increments of a
// run's trajectories, for every lag, from the bit masks (valid when
// e.clean).
func (e *INCRISLD) countMasks(r *ldRunInfo) {
	const nw = ldBlock / 64
	var alive, rneg [nw]uint64
	for p, j := range r.idx {
		alive[j>>6] |= 1 << (j & 63)
		if r.rw[p] < 0 {
			rneg[j>>6] |= 1 << (j & 63)
		}
	}
	w0, w1 := r.idx[0]>>6, r.idx[len(r.idx)-1]>>6+1
	c0 := r.g * (e.h + 1)
	cnt, neg := e.cntA[c0:c0+r.t], e.negA[c0:c0+r.t]
	for k := range cnt {
		row := (r.blk*e.h + r.s - k) * nw
		eq1, lt1, zero := e.eq1[row:row+nw], e.lt1[row:row+nw], e.zero[row:row+nw]
		c, ng := 0, 0
		for w := w0; w < w1; w++ {
			nz := alive[w] &^ eq1[w]
			c += bits.OnesCount64(nz)
			ng += bits.OnesCount64(nz & (lt1[w] ^ rneg[w]))
			alive[w] &^= zero[w]
		}
		cnt[k] += c
		neg[k] += ng
	}
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
		e.sumXA[c0+k] += p.sx
		e.sumDA[c0+k] += p.sd
		e.ssDA[c0+k] += p.ss
		dot := ldCombine(p.l0, p.l1, p.last, lastOdd, k == t)
		e.yA[c0+k] = ldGemvY(e.yA[c0+k], c, alpha, dot)
		if e.cutOn {
			for i, q := range e.op {
				if e.shares(q, e.s0+g) && e.nactG[q*e.h+e.s0+g] >= pe {
					y := &e.snapY[i*cells+c0+k]
					*y = ldGemvY(*y, c, e.alphaOp[i], dot)
				}
			}
		}
		*p = ldPart{}
	}
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
				e.snapX[o+k] = e.sumXA[c0+k] + p.sx
				e.snapD[o+k] = e.sumDA[c0+k] + p.sd
				e.snapS[o+k] = e.ssDA[c0+k] + p.ss
				e.snapY[o+k] = ldGemvY(e.snapY[o+k], r.c, e.alphaOp[i], ldCombine(p.l0, p.l1, p.last, r.lastOdd, k == t))
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
			p.l0 += p.last
			p.last = 0
		}
	}
}

// ldCombine is Gemv's (gonum's amd64 GemvN) dot product of one row from
// its two lanes (even and odd columns) and, when the number of columns is
// odd, the last column's product: added after the lanes are summed, or,
// in the one-row tail of the call (tail), to the even lane first.
func ldCombine(l0, l1, last float64, odd, tail bool) float64 {
	if !odd {
		return l0 + l1
	}
	if tail {
		return (l0 + last) + l1
	}
	return (l0 + l1) + last
}

// ldGemvY is Gemv's y = beta y + alpha dot with beta = 0 for the first
// chunk (c = 0: y cleared, then 0*0 + alpha dot) and 1 after.
func ldGemvY(y float64, c int, alpha, dot float64) float64 {
	ad := float64(alpha * dot)
	if c == 0 {
		return 0 + ad
	}
	return y + ad
}

// ldCell is one (trajectory, lag) cell of the pass: X = B r, D = (rho - 1)
// X, D and X shifted, and B times rho.
func ldCell(b, f, r, cx, cd float64) (x, d, dd, a, nb float64) {
	x = b * r
	d = (f - 1) * x
	dd = d - cd
	a = x - cx
	nb = b * f
	return
}

// ldKernel is the inner loop of the pass for one lag over a run of active
// trajectories, without counts or checks: with rho = rho_{t-k} (fm = rho -
// 1), r = rw[j] and B_k = bk[j], it adds X_k, D_k, (D_k - cd)^2 and (X_k
// - cx)^2 (into Gemv's lanes by the parity of the position in the chunk;
// odd: the run starts at an odd position; lastOdd: its last trajectory is
// the last of a chunk of odd width) to p and moves bk[j] on to B_{k+1}.
// (The sums of B_k wait for k*: bsums.)
func ldKernel(rho, fm, rw, bk []float64, cx, cd float64, p *ldPart, odd, lastOdd bool) {
	n := len(rho)
	fm, rw, bk = fm[:n], rw[:n], bk[:n]
	sx, sd, ss, l0, l1 := p.sx, p.sd, p.ss, p.l0, p.l1
	j := 0
	if odd && n > 0 {
		x, d, dd, a, nb := ldCell(bk[0], rho[0], rw[0], cx, cd)
		sx += x
		sd += d
		ss += float64(dd * dd)
		l1 += float64(a * a)
		bk[0] = nb
		j = 1
	}
	end := n
	if lastOdd {
		end--
	}
	for ; j+1 < end; j += 2 {
		b0, b1 := bk[j], bk[j+1]
		x0 := b0 * rw[j]
		d0 := fm[j] * x0
		sx += x0
		sd += d0
		dd0 := d0 - cd
		ss += float64(dd0 * dd0)
		a0 := x0 - cx
		l0 += float64(a0 * a0)
		bk[j] = b0 * rho[j]
		x1 := b1 * rw[j+1]
		d1 := fm[j+1] * x1
		sx += x1
		sd += d1
		dd1 := d1 - cd
		ss += float64(dd1 * dd1)
		a1 := x1 - cx
		l1 += float64(a1 * a1)
		bk[j+1] = b1 * rho[j+1]
	}
	if j < end {
		x, d, dd, a, nb := ldCell(bk[j], rho[j], rw[j], cx, cd)
		sx += x
		sd += d
		ss += float64(dd * dd)
		l0 += float64(a * a)
		bk[j] = nb
		j++
	}
	if lastOdd && j < n {
		x, d, dd, a, nb := ldCell(bk[j], rho[j], rw[j], cx, cd)
		sx += x
		sd += d
		ss += float64(dd * dd)
		p.last = float64(a * a)
		bk[j] = nb
	}
	p.sx, p.sd, p.ss, p.l0, p.l1 = sx, sd, ss, l0, l1
}

// ldKernelGen is ldKernel with the counts of nonzero and of negative
// increments and, with check set, bad = some product of ratios left the
// normal float64 range (overflow, or a subnormal or zero product of
// nonzero factors).
func ldKernelGen(rho, rw, bk []float64, cx, cd float64, p *ldPart, odd, lastOdd, check bool) (cn, ng int, bad bool) {
	n := len(rho)
	rw, bk = rw[:n], bk[:n]
	sx, sd, ss := p.sx, p.sd, p.ss
	lane := [2]float64{p.l0, p.l1}
	par := 0
	if odd {
		par = 1
	}
	for j, f := range rho {
		b := bk[j]
		x, d, dd, a, nb := ldCell(b, f, rw[j], cx, cd)
		sx += x
		sd += d
		ss += float64(dd * dd)
		if lastOdd && j == n-1 {
			p.last = float64(a * a)
		} else {
			lane[par] += float64(a * a)
		}
		par ^= 1
		if d != 0 {
			cn++
			ng += int(math.Float64bits(d) >> 63)
		}
		if check && leftNormal(nb, f, b) {
			bad = true
		}
		bk[j] = nb
	}
	p.sx, p.sd, p.ss, p.l0, p.l1 = sx, sd, ss, lane[0], lane[1]
	return cn, ng, bad
}

// ldTop is the pass's last lag, k = t: it adds X_t and (X_t - cx)^2.
func ldTop(rw, bk []float64, cx float64, p *ldPart, odd, lastOdd bool) {
	n := len(bk)
	rw = rw[:n]
	sx := p.sx
	lane := [2]float64{p.l0, p.l1}
	par := 0
	if odd {
		par = 1
	}
	for j, b := range bk {
		x := b * rw[j]
		sx += x
		a := x - cx
		if lastOdd && j == n-1 {
			p.last = float64(a * a)
		} else {
			lane[par] += float64(a * a)
		}
		par ^= 1
	}
	p.sx, p.l0, p.l1 = sx, lane[0], lane[1]
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
			ldBSum4(r.rows(k-1, rc[:l]), r.rows(k, rc[l:2*l]), r.rows(k+1, rc[2*l:3*l]), r.rows(k+2, rc[3*l:]), bk,
				&part[k].sb, &part[k+1].sb, &part[k+2].sb, &part[k+3].sb)
		}
		for ; k <= K; k++ {
			rho := r.rows(k-1, e.rc)
			sb := part[k].sb
			for j, b := range bk {
				b *= rho[j]
				sb += b
				bk[j] = b
			}
			part[k].sb = sb
		}
		if r.ends {
			for k := 1; k <= K; k++ {
				e.sumBA[c0+k] += part[k].sb
				part[k].sb = 0
			}
		}
	})
}

// finish turns the totals of step g into its means, increments, the
// diagonal of S and k_D, in the order of the first implementation, and
// sets the step's error if a value is not representable.
func (e *INCRISLD) finish(g int) {
	st := &e.gs[g]
	s, t, m := e.s0+g, st.t, st.t+1
	n := e.n
	nf := float64(n)
	c0 := g * (e.h + 1)
	e.view1(g)
	if st.bad {
		st.err = e.errWeights(s)
		return
	}
	sumX, sumD, ssD := e.sumXA[c0:c0+m], e.sumDA[c0:c0+m], e.ssDA[c0:c0+m]
	mean, delta := e.meanA[c0:c0+m], e.deltaA[c0:c0+m]
	y, sd := e.yA[c0:c0+m], e.sA[c0:c0+m]
	cx, cd, dm := e.cxA[c0:c0+m], e.cdA[c0:c0+m], e.dmA[c0:c0+m]
	for k := range mean {
		mean[k] = sumX[k] / nf
		delta[k] = sumD[k] / nf
		if math.IsInf(mean[k], 0) || math.IsNaN(mean[k]) || (k < t && (math.IsInf(delta[k], 0) || math.IsNaN(delta[k]))) {
			st.err = fmt.Errorf("%s: step %d: mean of X_%d or of its increment %w", e.Name(), t, k, ErrNotRepresentable)
			return
		}
	}
	z0 := n - st.nact
	if z0 > 0 {
		// Each inactive trajectory has X = D = 0: shifted, -cx and -cd.
		for k := range t {
			ssD[k] += float64(z0) * cd[k] * cd[k]
		}
	}
	// From the shift to the means: sum (x-c)(x-c)' - n (mean-c)(mean-c)'.
	st.nonzero = false
	for k := range dm {
		dm[k] = mean[k] - cx[k]
		st.nonzero = st.nonzero || dm[k] != 0
		if k < t {
			dd := delta[k] - cd[k]
			ssD[k] = max(ssD[k]-nf*dd*dd, 0)
		}
	}
	for k := range sd {
		sd[k] = e.syr(g, k, k, y[k])
	}
	for k := range m {
		if v := sd[k]; math.IsInf(v, 0) || math.IsNaN(v) || (k < t && math.IsInf(ssD[k], 0)) {
			st.err = fmt.Errorf("%s: step %d, k = %d: sample variance %w", e.Name(), t, k, ErrNotRepresentable)
			return
		}
	}
	sq, pp := e.sqA[c0:c0+m], e.ppA[c0:c0+m]
	acc := 0.0
	for k := range m {
		sq[k] = math.Sqrt(max(y[k], 0))
		pp[k] = acc // sum of s^2(D_j) n-1 over j < k, for the scores
		if k < t {
			acc += ssD[k]
		}
	}
	if e.fillS {
		for k := range m {
			e.s[k*m+k] = sd[k]
		}
	}

	// Rule 1: adjacent increments.
	st.kD = 0
	for k := t - 1; k >= 0; k-- {
		if e.keptLag(k, n) {
			st.kD = k + 1
			break
		}
	}
	// Rule 2 (resolve) is needed unless k_D = t decides k*; a small step
	// computes its whole S anyway.
	if st.kD == t && m > ldFullM {
		st.done, st.ks = true, t
	}
}

// syr applies the first implementation's rank-1 corrections (BLAS Syr,
// upper triangle, row k) to y, the entry (k, k2) of step g's S before
// them: the inactive trajectories' shifted values, then the move from the
// shift to the means. It is monotone in y.
func (e *INCRISLD) syr(g, k, k2 int, y float64) float64 {
	st := &e.gs[g]
	c0 := g * (e.h + 1)
	nf := float64(e.n)
	alpha := 1 / (nf - 1)
	if z0 := e.n - st.nact; z0 > 0 {
		cx := e.cxA[c0 : c0+st.t+1]
		if tmp := cx[k] * (float64(z0) * alpha); tmp != 0 {
			y += cx[k2] * tmp
		}
	}
	if st.nonzero {
		dm := e.dmA[c0 : c0+st.t+1]
		if tmp := dm[k] * (-nf * alpha); tmp != 0 {
			y += dm[k2] * tmp
		}
	}
	return y
}

// ldFails is the Lepski comparison of k and k2: the means differ by more
// than z_L standard errors of their difference, with S_kk, S_k2k2 and
// S_kk2 as given.
func ldFails(skk, s22, s12, mk, mk2, nf float64) bool {
	v := max(skk+s22-2*s12, 0)
	return math.Abs(mk2-mk) > ldZL*math.Sqrt(v/nf)
}

// Results of scanRow.
const (
	ldPass = iota
	ldFail
	ldOpen
)

// scanRow classifies Lepski row k of step g (k passes if every comparison
// with k2 > k passes): ldFail or ldPass when decided, else ldOpen with the
// undecided k2 in e.unk, most likely failures first.
//
// A comparison is decided from the diagonal alone where it can be: S_kk2
// = syr(Y_kk2) with |Y_kk2| <= rho sqrt(Y_kk) sqrt(Y_k2k2) (Cauchy-Schwarz
// on the chunks' sums of products; Y_kk2 is a sum of at most n + 2 +
// n/ldChunk rounded operations on each product, so |error| <= gamma sum
// |a a'| and Y_kk >= (1 - gamma) alpha sum a^2, and rho covers both, the
// square roots and the products here, with room to spare), syr and every
// floating-point operation are monotone, and the comparison fails more
// easily the larger S_kk2 is. The comparison is open when the interval
// straddles its threshold.
func (e *INCRISLD) scanRow(g, k int) int {
	st := &e.gs[g]
	c0 := g * (e.h + 1)
	t := st.t
	m := t + 1
	nf := float64(e.n)
	alpha := 1 / (nf - 1)
	unk := e.unk[:0]
	sd, mean, sq, pp := e.sA[c0:c0+m], e.meanA[c0:c0+m], e.sqA[c0:c0+m], e.ppA[c0:c0+m]
	cx, dm := e.cxA[c0:c0+m], e.dmA[c0:c0+m]
	// syr's factors of row k (0: no correction).
	var tmp1, tmp2 float64
	if z0 := e.n - st.nact; z0 > 0 {
		tmp1 = cx[k] * (float64(z0) * alpha)
	}
	if st.nonzero {
		tmp2 = dm[k] * (-nf * alpha)
	}
	syr := func(k2 int, y float64) float64 {
		if tmp1 != 0 {
			y += cx[k2] * tmp1
		}
		if tmp2 != 0 {
			y += dm[k2] * tmp2
		}
		return y
	}
	rho := 1 + float64(8*e.n+1024)*0x1p-52
	skk, mk, sqk := sd[k], mean[k], rho*sq[k]
	for k2 := k + 1; k2 <= t; k2++ {
		bnd := sqk*sq[k2] + 0x1p-1000
		if !ldFails(skk, sd[k2], syr(k2, bnd), mk, mean[k2], nf) {
			continue // passes
		}
		if ldFails(skk, sd[k2], syr(k2, -bnd), mk, mean[k2], nf) {
			e.unk = unk
			return ldFail
		}
		// Score: |mean difference| over the standard error the
		// increments would give if they were uncorrelated.
		v := max(pp[k2]-pp[k], 0x1p-1000) / (nf * (nf - 1))
		unk = append(unk, ldUnknown{k2, math.Abs(mean[k2]-mk) / math.Sqrt(v)})
	}
	e.unk = unk
	if len(unk) == 0 || int(e.rowQ[c0+k]) == len(unk) {
		return ldPass
	}
	slices.SortFunc(unk, func(a, b ldUnknown) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.k2, b.k2)
	})
	return ldOpen
}

// resolve runs the Lepski rule of step g as far as the known comparisons
// allow: it sets ks and done when k* is decided, else requests the exact
// covariances of up to ldPendRows undecided rows in e.ent.
func (e *INCRISLD) resolve(g int) {
	st := &e.gs[g]
	t := st.t
	c0 := g * (e.h + 1)
	full := t+1 <= ldFullM
	pending := 0
	for k := range t {
		state := e.rowSt[c0+k]
		if full {
			// Small step: every entry of S, exactly, in one round.
			if state == ldRowNew {
				for k2 := k + 1; k2 <= t; k2++ {
					e.ask(g, k, k2)
				}
				e.rowSt[c0+k] = ldRowOpen
				pending++
				continue
			}
		} else if state == ldRowNew || state == ldRowOpen {
			switch e.scanRow(g, k) {
			case ldFail:
				state = ldRowFail
			case ldPass:
				state = ldRowPass
			default:
				state = ldRowOpen
			}
			e.rowSt[c0+k] = state
		}
		switch state {
		case ldRowFail:
			continue
		case ldRowPass:
			if k <= st.kD || pending == 0 {
				// No row before k passes, or one at most k_D does: either
				// way k* = max(k_D, k_L) is known.
				st.ks, st.done = max(st.kD, k), true
			}
			return
		}
		// Open.
		if full {
			continue
		}
		if pending == ldPendRows {
			return
		}
		q := int(e.rowQ[c0+k])
		ask := len(e.unk) - q
		if q == 0 {
			ask = min(ask, ldFirstAsk)
		}
		if ask = min(ask, st.e0+ldAskCap(t)-len(e.ent)); ask <= 0 {
			return
		}
		pending++
		for _, u := range e.unk[q : q+ask] {
			e.ask(g, k, u.k2)
		}
	}
	if pending == 0 {
		st.ks, st.done = max(st.kD, t), true
	}
}

// ask requests the exact S_kk2 of step g.
func (e *INCRISLD) ask(g, k, k2 int) {
	e.ent = append(e.ent, ldEntry{g: int32(g), k: int32(k), k2: int32(k2)})
	st := &e.gs[g]
	st.kmax = max(st.kmax, k2)
}

// judge applies the round's exact covariances: a failing comparison fails
// its row; a row whose requested comparisons all pass counts them in rowQ
// (and passes when they were all it had left: resolve finds that).
func (e *INCRISLD) judge(gs []ldStepState) {
	nf := float64(e.n)
	for _, en := range e.ent {
		g, k, k2 := int(en.g), int(en.k), int(en.k2)
		c0 := g * (e.h + 1)
		sd, mean := e.sA[c0:], e.meanA[c0:]
		v := e.syr(g, k, k2, en.y)
		if e.fillS {
			m := gs[g].t + 1
			e.s[k*m+k2] = v
		}
		switch {
		case ldFails(sd[k], sd[k2], v, mean[k], mean[k2], nf):
			e.rowSt[c0+k] = ldRowFail
		case e.rowSt[c0+k] == ldRowOpen:
			e.rowQ[c0+k]++
		}
	}
	for g := range gs {
		st := &gs[g]
		if st.err == nil && !st.done && st.t+1 <= ldFullM {
			// Every entry is known: decide each row now.
			c0 := g * (e.h + 1)
			for k := range st.t {
				if e.rowSt[c0+k] == ldRowOpen {
					e.rowSt[c0+k] = ldRowPass
				}
			}
			if st.kD == st.t {
				st.ks, st.done = st.t, true
			}
		}
	}
}

// entries is the second pass: for the steps with requests in e.ent it
// regenerates X_0 .. X_kmax of each run of active trajectories (the same
// products as the main pass) and adds the requested products, chunk by
// chunk, in Gemv's order.
func (e *INCRISLD) entries(s0 int, gs []ldStepState) {
	alpha := 1 / (float64(e.n) - 1)
	m0 := e.h + 1
	for g := range gs {
		if st := &gs[g]; st.e1 > st.e0 {
			ref := e.refA[g*m0 : g*m0+st.kmax+1]
			clear(ref)
			for _, en := range e.ent[st.e0:st.e1] {
				ref[en.k], ref[en.k2] = true, true
			}
		}
	}
	e.sweep(s0, gs, func(g int) int {
		if gs[g].e1 == gs[g].e0 {
			return 0
		}
		return gs[g].nact
	}, func(r *ldRunInfo) {
		st := &gs[r.g]
		t, kmax, l := r.t, st.kmax, len(r.idx)
		cx := e.cxA[r.g*m0 : r.g*m0+t+1]
		bk := e.bk[:l]
		for j := range bk {
			bk[j] = 1
		}
		a := e.abuf[:(kmax+1)*l]
		ref := e.refA[r.g*m0 : r.g*m0+kmax+1]
		for k := 0; k <= kmax; {
			switch {
			case k+1 < t && k+1 <= kmax && !ref[k] && !ref[k+1]:
				// Neither X_k nor X_{k+1} is needed: only B moves on.
				ldChain2(r.rows(k, e.rc), r.rows(k+1, e.rc2), bk)
				k += 2
			case k+1 < t && k+1 <= kmax:
				ldRegen2(r.rows(k, e.rc), r.rows(k+1, e.rc2), r.rw, bk, cx[k], cx[k+1], a[k*l:(k+1)*l], a[(k+1)*l:(k+2)*l])
				k += 2
			default:
				var rho []float64
				if k < t {
					rho = r.rows(k, e.rc)
				}
				ldRegen(rho, r.rw, bk, cx[k], a[k*l:(k+1)*l])
				k++
			}
		}
		ents := e.ent[st.e0:st.e1]
		row := func(k int32) []float64 { return a[int(k)*l : int(k+1)*l] }
		for q := 0; q < len(ents); {
			if q+3 < len(ents) && ents[q+3].k == ents[q].k {
				// Four products with one row X_k (a row's requests are
				// consecutive).
				e0, e1, e2, e3 := &ents[q], &ents[q+1], &ents[q+2], &ents[q+3]
				ldDotLanes4(row(e0.k), row(e0.k2), row(e1.k2), row(e2.k2), row(e3.k2), e0, e1, e2, e3, r.odd, r.lastOdd)
				q += 4
			} else {
				ldDotLanes(row(ents[q].k), row(ents[q].k2), &ents[q], r.odd, r.lastOdd)
				q++
			}
		}
		for q := range ents {
			en := &ents[q]
			if r.ends {
				tail := int(en.k2) == t && (t-int(en.k))%2 == 0
				en.y = ldGemvY(en.y, r.c, alpha, ldCombine(en.l0, en.l1, en.last, r.lastOdd, tail))
				en.l0, en.l1, en.last = 0, 0, 0
			}
		}
	})
}

// ldRegen regenerates one lag of the pass over a run: a[j] = X_k - cx
// with X_k = B_k r, and moves bk[j] on to B_{k+1} (unless rho is nil: the
// last lag), with the products of ldKernel.
func ldRegen(rho, rw, bk []float64, cx float64, a []float64) {
	n := len(bk)
	rw, a = rw[:n], a[:n]
	if rho == nil {
		for j, b := range bk {
			x := b * rw[j]
			a[j] = x - cx
		}
		return
	}
	rho = rho[:n]
	for j, b := range bk {
		x := b * rw[j]
		a[j] = x - cx
		bk[j] = b * rho[j]
	}
}

// ldChain2 moves bk on by two lags: B_{k+2} = (B_k rho0) rho1.
func ldChain2(rho0, rho1, bk []float64) {
	n := len(bk)
	rho0, rho1 = rho0[:n], rho1[:n]
	for j, b := range bk {
		bk[j] = b * rho0[j] * rho1[j]
	}
}

// ldRegen2 is ldRegen for two lags at once.
func ldRegen2(rho0, rho1, rw, bk []float64, cx0, cx1 float64, a0, a1 []float64) {
	n := len(bk)
	rho0, rho1, rw, a0, a1 = rho0[:n], rho1[:n], rw[:n], a0[:n], a1[:n]
	for j, b := range bk {
		r := rw[j]
		x := b * r
		a0[j] = x - cx0
		b = b * rho0[j]
		x = b * r
		a1[j] = x - cx1
		bk[j] = b * rho1[j]
	}
}

// ldBSum4 adds B_k .. B_{k+3} of a run to *s0 .. *s3, B_{k+q} = B_{k+q-1}
// rho_q (bk holds B_{k-1}, and B_{k+3} after).
func ldBSum4(r0, r1, r2, r3, bk []float64, s0, s1, s2, s3 *float64) {
	n := len(bk)
	r0, r1, r2, r3 = r0[:n], r1[:n], r2[:n], r3[:n]
	a0, a1, a2, a3 := *s0, *s1, *s2, *s3
	for j, b := range bk {
		b *= r0[j]
		a0 += b
		b *= r1[j]
		a1 += b
		b *= r2[j]
		a2 += b
		b *= r3[j]
		a3 += b
		bk[j] = b
	}
	*s0, *s1, *s2, *s3 = a0, a1, a2, a3
}

// ldDotLanes adds the products x[j] * a[j] of a run to the lanes of en by
// the parity of their positions (see ldKernel for odd and lastOdd).
func ldDotLanes(x, a []float64, en *ldEntry, odd, lastOdd bool) {
	n := len(x)
	a = a[:n]
	l0, l1 := en.l0, en.l1
	j := 0
	if odd && n > 0 {
		l1 += float64(a[0] * x[0])
		j = 1
	}
	end := n
	if lastOdd {
		end--
	}
	for ; j+1 < end; j += 2 {
		l0 += float64(a[j] * x[j])
		l1 += float64(a[j+1] * x[j+1])
	}
	if j < end {
		l0 += float64(a[j] * x[j])
		j++
	}
	if lastOdd && j < n {
		en.last = float64(a[j] * x[j])
	}
	en.l0, en.l1 = l0, l1
}

// ldDotLanes4 is ldDotLanes for four entries with the same row x.
func ldDotLanes4(x, a0, a1, a2, a3 []float64, e0, e1, e2, e3 *ldEntry, odd, lastOdd bool) {
	n := len(x)
	a0, a1, a2, a3 = a0[:n], a1[:n], a2[:n], a3[:n]
	p0, p1, p2, p3 := e0.l0, e1.l0, e2.l0, e3.l0
	q0, q1, q2, q3 := e0.l1, e1.l1, e2.l1, e3.l1
	j := 0
	if odd && n > 0 {
		q0 += float64(a0[0] * x[0])
		q1 += float64(a1[0] * x[0])
		q2 += float64(a2[0] * x[0])
		q3 += float64(a3[0] * x[0])
		j = 1
	}
	end := n
	if lastOdd {
		end--
	}
	for ; j+1 < end; j += 2 {
		x0, x1 := x[j], x[j+1]
		p0 += float64(a0[j] * x0)
		q0 += float64(a0[j+1] * x1)
		p1 += float64(a1[j] * x0)
		q1 += float64(a1[j+1] * x1)
		p2 += float64(a2[j] * x0)
		q2 += float64(a2[j+1] * x1)
		p3 += float64(a3[j] * x0)
		q3 += float64(a3[j+1] * x1)
	}
	if j < end {
		p0 += float64(a0[j] * x[j])
		p1 += float64(a1[j] * x[j])
		p2 += float64(a2[j] * x[j])
		p3 += float64(a3[j] * x[j])
		j++
	}
	if lastOdd && j < n {
		e0.last = float64(a0[j] * x[j])
		e1.last = float64(a1[j] * x[j])
		e2.last = float64(a2[j] * x[j])
		e3.last = float64(a3[j] * x[j])
	}
	e0.l0, e1.l0, e2.l0, e3.l0 = p0, p1, p2, p3
	e0.l1, e1.l1, e2.l1, e3.l1 = q0, q1, q2, q3
}

// keptLag applies rule 1 of SPEC 1b to lag k with the sums of the current
// step (e.delta, e.ssD, e.cnt, e.neg).
func (e *INCRISLD) keptLag(k, n int) bool {
	nf := float64(n)
	dk := e.delta[k]
	se := math.Sqrt(e.ssD[k] / (nf - 1) / nf)
	z := e.z[k]
	if math.Abs(dk) > z*se && dk != 0 {
		return true // (a) significant
	}
	if !e.Guard {
		return false
	}
	c := e.cnt[k]
	// (b) no power: with c nonzero values out of n, |t| <= sqrt(c(n-1)/(n-c)).
	return c > 0 && c < n && math.Sqrt(float64(c)*(nf-1)/float64(n-c)) < z &&
		(e.neg[k] == 0 || e.neg[k] == c)
}

// inactiveB returns sum_i B^i_k at step index s over the inactive
// trajectories (ratios 1 after a trajectory's end), in trajectory order,
// each product multiplied from rho_t backwards. It reports false when a
// product leaves the normal float64 range.
func (e *INCRISLD) inactiveB(s, k int) (float64, bool) {
	b := e.b
	if k == 0 {
		return float64(e.n - e.nact[s]), true
	}
	sum := 0.0
	off := b.Offsets[:e.n+1]
	for i := range e.n {
		start, end := off[i], off[i+1]
		l := end - start
		if s < l && b.Reward[start+s] != 0 {
			continue // active
		}
		// Past a trajectory's end its ratios are 1, and bj*1 == bj
		// exactly (bj stays normal, or the loop has returned), so the
		// product starts at its last real ratio: the same bits.
		bj := 1.0
		for q := min(s, l-1); q > s-k; q-- {
			f := b.Ratio[start+q]
			nb := bj * f
			if ldBadProduct(nb, bj, f) {
				return 0, false
			}
			bj = nb
		}
		sum += bj
	}
	return sum, true
}
