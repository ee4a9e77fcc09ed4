package marginal

import (
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
	"github.com/ope-lab/longhorizon/internal/compact"
	"github.com/ope-lab/longhorizon/trajectory"
)

// misStats are mis's sufficient statistics over the trajectories added so
// far (SPEC 1f): per (t, o) a cell with n_t(o) and sum rho^i_t r^i_t, per
// (t, o, o') a transition with sum rho^i_t, each sum taken in data order.
// Both Estimate (all trajectories at once) and EstimateGrid (one segment
// of trajectories per grid point) build them with add and read them with
// estimate, in one order: the cells and the transitions of each t in
// order of first appearance in data order. That makes the grid's estimate
// at n bit-identical to Estimate on the first n trajectories, however the
// trajectories were split into segments.
//
// add goes step t by step t, so the cells (transitions) of one t that one
// call creates are contiguous: a run. Each t lists its runs in order.
//
// A cell is found by (t, o) and a transition by (cell, o') in a dense
// table when it has at most 4 steps + 4096 entries (H |O|, and cells |O|
// with cells at most min(steps, H |O|)); else in per-t hash tables
// (linear probing, load at most 1/2) whose slots hold only the cell or
// transition, compared by its observations, with room at t for every
// trajectory that reaches t (t+1 for transitions): at most 4 slots a
// step.
type misStats struct {
	obs   []int32     // the observation of every step (of the batch given to reset): its id, or own
	own   []int32     // compact ids, when the ids are large
	ids   compact.IDs // observation id -> compact index
	m     int         // observations: 1 + the largest (compact) id
	cells []misCell   // every (t, o) seen
	trans []misTrans  // every (t, o, o') seen
	x     []float64   // per cell: d_t(o)/n_t(o), estimate's
	runs  []misRun    // runs of cells and of transitions
	// per t: the first and last run of its cells (c) and of its
	// transitions (tr), -1 when none
	cFirst, cLast, trFirst, trLast []int32

	dense, denseTr bool    // the tables are dense
	fresh          []bool  // per t: its tables are not emptied yet
	cellOf         []int32 // dense: t |O| + o -> 1 + the cell (0: none)
	transOf        []int32 // dense: cell |O| + o' -> 1 + the transition (0: none)
	cellTab        misHash // else
	transTab       misHash

	d, dn  []float64 // d_t and d_{t+1} per compact observation (zero between calls)
	live   []int32   // trajectories that have a step t (data order)
	gather []misStep // their steps at t

	hashed bool // tests: the hash tables whatever the sizes
}

// misCell is one (t, o).
type misCell struct {
	r   float64 // sum_{i: o^i_t = o} rho^i_t r^i_t
	obs int32   // compact o
	n   int32   // n_t(o)
}

// misTrans is one (t, o, o').
type misTrans struct {
	p        float64 // sum_{i: o^i_t = o, o^i_{t+1} = o'} rho^i_t
	from, to int32   // the cell of (t, o); compact o'
}

// misStep is one step as add reads it: o_t, o_{t+1} (-1: none), rho_t,
// rho_t r_t.
type misStep struct {
	obs, next int32
	rho, rr   float64
}

// misRun is cells or transitions lo to hi-1, and the next run of the same
// t and kind (-1: none).
type misRun struct{ lo, hi, next int32 }

// misHash is one open-addressing hash table per t, t's slots
// slab[base[t] : base[t] + 2^bits[t]], holding 1 + an index (0: empty).
type misHash struct {
	slab []int32
	base []int32
	bits []uint8
}

// layout places the tables, t's with room for reach(t) entries; empty(t)
// empties t's.
func (h *misHash) layout(hor int, reach func(t int) int) {
	h.base = scratch.Grow(h.base, hor)
	h.bits = scratch.Grow(h.bits, hor)
	size := 0
	for t := range hor {
		bits := uint8(1)
		for 1<<bits < 2*reach(t) {
			bits++
		}
		h.base[t], h.bits[t] = int32(size), bits
		size += 1 << bits
	}
	h.slab = scratch.Grow(h.slab, size)
}

