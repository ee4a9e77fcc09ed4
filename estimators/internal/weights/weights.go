package weights

import (
	"math"

	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
	"github.com/ope-lab/longhorizon/trajectory"
)

// LeftNormal reports whether the product w = prev * f has left the normal
// float64 range: it overflowed, or it underflowed or turned subnormal
// although neither factor is zero. Then the scaled computation takes over.
func LeftNormal(w, f, prev float64) bool {
	return w > math.MaxFloat64 || (w < 0x1p-1022 && f != 0 && prev != 0)
}

// View presents a batch to the estimators with Ratio replaced by the
// per-step importance factors (trajectory.Batch.Factors): the action ratio
// of a primitive step, the option ratio of an option's first step (1 on its
// later steps), times the action ratio inside changed options. Every
// estimator weights by these, so on options data IS, PDIS, WIS, CWPDIS and
// INCRIS all work with option-level weights, and PDIS is options-PDIS.
// The view lives in the estimator's workspace: no allocation per call.
type View struct {
	v   trajectory.Batch
	buf []float64
}

// Of returns b with Ratio replaced by its per-step factors: b itself when
// it already holds them (a view, or a prefix of one, passed back in by a
// fallback path), else the view, valid until the next call.
func (w *View) Of(b *trajectory.Batch) *trajectory.Batch {
	if isView(b, w.buf) {
		// already factors (a view, or a prefix of one, passed back in by a
		// fallback path): rebuilding w.v would clobber the caller's view
		return b
	}
	f := b.Factors(w.buf)
	if len(f) > 0 && &f[0] != &b.OptionRatio[0] {
		w.buf = f // materialised: keep the buffer for the next call
	}
	w.v = *b
	w.v.Ratio = f
	return &w.v
}

// isView reports whether b's Ratio already holds the factors: it shares
// its memory with OptionRatio (no changed options) or with the view buffer.
func isView(b *trajectory.Batch, buf []float64) bool {
	if len(b.Ratio) == 0 {
		return false
	}
	return &b.Ratio[0] == &b.OptionRatio[0] || (len(buf) > 0 && &b.Ratio[0] == &buf[0])
}

// Sums are the per-step and final weighted sums that IS, PDIS, WIS and
// CWPDIS are built from (and adaptive's anchor and WIS, bit for bit), over
// all n trajectories with SPEC's padding.
//
// num[t] = sum_i W^i_t r^i_t scaled by 2^-expNum[t], den[t] = sum_i W^i_t
// (weights frozen after a trajectory ends) scaled by 2^-exp[t]; finWG =
// sum_i W^i_H G^i scaled by 2^-finExpWG and finW = sum_i W^i_H scaled by
// 2^-finExp. Each scale is the largest exponent among the terms of its own
// sum, so a term of a numerator is never lost to a large weight that only
// its denominator holds. On the fast path every exponent is 0.
type Sums struct {
	n, h        int
	num, den    []float64
	exp, expNum []int
	finWG, finW float64
	finExp      int
	finExpWG    int
	tail        []float64 // scratch: final weights of trajectories ending before t
	tailExp     []int
	scaled      bool
}

// MinExp marks "no nonzero weight seen" in exponent maxima.
const MinExp = math.MinInt32

// Reset empties s for n trajectories of horizon h.
func (s *Sums) Reset(n, h int) {
	s.n, s.h = n, h
	s.num = scratch.Zero(s.num, h)
	s.den = scratch.Zero(s.den, h)
	s.tail = scratch.Zero(s.tail, h+1)
	if cap(s.exp) < h {
		s.exp = make([]int, h)
	}
	s.exp = s.exp[:h]
	for t := range s.exp {
		s.exp[t] = 0
	}
	if cap(s.expNum) < h {
		s.expNum = make([]int, h)
	}
	s.expNum = s.expNum[:h]
	for t := range s.expNum {
		s.expNum[t] = 0
	}
	s.finWG, s.finW, s.finExp, s.finExpWG = 0, 0, 0, 0
	s.scaled = false
}

