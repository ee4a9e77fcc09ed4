package modelbased

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
	"github.com/ope-lab/longhorizon/trajectory"
)

// factorQP is MAGIC's second path to its blend weights, taken only when
// the first (the matrix M = Omega + b b^T + lambda I formed from Welford's
// co-moments, solved by simplexQP) fails. It solves the same problem,
// x = argmin x^T M x over the simplex (SPEC 1d), from a factor: M = P^T P
// with P a |J| x |J| upper triangular matrix built by Givens rotations
// from the centred j-step returns, b and sqrt(lambda) I, never forming a
// product of two data entries, so it never squares the condition number
// of the data and P^T P is positive definite whatever the rounding.
//
// Why the first path can fail: when every j-step return is equal to the
// last bits (the exact model of a deterministic domain), the co-moments
// are rounding noise, and Welford's update, which multiplies the old
// deviation by the new one, is not a Gram matrix in floating point: it can
// leave Omega_aa = 0 beside Omega_ac != 0, an indefinite M on which
// Wolfe's method stops at a point that fails its KKT check.
//
// The factor: Givens rotations of the rows (1, g^i - m) (m the first
// pass's running mean; any shift would do) into an upper triangular T =
// [[sqrt(n), t^T], [0, R]] give T^T T = sum_i (1, d_i)(1, d_i)^T, so R^T R
// = sum_i d_i d_i^T - (sum_i d_i)(sum_i d_i)^T / n = (n - 1) S in exact
// arithmetic: the centring is done by the rotations, not by subtracting a
// rounded mean. Omega = n S = (sqrt(n/(n-1)) R)^T (sqrt(n/(n-1)) R); so
// sqrt(Omega_jj) is the norm of a column, which gives b and lambda as
// SPEC 1d defines them, and rotating in the rows b^T and sqrt(lambda)
// e_j^T gives P. Rotations are backward stable column by column (Higham
// 2002, sec. 19.6: the computed P is the exact factor of data whose
// column j moved by at most c n u times its norm, u = 2^-53), so for every
// x on the simplex x^T P^T P x is within about 2 c n u max_j M_jj of SPEC's
// x^T M x (the first path's M is off by rounding too, Welford's).
//
// The affine minimiser on S is y_S = z / sum z with P_S^T P_S z = 1,
// solved by a Householder QR of the columns P_S (P_S = Q R_S, so R_S^T R_S
// z = 1 by two triangular solves); cond(R_S) = sqrt(cond(M_SS)) <= about
// sqrt(1e10 |J|), the ridge's bound, where the pivots of a Cholesky of the
// formed M_SS would be down at the rounding of its entries.
type factorQP struct {
	activeSet
	t   []float64 // (k+1) x (k+1) upper triangular, row-major: the data factor T
	row []float64 // the row being rotated in
	p   []float64 // k x k upper triangular, row-major: P, scaled
	w   []float64 // the QR of P_S, column-major, k x |S|
	r   []float64 // P x
	d   []float64 // the diagonal of R_S
	z   []float64
	nrm []float64 // column norms
}

// start sizes f for k = |J| and clears the data factor.
func (f *factorQP) start(k int) {
	f.t = scratch.Zero(f.t, (k+1)*(k+1))
	f.row = scratch.Zero(f.row, k+1)
	f.p = scratch.Zero(f.p, k*k)
	f.w = scratch.Zero(f.w, k*k)
	f.r = scratch.Zero(f.r, k)
	f.d = scratch.Zero(f.d, k)
	f.z = scratch.Zero(f.z, k)
	f.nrm = scratch.Zero(f.nrm, k)
}

// addData rotates the row (1, g - m) into the data factor.
func (f *factorQP) addData(g, m []float64) {
	f.row[0] = 1
	for a, ga := range g {
		f.row[a+1] = ga - m[a]
	}
	givensRow(f.t, len(f.row), f.row)
}