// empty empties t's table.
func (h *misHash) empty(t int) { clear(h.slab[h.base[t] : h.base[t]+1<<h.bits[t]]) }

// table returns t's slots and the shift that makes a hash a slot.
func (h *misHash) table(t int) ([]int32, uint8) {
	return h.slab[h.base[t] : h.base[t]+1<<h.bits[t]], 64 - h.bits[t]
}

// misSlot is key's first slot to probe in a table of shift sh.
func misSlot(key uint64, sh uint8) uint32 { return uint32(key * 0x9E3779B97F4A7C15 >> sh) }

// reset empties the statistics for trajectories of b (ids checked):
// compact ids of all its steps, and room for every cell and transition. A
// warm misStats allocates nothing for a batch no larger than before.
func (w *misStats) reset(b *trajectory.Batch) {
	steps, h := b.Steps(), b.Horizon()
	// the ids themselves when they are small (as compact.IDs decides), else
	// compact ones
	top := int32(-1)
	for _, o := range b.Obs {
		top = max(top, o)
	}
	m := int(top) + 1
	if int64(top) < 4*int64(steps)+64 {
		w.obs = b.Obs
	} else {
		w.own = scratch.Grow(w.own, steps)
		m = w.ids.Build(b.Obs, w.own)
		w.obs = w.own
	}
	w.m = m
	// distinct (t, o) <= min(steps, H m); distinct (t, o, o') <= min(steps, cells m)
	hm := int64(h) * int64(m)
	cells := min(int64(steps), hm)
	trans := min(int64(steps), cells*int64(m))
	if int64(cap(w.cells)) < cells {
		w.cells = make([]misCell, 0, cells)
		w.x = make([]float64, cells)
	}
	if int64(cap(w.trans)) < trans {
		w.trans = make([]misTrans, 0, trans)
	}
	w.cells, w.trans, w.runs = w.cells[:0], w.trans[:0], w.runs[:0]
	for _, f := range []*[]int32{&w.cFirst, &w.cLast, &w.trFirst, &w.trLast} {
		*f = scratch.Grow(*f, h)
		for t := range *f {
			(*f)[t] = -1
		}
	}
	small := 4*int64(steps) + 4096
	w.dense = hm <= small && !w.hashed
	w.denseTr = cells*int64(m) <= small && !w.hashed
	// the tables of step t are emptied when add first reaches t (fresh),
	// and a cell's row of transOf when the cell is made: just before
	// their use, and only those used
	w.fresh = scratch.Grow(w.fresh, h)
	for t := range w.fresh {
		w.fresh[t] = true
	}
	if w.dense {
		w.cellOf = scratch.Grow(w.cellOf, int(hm))
	}
	if w.denseTr {
		w.transOf = scratch.Grow(w.transOf, int(cells)*m)
	}
	if !w.dense || !w.denseTr {
		// reach[t]: the trajectories that have a step t (cFirst, for now)
		reach := w.cFirst
		clear(reach)
		for i := range b.N() {
			if l := b.Len(i); l > 0 {
				reach[l-1]++
			}
		}
		for t := h - 2; t >= 0; t-- {
			reach[t] += reach[t+1]
		}
		if !w.dense {
			w.cellTab.layout(h, func(t int) int { return int(reach[t]) })
		}
		if !w.denseTr {
			w.transTab.layout(h, func(t int) int {
				if t+1 < h {
					return int(reach[t+1])
				}
				return 0
			})
		}
		for t := range reach {
			reach[t] = -1
		}
	}
	w.d = scratch.Grow(w.d, m)
	w.dn = scratch.Grow(w.dn, m)
	clear(w.d)
	clear(w.dn)
	w.live = scratch.Grow(w.live, b.N())[:0]
	w.gather = scratch.Grow(w.gather, b.N())
}

