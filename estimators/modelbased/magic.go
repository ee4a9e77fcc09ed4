package modelbased

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
	"github.com/ope-lab/longhorizon/trajectory"
)

// magicZ is the 95% standard normal quantile, Phi^{-1}(0.95): the
// two-sided 90% interval of WDR that MAGIC measures bias against (SPEC 1d).
const magicZ = 1.6448536269514722

// MAGIC is the model and guided importance sampling combining estimator of
// Thomas & Brunskill (2016, Algorithm 1), as SPEC 1d fixes it (key
// "magic"). It blends the off-policy j-step returns
//
//	g_j = sum_i g^i_j,
//	g^i_j = sum_{t<=j} [ wbar^i_t r^i_t - (wbar^i_t q_hat^i_t - wbar^i_{t-1} v_hat^i_t) ] + wbar^i_j v_hat^i_{j+1},
//
// for j in J = {0, H} united with {2^m : 2^m < H} (j = 0 is DM, j = H is
// WDR; v_hat_{H+1} := 0; wbar as in WDR):
//
//	MAGIC = sum_j x_j g_j,  x = argmin { x^T M x : x >= 0, sum_j x_j = 1 },
//	M = Omega + b b^T + lambda I,
//
// where Omega = n S, S the sample covariance (denominator n - 1) of the
// vectors (g^i_j)_j over the trajectories; b_j is the distance from g_j to
// WDR's interval g_H -/+ 1.6448536269514722 sqrt(Omega_HH) (0 inside); and
// lambda = 1e-10 max(trace(Omega + b b^T)/|J|, 1e-300). The columns are
// taken as already discounted (SPEC 1c). It needs n >= 2.
//
// The covariance is accumulated in one pass (Welford's update), O(n |J|^2);
// the weights x are found exactly by Wolfe's minimum-norm-point algorithm
// (see simplexQP) and reported as the diagnostic "magic_x". When that
// path fails its optimality check (every j-step return equal to the last
// bits, as under an exact model of a deterministic domain, leaves the
// formed M indefinite by rounding), a second pass over the trajectories
// solves the same problem from a factor of M (factorQP) and verifies it
// with a tolerance from its error analysis; where the first path passes,
// the second never runs.
type MAGIC struct {
	s    normalised
	js   []int     // J, sorted
	g    []float64 // g^i_j of the trajectory being added
	sum  []float64 // g_j
	mean []float64 // running mean of g^i_j
	d    []float64 // scratch: g^i_j - the previous mean
	com  []float64 // |J| x |J| co-moments (upper triangle), then Omega
	m    []float64 // |J| x |J|: M
	bias []float64 // b_j
	x    []float64 // the blend weights of the last Estimate
	qp   simplexQP
	fq   factorQP // the second path, when qp fails
}

// NewMAGIC returns a MAGIC estimator.
func NewMAGIC() *MAGIC { return &MAGIC{} }

// Name returns "magic".
func (*MAGIC) Name() string { return "magic" }

// X returns the blend weights x_j of the last Estimate call, one for each j
// of J = (0, 1, 2, 4, ..., H) in that order (empty if it failed). The slice
// is reused by the next call.
func (e *MAGIC) X() []float64 { return e.x }

// J returns the j of the last Estimate call, in the order of X.
func (e *MAGIC) J() []int { return e.js }

// AppendDiagnostic implements Reporter: diagnostic 0 is the blend weights
// x (X), by position in J.
func (e *MAGIC) AppendDiagnostic(dst []float64, d int) []float64 { return append(dst, e.x...) }

// Estimate returns the MAGIC estimate from b, which must carry the model
// columns (ErrNoModel otherwise) and at least 2 trajectories.
func (e *MAGIC) Estimate(b *trajectory.Batch) (float64, error) {
	e.x = e.x[:0]
	if err := checkModel("magic", b, 2); err != nil {
		return 0, err
	}
	b = e.s.view.Of(b)
	e.s.normalisers(b)
	n := b.N()
	e.js = appendJ(e.js[:0], b.Horizon())
	k := len(e.js)
	e.g = scratch.Zero(e.g, k)
	e.sum = scratch.Zero(e.sum, k)
	e.mean = scratch.Zero(e.mean, k)
	e.d = scratch.Zero(e.d, k)
	e.bias = scratch.Zero(e.bias, k)
	e.com = scratch.Zero(e.com, k*k)
	e.m = scratch.Zero(e.m, k*k)
	g, sum, mean, d, com := e.g, e.sum, e.mean, e.d, e.com
	for i := range n {
		e.s.trajectory(b, i, e.js, g)
		inv := 1 / float64(i+1)
		for a, ga := range g {
			sum[a] += ga
			d[a] = ga - mean[a]
			mean[a] += d[a] * inv
		}
		for a, da := range d {
			row := com[a*k+a : a*k+k]
			gs, ms := g[a:], mean[a:]
			for c := range row {
				row[c] += da * (gs[c] - ms[c])
			}
		}
	}
	for a, v := range sum {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, fmt.Errorf("magic: the %d-step return %w", e.js[a], estimators.ErrNotRepresentable)
		}
	}
	// Omega = n S = n/(n-1) times the co-moments, made symmetric.
	scale := float64(n) / float64(n-1)
	for a := range k {
		for c := a; c < k; c++ {
			v := com[a*k+c] * scale
			com[a*k+c], com[c*k+a] = v, v
		}
	}
	last := k - 1
	gh := sum[last]
	half := magicZ * math.Sqrt(com[last*k+last])
	lo, hi := gh-half, gh+half
	for a, ga := range sum {
		e.bias[a] = max(lo-ga, ga-hi, 0)
	}
	for a := range k {
		for c := range k {
			e.m[a*k+c] = com[a*k+c] + e.bias[a]*e.bias[c]
		}
	}
	trace := addRidge(e.m, k)
	for _, v := range e.m {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, fmt.Errorf("magic: the covariance of the j-step returns %w", estimators.ErrNotRepresentable)
		}
	}
	if math.IsInf(trace, 0) {
		return 0, fmt.Errorf("magic: the trace of Omega + b b^T %w", estimators.ErrNotRepresentable)
	}
	e.x = scratch.Zero(e.x, k)
	if err := e.qp.solve(e.m, k, e.x); err != nil {
		// M is numerically indefinite or too ill-conditioned for the
		// matrix path: solve again from a factor (factorQP).
		if err2 := e.solveFactor(b, n); err2 != nil {
			e.x = e.x[:0]
			return 0, fmt.Errorf("magic: blend weights: %v; from the factor of M: %w", err, err2)
		}
	}
	v := 0.0
	for a, xa := range e.x {
		if xa != 0 {
			v += xa * sum[a]
		}
	}
	return estimators.Finite("magic", v)
}

// appendJ appends MAGIC's J for horizon h to dst: 0, the powers of two
// below h, and h (SPEC 1d), sorted and without repeats (h = 0 gives 0
// alone).
func appendJ(dst []int, h int) []int {
	dst = append(dst, 0)
	for j := 1; j < h; j *= 2 {
		dst = append(dst, j)
	}
	if h > 0 {
		dst = append(dst, h)
	}
	return dst
}