// givensRow rotates the row v (len w, overwritten) into the upper
// triangular t (w x w, row-major) so that the new t^T t is the old t^T t
// plus v v^T.
func givensRow(t []float64, w int, v []float64) {
	for c := range w {
		vc := v[c]
		if vc == 0 {
			continue
		}
		tc := t[c*w+c]
		h := math.Hypot(tc, vc)
		cs, sn := tc/h, vc/h
		t[c*w+c] = h
		row, rest := t[c*w+c+1:c*w+w], v[c+1:w]
		for q, a := range row {
			row[q] = cs*a + sn*rest[q]
			rest[q] = cs*rest[q] - sn*a
		}
		v[c] = 0
	}
}

// solveFactor is MAGIC's second path: it rebuilds the j-step returns of
// the n trajectories of b (the view Estimate computed them on), factors M
// (factorQP) with b_j and lambda recomputed from that factor as SPEC 1d
// defines them (Omega_HH, trace(Omega + b b^T)), and writes the blend
// weights into e.x and the b_j into e.bias.
func (e *MAGIC) solveFactor(b *trajectory.Batch, n int) error {
	k := len(e.js)
	f := &e.fq
	f.start(k)
	for i := range n {
		e.s.trajectory(b, i, e.js, e.g)
		f.addData(e.g, e.mean)
	}
	scale := math.Sqrt(float64(n) / float64(n-1))
	for a := range k { // P = sqrt(n/(n-1)) R, R the trailing block of T
		for c := a; c < k; c++ {
			f.p[a*k+c] = scale * f.t[(a+1)*(k+1)+c+1]
		}
	}
	f.colNorms()
	// b_j = max(g_H - half - g_j, g_j - g_H - half, 0) with g_H - g_j
	// first: exact when the two are within a factor 2 (Sterbenz), where
	// rounding g_H - half (the first path's lo) would cost an ulp of g_H,
	// all of b_j when the j-step returns agree to the last bits.
	gh := e.sum[k-1]
	half := magicZ * f.nrm[k-1] // sqrt(Omega_HH)
	for a, ga := range e.sum {
		e.bias[a] = max((gh-ga)-half, (ga-gh)-half, 0)
	}
	return f.solve(e.bias, e.x)
}

// colNorms sets nrm_j to the norm of column j of P.
func (f *factorQP) colNorms() {
	k := len(f.nrm)
	for c := range k {
		h := 0.0
		for a := 0; a <= c; a++ {
			h = math.Hypot(h, f.p[a*k+c])
		}
		f.nrm[c] = h
	}
}

// solve completes P from sqrt(n/(n-1)) R (in f.p, its column norms in
// f.nrm) and bias, and writes the minimiser into x.
func (f *factorQP) solve(bias, x []float64) error {
	k := len(f.nrm)
	top := 0.0 // max_j sqrt(Omega_jj + b_j^2)
	for j, v := range f.nrm {
		top = max(top, math.Hypot(v, bias[j]))
	}
	if math.IsInf(top, 0) || math.IsNaN(top) {
		return fmt.Errorf("the factor of Omega + b b^T has a column of norm %v", top)
	}
	lambda := math.Inf(1) // scaled by 2^-2e
	e := 0
	if top > 0 {
		_, e = math.Frexp(top)
		tr := 0.0
		for j, v := range f.nrm {
			h := math.Ldexp(math.Hypot(v, bias[j]), -e)
			tr += h * h
		}
		lambda = 1e-10 * max(tr/float64(k), math.Ldexp(1e-300, -2*e)) // SPEC 1d, addRidge
	}
	if math.IsInf(lambda, 0) {
		// M = lambda I to far below the rounding of its diagonal
		clear(f.p)
		for j := range k {
			f.p[j*k+j] = 1
		}
	} else {
		for i, v := range f.p {
			f.p[i] = math.Ldexp(v, -e)
		}
		for j, v := range bias {
			f.row[j] = math.Ldexp(v, -e)
		}
		givensRow(f.p, k, f.row[:k])
		sl := math.Sqrt(lambda)
		for j := range k {
			clear(f.row[:k])
			f.row[j] = sl
			givensRow(f.p, k, f.row[:k])
		}
	}
	return f.minimise(x)
}