// add adds trajectories lo to hi-1 of b (the batch given to reset, or a
// prefix of it) to the statistics, step t by step t, in one pass over the
// trajectories that have a step t, in data order: each step's cell gains
// 1 and rho r, and its transition rho. O(steps), the steps of one t
// touching only that t's cells and transitions.
func (w *misStats) add(b *trajectory.Batch, lo, hi int) {
	off, rho, r, obs := b.Offsets, b.Ratio, b.Reward, w.obs
	live := w.live[:0]
	for i := lo; i < hi; i++ {
		if off[i+1] > off[i] {
			live = append(live, int32(i))
		}
	}
	for t := 0; len(live) > 0; t++ {
		// gather the steps at t (one pass over the batch, whose loads
		// miss the cache: kept short), keeping the trajectories that go on
		g := w.gather[:len(live)]
		k := 0 // trajectories that go on to t+1
		for j, i := range live {
			s := off[i] + t
			st := misStep{obs: obs[s], next: -1, rho: rho[s], rr: rho[s] * r[s]}
			if s+1 < off[i+1] {
				st.next = obs[s+1]
				live[k] = i
				k++
			}
			g[j] = st
		}
		live = live[:k]
		if w.fresh[t] {
			w.fresh[t] = false
			if w.dense {
				clear(w.cellOf[t*w.m : (t+1)*w.m])
			} else {
				w.cellTab.empty(t)
			}
			if !w.denseTr {
				w.transTab.empty(t)
			}
		}
		c0, tr0 := int32(len(w.cells)), int32(len(w.trans))
		var row, ctab, ttab []int32
		var csh, tsh uint8
		if w.dense {
			row = w.cellOf[t*w.m : (t+1)*w.m]
		} else {
			ctab, csh = w.cellTab.table(t)
		}
		if !w.denseTr {
			ttab, tsh = w.transTab.table(t)
		}
		for _, st := range g {
			c := st.obs
			var q int32
			if w.dense {
				q = row[c] - 1
				if q < 0 {
					q = w.newCell(c)
					row[c] = q + 1
				}
			} else {
				q = w.hashedCell(ctab, csh, c)
			}
			cl := &w.cells[q]
			cl.n++
			cl.r += st.rr
			if c2 := st.next; c2 >= 0 {
				var tr int32
				if w.denseTr {
					j := int(q)*w.m + int(c2)
					tr = w.transOf[j] - 1
					if tr < 0 {
						tr = w.newTrans(q, c2)
						w.transOf[j] = tr + 1
					}
				} else {
					tr = w.hashedTrans(ttab, tsh, q, c2)
				}
				w.trans[tr].p += st.rho
			}
		}
		w.run(w.cFirst, w.cLast, t, c0, int32(len(w.cells)))
		w.run(w.trFirst, w.trLast, t, tr0, int32(len(w.trans)))
	}
	w.live = live[:0]
}

// newCell appends a cell of observation c and returns its index.
func (w *misStats) newCell(c int32) int32 {
	q := len(w.cells)
	w.cells = append(w.cells, misCell{obs: c})
	if w.denseTr {
		clear(w.transOf[q*w.m : (q+1)*w.m])
	}
	return int32(q)
}

// newTrans appends a transition from cell q to c2 and returns its index.
func (w *misStats) newTrans(q, c2 int32) int32 {
	w.trans = append(w.trans, misTrans{from: q, to: c2})
	return int32(len(w.trans) - 1)
}

// hashedCell returns the cell of (t, c) from t's hash table tab (shift
// sh), created if new.
func (w *misStats) hashedCell(tab []int32, sh uint8, c int32) int32 {
	mask := uint32(len(tab) - 1)
	p := misSlot(uint64(uint32(c)), sh)
	for ; tab[p] != 0; p = (p + 1) & mask {
		if w.cells[tab[p]-1].obs == c {
			return tab[p] - 1
		}
	}
	q := w.newCell(c)
	tab[p] = q + 1
	return q
}

// hashedTrans returns the transition from cell q (of step t) to c2 from
// t's hash table tab (shift sh), created if new.
func (w *misStats) hashedTrans(tab []int32, sh uint8, q, c2 int32) int32 {
	mask := uint32(len(tab) - 1)
	p := misSlot(uint64(q)<<32|uint64(uint32(c2)), sh)
	for ; tab[p] != 0; p = (p + 1) & mask {
		if tr := &w.trans[tab[p]-1]; tr.from == q && tr.to == c2 {
			return tab[p] - 1
		}
	}
	j := w.newTrans(q, c2)
	tab[p] = j + 1
	return j
}

