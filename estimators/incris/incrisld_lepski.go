package incris

// The selection of k* of incris-ld (SPEC 1b): rule 1 (adjacent
// increments), rule 2 (Lepski, with rounds of exact covariances where the
// diagonal of S does not decide a comparison) and rule 3 (r_hat_t).

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/incris/internal/kernel"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
)

// ldLepski is the state of the Lepski rule (rule 2 of SPEC 1b) over its
// rounds of exact covariances, per (step, lag) cell as ldCells.
type ldLepski struct {
	rowSt []uint8     // Lepski row states
	rowQ  []int32     // per open row: its comparisons computed and passed
	refA  []bool      // rows a round's requests use
	ent   []ldEntry   // the round's requested covariances
	unk   []ldUnknown // scanRow's undecided comparisons (in unkBuf, or unkArena)
	// unkBuf is scanRow's buffer; unkArena keeps the lists of open rows of
	// the current finalize, row (g, k) at rowU0 (rowUn entries, 0 = none).
	unkBuf, unkArena []ldUnknown
	rowU0, rowUn     []int32
	// The rounds of a step regenerate X from its first requested row on,
	// which never decreases from round to round (the rows before it have
	// failed): bcache keeps B at that lag (bcK, 0 = none), per step of the
	// group and active trajectory (g*nt + position), for the next round.
	bcache []float64
	bcK    []int
	kmin   []int // per step: the first row the round requests
	dot8   struct {
		x, a [8][]float64 // kernel.DotLanes8's rows
		en   [8]*kernel.Lanes
		acc  [16]float64
	}
}

// ldStepView holds views of one step's cells (g*(h+1) ... + t+1): the
// step finish works on (rule 1 reads them), after finalize the group's
// last step. With fillS (set by the tests' single-step path, step in
// incrisld_step_test.go) s holds that step's S, upper triangle, stride
// t+1: the diagonal and the entries the Lepski rule computed (all of them
// when t+1 <= ldFullM).
type ldStepView struct {
	sumX, sumB, sumD, ssD, mean, delta []float64
	cnt, neg                           []int
	fillS                              bool
	s                                  []float64
}

// ldEntry is a requested off-diagonal covariance S_kk' of step g: the
// lanes of the current chunk's dot product and y, the sum of the chunks'
// alpha-scaled products (Gemv's y).
type ldEntry struct {
	g, k, k2 int32
	kernel.Lanes
	y float64
}

// ldUnknown is an undecided Lepski comparison (k, K2) and its likelihood
// of failing.
type ldUnknown = kernel.Unknown

// Lepski row states.
const (
	ldRowNew  = iota // not scanned
	ldRowFail        // some comparison fails
	ldRowPass        // every comparison passes
	ldRowOpen        // undecided comparisons remain; rowQ of them (in
	// score order) were computed and passed
)

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
	clear(e.bcK[:len(gs)])
	e.unkArena = e.unkArena[:0]
	for g := range gs {
		clear(e.rowUn[g*m0 : g*m0+gs[g].t+1])
	}
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
		den, ok := kernel.InactiveB(e.b.Offsets, e.b.Reward, e.b.Ratio, e.n, e.nact[s0+g], s0+g, st.ks)
		if !ok {
			st.err = e.errWeights(s0 + g)
			continue
		}
		c := g * m0
		st.r = weights.Ratio(e.sumXA[c+st.ks], e.sumBA[c+st.ks]+den)
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
			st.err = fmt.Errorf("%s: step %d: mean of X_%d or of its increment %w", e.Name(), t, k, estimators.ErrNotRepresentable)
			return
		}
	}
	z0 := n - st.nact
	if z0 > 0 {
		// Each inactive trajectory has X = D = 0: shifted, -cx and -cd.
		for k := range t {
			ssD[k] += float64(float64(z0) * cd[k] * cd[k])
		}
	}
	// From the shift to the means: sum (x-c)(x-c)' - n (mean-c)(mean-c)'.
	st.nonzero = false
	for k := range dm {
		dm[k] = mean[k] - cx[k]
		st.nonzero = st.nonzero || dm[k] != 0
		if k < t {
			dd := delta[k] - cd[k]
			ssD[k] = max(ssD[k]-float64(nf*dd*dd), 0)
		}
	}
	for k := range sd {
		sd[k] = e.syr(g, k, k, y[k])
	}
	for k := range m {
		if v := sd[k]; math.IsInf(v, 0) || math.IsNaN(v) || (k < t && math.IsInf(ssD[k], 0)) {
			st.err = fmt.Errorf("%s: step %d, k = %d: sample variance %w", e.Name(), t, k, estimators.ErrNotRepresentable)
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

// keptLag applies rule 1 of SPEC 1b to lag k with the sums of the current
// step (e.delta, e.ssD, e.cnt, e.neg).
func (e *INCRISLD) keptLag(k, n int) bool {
	return kernel.KeptLag(e.delta[k], e.ssD[k], e.z[k], e.cnt[k], e.neg[k], n, e.Guard)
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
			y += float64(cx[k2] * tmp)
		}
	}
	if st.nonzero {
		dm := e.dmA[c0 : c0+st.t+1]
		if tmp := dm[k] * (-nf * alpha); tmp != 0 {
			y += float64(dm[k2] * tmp)
		}
	}
	return y
}

