package window

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// INCRISSN is INCRIS's per-step window choice made on self-normalised
// window estimates (beyond the paper, issue 31; docs/incris-sn.md section
// 1). At step t, for each k = 0..t, with X_k = B_k r_t and A_k, B_k as in
// SPEC 1:
//
//	m_k   = sum_i X^i_k / sum_i B^i_k                  (the window estimate)
//	C_k   = sample covariance of (A_k, X_k), denominator n-1  (its bias, as INCRIS)
//	V_k   = sum_i (X^i_k - m_k B^i_k)^2 / (sum_i B^i_k)^2     (delta-method variance)
//
// k* = argmin_k C_k^2 + V_k over the windows whose normaliser sum_i B^i_k
// is nonzero (ties to the larger k), and the estimate is sum_t m_{k*}.
// Padding is literal: an ended trajectory enters every sum with reward 0
// and ratios 1.
//
// The sums are two-pass: the first pass adds sum B_k, sum X_k per (t, k)
// cell and sum W_j per j; the second, from the means, the centred sums
// sum (A - mean A)(X - mean X) and sum (X - m B)^2, so that neither C_k
// nor V_k cancels raw sums. Each pass adds blocks of four trajectories to
// a row of cells: four independent product chains, and each cell adds the
// four terms pairwise (the inner loops are bound by their additions).
type INCRISSN struct {
	view  weights.View
	h     int
	cells []snCell
	// ma[j], j = 0..h: sum_i W^i_j during the first pass, then its mean
	ma []float64
	// per trajectory of a block of four, padded to h: its factors (1 after
	// its end), rewards (0 after its end) and prefix products W_j (on the
	// second pass, W_j - mean W_j)
	rho, rew, w [4][]float64
	kstar       []int
}

// snCell holds one (t, k) cell's sums: the first pass adds sb and sx; in
// between, sx becomes mean X and m the window estimate; the second pass
// adds c and q.
type snCell struct{ sb, sx, m, c, q float64 }

// snRow returns the index of row s's first cell: row s (step t = s+1)
// holds the cells j = t-k = 0..t, s+2 cells.
func snRow(s int) int { return s * (s + 3) / 2 }

// NewINCRISSN returns an incris-sn estimator.
func NewINCRISSN() *INCRISSN { return &INCRISSN{} }

// Name returns "incris-sn".
func (e *INCRISSN) Name() string { return "incris-sn" }

// KStar returns, for each step t (index t-1), the k* of the last Estimate
// call. The slice is reused by the next call.
func (e *INCRISSN) KStar() []int { return e.kstar }

// AppendDiagnostic implements Reporter: diagnostic 0 is k* (KStar).
func (e *INCRISSN) AppendDiagnostic(dst []float64, d int) []float64 {
	for _, k := range e.kstar {
		dst = append(dst, float64(k))
	}
	return dst
}

// Estimate returns the incris-sn estimate from b. It needs n >= 2.
func (e *INCRISSN) Estimate(b *trajectory.Batch) (float64, error) {
	b = e.view.Of(b)
	n, h := b.N(), b.Horizon()
	if n < 2 {
		return 0, fmt.Errorf("%s: %w: n = %d, needs n >= 2 for sample covariances", e.Name(), estimators.ErrTooFew, n)
	}
	e.reset(h)
	if err := e.pass(b, true); err != nil {
		return 0, err
	}
	e.means(n)
	if err := e.pass(b, false); err != nil {
		return 0, err
	}
	return e.combine(n)
}

// reset sizes the workspace for horizon h and empties its sums.
func (e *INCRISSN) reset(h int) {
	e.h = h
	e.cells = scratch.Zero(e.cells, snRow(h))
	e.ma = scratch.Zero(e.ma, h+1)
	for q := range e.rho {
		e.rho[q] = scratch.Grow(e.rho[q], h)
		e.rew[q] = scratch.Grow(e.rew[q], h)
		e.w[q] = scratch.Grow(e.w[q], h+1)
	}
	e.kstar = scratch.Grow(e.kstar, h)
}

