package marginal

import (
	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// transitions is the workspace of drl's marginal ratio (docs/drl.md
// section 1): per compact observation and per compact (observation,
// action) pair p = o na + a the visits of the fold F at the current step
// (obsCount, count), and for a
// time-homogeneous model F's uncensored visits (visits) and its
// transitions grouped by pair, each pair's distinct successors
// next[start[p]:end[p]] with their counts.
type transitions struct {
	obsCount      []int32
	count, visits []int32
	start, end    []int32
	next, times   []int32
	mark, slot    []int32   // per observation: the pair (+1) whose successors slot indexes
	known         []float64 // per observation: pi_e's mass on the actions the model knows there
}

// ratios writes drl's w_t(o_t, a_t) into e.w at every step of the last
// Fit's batch: fold A's from fold B's model, fold B's from fold A's,
// m compact observations, h the batch's horizon.
func (e *DRL) ratios(h, m int) {
	pie, na := e.fit.PiE()
	base := [2]int{0, e.fit.Fold(0).Steps()}
	e.d = scratch.Grow(e.d, m)
	e.dn = scratch.Grow(e.dn, m)
	tr := &e.tr
	tr.count = scratch.Grow(tr.count, m*na)
	tr.obsCount = scratch.Grow(tr.obsCount, m)
	tr.known = scratch.Grow(tr.known, m)
	e.pairsAt = scratch.Grow(e.pairsAt, m*na)
	clear(tr.count)
	clear(tr.obsCount)
	clear(tr.known)
	timed := e.timed
	for k := range 2 {
		from, to := e.fit.Fold(1-k), e.fit.Fold(k)
		if !timed {
			tr.build(from, pie, h, m, na)
		}
		w := e.w[base[k] : base[k]+to.Steps()]
		e.ratiosOf(from, e.fit.StepMajor(1-k), to, w, pie, na, timed)
	}
}

// ratiosOf writes into w, at every step of fold to, w_t(o_t) rho_t =
// d^e_t(o_t) / (n_t(o_t)/m) rho_t from fold from (m trajectories; sm its
// steps step by step, models.CrossFit.StepMajor), 0 where from has no visit of
// o_t at step t. d^e_t is propagated through from's time-indexed model
// (timed) or through e.tr's time-homogeneous one, built on from, with
// pi_e(.|o) renormalised over the actions the model knows at o
// (docs/drl.md: known_t(o), the pi_e mass of the actions with an
// uncensored visit). e.tr's counts are zero and left zero.
func (e *DRL) ratiosOf(from *trajectory.Batch, sm *models.StepMajor, to *trajectory.Batch, w, pie []float64, na int, timed bool) {
	clear(w)
	d, dn, count, ocount, known := e.d, e.dn, e.tr.count, e.tr.obsCount, e.tr.known
	clear(d)
	clear(dn)
	mf := float64(from.N())
	lo, hi := sm.Column(0)
	for _, o := range sm.Obs[lo:hi] {
		d[o]++
	}
	for o := range d { // d^e_1(o) = n_1(o)/m
		d[o] /= mf
	}
	dst := e.liveB[:0]
	for i := range to.N() {
		if to.Offsets[i+1] > to.Offsets[i] {
			dst = append(dst, int32(i))
		}
	}
	last := longest(to.Offsets, dst) // dst has steps before last
	tile := &e.tile
	tile.reset(len(d), last)
	t := 0
	for ; t < last; t++ {
		lo, hi := sm.Column(t)
		if lo == hi {
			break // from has no step t
		}
		obs, act, next := sm.Obs[lo:hi], sm.Action[lo:hi], sm.Next[lo:hi]
		obsAt, pairsAt := e.obsAt[:0], e.pairsAt[:0]
		for j, o := range obs {
			if timed {
				p := int(o)*na + int(act[j])
				if count[p]++; count[p] == 1 {
					known[o] += pie[p]
					pairsAt = append(pairsAt, int32(p))
				}
			}
			if ocount[o]++; ocount[o] == 1 {
				obsAt = append(obsAt, o)
			}
		}
		if timed {
			// P_t from the visits at t: each one followed by o' moves
			// d^e_t(o) pi_e(a|o) / known_t(o) / k_t(o, a) to o' (k_t =
			// count_t for t < H)
			for j, o := range obs {
				if p := int(o)*na + int(act[j]); next[j] >= 0 && pie[p] > 0 {
					dn[next[j]] += d[o] * (pie[p] / known[o]) / float64(count[p])
				}
			}
		} else {
			e.tr.propagate(d, dn, pie, na)
		}
		for _, o := range obsAt {
			tile.set(t, int(o), d[o]/(float64(ocount[o])/mf))
			ocount[o] = 0
			if timed {
				known[o] = 0
			}
		}
		for _, p := range pairsAt {
			count[p] = 0
		}
		clear(d)
		d, dn = dn, d
		if tile.flushes(t) {
			dst = e.flushRatios(to, w, dst, t)
		}
	}
	if t > 0 && !tile.flushes(t-1) {
		dst = e.flushRatios(to, w, dst, t-1)
	}
	e.d, e.dn = d, dn
	e.liveB = dst[:0]
}

// flushRatios writes into w, at the steps of the tile ending at step t1
// of the trajectories dst of fold to, w_t(o_t) rho_t from e.tile's
// factors (d^e_t(o) / (n_t(o)/m), set where from has a visit of o at t),
// and returns dst less the trajectories that end in the tile.
func (e *DRL) flushRatios(to *trajectory.Batch, w []float64, dst []int32, t1 int) []int32 {
	t0, k := e.tile.tileStart(t1), 0
	for _, i := range dst {
		lo, hi := to.Offsets[i], to.Offsets[i+1]
		for t := t0; t <= t1 && lo+t < hi; t++ {
			s := lo + t
			if x, ok := e.tile.get(t, int(to.Obs[s])); ok {
				w[s] = x * to.Ratio[s]
			}
		}
		if lo+t1+1 < hi {
			dst[k] = i
			k++
		}
	}
	return dst[:k]
}

// build fills tr with the time-homogeneous transitions of fold f (m
// compact observations, na compact actions, pi_e per pair pie, h the
// whole batch's horizon): a visit at 1-based step t < h is uncensored
// (SPEC 1f), and one followed by o' adds to (p, o'); known(o) sums pi_e
// over the pairs of o with an uncensored visit. tr.count is used as a
// cursor and left zero.
func (tr *transitions) build(f *trajectory.Batch, pie []float64, h, m, na int) {
	np := m * na
	tr.visits = scratch.Grow(tr.visits, np)
	tr.start = scratch.Grow(tr.start, np+1)
	tr.end = scratch.Grow(tr.end, np)
	clear(tr.visits)
	clear(tr.start)
	clear(tr.known)
	off, obs, act := f.Offsets, f.Obs, f.Action
	moves := 0
	for i := range f.N() {
		for s := off[i]; s < off[i+1] && s-off[i] < h-1; s++ {
			p := int(obs[s])*na + int(act[s])
			tr.visits[p]++
			if s+1 < off[i+1] {
				tr.start[p+1]++
				moves++
			}
		}
	}
	for p := range np {
		tr.start[p+1] += tr.start[p]
		if tr.visits[p] > 0 {
			tr.known[p/na] += pie[p]
		}
	}
	tr.next = scratch.Grow(tr.next, moves)
	tr.times = scratch.Grow(tr.times, moves)
	for i := range f.N() {
		for s := off[i]; s+1 < off[i+1] && s-off[i] < h-1; s++ {
			p := int(obs[s])*na + int(act[s])
			tr.next[int(tr.start[p])+int(tr.count[p])] = obs[s+1]
			tr.count[p]++
		}
	}
	clear(tr.count)
	// each pair's successors made distinct, in place, with their counts
	tr.mark = scratch.Grow(tr.mark, m)
	tr.slot = scratch.Grow(tr.slot, m)
	clear(tr.mark)
	for p := range np {
		lo, hi := int(tr.start[p]), int(tr.start[p+1])
		k := lo
		for j := lo; j < hi; j++ {
			o := tr.next[j]
			if tr.mark[o] == int32(p+1) {
				tr.times[tr.slot[o]]++
				continue
			}
			tr.mark[o], tr.slot[o] = int32(p+1), int32(k)
			tr.next[k], tr.times[k] = o, 1
			k++
		}
		tr.end[p] = int32(k)
	}
}

// propagate adds to dn d^e_{t+1}(o') = sum_{(o, a)} d(o) pi_e(a|o) /
// known(o) P(o'|o, a) over the pairs with an uncensored visit, P = times /
// visits, pair by pair in order. An observation with d(o) = 0 adds
// nothing and is skipped whole (most are, on a chain, whose d^e_t sits on
// a few observations): its x = 0 (pi_e / known) is 0, the model's fit
// having checked that pi_e is finite at every observation of the fold
// (so 0 < pi_e <= known).
func (tr *transitions) propagate(d, dn, pie []float64, na int) {
	for o, dv := range d[:len(tr.visits)/na] {
		if dv == 0 {
			continue
		}
		known := tr.known[o]
		for p := o * na; p < (o+1)*na; p++ {
			v := tr.visits[p]
			if v == 0 || pie[p] == 0 {
				continue
			}
			x := dv * (pie[p] / known)
			if x == 0 {
				continue
			}
			x /= float64(v)
			for j := tr.start[p]; j < tr.end[p]; j++ {
				dn[tr.next[j]] += x * float64(tr.times[j])
			}
		}
	}
}