// Accumulate fills s from b, a weight view (View.Of). restart makes
// weights start again at 1 after each split point (partitioned PDIS).
// When a product leaves the normal float64 range it switches to the
// scaled computation.
func (s *Sums) Accumulate(b *trajectory.Batch, restart bool) {
	n, h := b.N(), b.Horizon()
	s.Reset(n, h)
	if !s.accumulateFast(b, restart) || !s.Finite() {
		s.accumulateScaled(b, restart)
	}
}

// Finite reports whether every sum of the fast path is finite: normal
// weights can still add up past the largest float64 (two weights of 1e308),
// and a sum that overflowed would silently turn a ratio into 0 or NaN, so
// the scaled path, whose sums are scaled by their largest term, takes over.
func (s *Sums) Finite() bool {
	ok := !math.IsInf(s.finWG, 0) && !math.IsNaN(s.finWG) && !math.IsInf(s.finW, 0) && !math.IsNaN(s.finW)
	for _, v := range [...][]float64{s.num, s.den, s.tail} {
		for _, x := range v {
			ok = ok && !math.IsInf(x, 0) && !math.IsNaN(x)
		}
	}
	return ok
}

// AccumulateTotals fills finWG, finW and finExp only (IS and WIS need
// nothing else): the fast path skips the per-step sums; the scaled path
// computes everything.
func (s *Sums) AccumulateTotals(b *trajectory.Batch) {
	n, h := b.N(), b.Horizon()
	s.Reset(n, h)
	if !s.AddTotals(b, 0, n) || !s.Finite() {
		s.accumulateScaled(b, false)
	}
}

// AddTotals adds trajectories from..to-1 of primitive factors to finWG
// and finW on the fast path, with accumulateFast's arithmetic and checks,
// two trajectories side by side (each adds in trajectory order). It
// reports false as accumulateFast does; s is then partial.
func (s *Sums) AddTotals(b *trajectory.Batch, from, to int) bool {
	i := from
	for ; i+1 < to; i += 2 {
		lo, mid, hi := b.Offsets[i], b.Offsets[i+1], b.Offsets[i+2]
		m := min(mid-lo, hi-mid)
		rhoA, rewA := b.Ratio[lo:lo+m], b.Reward[lo:lo+m]
		rhoB, rewB := b.Ratio[mid:mid+m], b.Reward[mid:mid+m]
		rewA, rhoB, rewB = rewA[:len(rhoA)], rhoB[:len(rhoA)], rewB[:len(rhoA)]
		wA, gA, wB, gB := 1.0, 0.0, 1.0, 0.0
		for t, fA := range rhoA {
			fB := rhoB[t]
			prevA, prevB := wA, wB
			wA *= fA
			wB *= fB
			if LeftNormal(wA, fA, prevA) ||
				LeftNormal(wB, fB, prevB) {
				return false
			}
			gA += rewA[t]
			gB += rewB[t]
		}
		var okA, okB bool
		wA, gA, okA = totalSteps(b.Ratio[lo+m:mid], b.Reward[lo+m:mid], wA, gA)
		wB, gB, okB = totalSteps(b.Ratio[mid+m:hi], b.Reward[mid+m:hi], wB, gB)
		if !okA || !okB {
			return false
		}
		s.finWG += wA * gA
		s.finW += wA
		s.finWG += wB * gB
		s.finW += wB
	}
	if i < to {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		w, g, ok := totalSteps(b.Ratio[lo:hi], b.Reward[lo:hi], 1, 0)
		if !ok {
			return false
		}
		s.finWG += w * g
		s.finW += w
	}
	return true
}