// pass adds every trajectory's terms to the first pass's sums (first) or
// the second's, in blocks of four.
func (e *INCRISSN) pass(b *trajectory.Batch, first bool) error {
	n := b.N()
	for i := 0; i < n; i += 4 {
		m := min(4, n-i)
		for q := range m {
			if err := e.load(b, i+q, q, first); err != nil {
				return err
			}
		}
		for s := range e.h {
			row := e.cells[snRow(s) : snRow(s)+s+2]
			switch {
			case m == 4 && first:
				e.sums4(row, s)
			case m == 4:
				e.centred4(row, s)
			default:
				for q := range m {
					if first {
						e.sums1(row, s, q)
					} else {
						e.centred1(row, s, q)
					}
				}
			}
		}
	}
	return nil
}

// load pads trajectory i into block slot q (factors 1 and rewards 0 after
// its end) and computes its prefix products W_j: on the first pass it adds
// them to ma, on the second it centres them (W_j - mean W_j). It fails
// when some window product (W_j among them) could leave the normal
// float64 range (inRange), so that the passes need no range test.
func (e *INCRISSN) load(b *trajectory.Batch, i, q int, first bool) error {
	lo, hi := b.Offsets[i], b.Offsets[i+1]
	rho, rew, w := e.rho[q], e.rew[q], e.w[q]
	copy(rho, b.Ratio[lo:hi])
	copy(rew, b.Reward[lo:hi])
	for s := hi - lo; s < e.h; s++ {
		rho[s], rew[s] = 1, 0
	}
	if !inRange(rho) {
		return fmt.Errorf("%s: a product of importance ratios leaves the normal float64 range, so the window sums are %w", e.Name(), estimators.ErrNotRepresentable)
	}
	w[0] = 1
	for s, f := range rho {
		w[s+1] = w[s] * f
	}
	if first {
		for j, v := range w {
			e.ma[j] += v
		}
		return nil
	}
	for j, v := range e.ma[:len(w)] { // the second pass needs A - mean A
		w[j] -= v
	}
	return nil
}

// inRange reports whether every product of consecutive nonzero factors of
// rho lies within [2^-1021, 2^1021], normal, whatever its rounding. With
// the prefix products of the nonzero factors P_j = f_j 2^(x_j), f_j in
// [0.5, 1) (exact exponents, math.Frexp), a window's product is
// P_t / P_j in (2^(x_t - x_j - 1), 2^(x_t - x_j + 1)): it suffices that
// |x_t - x_j| <= 1020 for every j < t, checked against the running
// extremes of x. A window holding a zero factor has product 0; it is
// tested as if the zero were not there (conservative).
func inRange(rho []float64) bool {
	fr, ex := 0.5, 1 // P_0 = 1 = 0.5 x 2^1
	lo, hi := ex, ex
	for _, f := range rho {
		if f == 0 {
			continue
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return false
		}
		ff, fe := math.Frexp(f)
		m, e2 := math.Frexp(fr * ff)
		fr, ex = m, ex+fe+e2
		if ex-lo > 1020 || hi-ex > 1020 {
			return false
		}
		lo, hi = min(lo, ex), max(hi, ex)
	}
	return true
}

// The passes' rows hold, for step t = s+1, the cells j = t-k = 0..t (the
// number of dropped ratios): cell j's window keeps the factors j..s
// (0-based), B = rho[j] ... rho[s], and drops A = W_j; cell s+1 is k = 0.

// sums1 adds slot q's B_k and X_k = B_k r_t, k = 0..t, to row s.
func (e *INCRISSN) sums1(row []snCell, s, q int) {
	rho, r := e.rho[q][:s+1], e.rew[q][s]
	row = row[:s+2]
	bk := 1.0
	row[s+1].sb += bk
	row[s+1].sx += r
	for j := s; j >= 0; j-- {
		bk *= rho[j]
		c := &row[j]
		c.sb += bk
		c.sx += float64(bk * r)
	}
}

// sums4 is sums1 for the four slots, each cell taking their terms in slot
// order (the bits of four sums1 calls).
func (e *INCRISSN) sums4(row []snCell, s int) {
	p0, p1, p2, p3 := e.rho[0][:s+1], e.rho[1][:s+1], e.rho[2][:s+1], e.rho[3][:s+1]
	r0, r1, r2, r3 := e.rew[0][s], e.rew[1][s], e.rew[2][s], e.rew[3][s]
	row = row[:s+2]
	b0, b1, b2, b3 := 1.0, 1.0, 1.0, 1.0
	c := &row[s+1]
	c.sb += 4
	c.sx += r0 + r1 + (r2 + r3)
	for j := s; j >= 0; j-- {
		b0, b1, b2, b3 = b0*p0[j], b1*p1[j], b2*p2[j], b3*p3[j]
		c := &row[j]
		c.sb += b0 + b1 + (b2 + b3)
		c.sx += float64(b0*r0) + float64(b1*r1) + (float64(b2*r2) + float64(b3*r3))
	}
}