// Results of scanRow.
const (
	ldPass = iota
	ldFail
	ldOpen
)

// scanRow classifies Lepski row k of step g (k passes if every comparison
// with k2 > k passes): ldFail or ldPass when decided, else ldOpen with the
// undecided k2 in e.unk, most likely failures first (the first
// ldFirstAsk of them; resolve sorts the rest).
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
	// syr's factors of row k (0: no correction); kernel.ScanClass
	// compares the row with each k2 > k from the bounds of S_kk2.
	var tmp1, tmp2 float64
	if z0 := e.n - st.nact; z0 > 0 {
		tmp1 = cx[k] * (float64(z0) * alpha)
	}
	if st.nonzero {
		tmp2 = dm[k] * (-nf * alpha)
	}
	rho := 1 + float64(float64(8*e.n+1024)*0x1p-52)
	mk := mean[k]
	row := kernel.ScanRow{Skk: sd[k], Sqk: rho * sq[k], Mk: mk, Nf: nf, Tmp1: tmp1, Tmp2: tmp2}
	unk, fail := kernel.ScanClass(&row, k+1, sd[k+1:], sq[k+1:], mean[k+1:], cx[k+1:], dm[k+1:], unk)
	if fail >= 0 {
		e.unk = unk
		return ldFail
	}
	e.unk = unk
	if len(unk) == 0 || int(e.rowQ[c0+k]) == len(unk) {
		return ldPass
	}
	// Scores (only an open row needs them): |mean difference| over the
	// standard error the increments would give if they were uncorrelated.
	for i := range unk {
		k2 := unk[i].K2
		v := max(pp[k2]-pp[k], 0x1p-1000) / (nf * (nf - 1))
		unk[i].Score = math.Abs(mean[k2]-mk) / math.Sqrt(v)
	}
	// The first round asks for at most ldFirstAsk of them: those go first,
	// in order; resolve sorts the rest when it needs them.
	for i := range min(ldFirstAsk, len(unk)) {
		b := i
		for j := i + 1; j < len(unk); j++ {
			if ldUnkOrder(unk[j], unk[b]) < 0 {
				b = j
			}
		}
		unk[i], unk[b] = unk[b], unk[i]
	}
	return ldOpen
}

// ldUnkOrder orders undecided comparisons: the most likely failures first.
func ldUnkOrder(a, b ldUnknown) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return cmp.Compare(a.K2, b.K2)
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
			state = e.scanCached(g, k)
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
		if q+ask > ldFirstAsk {
			slices.SortFunc(e.unk[ldFirstAsk:], ldUnkOrder) // (fast when sorted already)
		}
		for _, u := range e.unk[q : q+ask] {
			e.ask(g, k, u.K2)
		}
	}
	if pending == 0 {
		st.ks, st.done = max(st.kD, t), true
	}
}

