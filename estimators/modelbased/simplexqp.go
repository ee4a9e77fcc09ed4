package modelbased

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
)

// activeSet is Wolfe's (1976) minimum-norm-point algorithm for x = argmin
// x^T M x over the simplex {x >= 0, sum x = 1}, M symmetric positive
// definite, a primal active-set method (x^T M x is the squared norm of R x
// for M = R^T R, so x weights the points R e_j), with the final KKT check.
// It sees M only through a face: simplexQP gives it M itself, factorQP a
// factor R.
//
// It keeps a working set S of the j with x_j > 0 and x optimal on the face
// of S. A major cycle adds the j outside S with the most negative
// multiplier, (M x)_j - x^T M x < 0 (KKT: 2 M x = mu 1 + nu, nu >= 0,
// nu_j x_j = 0, so mu / 2 = x^T M x and (M x)_j >= x^T M x with equality
// on the support). Minor cycles then move x toward y, the minimiser over
// the affine hull of S (y_S = M_SS^{-1} 1 / 1^T M_SS^{-1} 1), as far as x
// stays >= 0, dropping from S the j that reach 0, until y is strictly
// positive on S. No cycle raises x^T M x and a major one lowers it, so no
// working set recurs and the method ends, in exact arithmetic, at the KKT
// point, which for a positive definite M is the unique minimiser; the
// support found, y is the exact solution of the linear system. Rounding:
// a multiplier counts as negative below a tolerance of the face's
// (entering); an entering j that its own first minor cycle drops again (a
// rounding artefact) is set aside until x next changes. At the end the
// face verifies the KKT conditions; a failure is an error, never a silent
// answer.
type activeSet struct {
	k       int
	mx, y   []float64 // M x (face.gradient) and the affine minimiser (face.affine)
	set     []int     // S
	refused []bool    // entering j dropped again at once
	kkt     errKKT    // the error of the last failed check (failKKT)
}

// face is M as activeSet sees it.
type face interface {
	// gradient sets mx = M x and returns x^T M x.
	gradient(x []float64) float64
	// affine sets y to the minimiser of y^T M y over {sum y = 1, y_j = 0
	// off S}.
	affine() error
	// entering returns the j off S, not refused, whose multiplier (M x)_j
	// - x^T M x (obj) is the most negative below its rounding tolerance,
	// or -1.
	entering(x []float64, obj float64) int
	// verify checks the KKT conditions of x.
	verify(x []float64) error
}

// reset sizes a for k and clears x (len k).
func (a *activeSet) reset(k int, x []float64) {
	a.k = k
	a.mx = scratch.Zero(a.mx, k)
	a.y = scratch.Zero(a.y, k)
	if cap(a.set) < k {
		a.set = make([]int, 0, k)
	}
	a.set = a.set[:0]
	if cap(a.refused) < k {
		a.refused = make([]bool, k)
	}
	a.refused = a.refused[:k]
	clear(a.refused)
	clear(x)
}