// means turns the first pass's sums over n trajectories into means: ma,
// each cell's mean X (in sx) and window estimate m (0/0 := 0).
func (e *INCRISSN) means(n int) {
	nf := float64(n)
	for j := range e.ma {
		e.ma[j] /= nf
	}
	for i := range e.cells {
		c := &e.cells[i]
		c.m = weights.Ratio(c.sx, c.sb)
		c.sx /= nf
	}
}

// centred1 adds slot q's (A_k - mean A)(X_k - mean X_k) and
// (X_k - m_k B_k)^2, k = 0..t, to row s (A_k = W_j).
func (e *INCRISSN) centred1(row []snCell, s, q int) {
	rho, r, w := e.rho[q][:s+1], e.rew[q][s], e.w[q][:s+2]
	row = row[:s+2]
	add := func(c *snCell, bk, a float64) {
		x := float64(bk * r)
		d := x - float64(c.m*bk)
		c.c += float64(a * (x - c.sx))
		c.q += float64(d * d)
	}
	bk := 1.0
	add(&row[s+1], bk, w[s+1])
	for j := s; j >= 0; j-- {
		bk *= rho[j]
		add(&row[j], bk, w[j])
	}
}

// centred4 is centred1 for the four slots, each cell taking their terms
// in slot order.
func (e *INCRISSN) centred4(row []snCell, s int) {
	p0, p1, p2, p3 := e.rho[0][:s+1], e.rho[1][:s+1], e.rho[2][:s+1], e.rho[3][:s+1]
	w0, w1, w2, w3 := e.w[0][:s+2], e.w[1][:s+2], e.w[2][:s+2], e.w[3][:s+2]
	r0, r1, r2, r3 := e.rew[0][s], e.rew[1][s], e.rew[2][s], e.rew[3][s]
	row = row[:s+2]
	b0, b1, b2, b3 := 1.0, 1.0, 1.0, 1.0
	for j := s + 1; j >= 0; j-- {
		if j <= s { // j = s+1 is k = 0: B = 1
			b0, b1, b2, b3 = b0*p0[j], b1*p1[j], b2*p2[j], b3*p3[j]
		}
		c := &row[j]
		mx, m := c.sx, c.m
		x0, x1, x2, x3 := float64(b0*r0), float64(b1*r1), float64(b2*r2), float64(b3*r3)
		d0, d1, d2, d3 := x0-float64(m*b0), x1-float64(m*b1), x2-float64(m*b2), x3-float64(m*b3)
		c.c += float64(w0[j]*(x0-mx)) + float64(w1[j]*(x1-mx)) + (float64(w2[j]*(x2-mx)) + float64(w3[j]*(x3-mx)))
		c.q += float64(d0*d0) + float64(d1*d1) + (float64(d2*d2) + float64(d3*d3))
	}
}

// combine picks k* per step among the windows with a nonzero normaliser
// (k = 0..k_max: a zero ratio stays in every wider window; cell
// j = t-k) and returns sum_t m_{k*}.
func (e *INCRISSN) combine(n int) (float64, error) {
	nf := float64(n)
	total := 0.0
	for s := range e.h {
		row := e.cells[snRow(s) : snRow(s)+s+2]
		jmin := s + 1 // k = 0: sb = n
		for jmin > 0 && row[jmin-1].sb != 0 {
			jmin--
		}
		best, jb := math.Inf(1), jmin
		for j := jmin; j < len(row); j++ { // k from k_max down: ties to the larger k
			c := &row[j]
			cov := c.c / (nf - 1)
			mse := cov*cov + c.q/c.sb/c.sb
			if math.IsNaN(mse) || math.IsInf(mse, 0) {
				return 0, fmt.Errorf("%s: step %d, k = %d: estimated MSE %w", e.Name(), s+1, s+1-j, estimators.ErrNotRepresentable)
			}
			if mse < best {
				best, jb = mse, j
			}
		}
		e.kstar[s] = s + 1 - jb
		total += row[jb].m
	}
	return estimators.Finite(e.Name(), total)
}
