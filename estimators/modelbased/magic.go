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
// (see simplexQP) and reported as the diagnostic "magic_x".
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
		e.x = e.x[:0]
		return 0, fmt.Errorf("magic: blend weights: %w", err)
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

// simplexQP finds x = argmin x^T M x over the simplex {x >= 0, sum x = 1}
// for a symmetric positive definite M, exactly: by Wolfe's (1976)
// minimum-norm-point algorithm, a primal active-set method (x^T M x is the
// squared norm of R x for M = R^T R, so x weights the points R e_j).
//
// It keeps a working set S of the j with x_j > 0 and x optimal on the face
// of S. A major cycle adds the j outside S with the most negative
// multiplier, (M x)_j - x^T M x < 0 (KKT: 2 M x = mu 1 + nu, nu >= 0,
// nu_j x_j = 0, so mu / 2 = x^T M x and (M x)_j >= x^T M x with equality
// on the support). Minor cycles then move x toward y, the minimiser over
// the affine hull of S (y_S = M_SS^{-1} 1 / 1^T M_SS^{-1} 1, by Cholesky),
// as far as x stays >= 0, dropping from S the j that reach 0, until y is
// strictly positive on S. No cycle raises x^T M x and a major one lowers
// it, so no working set recurs and the method ends,
// in exact arithmetic, at the KKT point, which for a positive definite M
// is the unique minimiser; the support found, y is the exact solution of
// the linear system. Rounding: M is scaled by a power of two to a largest
// diagonal entry in [1/2, 1); a multiplier counts as negative below -tol,
// tol = 16 k eps; an entering j that its own first minor cycle drops
// again (a rounding artefact) is set aside until x next changes. At the
// end the KKT conditions are verified (feasibility, and every multiplier
// at least -1e-9, complementarity within 1e-9, relative to the largest
// diagonal entry); a failure is an error, never a silent answer.
type simplexQP struct {
	k        int
	floor    float64   // the least pivot of M_SS in exact arithmetic (pivotFloor)
	m        []float64 // scaled M, k x k
	l        []float64 // Cholesky factor of M_SS, stride k
	mx, y, z []float64
	set      []int  // S
	refused  []bool // entering j dropped again at once
}

// errKKT reports blend weights that fail the final KKT check.
type errKKT struct{ residual float64 }

func (e errKKT) Error() string {
	return fmt.Sprintf("the simplex solution fails its optimality check (KKT residual %.3g relative to max M_jj): M is too ill-conditioned", e.residual)
}

// solve writes the minimiser into x (len k) for m (k x k, row-major).
func (p *simplexQP) solve(m []float64, k int, x []float64) error {
	p.k = k
	p.m = scratch.Zero(p.m, k*k)
	p.l = scratch.Zero(p.l, k*k)
	p.mx = scratch.Zero(p.mx, k)
	p.y = scratch.Zero(p.y, k)
	p.z = scratch.Zero(p.z, k)
	if cap(p.set) < k {
		p.set = make([]int, 0, k)
	}
	p.set = p.set[:0]
	if cap(p.refused) < k {
		p.refused = make([]bool, k)
	}
	p.refused = p.refused[:k]
	clear(p.refused)
	clear(x)
	if k == 1 {
		x[0] = 1
		return nil
	}
	top, j0 := 0.0, 0
	for j := range k {
		if d := m[j*k+j]; d > top {
			top = d
		}
		if m[j*k+j] < m[j0*k+j0] {
			j0 = j
		}
	}
	if !(top > 0) || math.IsInf(top, 0) {
		return fmt.Errorf("M has largest diagonal entry %v, want a positive finite number", top)
	}
	_, e := math.Frexp(top)
	tr := 0.0
	for i, v := range m[:k*k] {
		p.m[i] = math.Ldexp(v, -e)
		if i%(k+1) == 0 {
			tr += p.m[i]
		}
	}
	p.floor = pivotFloor(tr, k)
	tol := 16 * float64(k) * 0x1p-52
	p.set = append(p.set, j0)
	x[j0] = 1
	limit := 100 * (k + 1) // cycles; Wolfe's method needs a few per j
	for cycles := 0; ; cycles++ {
		if cycles > limit {
			return fmt.Errorf("the simplex solver did not finish in %d cycles", limit)
		}
		// Major cycle: the most negative multiplier outside S.
		obj := p.gradient(x)
		enter, best := -1, obj-tol
		for j := range k {
			if x[j] == 0 && !p.refused[j] && !p.inSet(j) && p.mx[j] < best {
				enter, best = j, p.mx[j]
			}
		}
		if enter < 0 {
			break
		}
		p.set = append(p.set, enter)
		// Minor cycles.
		for first := true; ; first = false {
			cycles++
			if err := p.affine(); err != nil {
				return err
			}
			theta, block := 1.0, -1
			for _, j := range p.set {
				if yj := p.y[j]; yj <= 0 {
					r := 0.0 // x_j = 0 (the entering j): no step at all
					if x[j] > 0 {
						r = x[j] / (x[j] - yj)
					}
					if block < 0 || r < theta {
						theta, block = r, j
					}
				}
			}
			if block < 0 { // y > 0 on S: move there
				for _, j := range p.set {
					x[j] = p.y[j]
				}
				clear(p.refused)
				break
			}
			if first && block == enter && theta == 0 {
				// rounding: the multiplier said enter, the affine
				// minimiser disagrees; set it aside
				p.refused[enter] = true
				p.set = p.set[:len(p.set)-1]
				break
			}
			for _, j := range p.set {
				x[j] += theta * (p.y[j] - x[j])
			}
			x[block] = 0
			if theta > 0 {
				clear(p.refused)
			}
			keep := p.set[:0]
			for _, j := range p.set {
				if x[j] > 0 {
					keep = append(keep, j)
				} else {
					x[j] = 0
				}
			}
			p.set = keep
		}
	}
	return p.verify(x)
}

