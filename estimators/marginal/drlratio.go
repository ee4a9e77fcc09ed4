package marginal

import (
	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
	"github.com/ope-lab/longhorizon/trajectory"
)

// transitions is the workspace of drl's marginal ratio (docs/drl.md
// section 1): per compact (observation, action) pair p = o na + a the
// visits of the fold F at the current step (count), and for a
// time-homogeneous model F's uncensored visits (visits) and its
// transitions grouped by pair, each pair's distinct successors
// next[start[p]:end[p]] with their counts.
type transitions struct {
	count, visits []int32
	start, end    []int32
	next, times   []int32
	mark, slot    []int32 // per observation: the pair (+1) whose successors slot indexes
}

// ratios writes drl's w_t(o_t, a_t) into e.w at every step of the last
// Fit's batch: fold A's from fold B's model, fold B's from fold A's,
// m compact observations, h the batch's horizon.
func (e *DRL) ratios(h, m int) {
	pie, na := e.cf.PiE()
	base := [2]int{0, e.cf.Fold(0).Steps()}
	e.d = scratch.Grow(e.d, m)
	e.dn = scratch.Grow(e.dn, m)
	tr := &e.tr
	tr.count = scratch.Grow(tr.count, m*na)
	clear(tr.count)
	timed := e.cf.Kind == "fitted-t"
	for k := range 2 {
		from, to := e.cf.Fold(1-k), e.cf.Fold(k)
		if !timed {
			tr.build(from, h, m, na)
		}
		w := e.w[base[k] : base[k]+to.Steps()]
		e.ratiosOf(from, to, w, pie, na, timed)
	}
}

// ratiosOf writes into w, at every step of fold to, w_t(o_t, a_t) =
// d^e_t(o_t) pi_e(a_t|o_t) / (n_t(o_t, a_t)/m) from fold from (m
// trajectories), 0 where from has no visit of (o_t, a_t) at step t.
// d^e_t is propagated through from's time-indexed model (timed) or
// through e.tr's time-homogeneous one, built on from. e.tr.count is zero
// and left zero.
func (e *DRL) ratiosOf(from, to *trajectory.Batch, w, pie []float64, na int, timed bool) {
	clear(w)
	d, dn, count := e.d, e.dn, e.tr.count
	clear(d)
	clear(dn)
	mf := float64(from.N())
	src, dst := e.liveA[:0], e.liveB[:0]
	fo, fobs, fact := from.Offsets, from.Obs, from.Action
	for i := range from.N() {
		if fo[i+1] > fo[i] {
			src = append(src, int32(i))
			d[fobs[fo[i]]]++
		}
	}
	for o := range d { // d^e_1(o) = n_1(o)/m
		d[o] /= mf
	}
	for i := range to.N() {
		if to.Offsets[i+1] > to.Offsets[i] {
			dst = append(dst, int32(i))
		}
	}
	for t := 0; len(src) > 0 && len(dst) > 0; t++ {
		for _, i := range src {
			s := fo[i] + t
			count[int(fobs[s])*na+int(fact[s])]++
		}
		k := 0
		for _, i := range dst {
			s := to.Offsets[i] + t
			o := int(to.Obs[s])
			p := o*na + int(to.Action[s])
			if c := count[p]; c > 0 {
				w[s] = d[o] * pie[p] / (float64(c) / mf)
			}
			if s+1 < to.Offsets[i+1] {
				dst[k] = i
				k++
			}
		}
		dst = dst[:k]
		if timed {
			// P_t from the visits at t: each one followed by o' moves
			// d^e_t(o) pi_e(a|o) / k_t(o, a) to o' (k_t = count_t for t < H)
			for _, i := range src {
				s := fo[i] + t
				if s+1 < fo[i+1] {
					o := int(fobs[s])
					p := o*na + int(fact[s])
					dn[fobs[s+1]] += d[o] * pie[p] / float64(count[p])
				}
			}
		} else {
			e.tr.propagate(d, dn, pie, na)
		}
		k = 0
		for _, i := range src {
			s := fo[i] + t
			count[int(fobs[s])*na+int(fact[s])] = 0
			if s+1 < fo[i+1] {
				src[k] = i
				k++
			}
		}
		src = src[:k]
		clear(d)
		d, dn = dn, d
	}
	e.d, e.dn = d, dn
	e.liveA, e.liveB = src[:0], dst[:0]
}

// build fills tr with the time-homogeneous transitions of fold f (m
// compact observations, na compact actions, h the whole batch's horizon):
// a visit at 1-based step t < h is uncensored (SPEC 1f), and one followed
// by o' adds to (p, o'). tr.count is used as a cursor and left zero.
func (tr *transitions) build(f *trajectory.Batch, h, m, na int) {
	np := m * na
	tr.visits = scratch.Grow(tr.visits, np)
	tr.start = scratch.Grow(tr.start, np+1)
	tr.end = scratch.Grow(tr.end, np)
	clear(tr.visits)
	clear(tr.start)
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

// propagate adds to dn d^e_{t+1}(o') = sum_{(o, a)} d(o) pi_e(a|o) P(o'|o,
// a) over the pairs with an uncensored visit, P = times / visits.
func (tr *transitions) propagate(d, dn, pie []float64, na int) {
	for p, v := range tr.visits {
		if v == 0 {
			continue
		}
		x := d[p/na] * pie[p]
		if x == 0 {
			continue
		}
		x /= float64(v)
		for j := tr.start[p]; j < tr.end[p]; j++ {
			dn[tr.next[j]] += x * float64(tr.times[j])
		}
	}
}