// totalSteps continues a trajectory's weight w and return g over the steps
// with ratios rho and rewards rew.
func totalSteps(rho, rew []float64, w, g float64) (float64, float64, bool) {
	rew = rew[:len(rho)]
	for t, f := range rho {
		prev := w
		w *= f
		if LeftNormal(w, f, prev) {
			return w, g, false
		}
		g += rew[t]
	}
	return w, g, true
}

// accumulateFast computes the sums with plain products. It reports false as
// soon as a weight overflows, underflows or turns subnormal: a product of
// nonzero factors below the smallest normal float64.
func (s *Sums) accumulateFast(b *trajectory.Batch, restart bool) bool {
	if !s.AddFast(b, 0, b.N(), restart) {
		return false
	}
	s.addTails()
	return true
}

// AddFast adds trajectories from..to-1 to the fast-path sums, leaving the
// padding tails unfolded (CWPDISAt folds them in; Accumulate adds them to
// the normalisers); restart makes weights start again at 1 after each
// split point. It reports false as soon as a weight overflows, underflows
// or turns subnormal; s is then partial. It walks two trajectories side by
// side (each weight product is a latency-bound chain), adding to every sum
// in trajectory order, so the sums are those of one-by-one addition.
func (s *Sums) AddFast(b *trajectory.Batch, from, to int, restart bool) bool {
	i := from
	for ; i+1 < to; i += 2 {
		lo, mid, hi := b.Offsets[i], b.Offsets[i+1], b.Offsets[i+2]
		la, lb := mid-lo, hi-mid
		m := min(la, lb)
		rhoA, rewA, splA := b.Ratio[lo:lo+m], b.Reward[lo:lo+m], b.Split[lo:lo+m]
		rhoB, rewB, splB := b.Ratio[mid:mid+m], b.Reward[mid:mid+m], b.Split[mid:mid+m]
		rewA, splA, rhoB, rewB, splB = rewA[:len(rhoA)], splA[:len(rhoA)], rhoB[:len(rhoA)], rewB[:len(rhoA)], splB[:len(rhoA)]
		num, den := s.num[:len(rhoA)], s.den[:len(rhoA)]
		wA, gA, wB, gB := 1.0, 0.0, 1.0, 0.0
		for t, fA := range rhoA {
			fB := rhoB[t]
			prevA, prevB := wA, wB
			wA *= fA
			wB *= fB
			if LeftNormal(wA, fA, prevA) ||
				LeftNormal(wB, fB, prevB) {
				return false
			}
			rA, rB := rewA[t], rewB[t]
			num[t] += wA * rA
			num[t] += wB * rB
			den[t] += wA
			den[t] += wB
			gA += rA
			gB += rB
			if restart {
				if splA[t] {
					wA = 1
				}
				if splB[t] {
					wB = 1
				}
			}
		}
		ok := true
		if la > m {
			wA, gA, ok = s.addSteps(b, lo, m, la, wA, gA, restart)
		} else if lb > m {
			wB, gB, ok = s.addSteps(b, mid, m, lb, wB, gB, restart)
		}
		if !ok {
			return false
		}
		s.finWG += wA * gA
		s.finW += wA
		s.tail[la] += wA
		s.finWG += wB * gB
		s.finW += wB
		s.tail[lb] += wB
	}
	if i < to {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		w, g, ok := s.addSteps(b, lo, 0, hi-lo, 1, 0, restart)
		if !ok {
			return false
		}
		s.finWG += w * g
		s.finW += w
		s.tail[hi-lo] += w
	}
	return true
}

// addSteps adds steps from..to-1 of the trajectory starting at offset lo,
// whose weight and return so far are w and g, to num and den.
func (s *Sums) addSteps(b *trajectory.Batch, lo, from, to int, w, g float64, restart bool) (float64, float64, bool) {
	rho := b.Ratio[lo+from : lo+to]
	rew := b.Reward[lo+from : lo+to]
	rew = rew[:len(rho)]
	split := b.Split[lo+from : lo+to]
	split = split[:len(rho)]
	num := s.num[from:to]
	num = num[:len(rho)]
	den := s.den[from:to]
	den = den[:len(rho)]
	for t, f := range rho {
		prev := w
		w *= f
		if LeftNormal(w, f, prev) {
			return w, g, false
		}
		r := rew[t]
		num[t] += w * r
		den[t] += w
		g += r
		if restart && split[t] {
			w = 1
		}
	}
	return w, g, true
}

