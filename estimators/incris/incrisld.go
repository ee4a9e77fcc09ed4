package incris

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/internal/hugepage"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/incris/internal/kernel"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Constants of incris-ld (SPEC 1b). ldAlpha and ldZL are part of the
// estimator's definition, not tuning knobs; ldChunk fixes the order of its
// floating-point sums (changing it changes estimates in the last bits).
const (
	// ldAlpha is the level spent over the adjacent-increment tests.
	ldAlpha = 0.05
	// ldZL is the Lepski comparison's multiple of the standard error.
	ldZL = kernel.LepskiZ
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
	ldPendRows = 4
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
// Syr's rank-1 corrections; gonum's amd64 order, which the code here
// follows in plain Go, calling no BLAS, its products rounded before they
// are added, so that every build and GOARCH gives the same bits). The pass goes block by block of ldBlock
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
// The code: this file holds the type, its options and workspace, Estimate
// and the group of steps; incrisld_pass.go the ratio table and the passes
// over it; package kernel their inner loops; incrisld_lepski.go the
// selection of k* (rules 1 to 3); incrisld_grid.go EstimateGrid.
//
// Workspace: the ratios in step-major blocks (8 n H bytes, as before), bit
// masks, partial sums for the (step, lag) cells of a group of steps (at
// most ldGroupCells), S of one step (ldStepView) and O(H ldBlock)
// scratch (incrisLDBytes). An INCRISLD reuses its workspace: once warm,
// Estimate and EstimateGrid do not allocate. It is not safe for
// concurrent use.
type INCRISLD struct {
	// Guard enables rule 1(b), keeping powerless lags whose nonzero
	// increments share one sign (key "incris-ld"; without it
	// "incris-ld-noguard").
	Guard bool

	view weights.View
	// opts, if not nil, overrides ldDefaultOptions (tests run every
	// path); kern holds the options in use, chosen by prepare.
	opts *ldOptions
	kern ldOptions

	z        []float64 // z_k, k = 0..len-1, grown as horizons grow
	kstar    []int     // k* per step (a view of kstarAll, or of kstarG)
	kstarAll []int     // k* per step of Estimate

	ldData     // the data: batch, active counts, ratio table (incrisld_pass.go)
	ldCells    // the group of steps and its (step, lag) sums (incrisld_pass.go)
	ldLepski   // the Lepski rule's rounds (incrisld_lepski.go)
	ldStepView // one step's sums, and its S for the tests (incrisld_lepski.go)
	ldGrid     // EstimateGrid's prefixes and shared pass (incrisld_grid.go)
	ldScratch  // the pass's per-run scratch (incrisld_pass.go)
}

// ldOptions selects how incris-ld's pass computes its sums. Every choice
// gives the same bits (the tests run each); the zero value is the pass
// lag by lag (kernel.Lag), and ldDefaultOptions what an INCRISLD uses
// unless a test chose otherwise (newINCRISLDWith).
type ldOptions struct {
	// pairs4, if not nil, makes the pass take four lags at a time
	// (kernel.Lag4) with this inner loop.
	pairs4 kernel.Pairs4Func
	// pairs8, if not nil (and pairs4 not nil), makes the pass take eight
	// lags at a time (kernel.Lag8) with this inner loop, then four.
	pairs8 kernel.Pairs8Func
	// steps8 (with pairs8) makes the passes over dense data take eight
	// steps at a time (kernel.Steps8, kernel.MeansSteps8).
	steps8 bool
}

// ldDefaultOptions returns incris-ld's options: the eight-lag kernel
// (kernel.Lag8 with kernel.Pairs8) where Pairs8 runs (the AVX-512
// assembly, or its Go twin in a build without assembly), with the
// four-lag kernel (kernel.Lag4 with kernel.Pairs4) where Pairs4 runs (the
// AVX2 assembly, or its Go twin), else the pass lag by lag. The choice
// changes the speed, not the bits (Pairs4 and Pairs8 do their Go twins'
// operations lane by lane, in the same order, and Lag4 and Lag8 are Lag
// for four and eight lags: TestLDKernel4MatchesLDKernel,
// TestLag8MatchesLag, TestINCRISLDBitIdentical).
func ldDefaultOptions() ldOptions {
	var o ldOptions
	if kernel.HasPairs4() {
		o.pairs4 = kernel.Pairs4
		if kernel.HasPairs8() {
			o.pairs8, o.steps8 = kernel.Pairs8, true
		}
	}
	return o
}

// NewINCRISLD returns an incris-ld estimator; guard selects rule 1(b).
func NewINCRISLD(guard bool) *INCRISLD { return &INCRISLD{Guard: guard} }

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

// incrisLDBytes bounds the workspace of an INCRISLD on data of shape s
// (estimators.Info.Memory): the ratios padded to n x H in step-major
// blocks, the bit masks, S of one step, a block's scratch, the sums per
// (step, lag) cell of a group of steps, B of the group's active
// trajectories between Lepski rounds, and, for a grid of more than one
// point (EstimateGrid), per point its k*, active counts and r_hat per
// step and, where it has more than ldChunk trajectories, a snapshot of a
// group's cells; incrisLDBytesDoc is its formula.
func incrisLDBytes(s estimators.Shape) float64 {
	n, h := s.N, s.H
	gsz := float64(ldGroupSize(int(min(h, 1<<40))))
	cells := gsz * (h + 1)
	b := 8*n*h + s.FactorBytes() + 192*h*math.Ceil(n/ldBlock) + 16*n + 8*(h+1)*(h+1) + 8*ldBlock*(2*h+1) +
		320*cells + 6000*h + 32*ldBlock*8 + gsz*(8*n+16)
	if p := s.GridPoints(); p > 1 {
		big := p // the points of more than ldChunk trajectories, with snapshots
		if n <= ldChunk {
			big = 0
		}
		b += p*24*h + big*(48*cells+17*gsz+16) + 32*max(p, h)
	}
	return b
}

const incrisLDBytesDoc = "8 n H (ratios by block) + 192 H ceil(n/512) (bit masks) + 16 n + 8 (H+1)^2 (S) + " +
	"8192 (2H+1) (block scratch) + 320 c, c = G (H+1) (sums per (step, lag) of a group of G = max(1, min(H, 32768/(H+1))) steps, requests, open Lepski rows) + " +
	"G (8 n + 16) (B between Lepski rounds) + 6000 H + 131072; for a grid of P > 1 points, 24 H P + 32 max(P, H) (per point: k*, counts, r_hat) and, for n > 512, P (48 c + 17 G + 16) (snapshots); " +
	"+ 8 steps (the factors, on options data with changed options only) bytes"

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
		e.unkBuf = make([]ldUnknown, m)
		e.s = hugepage.Make[float64](m * m)
		e.abuf = make([]float64, ldBlock*m)
		e.fm = hugepage.Make[float64](ldBlock * h)
	}
	gsz := ldGroupSize(h)
	if len(e.gs) < gsz {
		e.gs = make([]ldStepState, gsz)
		e.bcK = make([]int, gsz)
		e.kmin = make([]int, gsz)
	}
	if len(e.bcache) < gsz*n {
		e.bcache = hugepage.Make[float64](gsz * n)
	}
	if cells := gsz * m; len(e.part) < cells {
		e.part = hugepage.Make[kernel.Part](cells)
		fl := hugepage.Make[float64](13 * cells)
		for i, p := range []*[]float64{&e.sumXA, &e.sumBA, &e.sumDA, &e.ssDA, &e.yA, &e.sA, &e.meanA,
			&e.deltaA, &e.cxA, &e.cdA, &e.dmA, &e.sqA, &e.ppA} {
			*p = fl[i*cells : (i+1)*cells : (i+1)*cells]
		}
		in := make([]int, 2*cells)
		e.cntA, e.negA = in[:cells:cells], in[cells:]
		e.rowSt = make([]uint8, cells)
		e.refA = make([]bool, cells)
		e.rowQ = make([]int32, cells)
		u := make([]int32, 2*cells)
		e.rowU0, e.rowUn = u[:cells:cells], u[cells:]
		e.unkArena = make([]ldUnknown, 0, 2*cells)
	}
	if c := gsz * ldAskCap(h); cap(e.ent) < c {
		e.ent = make([]ldEntry, 0, c)
	}
	if cap(e.rt) < n*h {
		e.rt = hugepage.Make[float64](n * h)
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
		e.rc = make([]float64, 8*ldBlock)
		e.rc2 = make([]float64, ldBlock)
		e.bk8 = make([]float64, 8*ldBlock)
	}
}

// ldMaskWords is the length of each bit mask for n trajectories and
// horizon h: ldBlock/64 words per block and step.
func ldMaskWords(n, h int) int { return (n + ldBlock - 1) / ldBlock * h * (ldBlock / 64) }

// Estimate returns the incris-ld estimate from b. It needs n >= 2.
func (e *INCRISLD) Estimate(b *trajectory.Batch) (float64, error) {
	b = e.view.Of(b)
	n, h := b.N(), b.Horizon()
	if n < 2 {
		return 0, fmt.Errorf("%s: %w: n = %d, needs n >= 2 for sample variances", e.Name(), estimators.ErrTooFew, n)
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
	return estimators.Finite(e.Name(), total)
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

// errWeights reports a product of ratios outside the normal float64 range.
func (e *INCRISLD) errWeights(s int) error {
	return fmt.Errorf("%s: step %d: a product of importance ratios leaves the normal float64 range, so the covariances are %w", e.Name(), s+1, estimators.ErrNotRepresentable)
}
