package incris

import (
	"errors"
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ErrNoMoments reports a batch without the exact moments of the kept
// products (trajectory.Batch.Moments) that incris-oracle needs: only a
// simulated domain that knows them (subepisode) supplies them; logged data
// never does.
var ErrNoMoments = errors.New("the data carries no exact moments of the kept products")

// INCRISOracle is INCRIS (SPEC 1) with its selection fed the exact MSE of
// each k instead of plug-in estimates (beyond the paper: an oracle for
// issue 23's question, whether the covariance-test idea fails or only its
// plug-in estimates). With mean(t, k) = E_b[B_k gamma^(t-1) r_t] and
// second(t, k) its second moment (the batch's Moments, under the gamma the
// batch is seen under),
//
//	MSE_k(t, n) = (mean(t, k) - mean(t, t))^2 + (second(t, k) - mean(t, k)^2) / n,
//
// the exact squared bias and variance of (1/n) sum_i B^i_k r^i_t;
// k* = argmin_k MSE_k (ties to the larger k: MSEs within a relative 1e-12,
// the tables' rounding, count as tied; a negative variance from rounding
// counts as 0), and the estimate is sum_t (1/n) sum_i B^i_{k*} r^i_t, as
// INCRIS's.
//
// Cost: k* is known before the data is read, O(H^2) from the tables (and
// the tables' one-time build by the domain). Each trajectory's kept
// products come from its prefix products over the nonzero factors and a
// count of zero factors: B_k = prod_{t-k<j<=t} rho_j is 0 when a zero
// factor lies in the window, else the quotient of two prefix products:
// O(1) per (i, t), O(n H) in all. A trajectory whose prefix products leave
// the normal float64 range takes them as a mantissa in [0.5, 1) and a
// binary exponent (math.Frexp, math.Ldexp): no intermediate overflow or
// underflow. B_t itself (k = t) is the plain product, exactly. A term or sum beyond the float64 range is an error
// (estimators.ErrNotRepresentable), never an Inf or NaN in the estimate.
type INCRISOracle struct {
	view  weights.View
	kstar []int
	acc   []float64 // per step t: sum_i B^i_{k*} r^i_t
	frac  []float64 // prefix products of the nonzero factors (fast: the product; scaled: its mantissa)
	exp   []int     // scaled: their binary exponent
	zeros []int     // the number of zero factors
}

// fast adds one trajectory's terms to acc from plain prefix products of
// its nonzero factors, B_k = P_t / P_{t-k} (one division; P_0 = 1, so
// B_t = W_t is the plain product), and reports false, having added
// nothing, when a prefix product leaves the normal float64 range (then
// scaled takes over).
func (e *INCRISOracle) fast(rho, rew []float64) bool {
	frac, zeros := e.frac[:len(rho)+1], e.zeros[:len(rho)+1]
	p, z := 1.0, 0
	frac[0], zeros[0] = 1, 0
	for s, f := range rho {
		if f == 0 {
			z++
		} else {
			prev := p
			p *= f
			if weights.LeftNormal(p, f, prev) {
				return false
			}
		}
		frac[s+1], zeros[s+1] = p, z
	}
	ks, acc := e.kstar[:len(rew)], e.acc[:len(rew)]
	for s, r := range rew {
		j := s + 1 - ks[s] // the dropped steps are 1..j
		if r == 0 || zeros[s+1] != zeros[j] {
			continue // nothing to add, or a zero factor is kept: B = 0
		}
		acc[s] += frac[s+1] / frac[j] * r
	}
	return true
}

// scaled is fast with the prefix products as a mantissa in [0.5, 1) and a
// binary exponent: no intermediate overflow or underflow.
func (e *INCRISOracle) scaled(rho, rew []float64) {
	fr, ex, z := 0.5, 1, 0 // 1 = 0.5 x 2^1
	e.frac[0], e.exp[0], e.zeros[0] = fr, ex, z
	for s, f := range rho {
		if f == 0 {
			z++
		} else {
			// fr 2^ex times ff 2^fe, renormalised (fr ff is in
			// [0.25, 1), a normal number: only the product rounds)
			ff, fe := math.Frexp(f)
			m2, e2 := math.Frexp(fr * ff)
			fr, ex = m2, ex+fe+e2
		}
		e.frac[s+1], e.exp[s+1], e.zeros[s+1] = fr, ex, z
	}
	for s, r := range rew {
		t := s + 1
		j := t - e.kstar[s]
		if r == 0 || e.zeros[t] != e.zeros[j] {
			continue
		}
		e.acc[s] += math.Ldexp(e.frac[t]/e.frac[j]*r, e.exp[t]-e.exp[j])
	}
}

// NewINCRISOracle returns an incris-oracle estimator.
func NewINCRISOracle() *INCRISOracle { return &INCRISOracle{} }

// Name returns "incris-oracle".
func (e *INCRISOracle) Name() string { return "incris-oracle" }

// KStar returns, for each step t (index t-1), the k* of the last Estimate
// call. The slice is reused by the next call.
func (e *INCRISOracle) KStar() []int { return e.kstar }

// AppendDiagnostic implements Reporter: diagnostic 0 is k* (KStar).
func (e *INCRISOracle) AppendDiagnostic(dst []float64, d int) []float64 {
	return appendInts(dst, e.kstar)
}

// oracleTie is the relative difference below which two MSEs count as tied.
const oracleTie = 1e-12

// OracleKStar returns k* = argmin_k MSE_k(t, n) (INCRISOracle) for step t
// from the row of exact moments mean[k], second[k], k = 0..t.
func OracleKStar(mean, second []float64, n int) int {
	t := len(mean) - 1
	best, kb := oracleMSE(mean, second, t, t, n), t
	for k := t - 1; k >= 0; k-- {
		if m := oracleMSE(mean, second, t, k, n); m < best-oracleTie*best {
			best, kb = m, k
		}
	}
	return kb
}

// oracleMSE returns MSE_k(t, n).
func oracleMSE(mean, second []float64, t, k, n int) float64 {
	b := mean[k] - mean[t]
	return b*b + max(second[k]-mean[k]*mean[k], 0)/float64(n)
}

// Estimate returns the estimate from b, which must carry exact moments
// covering its horizon. It needs n >= 1.
func (e *INCRISOracle) Estimate(b *trajectory.Batch) (float64, error) {
	m := b.Moments
	b = e.view.Of(b)
	n, h := b.N(), b.Horizon()
	if n < 1 {
		return 0, fmt.Errorf("%s: %w: n = %d", e.Name(), estimators.ErrTooFew, n)
	}
	if m == nil {
		return 0, fmt.Errorf("%s: %w", e.Name(), ErrNoMoments)
	}
	if h > m.H {
		return 0, fmt.Errorf("%s: %w beyond step %d, and the data has %d steps", e.Name(), ErrNoMoments, m.H, h)
	}
	e.kstar = scratch.Grow(e.kstar, h)
	for t := 1; t <= h; t++ {
		mean, second := m.Row(t)
		e.kstar[t-1] = OracleKStar(mean, second, n)
	}
	e.acc = scratch.Zero(e.acc, h)
	e.frac = scratch.Zero(e.frac, h+1)
	e.exp = scratch.Grow(e.exp, h+1)
	e.zeros = scratch.Grow(e.zeros, h+1)
	for i := range n {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		rho, rew := b.Ratio[lo:hi], b.Reward[lo:hi]
		if !e.fast(rho, rew) {
			e.scaled(rho, rew)
		}
	}
	v := 0.0
	for _, a := range e.acc {
		v += a / float64(n)
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%s: a kept product or its sum is %w", e.Name(), estimators.ErrNotRepresentable)
	}
	return v, nil
}