// addTails adds each ended trajectory's frozen weight to the denominators of
// the steps after its end (SPEC: padding is literal).
func (s *Sums) addTails() {
	run := 0.0
	for t := 0; t < s.h; t++ {
		run += s.tail[t]
		s.den[t] += run
	}
}

// Scaled walks a cumulative product as M * 2^E, M a mantissa in
// [0.5, 1) or 0 (then E = 0): no intermediate overflow or underflow. The
// product 1 is Scaled{M: 1}.
type Scaled struct {
	M float64
	E int
}

// Mul multiplies the product by f.
func (w *Scaled) Mul(f float64) {
	w.M *= f
	if w.M != 0 {
		var de int
		w.M, de = math.Frexp(w.M)
		w.E += de
	} else {
		w.E = 0
	}
}

// At returns the product scaled by 2^-exp.
func (w Scaled) At(exp int) float64 { return math.Ldexp(w.M, w.E-exp) }

// accumulateScaled computes the sums in two passes: the first finds, per
// step and for the final weights, the largest binary exponent among the
// terms of each sum; the second adds every term scaled by its sum's
// exponent. Self-normalised ratios are then exact; unnormalised sums are
// scaled back by Ldexp, which yields Inf (reported by the estimators) only
// if the estimate itself does not fit.
func (s *Sums) accumulateScaled(b *trajectory.Batch, restart bool) {
	n, h := s.n, s.h
	s.Reset(n, h)
	s.scaled = true
	for t := range s.exp {
		s.exp[t], s.expNum[t] = MinExp, MinExp
	}
	if cap(s.tailExp) < h+1 {
		s.tailExp = make([]int, h+1)
	}
	s.tailExp = s.tailExp[:h+1]
	for t := range s.tailExp {
		s.tailExp[t] = MinExp
	}
	s.finExp, s.finExpWG = MinExp, MinExp
	// Pass 1: exponent maxima (a zero weight, or a zero reward for a
	// numerator, contributes no term).
	for i := 0; i < n; i++ {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		w := Scaled{M: 1}
		g := 0.0
		for st := lo; st < hi; st++ {
			w.Mul(b.Ratio[st])
			if w.M != 0 {
				s.exp[st-lo] = max(s.exp[st-lo], w.E)
				if b.Reward[st] != 0 {
					s.expNum[st-lo] = max(s.expNum[st-lo], w.E)
				}
			}
			g += b.Reward[st]
			if restart && b.Split[st] {
				w = Scaled{M: 1}
			}
		}
		if w.M != 0 {
			s.finExp = max(s.finExp, w.E)
			s.tailExp[hi-lo] = max(s.tailExp[hi-lo], w.E)
			if g != 0 {
				s.finExpWG = max(s.finExpWG, w.E)
			}
		}
	}
	run := MinExp
	for t := 0; t < h; t++ {
		run = max(run, s.tailExp[t])
		s.exp[t] = max(s.exp[t], run)
		if s.exp[t] == MinExp {
			s.exp[t] = 0 // every weight at t is zero
		}
		if s.expNum[t] == MinExp {
			s.expNum[t] = 0 // no term: the numerator is 0
		}
	}
	if s.finExp == MinExp {
		s.finExp = 0
	}
	if s.finExpWG == MinExp {
		s.finExpWG = 0
	}
	// Pass 2: scaled sums.
	for i := 0; i < n; i++ {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		w := Scaled{M: 1}
		g := 0.0
		for st := lo; st < hi; st++ {
			w.Mul(b.Ratio[st])
			t := st - lo
			if r := b.Reward[st]; r != 0 { // no term (and no 0 * Inf)
				s.num[t] += w.At(s.expNum[t]) * r
			}
			s.den[t] += w.At(s.exp[t])
			g += b.Reward[st]
			if restart && b.Split[st] {
				w = Scaled{M: 1}
			}
		}
		for t := hi - lo; t < h; t++ {
			s.den[t] += w.At(s.exp[t])
		}
		if g != 0 {
			s.finWG += w.At(s.finExpWG) * g
		}
		s.finW += w.At(s.finExp)
	}
}

