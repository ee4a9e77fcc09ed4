package marginal

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/gonum"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
	"github.com/ope-lab/longhorizon/internal/compact"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ihRidge is the ridge of the least squares relative to the mean diagonal
// of A: it only makes the minimiser unique (SPEC 1d's magic uses the same
// relative size).
const ihRidge = 1e-10

// IH is the tabular infinite-horizon estimator of Liu, Li, Tang & Zhou
// 2018 (key "ih", docs/estimators-ih.md): every step is weighted by
// w(o) rho_t, w the ratio of the two policies' discounted stationary
// distributions over observations, solved from the stationary equations
// of a chain that restarts from the empirical start distribution d_1
// (with probability 1 - gamma at every step, and at every trajectory's
// end). With, over the visits of each observation s (1-based step t,
// trajectory length L),
//
//	N(s)    = sum gamma^(t-1),
//	T(s, j) = sum_{followed by j} gamma^t rho_t,
//	c(s)    = sum [(1 - gamma) gamma^(t-1) + gamma^t rho_t 1{t = L}],
//	Ghat(s, j) = T(s, j) + c(s) d_1(j) - N(s) 1{s = j},
//
// w minimises ||Ghat^T w||^2 + lambda ||w||^2 over sum_s N(s) w(s) fixed
// (lambda = 1e-10 tr(A)/m, A = Ghat Ghat^T, m the observations visited;
// lambda = 1 when A = 0, where every w solves the equations, as with a
// single observation): w is proportional to (A + lambda I)^{-1} N, one
// Cholesky solve, and the weighted return is self-normalised over every
// step (Liu et al.'s estimator, COBS's) and scaled by pi's expected
// discounted length:
//
//	IH = Lhat sum_{i,t} gamma^(t-1) w(o_t) rho_t r_t / sum_{i,t} gamma^(t-1) w(o_t) rho_t   (0/0 := 0),
//	Lhat = sum_{t=1..H} gamma^(t-1) p_t,  p_t = sum_i W^i_{t-1} 1{L_i >= t} / sum_i W^i_{min(t-1, L_i)},
//
// H the longest trajectory, W^i_k the product of trajectory i's first k
// ratios: p_t estimates P_pi(L >= t), and is 1 when every trajectory lasts
// H (then Lhat = sum_{t<=H} gamma^(t-1), COBS's factor; no product of
// ratios is formed). The rewards are taken as discounted (the view of
// SPEC 1c), gamma is the view's (Batch.Gamma, 1 when 0). On-policy w = 1
// solves the equations exactly and IH is the mean return; it is
// consistent where every observation occurs at one step only or the
// occupancies are stationary, and biased by design where the time index
// matters (it drops it).
// Observations never visited get no weight: no step reads them.
//
// Cost O(steps + sum_j k_j^2 + m^3 / 3), k_j the distinct observations
// that lead to j: A is built from Ghat's sparse part and two rank-one
// terms (the restarts), not multiplied out. Memory: 8 m^2 bytes for A and
// O(steps + m + H) (ihBytes); a warm IH allocates nothing. Products of
// ratios that overflow (episodes of different lengths only) are an error.
type IH struct {
	ids  compact.IDs
	obs  []int32   // compact observation of every step
	nDep []float64 // N(s)
	c    []float64 // c(s)
	d1   []float64 // start counts, then d_1
	u    []float64 // u(s) = sum_j (T - diag N)(s, j) d_1(j)
	w    []float64 // N, then the solution w
	col  []int32   // Ghat's sparse part by column j: entries col[j] to col[j+1]-1
	src  []int32   // an entry's row s
	val  []float64 // its value
	mark []int32   // per observation: its slot in the column being merged
	a    []float64 // A, m x m, upper triangle

	reach, all []float64 // per step t: sum_i W^i_{t-1} 1{L_i >= t}, and the ended trajectories' W^i_{L_i} at L_i + 1
}

// NewIH returns an IH estimator.
func NewIH() *IH { return &IH{} }

// Name returns "ih".
func (*IH) Name() string { return "ih" }