// scanCached is scanRow of row k of step g as a row state, with the
// row's undecided comparisons in e.unk: an open row's list is the same in
// every round (scanRow reads only the step's totals, and rowQ for its
// verdict), so the first scan keeps it in unkArena while there is room,
// and the next rounds take it from there.
func (e *INCRISLD) scanCached(g, k int) uint8 {
	c := g*(e.h+1) + k
	if n := int(e.rowUn[c]); n > 0 {
		if int(e.rowQ[c]) == n {
			return ldRowPass
		}
		u0 := int(e.rowU0[c])
		e.unk = e.unkArena[u0 : u0+n : u0+n]
		return ldRowOpen
	}
	e.unk = e.unkBuf[:0]
	switch e.scanRow(g, k) {
	case ldFail:
		return ldRowFail
	case ldPass:
		return ldRowPass
	}
	e.unkBuf = e.unk
	if n := len(e.unk); len(e.unkArena)+n <= cap(e.unkArena) {
		e.rowU0[c], e.rowUn[c] = int32(len(e.unkArena)), int32(n)
		e.unkArena = append(e.unkArena, e.unk...)
	}
	return ldRowOpen
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
		case kernel.Fails(sd[k], sd[k2], v, mean[k], mean[k2], nf):
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
			kmin := st.kmax
			for _, en := range e.ent[st.e0:st.e1] {
				ref[en.k], ref[en.k2] = true, true
				kmin = min(kmin, int(en.k))
			}
			e.kmin[g] = kmin
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
		k := e.startB(r, bk)
		a := e.abuf[:(kmax+1)*l]
		ref := e.refA[r.g*m0 : r.g*m0+kmax+1]
		for k <= kmax {
			switch {
			case k+1 < t && k+1 <= kmax && !ref[k] && !ref[k+1]:
				// Neither X_k nor X_{k+1} is needed: only B moves on.
				kernel.Chain2(r.rows(k, e.rc), r.rows(k+1, e.rc2), bk)
				k += 2
			case k+1 < t && k+1 <= kmax:
				kernel.Regen2(r.rows(k, e.rc), r.rows(k+1, e.rc2), r.rw, bk, cx[k], cx[k+1], a[k*l:(k+1)*l], a[(k+1)*l:(k+2)*l])
				k += 2
			default:
				var rho []float64
				if k < t {
					rho = r.rows(k, e.rc)
				}
				kernel.Regen(rho, r.rw, bk, cx[k], a[k*l:(k+1)*l])
				k++
			}
		}
		ents := e.ent[st.e0:st.e1]
		row := func(k int32) []float64 { return a[int(k)*l : int(k+1)*l] }
		for q := 0; q < len(ents); {
			if q+7 < len(ents) {
				// Eight products (kernel.DotLanes8: the bits of DotLanes).
				d := &e.dot8
				for i := range 8 {
					en := &ents[q+i]
					d.x[i], d.a[i], d.en[i] = row(en.k), row(en.k2), &en.Lanes
				}
				kernel.DotLanes8(&d.x, &d.a, &d.en, &d.acc, r.odd, r.lastOdd)
				q += 8
			} else if q+3 < len(ents) && ents[q+3].k == ents[q].k {
				// Four products with one row X_k (a row's requests are
				// consecutive).
				e0, e1, e2, e3 := &ents[q], &ents[q+1], &ents[q+2], &ents[q+3]
				kernel.DotLanes4(row(e0.k), row(e0.k2), row(e1.k2), row(e2.k2), row(e3.k2), &e0.Lanes, &e1.Lanes, &e2.Lanes, &e3.Lanes, r.odd, r.lastOdd)
				q += 4
			} else {
				kernel.DotLanes(row(ents[q].k), row(ents[q].k2), &ents[q].Lanes, r.odd, r.lastOdd)
				q++
			}
		}
		for q := range ents {
			en := &ents[q]
			if r.ends {
				tail := int(en.k2) == t && (t-int(en.k))%2 == 0
				en.y = kernel.GemvY(en.y, r.c, alpha, kernel.Combine(en.L0, en.L1, en.Last, r.lastOdd, tail))
				en.Lanes = kernel.Lanes{}
			}
		}
	})
	for g := range gs {
		if gs[g].e1 > gs[g].e0 {
			e.bcK[g] = e.kmin[g]
		}
	}
}

// startB sets bk to B at the round's first requested row kmin of the run
// r (from the previous round's B in bcache when it has one, at a lag up
// to kmin: the same products, B_{k+1} = B_k rho_{t-k}, in the same order)
// and keeps it in bcache for the next round; it returns kmin.
func (e *INCRISLD) startB(r *ldRunInfo, bk []float64) int {
	pos := r.pos0 + r.g*e.nt
	cache := e.bcache[pos : pos+len(bk)]
	kmin, k := e.kmin[r.g], e.bcK[r.g]
	if k > 0 && k <= kmin {
		copy(bk, cache)
	} else {
		k = 0
		for j := range bk {
			bk[j] = 1
		}
	}
	for ; k+1 < kmin; k += 2 {
		kernel.Chain2(r.rows(k, e.rc), r.rows(k+1, e.rc2), bk)
	}
	if k < kmin {
		kernel.Chain(r.rows(k, e.rc), bk)
		k++
	}
	copy(cache, bk)
	return k
}