// minimise scales P to a largest diagonal entry of P^T P in [1/4, 1) and
// runs Wolfe's method from the vertex of least M_jj.
func (f *factorQP) minimise(x []float64) error {
	k := len(f.nrm)
	f.reset(k, x)
	f.colNorms()
	top, j0 := 0.0, 0
	for j, v := range f.nrm {
		top = max(top, v)
		if v < f.nrm[j0] {
			j0 = j
		}
	}
	if !(top > 0) || math.IsInf(top, 0) {
		return fmt.Errorf("the factor of M has largest column norm %v, want a positive finite number", top)
	}
	_, e := math.Frexp(top)
	for i, v := range f.p {
		f.p[i] = math.Ldexp(v, -e)
	}
	f.colNorms()
	if k == 1 {
		x[0] = 1
		return nil
	}
	return f.run(f, x, j0)
}

// gradient sets mx = M x = P^T (P x) and returns x^T M x = |P x|^2.
func (f *factorQP) gradient(x []float64) float64 {
	k := f.k
	obj := 0.0
	for a := range k {
		row, xs := f.p[a*k+a:a*k+k], x[a:k]
		s := 0.0
		for c, v := range row {
			s += v * xs[c]
		}
		f.r[a] = s
		obj += s * s
	}
	for j := range k {
		s := 0.0
		for a := 0; a <= j; a++ {
			s += f.p[a*k+j] * f.r[a]
		}
		f.mx[j] = s
	}
	return obj
}

// affine sets y to the minimiser of |P y|^2 over {sum y = 1, y_j = 0 off
// S}: y_S = z / sum z with R_S^T R_S z = 1, R_S from a Householder QR of
// the columns P_S.
func (f *factorQP) affine() error {
	k, s := f.k, len(f.set)
	w, d := f.w, f.d[:s]
	for c, j := range f.set {
		for a := range k {
			w[c*k+a] = f.p[a*k+j]
		}
	}
	for c := range s {
		col := w[c*k : c*k+k]
		ss := 0.0
		for _, v := range col[c:] {
			ss += v * v
		}
		h := math.Sqrt(ss)
		if !(h > 0) {
			return fmt.Errorf("the factor of M restricted to %d of its %d columns is numerically singular", s, k)
		}
		x0 := col[c]
		d[c] = -math.Copysign(h, x0)
		col[c] = x0 - d[c] // the reflector v = col[c:], tau = 1 / (h (h + |x0|))
		tau := 1 / (h * (h + math.Abs(x0)))
		for o := c + 1; o < s; o++ {
			other := w[o*k : o*k+k]
			dot := 0.0
			for a := c; a < k; a++ {
				dot += col[a] * other[a]
			}
			dot *= tau
			for a := c; a < k; a++ {
				other[a] -= dot * col[a]
			}
		}
	}
	// R_S: diagonal d, above it w[o*k+c] (row c, column o > c).
	z := f.z[:s]
	for c := range s { // R_S^T u = 1
		v := 1.0
		for q := range c {
			v -= w[c*k+q] * z[q]
		}
		z[c] = v / d[c]
	}
	for c := s - 1; c >= 0; c-- { // R_S z = u
		v := z[c]
		for o := c + 1; o < s; o++ {
			v -= w[o*k+c] * z[o]
		}
		z[c] = v / d[c]
	}
	return f.normalise(z)
}

// factorTolC is the constant of factorQP's tolerance (tolerance).
const factorTolC = 16

