package modelbased

import (
	"errors"
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ErrNoModel reports a batch without the model columns q_hat and v_hat of
// SPEC 1d, which dm, dr, wdr, magic and reg cannot run without.
var ErrNoModel = errors.New("the data has no model columns q_hat and v_hat")

// checkModel returns an error naming the estimator when b has steps but
// not one q_hat and one v_hat per step (a batch without steps needs no
// model: every step is padding, with q_hat = v_hat = 0), and when b has
// fewer than minN trajectories.
func checkModel(name string, b *trajectory.Batch, minN int) error {
	if m := b.Steps(); m > 0 && (len(b.QHat) != m || len(b.VHat) != m) {
		return fmt.Errorf("%s: %w", name, ErrNoModel)
	}
	if n := b.N(); n < minN {
		return fmt.Errorf("%s: %w: n = %d, needs n >= %d", name, estimators.ErrTooFew, n, minN)
	}
	return nil
}

// DM is the direct method (SPEC 1d, key "dm"), the model alone:
//
//	DM = (1/n) sum_i v_hat^i_1,
//
// a trajectory without steps contributing 0 (padding has v_hat = 0). It
// uses no importance weights.
type DM struct{}

// NewDM returns a DM estimator.
func NewDM() *DM { return &DM{} }

// Name returns "dm".
func (*DM) Name() string { return "dm" }

// Estimate returns the DM estimate from b, which must carry the model
// columns (ErrNoModel otherwise).
func (*DM) Estimate(b *trajectory.Batch) (float64, error) {
	if err := checkModel("dm", b, 1); err != nil {
		return 0, err
	}
	n := b.N()
	total := 0.0
	for i := range n {
		if lo := b.Offsets[i]; lo < b.Offsets[i+1] {
			total += b.VHat[lo]
		}
	}
	return estimators.Finite("dm", total/float64(n))
}

// DR is the doubly robust estimator of Jiang & Li (2016) (SPEC 1d, key
// "dr"):
//
//	DR = (1/n) sum_i sum_t [ W^i_t r^i_t - (W^i_t q_hat^i_t - W^i_{t-1} v_hat^i_t) ],
//
// W_t the product of the per-step factors of steps 1..t, W_0 = 1. Padded
// steps add nothing (r = q_hat = v_hat = 0). The batch's rewards and model
// columns are taken as already discounted (trajectory.Discounted, SPEC
// 1c), so this is also the discounted formula. With q_hat = v_hat = 0 it
// is PDIS.
//
// Weights that leave the normal float64 range, or terms or sums that
// overflow, send it to a second computation: every term is rescaled by
// the largest binary exponent among the weights that multiply a nonzero
// number, and an estimate that does not fit in a float64 is an error
// wrapping estimators.ErrNotRepresentable.
type DR struct{ view weights.View }

// NewDR returns a DR estimator.
func NewDR() *DR { return &DR{} }

// Name returns "dr".
func (*DR) Name() string { return "dr" }

// Estimate returns the DR estimate from b, which must carry the model
// columns (ErrNoModel otherwise).
func (e *DR) Estimate(b *trajectory.Batch) (float64, error) {
	if err := checkModel("dr", b, 1); err != nil {
		return 0, err
	}
	b = e.view.Of(b)
	total, ok := drFast(b)
	if !ok || math.IsInf(total, 0) || math.IsNaN(total) {
		// a weight left the normal range, or a product or the sum
		// overflowed although the mean may fit
		total = drScaled(b)
	}
	return estimators.Finite("dr", total)
}

// drFast returns DR with plain weight products, or false as soon as a
// weight leaves the normal float64 range.
func drFast(b *trajectory.Batch) (float64, bool) {
	total := 0.0
	for i := range b.N() {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		x, ok := drTermFast(b.Ratio[lo:hi], b.Reward[lo:hi], b.QHat[lo:hi], b.VHat[lo:hi])
		if !ok {
			return 0, false
		}
		total += x
	}
	return total / float64(b.N()), true
}

// drScaled returns DR in two passes: the first finds E, the largest binary
// exponent of a weight that multiplies a nonzero r - q_hat or v_hat; the
// second adds every term scaled by 2^-E. The sum is scaled back by Ldexp,
// which yields Inf (reported) only if DR itself does not fit.
func drScaled(b *trajectory.Batch) float64 {
	top := weights.MinExp
	for i := range b.N() {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		w := weights.Scaled{M: 1}
		for s := lo; s < hi; s++ {
			prev := w
			w.Mul(b.Ratio[s])
			if w.M != 0 && b.Reward[s]-b.QHat[s] != 0 {
				top = max(top, w.E)
			}
			if prev.M != 0 && b.VHat[s] != 0 {
				top = max(top, prev.E)
			}
		}
	}
	if top == weights.MinExp {
		return 0 // no term
	}
	total := 0.0
	for i := range b.N() {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		w := weights.Scaled{M: 1}
		x := 0.0
		for s := lo; s < hi; s++ {
			prev := w
			w.Mul(b.Ratio[s])
			if d := b.Reward[s] - b.QHat[s]; d != 0 { // no term (and no 0 * Inf)
				x += w.At(top) * d
			}
			if v := b.VHat[s]; v != 0 {
				x += prev.At(top) * v
			}
		}
		total += x
	}
	return math.Ldexp(total/float64(b.N()), top)
}

// WDR is the weighted doubly robust estimator of Thomas & Brunskill (2016)
// (SPEC 1d, key "wdr"):
//
//	WDR = sum_i sum_t [ wbar^i_t r^i_t - (wbar^i_t q_hat^i_t - wbar^i_{t-1} v_hat^i_t) ],
//
// with the normalised weights wbar^i_t = W^i_t / sum_j W^j_t (0/0 := 0),
// the sum over all n trajectories, ended ones with their weight frozen
// (SPEC 1: padding is literal), and wbar^i_0 = 1/n. The columns are taken
// as already discounted (SPEC 1c). With q_hat = v_hat = 0 it is CWPDIS.
//
// The normalisers are computed with plain products while the weights and
// their sums stay normal, and otherwise with a per-step binary scale (as
// CWPDIS's), which leaves the normalised weights exact.
type WDR struct{ s normalised }

// NewWDR returns a WDR estimator.
func NewWDR() *WDR { return &WDR{} }

// Name returns "wdr".
func (*WDR) Name() string { return "wdr" }

// Estimate returns the WDR estimate from b, which must carry the model
// columns (ErrNoModel otherwise).
func (e *WDR) Estimate(b *trajectory.Batch) (float64, error) {
	if err := checkModel("wdr", b, 1); err != nil {
		return 0, err
	}
	b = e.s.view.Of(b)
	e.s.normalisers(b)
	total := 0.0
	for i := range b.N() {
		total += e.s.trajectory(b, i, nil, nil)
	}
	return estimators.Finite("wdr", total)
}

// normalised holds the normalisers of the weighted estimators of SPEC 1d,
// D_t = sum_i W^i_t for t = 0..H over all n trajectories (weights frozen
// after a trajectory's end; D_0 = n), and computes each trajectory's terms
// with wbar^i_t = W^i_t / D_t.
//
// D_t = den[t] 2^exp[t]. On the fast path every exponent is 0; when a
// weight leaves the normal float64 range or a sum of normal weights
// overflows, exp[t] is the largest binary
// exponent among the weights at step t and the weights are carried as
// mantissa and exponent (weights.Scaled), so wbar is exact.
type normalised struct {
	view    weights.View
	den     []float64
	exp     []int
	tail    []float64 // scratch: the frozen weights of trajectories of each length
	tailExp []int
	scaled  bool
}

// normalisers fills den and exp from b (a weight view).
func (s *normalised) normalisers(b *trajectory.Batch) {
	h := b.Horizon()
	s.den = scratch.Zero(s.den, h+1)
	s.tail = scratch.Zero(s.tail, h+1)
	s.exp = scratch.Zero(s.exp, h+1)
	s.scaled = false
	if !s.fast(b) {
		s.scaledSums(b)
	}
}

// fast computes the normalisers with plain products and reports false as
// soon as a weight leaves the normal float64 range, or a normaliser
// overflows (den is then partial).
func (s *normalised) fast(b *trajectory.Batch) bool {
	n, h := b.N(), b.Horizon()
	for i := range n {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		rho := b.Ratio[lo:hi]
		den := s.den[1 : 1+len(rho)]
		w := 1.0
		for t, f := range rho {
			prev := w
			w *= f
			if weights.LeftNormal(w, f, prev) {
				return false
			}
			den[t] += w
		}
		s.tail[len(rho)] += w
	}
	s.den[0] = float64(n)
	run := 0.0
	for t := 1; t <= h; t++ {
		run += s.tail[t-1] // trajectories of length < t, frozen at their last weight
		s.den[t] += run
		if s.den[t] > math.MaxFloat64 {
			return false // normal weights whose sum overflows
		}
	}
	return true
}

// scaledSums computes the normalisers in two passes: the largest binary
// exponent of the weights at each step, then the weights scaled by it.
func (s *normalised) scaledSums(b *trajectory.Batch) {
	n, h := b.N(), b.Horizon()
	s.scaled = true
	clear(s.den)
	for t := range s.exp {
		s.exp[t] = weights.MinExp
	}
	s.tailExp = scratch.Zero(s.tailExp, h+1)
	for t := range s.tailExp {
		s.tailExp[t] = weights.MinExp
	}
	for i := range n {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		w := weights.Scaled{M: 1}
		for st := lo; st < hi; st++ {
			w.Mul(b.Ratio[st])
			if w.M != 0 {
				t := st - lo + 1
				s.exp[t] = max(s.exp[t], w.E)
			}
		}
		if w.M != 0 {
			s.tailExp[hi-lo] = max(s.tailExp[hi-lo], w.E)
		}
	}
	s.exp[0] = 0
	run := weights.MinExp
	for t := 1; t <= h; t++ {
		run = max(run, s.tailExp[t-1])
		s.exp[t] = max(s.exp[t], run)
		if s.exp[t] == weights.MinExp {
			s.exp[t] = 0 // every weight at t is zero
		}
	}
	s.den[0] = float64(n)
	for i := range n {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		w := weights.Scaled{M: 1}
		for st := lo; st < hi; st++ {
			w.Mul(b.Ratio[st])
			t := st - lo + 1
			s.den[t] += w.At(s.exp[t])
		}
		if w.M != 0 {
			for t := hi - lo + 1; t <= h; t++ {
				s.den[t] += w.At(s.exp[t])
			}
		}
	}
}

// trajectory returns c^i = sum_t [ wbar_t (r_t - q_hat_t) + wbar_{t-1}
// v_hat_t ] of trajectory i (its WDR terms, SPEC 1d). When js is not nil
// (the sorted j of MAGIC, js[0] = 0), it also sets g[k] to the off-policy
// js[k]-step return of trajectory i,
//
//	g^i_j = sum_{t<=j} [ wbar_t (r_t - q_hat_t) + wbar_{t-1} v_hat_t ] + wbar_j v_hat_{j+1},
//
// with v_hat_{j+1} = 0 past the trajectory's end (so g^i_j = c^i for
// every j at or beyond its length).
func (s *normalised) trajectory(b *trajectory.Batch, i int, js []int, g []float64) float64 {
	lo, hi := b.Offsets[i], b.Offsets[i+1]
	rho := b.Ratio[lo:hi]
	rew, q, v := b.Reward[lo:hi], b.QHat[lo:hi], b.VHat[lo:hi]
	rew, q, v = rew[:len(rho)], q[:len(rho)], v[:len(rho)]
	den := s.den[:len(rho)+1]
	k, next := 0, math.MaxInt // next: the next j to record (1-based step)
	if js != nil {
		if len(v) > 0 {
			g[0] = v[0] / den[0] // wbar_0 v_hat_1 = v_hat_1 / n
		} else {
			g[0] = 0
		}
		k = 1
		if k < len(js) {
			next = js[k]
		}
	}
	c := 0.0
	if !s.scaled {
		w, prev := 1.0, weights.Ratio(1, den[0])
		for t, f := range rho {
			w *= f
			wbar := weights.Ratio(w, den[t+1])
			c += wbar*(rew[t]-q[t]) + prev*v[t]
			prev = wbar
			if t+1 == next {
				g[k] = c
				if t+1 < len(v) {
					g[k] += wbar * v[t+1]
				}
				k++
				next = math.MaxInt
				if k < len(js) {
					next = js[k]
				}
			}
		}
	} else {
		w := weights.Scaled{M: 1}
		prev := weights.Ratio(1, den[0])
		for t, f := range rho {
			w.Mul(f)
			wbar := 0.0
			if d := den[t+1]; d != 0 {
				wbar = math.Ldexp(w.M/d, w.E-s.exp[t+1])
			}
			c += wbar*(rew[t]-q[t]) + prev*v[t]
			prev = wbar
			if t+1 == next {
				g[k] = c
				if t+1 < len(v) {
					g[k] += wbar * v[t+1]
				}
				k++
				next = math.MaxInt
				if k < len(js) {
					next = js[k]
				}
			}
		}
	}
	for ; k < len(js); k++ {
		g[k] = c // j at or beyond the trajectory's end
	}
	return c
}
