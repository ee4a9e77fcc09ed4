package modelbased

import (
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// REG is doubly robust estimation with a variance-optimal control variate
// (key "reg"; issue 24 item 2): the scalar REG idea of Kallus & Uehara
// (2019), MRDR of Farajtabar, Chow & Ghavamzadeh (2018). For trajectory i
// with steps t = 1..H_i, PDIS weights w_t = prod_{s<=t} rho_s, w_0 = 1, and
// the model columns q_t = q_hat(o_t, a_t), v_t = v_hat(o_t) that dr reads
// (SPEC 1d),
//
//	Y_i = sum_t gamma^(t-1) w_t r_t                      (PDIS's per-trajectory term)
//	C_i = sum_t gamma^(t-1) (w_t q_t - w_{t-1} v_t)      (DR's control variate: dr's estimate is mean(Y - C))
//	beta = Cov_n(Y, C) / Var_n(C) (denominators n; beta := 0 when Var_n(C) = 0 or is not finite)
//	estimate = mean(Y) - beta mean(C).
//
// So beta = 0 is PDIS, beta = 1 is DR, and beta minimises the sample
// variance of Y - beta C, the per-trajectory influence terms. The weights
// are the batch's per-step factors (as dr's), and the rewards and model
// columns are taken as already discounted (trajectory.Discounted, SPEC
// 1c): gamma^(t-1) is on r, q_hat and v_hat, exactly as in dr, whose
// per-trajectory term is Y_i - C_i. Padded steps add nothing. beta is
// reported as the diagnostic "reg_beta".
//
// One pass, O(n H): Y_i and C_i of each trajectory update running means
// and co-moments (Welford's update); the estimate's means are the sums
// over n. Weights that leave the normal float64 range, or terms or
// co-moments that overflow, send it to a scaled computation: Y and C are
// computed with every weight scaled by 2^-E (E the largest binary exponent
// of a weight that multiplies a nonzero r, q_hat or v_hat), then scaled
// again by 2^-F (F the largest binary exponent of the scaled Y_i and C_i);
// beta does not change under a common scale of Y and C, and the mean is
// scaled back by Ldexp. An estimate that does not fit in a float64 is an
// error wrapping estimators.ErrNotRepresentable. A warm REG allocates nothing (its
// only workspace is the view of the factors, materialised on options data
// with changed options).
type REG struct {
	view weights.View
	beta float64
	ok   bool // the last Estimate succeeded: beta is its coefficient
}

// NewREG returns a REG estimator.
func NewREG() *REG { return &REG{} }

// Name returns "reg".
func (*REG) Name() string { return "reg" }

// Beta returns beta, the coefficient of the control variate, of the last
// Estimate call (0 if it failed).
func (e *REG) Beta() float64 { return e.beta }

// AppendDiagnostic implements Reporter: diagnostic 0 is beta (Beta), a
// vector of one value (none if the last Estimate failed).
func (e *REG) AppendDiagnostic(dst []float64, d int) []float64 {
	if !e.ok {
		return dst
	}
	return append(dst, e.beta)
}

// Estimate returns the REG estimate from b, which must carry the model
// columns (ErrNoModel otherwise).
func (e *REG) Estimate(b *trajectory.Batch) (float64, error) {
	e.beta, e.ok = 0, false
	if err := checkModel("reg", b, 1); err != nil {
		return 0, err
	}
	b = e.view.Of(b)
	var m regMoments
	scale := 0
	if !regFast(b, &m) {
		var err error
		if scale, err = regScaled(b, &m); err != nil {
			return 0, err
		}
	}
	beta, v := m.estimate()
	v, err := estimators.Finite("reg", math.Ldexp(v, scale))
	if err != nil {
		return 0, err
	}
	e.beta, e.ok = beta, true
	return v, nil
}

// regMoments accumulates the sums, running means and co-moments of the
// pairs (Y_i, C_i), one trajectory at a time (Welford's update).
type regMoments struct {
	n          float64
	sumY, sumC float64
	meanY      float64
	meanC      float64
	cYC, cCC   float64 // sum (Y - mean Y)(C - mean C), sum (C - mean C)^2
}

// add adds one trajectory's pair.
func (m *regMoments) add(y, c float64) {
	m.n++
	m.sumY += y
	m.sumC += c
	dy, dc := y-m.meanY, c-m.meanC
	m.meanY += dy / m.n
	m.meanC += dc / m.n
	dc2 := c - m.meanC
	m.cYC += dy * dc2
	m.cCC += dc * dc2
}

// finite reports whether every accumulated number is finite.
func (m *regMoments) finite() bool {
	return finiteValue(m.sumY) && finiteValue(m.sumC) && finiteValue(m.meanY) && finiteValue(m.meanC) &&
		finiteValue(m.cYC) && finiteValue(m.cCC)
}

// estimate returns beta = Cov_n(Y, C) / Var_n(C) (the n's cancel; beta :=
// 0 when Var_n(C) is 0 or not finite) and mean(Y) - beta mean(C).
func (m *regMoments) estimate() (beta, v float64) {
	if m.n == 0 {
		return 0, 0
	}
	if m.cCC > 0 && finiteValue(m.cCC) {
		beta = m.cYC / m.cCC
	}
	v = m.sumY / m.n
	if beta != 0 {
		v -= beta * (m.sumC / m.n)
	}
	return beta, v
}

// regFast fills m with plain weight products, or returns false as soon as
// a weight leaves the normal float64 range or a sum overflows.
func regFast(b *trajectory.Batch, m *regMoments) bool {
	for i := range b.N() {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		rho := b.Ratio[lo:hi]
		rew, q, v := b.Reward[lo:hi], b.QHat[lo:hi], b.VHat[lo:hi]
		rew, q, v = rew[:len(rho)], q[:len(rho)], v[:len(rho)]
		w, y, c := 1.0, 0.0, 0.0
		for t, f := range rho {
			prev := w
			w *= f
			if weights.LeftNormal(w, f, prev) {
				return false
			}
			y += w * rew[t]
			c += w*q[t] - prev*v[t]
		}
		m.add(y, c)
	}
	return m.finite()
}

// regScaled fills m (reset first) with Y_i and C_i scaled by 2^-(E+F), as
// REG's doc comment describes, and returns E+F. No term at all (every
// weight that meets a nonzero r, q_hat or v_hat is zero) leaves every
// Y_i = C_i = 0.
func regScaled(b *trajectory.Batch, m *regMoments) (int, error) {
	*m = regMoments{}
	top := weights.MinExp
	for i := range b.N() {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		w := weights.Scaled{M: 1}
		for s := lo; s < hi; s++ {
			prev := w
			w.Mul(b.Ratio[s])
			if w.M != 0 && (b.Reward[s] != 0 || b.QHat[s] != 0) {
				top = max(top, w.E)
			}
			if prev.M != 0 && b.VHat[s] != 0 {
				top = max(top, prev.E)
			}
		}
	}
	if top == weights.MinExp {
		for range b.N() {
			m.add(0, 0)
		}
		return 0, nil
	}
	f := weights.MinExp
	for i := range b.N() {
		y, c := regTermScaled(b, i, top)
		if !finiteValue(y) || !finiteValue(c) {
			return 0, termError("reg", i)
		}
		if y != 0 {
			_, e := math.Frexp(y)
			f = max(f, e)
		}
		if c != 0 {
			_, e := math.Frexp(c)
			f = max(f, e)
		}
	}
	if f == weights.MinExp {
		f = 0 // every scaled term cancelled to 0
	}
	for i := range b.N() {
		y, c := regTermScaled(b, i, top)
		m.add(math.Ldexp(y, -f), math.Ldexp(c, -f))
	}
	return top + f, nil
}

// regTermScaled returns Y_i and C_i of trajectory i of b with every
// weight scaled by 2^-top.
func regTermScaled(b *trajectory.Batch, i, top int) (y, c float64) {
	lo, hi := b.Offsets[i], b.Offsets[i+1]
	w := weights.Scaled{M: 1}
	for s := lo; s < hi; s++ {
		prev := w
		w.Mul(b.Ratio[s])
		if r := b.Reward[s]; r != 0 { // no term (and no 0 * Inf)
			y += w.At(top) * r
		}
		if q := b.QHat[s]; q != 0 {
			c += w.At(top) * q
		}
		if v := b.VHat[s]; v != 0 {
			c -= prev.At(top) * v
		}
	}
	return y, c
}

// regBeta is reg's diagnostic: the coefficient of its control variate.
var regBeta = estimators.Diagnostic{Name: "reg_beta", Index: "position", IndexLabel: "position (one value: beta)",
	Label: "mean beta",
	Doc:   "beta = Cov_n(Y, C) / Var_n(C), the coefficient reg gives dr's control variate C (0: pdis, 1: dr); a vector of one value"}