// IS returns (1/n) 2^finExpWG finWG: IS from the first n trajectories.
func (s *Sums) IS(n int) float64 { return math.Ldexp(s.finWG/float64(n), s.finExpWG) }

// WIS returns finWG 2^finExpWG / (finW 2^finExp), 0/0 := 0.
func (s *Sums) WIS() float64 { return math.Ldexp(Ratio(s.finWG, s.finW), s.finExpWG-s.finExp) }

// CWPDIS returns sum_t of step t's term of CWPDIS, num[t] / den[t] with
// their scales (the same step's sums), 0/0 := 0, added in step order.
func (s *Sums) CWPDIS() float64 {
	total := 0.0
	for t := range s.num {
		total += math.Ldexp(Ratio(s.num[t], s.den[t]), s.expNum[t]-s.exp[t])
	}
	return total
}

// PDIS returns (1/n) sum_t 2^expNum[t] num[t].
func (s *Sums) PDIS() float64 { return s.PDISAt(s.n, s.h) }

// PDISAt returns (1/n) sum_{t<h} 2^expNum[t] num[t]: PDIS from the first n
// trajectories, of horizon h, while the fast path streams (exponents 0).
func (s *Sums) PDISAt(n, h int) float64 {
	if n == 0 {
		return 0
	}
	nf := float64(n)
	total := 0.0
	for t, v := range s.num[:h] {
		total += math.Ldexp(v/nf, s.expNum[t])
	}
	return total
}

// CWPDISAt returns CWPDIS from the fast-path sums of the first n
// trajectories, of horizon h, folding in the padding tails without
// changing den: den[t] + run is the value addTails would store.
func (s *Sums) CWPDISAt(h int) float64 {
	total, run := 0.0, 0.0
	for t, v := range s.num[:h] {
		run += s.tail[t]
		total += Ratio(v, s.den[t]+run)
	}
	return total
}

// Ratio returns num/den with 0/0 := 0 (SPEC section 1).
func Ratio(num, den float64) float64 {
	if den == 0 {
		return 0
	}
	return num / den
}

// WindowBounds returns integers lo <= 0 <= hi such that every product of
// consecutive ratios of a trajectory of b that is not 0, computed left to
// right in float64 (incris-ld's B_k), lies in [2^lo, 2^hi]: the smallest
// and largest sums of log2(rho) over windows of nonzero ratios (Kadane's
// maximum-subarray recurrence, the empty window's product 1 included),
// widened by two binades, one for the roundings of at most 2^40 products
// (relative error below 2^-12), one for those of log2 and the sums. A
// window through a zero ratio has product 0 from there on, which
// LeftNormal does not flag. b's ratios must be finite and >= 0.
func WindowBounds(b *trajectory.Batch) (lo, hi int) {
	wlo, whi := 0.0, 0.0
	for i := range b.N() {
		cmin, cmax := 0.0, 0.0
		for _, f := range b.Ratio[b.Offsets[i]:b.Offsets[i+1]] {
			if f == 0 {
				cmin, cmax = 0, 0
				continue
			}
			l := math.Log2(f)
			cmin, cmax = min(0, cmin+l), max(0, cmax+l)
			wlo, whi = min(wlo, cmin), max(whi, cmax)
		}
	}
	return int(math.Floor(wlo)) - 2, int(math.Ceil(whi)) + 2
}