// Estimate returns the IH estimate from b, which must carry observation
// ids (ErrNoIDs otherwise).
func (e *IH) Estimate(b *trajectory.Batch) (float64, error) {
	if err := checkIDs("ih", b, 1); err != nil {
		return 0, err
	}
	steps := b.Steps()
	if steps == 0 {
		return 0, nil
	}
	gamma := b.Gamma
	if gamma == 0 {
		gamma = 1
	}
	e.obs = scratch.Grow(e.obs, steps)
	m := e.ids.Build(b.Obs, e.obs)
	e.flows(b, m, gamma)
	e.merge(m)
	if err := e.solve(m); err != nil {
		return 0, err
	}
	// The weighted return, self-normalised over every step, times pi's
	// expected discounted length.
	num, den := 0.0, 0.0
	for i := range b.N() {
		pow := 1.0
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			x := e.w[e.obs[s]] * b.Ratio[s]
			num += x * b.Reward[s]
			den += x * pow
			pow *= gamma
		}
	}
	if num == 0 && den == 0 {
		return 0, nil
	}
	length, err := e.length(b, gamma)
	if err != nil {
		return 0, err
	}
	return estimators.Finite("ih", length*num/den)
}

// length returns pi's expected discounted episode length,
// sum_{t=1..H} gamma^(t-1) p_t, H the longest trajectory: p_t = 1 when
// every trajectory lasts H, else the per-step self-normalised estimate
// p_t = sum_i W^i_{t-1} 1{L_i >= t} / sum_i W^i_{min(t-1, L_i)} of
// P_pi(L >= t) (0/0 := 0), W^i_k the product of trajectory i's first k
// ratios.
func (e *IH) length(b *trajectory.Batch, gamma float64) (float64, error) {
	h, n := b.Horizon(), b.N()
	full := true
	for i := range n {
		full = full && b.Offsets[i+1]-b.Offsets[i] == h
	}
	if full {
		length, pow := 0.0, 1.0
		for range h {
			length += pow
			pow *= gamma
		}
		return length, nil
	}
	e.reach = scratch.Zero(e.reach, h+2)
	e.all = scratch.Zero(e.all, h+2) // first the ended trajectories' weights by t
	for i := range n {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		w := 1.0
		for s := lo; s < hi; s++ {
			e.reach[s-lo+1] += w
			w *= b.Ratio[s]
		}
		if math.IsInf(w, 0) || math.IsNaN(w) {
			return 0, fmt.Errorf("ih: trajectory %d: the product of its ratios %w", i, estimators.ErrNotRepresentable)
		}
		e.all[hi-lo+1] += w // counted from t = L + 1 on
	}
	length, pow, ended := 0.0, 1.0, 0.0
	for t := 1; t <= h; t++ {
		ended += e.all[t]
		if d := e.reach[t] + ended; d > 0 {
			length += pow * e.reach[t] / d
		}
		pow *= gamma
	}
	return length, nil
}

// flows accumulates N, c and the start counts per observation, and the
// transitions gamma^t rho_t of every step but a trajectory's last, placed
// by their next observation (a counting sort: column j's at col[j] to
// col[j+1]-1, with one slot more for the diagonal -N(j)).
func (e *IH) flows(b *trajectory.Batch, m int, gamma float64) {
	e.nDep = scratch.Zero(e.nDep, m)
	e.c = scratch.Zero(e.c, m)
	e.d1 = scratch.Zero(e.d1, m)
	e.col = scratch.Zero(e.col, m+1)
	n := b.N()
	obs, col := e.obs, e.col
	for i := range n {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		if hi > lo {
			e.d1[obs[lo]]++
		}
		for s := lo + 1; s < hi; s++ {
			col[obs[s]+1]++
		}
	}
	for j := range m {
		col[j+1] += col[j] + 1 // one slot for the diagonal
	}
	total := int(col[m])
	e.src = scratch.Grow(e.src, total)
	e.val = scratch.Grow(e.val, total)
	e.mark = scratch.Grow(e.mark, m) // a cursor per column, then merge's marks
	copy(e.mark, col[:m])
	for i := range n {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		pow := 1.0 // gamma^(t-1)
		for s := lo; s < hi; s++ {
			o := obs[s]
			e.nDep[o] += pow
			e.c[o] += (1 - gamma) * pow
			next := pow * gamma * b.Ratio[s]
			if s+1 == hi {
				e.c[o] += next // the episode restarts
			} else {
				j := obs[s+1]
				k := e.mark[j]
				e.src[k], e.val[k] = o, next
				e.mark[j]++
			}
			pow *= gamma
		}
	}
	for j := range m {
		k := e.mark[j] // the diagonal's slot, the column's last
		e.src[k], e.val[k] = int32(j), -e.nDep[j]
	}
	for j := range m {
		e.d1[j] /= float64(n)
	}
}

