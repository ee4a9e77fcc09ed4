package window

import (
	"fmt"
	"math"
	"strconv"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Windows are the K of the fixed-window estimators window-K and
// window-sn-K (docs/incris-sn.md section 2): geometric up to 64, from the
// sub-episode MDP's 2-step sub-episodes.
var Windows = []int{2, 4, 8, 16, 32, 64}

// Window is a fixed truncation of the importance weights (beyond the
// paper, issue 31; docs/incris-sn.md section 2): each step's reward keeps
// its K most recent ratios, B_{min(K,t)} = prod_{t-K<j<=t} rho_j,
//
//	window-K:    sum_t (1/n) sum_i B^i r^i_t
//	window-sn-K: sum_t sum_i B^i r^i_t / sum_i B^i   (0/0 := 0)
//
// Padding is literal: an ended trajectory's B (its ratios inside the
// window, 1 after its end) enters window-sn-K's normaliser. It is the
// window INCRIS chooses per step, fixed for every step, from which the
// best window in hindsight is read.
//
// Each B comes from the trajectory's prefix products of its nonzero
// factors and a count of zero factors (0 when a zero factor lies in the
// window, else a quotient of two prefix products: O(1) per step, O(n H)
// in all), as incris-oracle's; a trajectory whose prefix products leave
// the normal range takes them as mantissa and binary exponent. A sum
// beyond the float64 range is an error, never an Inf or NaN.
type Window struct {
	// K is the number of most recent ratios kept (K >= 0).
	K int
	// Normalised selects window-sn-K.
	Normalised bool

	view     weights.View
	num, den []float64 // per step t: sum_i B^i r^i_t, sum_i B^i
	frac     []float64 // prefix products of the nonzero factors (scaled: mantissas)
	exp      []int     // scaled: their binary exponents
	zeros    []int     // the number of zero factors among the first j
	scaled   bool      // frac and exp hold mantissas and exponents
	name     string
}

// NewWindow returns the estimator window-K, or window-sn-K if normalised.
func NewWindow(k int, normalised bool) *Window {
	return &Window{K: k, Normalised: normalised, name: windowName(k, normalised)}
}

// windowName returns the registry key of a fixed window.
func windowName(k int, normalised bool) string {
	if normalised {
		return "window-sn-" + strconv.Itoa(k)
	}
	return "window-" + strconv.Itoa(k)
}

// Name returns "window-K" or "window-sn-K".
func (e *Window) Name() string { return e.name }

// Estimate returns the estimate from b. It needs n >= 1.
func (e *Window) Estimate(b *trajectory.Batch) (float64, error) {
	b = e.view.Of(b)
	n, h := b.N(), b.Horizon()
	if n < 1 {
		return 0, fmt.Errorf("%s: %w: n = %d", e.Name(), estimators.ErrTooFew, n)
	}
	e.num = scratch.Zero(e.num, h)
	if e.Normalised {
		e.den = scratch.Zero(e.den, h)
	}
	e.frac = scratch.Grow(e.frac, h+1)
	e.exp = scratch.Grow(e.exp, h+1)
	e.zeros = scratch.Grow(e.zeros, h+1)
	for i := range n {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		e.prefix(b.Ratio[lo:hi])
		e.add(b.Reward[lo:hi], h)
	}
	v, bad := 0.0, false
	for s, x := range e.num {
		if e.Normalised {
			v += weights.Ratio(x, e.den[s])
			bad = bad || math.IsInf(e.den[s], 0)
		} else {
			v += x / float64(n)
		}
	}
	if bad || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%s: a kept product or its sum is %w", e.Name(), estimators.ErrNotRepresentable)
	}
	return v, nil
}

// add adds one trajectory's terms (its prefix products loaded) at every
// step t = 1..h, padded after its end.
func (e *Window) add(rew []float64, h int) {
	l := len(rew)
	for s := range h {
		t := s + 1
		te, je := min(t, l), min(max(t-e.K, 0), l) // the kept steps je+1..te of its own
		if s < l && rew[s] != 0 {
			e.num[s] += e.kept(te, je) * rew[s]
		}
		if e.Normalised {
			e.den[s] += e.kept(te, je)
		}
	}
}

// kept returns prod_{j<s<=t} rho_s from the prefix products.
func (e *Window) kept(t, j int) float64 {
	switch {
	case e.zeros[t] != e.zeros[j]:
		return 0 // a zero factor in the window
	case e.scaled:
		return math.Ldexp(e.frac[t]/e.frac[j], e.exp[t]-e.exp[j])
	}
	return e.frac[t] / e.frac[j]
}

// prefix loads the prefix products of rho's nonzero factors and the counts
// of its zero factors: plain products while they stay in the normal
// float64 range, else mantissas in [0.5, 1) and binary exponents.
func (e *Window) prefix(rho []float64) {
	frac, zeros := e.frac[:len(rho)+1], e.zeros[:len(rho)+1]
	e.scaled = false
	p, z := 1.0, 0
	frac[0], zeros[0] = 1, 0
	for s, f := range rho {
		if f == 0 {
			z++
		} else {
			prev := p
			p *= f
			if weights.LeftNormal(p, f, prev) {
				e.prefixScaled(rho)
				return
			}
		}
		frac[s+1], zeros[s+1] = p, z
	}
}

// prefixScaled is prefix with every product a mantissa in [0.5, 1) and a
// binary exponent: no intermediate overflow or underflow.
func (e *Window) prefixScaled(rho []float64) {
	e.scaled = true
	fr, ex, z := 0.5, 1, 0 // 1 = 0.5 x 2^1
	e.frac[0], e.exp[0], e.zeros[0] = fr, ex, z
	for s, f := range rho {
		if f == 0 {
			z++
		} else {
			ff, fe := math.Frexp(f)
			m2, e2 := math.Frexp(fr * ff)
			fr, ex = m2, ex+fe+e2
		}
		e.frac[s+1], e.exp[s+1], e.zeros[s+1] = fr, ex, z
	}
}