// gradient sets mx = M x and returns x^T M x.
func (p *simplexQP) gradient(x []float64) float64 {
	k := p.k
	obj := 0.0
	for a := range k {
		row := p.m[a*k : a*k+k]
		s := 0.0
		for c, xc := range x[:k] {
			s += row[c] * xc
		}
		p.mx[a] = s
		obj += x[a] * s
	}
	return obj
}

func (p *simplexQP) inSet(j int) bool {
	for _, s := range p.set {
		if s == j {
			return true
		}
	}
	return false
}

// pivotFloor is a lower bound of every Cholesky pivot of a principal
// submatrix of M = A + lambda I, A positive semidefinite and lambda =
// 1e-10 trace(A)/k (addRidge), from M's trace tr: in exact arithmetic
// each pivot (a Schur complement of A_SS + lambda I) is >= lambda, and
// lambda = 1e-10 (tr - k lambda)/k >= 1e-10 tr/k (1 - 1e-10). A pivot that
// rounding leaves at or below 0 (candidates equal to the last bit, e.g.
// every j-step return exact under the exact model) is set to this bound
// instead of failing; a pivot above 0 is never changed.
func pivotFloor(tr float64, k int) float64 {
	return 1e-10 * tr / float64(k) * (1 - 2e-10)
}

// affine sets y to the minimiser of y^T M y over {sum y = 1, y_j = 0 off
// S}: y_S = z / sum z with M_SS z = 1, solved by Cholesky (M_SS = L L^T).
func (p *simplexQP) affine() error {
	k, s := p.k, len(p.set)
	l := p.l
	for a := range s {
		for c := 0; c <= a; c++ {
			v := p.m[p.set[a]*k+p.set[c]]
			for q := range c {
				v -= l[a*k+q] * l[c*k+q]
			}
			if a == c {
				if v <= 0 && p.floor > 0 {
					v = p.floor // rounding: in exact arithmetic the pivot is >= the ridge
				}
				if !(v > 0) {
					return fmt.Errorf("M restricted to %d of its %d rows is not numerically positive definite", s, k)
				}
				l[a*k+a] = math.Sqrt(v)
			} else {
				l[a*k+c] = v / l[c*k+c]
			}
		}
	}
	z := p.z[:s]
	for a := range s { // L u = 1
		v := 1.0
		for q := range a {
			v -= l[a*k+q] * z[q]
		}
		z[a] = v / l[a*k+a]
	}
	for a := s - 1; a >= 0; a-- { // L^T z = u
		v := z[a]
		for q := a + 1; q < s; q++ {
			v -= l[q*k+a] * z[q]
		}
		z[a] = v / l[a*k+a]
	}
	total := 0.0
	for _, v := range z {
		total += v
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return fmt.Errorf("1^T M_SS^-1 1 = %v, want a positive finite number", total)
	}
	clear(p.y)
	for a, j := range p.set {
		p.y[j] = z[a] / total
	}
	return nil
}

// verify checks the KKT conditions of x: x >= 0, sum x = 1, and for every
// j, (M x)_j - x^T M x >= -1e-9, with |(M x)_j - x^T M x| <= 1e-9 where
// x_j > 0 (M scaled to a largest diagonal entry in [1/2, 1)).
func (p *simplexQP) verify(x []float64) error {
	const kktTol = 1e-9
	total := 0.0
	for _, v := range x {
		if !(v >= 0) {
			return errKKT{math.Inf(1)}
		}
		total += v
	}
	if math.Abs(total-1) > 1e-12 {
		return errKKT{math.Abs(total - 1)}
	}
	obj := p.gradient(x)
	worst := 0.0
	for j, v := range x {
		r := p.mx[j] - obj
		if v > 0 {
			r = -math.Abs(r)
		}
		worst = min(worst, r)
	}
	if worst < -kktTol {
		return errKKT{-worst}
	}
	return nil
}