// run is the method from the vertex j0 (the j of least M_jj), then the
// KKT check, with f the face of a.
func (a *activeSet) run(f face, x []float64, j0 int) error {
	k := a.k
	a.set = append(a.set, j0)
	x[j0] = 1
	limit := 100 * (k + 1) // cycles; Wolfe's method needs a few per j
	for cycles := 0; ; cycles++ {
		if cycles > limit {
			return fmt.Errorf("the simplex solver did not finish in %d cycles", limit)
		}
		// Major cycle: the most negative multiplier outside S.
		enter := f.entering(x, f.gradient(x))
		if enter < 0 {
			break
		}
		a.set = append(a.set, enter)
		// Minor cycles.
		for first := true; ; first = false {
			cycles++
			if err := f.affine(); err != nil {
				return err
			}
			theta, block := 1.0, -1
			for _, j := range a.set {
				if yj := a.y[j]; yj <= 0 {
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
				for _, j := range a.set {
					x[j] = a.y[j]
				}
				clear(a.refused)
				break
			}
			if first && block == enter && theta == 0 {
				// rounding: the multiplier said enter, the affine
				// minimiser disagrees; set it aside
				a.refused[enter] = true
				a.set = a.set[:len(a.set)-1]
				break
			}
			for _, j := range a.set {
				x[j] += theta * (a.y[j] - x[j])
			}
			x[block] = 0
			if theta > 0 {
				clear(a.refused)
			}
			keep := a.set[:0]
			for _, j := range a.set {
				if x[j] > 0 {
					keep = append(keep, j)
				} else {
					x[j] = 0
				}
			}
			a.set = keep
		}
	}
	return f.verify(x)
}

func (a *activeSet) inSet(j int) bool {
	for _, s := range a.set {
		if s == j {
			return true
		}
	}
	return false
}

// entering: a multiplier counts as negative below -16 k eps (M scaled to
// a largest diagonal entry in [1/2, 1)).
func (p *simplexQP) entering(x []float64, obj float64) int {
	tol := 16 * float64(p.k) * 0x1p-52
	enter, best := -1, obj-tol
	for j := range p.k {
		if x[j] == 0 && !p.refused[j] && !p.inSet(j) && p.mx[j] < best {
			enter, best = j, p.mx[j]
		}
	}
	return enter
}

// kktTol is the tolerance of simplexQP's verify, relative to the largest
// diagonal entry of M.
const kktTol = 1e-9

// verify checks the KKT conditions of x: x >= 0, sum x = 1, and for every
// j, (M x)_j - x^T M x >= -kktTol, with |(M x)_j - x^T M x| <= kktTol
// where x_j > 0 (M scaled to a largest diagonal entry in [1/2, 1)).
//
// For convex x^T M x they bound how far x is from the minimum: f(x) -
// f(x*) <= grad f(x).(x - x*) = 2 (x^T M x - (M x).x*) <= 2 (x^T M x -
// min_j (M x)_j) <= 2 kktTol max M_jj (the Frank-Wolfe gap). On a nearly
// singular M that bound can exceed x^T M x itself, so the check can pass
// points far from the minimiser; factorQP's check scales with x.
func (p *simplexQP) verify(x []float64) error {
	if r := infeasibility(x); r > 1e-12 {
		return p.failKKT(r)
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
		return p.failKKT(-worst)
	}
	return nil
}

// infeasibility returns how far x is from the simplex: +Inf if an entry
// is negative or NaN, else |sum x - 1|, which must be at most 1e-12.
func infeasibility(x []float64) float64 {
	total := 0.0
	for _, v := range x {
		if !(v >= 0) {
			return math.Inf(1)
		}
		total += v
	}
	return math.Abs(total - 1)
}

// failKKT returns a's errKKT with the residual r, without allocating (a
// failed check sends MAGIC to its second path, which is allocation-free
// too): the error is valid until a's next check.
func (a *activeSet) failKKT(r float64) error {
	a.kkt = errKKT{r}
	return &a.kkt
}

// errKKT reports blend weights that fail the final KKT check.
type errKKT struct{ residual float64 }

func (e *errKKT) Error() string {
	return fmt.Sprintf("the simplex solution fails its optimality check (KKT residual %.3g relative to max M_jj): M is too ill-conditioned", e.residual)
}

// simplexQP finds x = argmin x^T M x over the simplex {x >= 0, sum x = 1}
// for a symmetric positive definite M given as a matrix, exactly, by
// activeSet: the affine minimiser by Cholesky (M_SS = L L^T). Rounding:
// M is scaled by a power of two to a largest diagonal entry in [1/2, 1);
// a multiplier counts as negative below -16 k eps; a Cholesky pivot at or
// below 0 is set to the pivot floor (pivotFloor). On a nearly singular M whose rounding made it
// indefinite (MAGIC's Omega when every j-step return is equal to the last
// bits), this path can fail its KKT check; MAGIC then solves again in
// factor form (factorQP).
type simplexQP struct {
	activeSet
	floor float64   // the least pivot of M_SS in exact arithmetic (pivotFloor)
	m     []float64 // scaled M, k x k
	l     []float64 // Cholesky factor of M_SS, stride k
	z     []float64
}

// solve writes the minimiser into x (len k) for m (k x k, row-major).
func (p *simplexQP) solve(m []float64, k int, x []float64) error {
	p.reset(k, x)
	p.m = scratch.Zero(p.m, k*k)
	p.l = scratch.Zero(p.l, k*k)
	p.z = scratch.Zero(p.z, k)
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
	return p.run(p, x, j0)
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
	return p.normalise(z)
}

// normalise sets y_S = z / sum z (z in the order of S).
func (a *activeSet) normalise(z []float64) error {
	total := 0.0
	for _, v := range z {
		total += v
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return fmt.Errorf("1^T M_SS^-1 1 = %v, want a positive finite number", total)
	}
	clear(a.y)
	for i, j := range a.set {
		a.y[j] = z[i] / total
	}
	return nil
}