// run appends the run lo to hi-1 (when not empty) to t's list first, last.
func (w *misStats) run(first, last []int32, t int, lo, hi int32) {
	if hi == lo {
		return
	}
	u := int32(len(w.runs))
	w.runs = append(w.runs, misRun{lo, hi, -1})
	if last[t] < 0 {
		first[t] = u
	} else {
		w.runs[last[t]].next = u
	}
	last[t] = u
}

// estimate returns MIS from the statistics of n trajectories: d_1(o) =
// n_1(o)/n, then step by step, in the order of the runs, with x =
// d_t(o)/n_t(o) per cell, the estimate gains x sum rho r, and, per
// transition, d_{t+1}(o') gains x sum rho. O(H + cells + transitions); d
// and dn are zero and left zero.
func (w *misStats) estimate(n int) float64 {
	cells, trans, runs, x := w.cells, w.trans, w.runs, w.x
	d, dn := w.d, w.dn
	nf := float64(n)
	h := len(w.cFirst)
	if h > 0 {
		for u := w.cFirst[0]; u >= 0; u = runs[u].next {
			for _, cl := range cells[runs[u].lo:runs[u].hi] {
				d[cl.obs] = float64(cl.n) / nf
			}
		}
	}
	total := 0.0
	for t := 0; t < h && w.cFirst[t] >= 0; t++ {
		for u := w.cFirst[t]; u >= 0; u = runs[u].next {
			for k := runs[u].lo; k < runs[u].hi; k++ {
				cl := &cells[k]
				xk := d[cl.obs] / float64(cl.n)
				total += xk * cl.r
				x[k] = xk
			}
		}
		for u := w.trFirst[t]; u >= 0; u = runs[u].next {
			for _, tr := range trans[runs[u].lo:runs[u].hi] {
				dn[tr.to] += x[tr.from] * tr.p
			}
		}
		for u := w.cFirst[t]; u >= 0; u = runs[u].next {
			for _, cl := range cells[runs[u].lo:runs[u].hi] {
				d[cl.obs] = 0
			}
		}
		d, dn = dn, d
	}
	return total
}

// EstimateGrid implements GridEstimator in one pass: the trajectories
// are added to the statistics segment by segment, and at each grid point
// the estimate is read from them, exactly as Estimate computes it on that
// prefix. Cost O(n H + G (H + cells + transitions)) for G grid points,
// cells <= H |O|; a warm MIS allocates nothing. A batch whose ids are
// missing or negative falls back to Estimate on each prefix (the first
// failing n is named).
func (e *MIS) EstimateGrid(b *trajectory.Batch, grid []int, out []float64) error {
	if err := estimators.CheckGrid(b, grid, out); err != nil {
		return err
	}
	if !validIDs(b) {
		for j, n := range grid {
			p := b.Prefix(n)
			v, err := e.Estimate(&p)
			if err != nil {
				return estimators.GridError(n, err)
			}
			out[j] = v
		}
		return nil
	}
	e.st.reset(b)
	prev := 0
	for j, n := range grid {
		if n < 1 {
			p := b.Prefix(n)
			return estimators.GridError(n, checkIDs("mis", &p, 1))
		}
		e.st.add(b, prev, n)
		prev = n
		if b.Offsets[n] == 0 {
			out[j] = 0 // no steps: Estimate's 0
			continue
		}
		v, err := estimators.Finite("mis", e.st.estimate(n))
		if err != nil {
			return estimators.GridError(n, err)
		}
		out[j] = v
	}
	return nil
}

// validIDs reports whether every step of b has an observation and an
// action id >= 0 (a batch without steps has all it needs): checkIDs's
// test on every prefix at once.
func validIDs(b *trajectory.Batch) bool {
	m := b.Steps()
	if m == 0 {
		return true
	}
	if len(b.Obs) != m || len(b.Action) != m {
		return false
	}
	for s := range m {
		if b.Obs[s] < 0 || b.Action[s] < 0 {
			return false
		}
	}
	return true
}