// tolerance returns the rounding tolerance of the multiplier (M x)_j -
// x^T M x: C k^2 u s (|p_j| + s), s = sum_c x_c |p_c|, u = 2^-53, C =
// factorTolC, from two error bounds of that form.
//
// Evaluation (gradient; Higham 2002, sec. 3.1: |fl(a.b) - a.b| <=
// gamma_n |a|.|b|, gamma_n = n u / (1 - n u)): r = fl(P x) has |r - P x|
// <= gamma_k |P| x componentwise, and || |P| x || <= s; so fl(p_j . r) is
// within (2 gamma_k + gamma_k^2) |p_j| s of p_j . P x, and fl(r . r)
// within (3 gamma_k + O(gamma_k^2)) s^2 of |P x|^2: the computed
// multiplier is within 4 gamma_k s (|p_j| + s) (about 4 k u s (|p_j| +
// s)), plus u times itself, of the exact multiplier of x for P^T P.
//
// Solution (affine): x is the last affine minimiser y. The Householder QR
// of P_S and the two triangular solves are backward stable (Higham 2002,
// secs. 19.3 and 8.1): z solves (P_S^T P_S + E) z = 1 with |E| <= c k^2 u
// |R_S^T| |R_S| (c a small constant the analysis does not pin down), so
// on S the exact multipliers of y are at most c k^2 u (|R_S^T| |R_S|
// y)_j plus the same averaged over y, at most c k^2 u s (|p_j| + s)
// (Cauchy-Schwarz: the columns of R_S have the norms of the p_j). Off S,
// Wolfe's loop stopped because no computed multiplier was below a quarter
// of minus this tolerance (entering).
//
// C = 16 covers the evaluation's 4 k u and c; the tests measure the
// answers' residuals for the exact P^T P at most 0.03 of the tolerance
// (TestFactorQPRandom; an effective c below 0.5), for SPEC's M computed
// in 300 bits at most 0.12 (TestMagicFactorMatchesReference), and show
// that wrong points fail it (TestFactorQPCheckNotVacuous). Unlike a tolerance relative
// to max M_jj, it shrinks with s: where x sits on columns of norm near
// sqrt(lambda), it resolves multipliers of the order of lambda. A pass
// certifies that every exact multiplier of x for P^T P is at least -(C +
// 4/k) k^2 u s (max_j |p_j| + s) (with u's share), so the Frank-Wolfe gap
// of x, x^T M x - min over the simplex, is at most twice that.
func (f *factorQP) tolerance(j int, s float64) float64 {
	return factorTolC * float64(f.k*f.k) * 0x1p-53 * s * (f.nrm[j] + s)
}

// spread returns s = sum_c x_c |p_c|.
func (f *factorQP) spread(x []float64) float64 {
	s := 0.0
	for c, v := range x[:f.k] {
		s += v * f.nrm[c]
	}
	return s
}

// entering: a multiplier counts as negative below -tolerance/4, so that
// verify, at -tolerance, has a margin for the rounding of the last step.
func (f *factorQP) entering(x []float64, obj float64) int {
	s := f.spread(x)
	enter, best := -1, 0.0
	for j := range f.k {
		if x[j] != 0 || f.refused[j] || f.inSet(j) {
			continue
		}
		if r := f.mx[j] - obj; r < -f.tolerance(j, s)/4 && (enter < 0 || f.mx[j] < best) {
			enter, best = j, f.mx[j]
		}
	}
	return enter
}

// verify checks the KKT conditions of x: x >= 0, sum x = 1, and for every
// j, (M x)_j - x^T M x >= -tolerance, with |(M x)_j - x^T M x| <=
// tolerance where x_j > 0.
func (f *factorQP) verify(x []float64) error {
	if r := infeasibility(x); r > 1e-12 {
		return fmt.Errorf("the simplex solution from the factor of M is off the simplex by %.3g", r)
	}
	obj := f.gradient(x)
	s := f.spread(x)
	worst := 0.0 // the largest multiplier outside its tolerance, in tolerances
	for j, v := range x {
		r := f.mx[j] - obj
		if v > 0 {
			r = -math.Abs(r)
		}
		worst = max(worst, -r/f.tolerance(j, s))
	}
	if worst > 1 {
		return errFactorKKT{worst}
	}
	return nil
}

// errFactorKKT reports blend weights that fail factorQP's KKT check.
type errFactorKKT struct{ ratio float64 }

func (e errFactorKKT) Error() string {
	return fmt.Sprintf("the simplex solution from the factor of M fails its optimality check (a KKT residual %.3g times its rounding tolerance)", e.ratio)
}