// merge sums the entries of each column that share a row, in place: the
// column keeps its distinct rows in order of first occurrence (col is
// rewritten to their ranges).
func (e *IH) merge(m int) {
	for j := range m {
		e.mark[j] = -1
	}
	w := int32(0)
	lo := e.col[0]
	for j := range m {
		hi := e.col[j+1]
		first := w
		e.col[j] = first
		for k := lo; k < hi; k++ {
			s := e.src[k]
			if e.mark[s] >= first {
				e.val[e.mark[s]] += e.val[k]
				continue
			}
			e.mark[s] = w
			e.src[w], e.val[w] = s, e.val[k]
			w++
		}
		lo = hi
	}
	e.col[m] = w
}

// solve builds A = Ghat Ghat^T (its upper triangle) from the columns and
// the restarts, adds the ridge, and solves (A + lambda I) w = N by
// Cholesky; w is scaled to max |w| = 1 (the estimate does not depend on
// its scale).
func (e *IH) solve(m int) error {
	e.a = scratch.Zero(e.a, m*m)
	e.u = scratch.Zero(e.u, m)
	a, u := e.a, e.u
	norm := 0.0 // |d_1|^2
	for j := range m {
		d := e.d1[j]
		norm += d * d
		for k := e.col[j]; k < e.col[j+1]; k++ {
			s, v := int(e.src[k]), e.val[k]
			u[s] += v * d
			for l := e.col[j]; l < e.col[j+1]; l++ {
				if r := int(e.src[l]); r >= s {
					a[s*m+r] += v * e.val[l]
				}
			}
		}
	}
	// Ghat = S + c d_1^T: A = S S^T + u c^T + c u^T + |d_1|^2 c c^T.
	c := e.c
	trace := 0.0
	for s := range m {
		row := a[s*m : (s+1)*m]
		for r := s; r < m; r++ {
			row[r] += u[s]*c[r] + c[s]*u[r] + norm*c[s]*c[r]
		}
		trace += row[s]
	}
	// Scale A to a mean diagonal of 1 (w's scale does not matter), so that
	// the ridge is ihRidge and the solve cannot overflow; A = 0 (every w
	// solves the equations: a single observation) gets the ridge 1.
	switch {
	case math.IsInf(trace, 0) || math.IsNaN(trace):
		return fmt.Errorf("ih: estimate %w (the stationary equations' entries overflow)", estimators.ErrNotRepresentable)
	case trace > 0:
		scale := float64(m) / trace
		for s := range m {
			row := a[s*m : (s+1)*m]
			for r := s; r < m; r++ {
				row[r] *= scale
			}
			row[s] += ihRidge
		}
	default:
		for s := range m {
			a[s*m+s] = 1
		}
	}
	// A = U^T U by the unblocked Cholesky (the blocked one's parallel
	// matrix products allocate), then U^T y = N and U w = y.
	if !(gonum.Implementation{}).Dpotf2(blas.Upper, m, a, m) {
		return fmt.Errorf("ih: the stationary equations' least squares is not positive definite (%d observations)", m)
	}
	e.w = scratch.Grow(e.w, m)
	copy(e.w, e.nDep)
	tri := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: m, Stride: m, Data: a}
	w := blas64.Vector{N: m, Inc: 1, Data: e.w}
	blas64.Trsv(blas.Trans, tri, w)
	blas64.Trsv(blas.NoTrans, tri, w)
	top := 0.0
	for _, x := range e.w {
		top = max(top, math.Abs(x))
	}
	if !(top > 0) || math.IsInf(top, 0) {
		return fmt.Errorf("ih: estimate %w (the density ratio solves to %v)", estimators.ErrNotRepresentable, top)
	}
	for s := range e.w {
		e.w[s] /= top
	}
	return nil
}
