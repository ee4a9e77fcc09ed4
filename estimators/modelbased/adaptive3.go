package modelbased

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/scratch"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Candidates of adaptive's version 3, in the order of its diagnostic
// adaptive_x (docs/adaptive.md, version 3).
const (
	cand3CWPDIS = iota // c0 = g(0) = CWPDIS
	cand3WDR           // c1 = g(1) = WDR with the cross-fitted model
	cand3Beta          // c2 = g(beta_hat)
	cand3WIS           // c3 = WIS
	cand3DR            // c4 = DR with the cross-fitted model: the anchor of revision 1, not blended
	cands3
)

// adaptive3 is the workspace of adaptive's version 3 (docs/adaptive.md):
// the blend of CWPDIS, WDR with drl's cross-fitted model, the REG point
// g(beta_hat) between them, and WIS, their biases measured against DR
// with the cross-fitted model, the unbiased anchor of revision 1 (never
// blended itself: its plug-in variance understates its heavy tail).
type adaptive3 struct {
	cf    models.CrossFit // drl's: the series' learned kind (`fitted` by default) on each fold, read on the other
	nrm   normalised      // S_t, exact (per-step binary scales when needed)
	wb    []float64       // W_{t,i} / S_t of one trajectory, t = 1..H at t-1
	rbar  []float64       // per step: sum_i W_{t,i} r_{t,i} / S_t
	dbar  []float64       // per step: sum_i W_{t,i} (q_{t,i} - v_{t+1,i}) / S_t
	c     [cands3]float64
	com   [cands3 * cands3]float64 // sum_i phi_a phi_c, then Omega
	dif   [cands3]float64          // sum_i (phi_a - phi_anchor)^2
	m     [cands3 * cands3]float64 // M
	bias  [cands3]float64
	beta  float64
	meanC float64
	// u holds each trajectory's DR term u_i (revision 1); anchor is the
	// index of the anchor candidate: cand3DR, or cand3CWPDIS when some
	// u_i is not a float64 (weights beyond the float64 range).
	u      []float64
	anchor int
}

// applies3 reports whether version 3 runs on b: primitive data (every
// step's factor is its action ratio) with an observation and an action
// id and pi_e at every step, and n >= 4. Negative ids are an error.
func applies3(b *trajectory.Batch) (bool, error) {
	steps := b.Steps()
	if b.N() < 4 || steps == 0 || len(b.Obs) != steps || len(b.Action) != steps || len(b.PiE) != steps {
		return false, nil
	}
	if len(b.OptionRatio) != steps || len(b.Changed) != steps {
		return false, nil
	}
	for s, r := range b.Ratio {
		if b.Changed[s] || b.OptionRatio[s] != r {
			return false, nil
		}
	}
	for s := range steps {
		if b.Obs[s] < 0 || b.Action[s] < 0 {
			return false, fmt.Errorf("adaptive: step %d: negative id (observation %d, action %d)", s, b.Obs[s], b.Action[s])
		}
	}
	return true, nil
}

// estimate3 is version 3 on b (applies3 holds).
func (e *AdaptiveBlend) estimate3(b *trajectory.Batch) (float64, error) {
	a := &e.v3
	b = e.view.Of(b)
	n, h := b.N(), b.Horizon()
	nf := float64(n)

	// c0 and c3, exactly as the estimators cwpdis and wis.
	e.s.Accumulate(b, false)
	anchor := e.s.CWPDIS()
	a.c[cand3CWPDIS], a.c[cand3WIS] = anchor, e.s.WIS()
	if !finiteValue(anchor) || !finiteValue(a.c[cand3WIS]) {
		return 0, fmt.Errorf("adaptive: cwpdis or wis %w", estimators.ErrNotRepresentable)
	}

	// the cross-fitted model and the normalisers
	if _, err := a.cf.Fit(b); err != nil {
		return 0, fmt.Errorf("adaptive: %w", err)
	}
	a.nrm.normalisers(b)
	a.wb = scratch.Zero(a.wb, h)
	a.rbar = scratch.Zero(a.rbar, h)
	a.dbar = scratch.Zero(a.dbar, h)
	a.u = scratch.Zero(a.u, n)

	// Pass 1: Y_i, C_i (their moments), v_1, and the per-step sums.
	var mom regMoments
	sumV1 := 0.0
	sumU, drOK := 0.0, true
	for i := range n {
		y, c, v1 := a.pass1(b, i)
		mom.add(y, c)
		sumV1 += v1
		u := a.drTerm(b, i)
		a.u[i] = u
		sumU += u
		drOK = drOK && finiteValue(u)
	}
	a.anchor, a.c[cand3DR] = cand3CWPDIS, 0
	if drOK && finiteValue(sumU) {
		a.anchor, a.c[cand3DR] = cand3DR, sumU/nf
	}
	if !mom.finite() || !finiteValue(sumV1) {
		return 0, fmt.Errorf("adaptive: the control variate's terms %w", estimators.ErrNotRepresentable)
	}
	for t := range h {
		if !finiteValue(a.rbar[t]) || !finiteValue(a.dbar[t]) {
			return 0, fmt.Errorf("adaptive: the step-%d means %w", t+1, estimators.ErrNotRepresentable)
		}
	}
	beta := 0.0
	if mom.cCC > 0 && finiteValue(mom.cCC) {
		beta = mom.cYC / mom.cCC
		if !finiteValue(beta) {
			beta = 0
		}
		beta = min(max(beta, 0), 1)
	}
	a.beta = beta
	a.meanC = mom.sumC / nf
	a.c[cand3WDR] = anchor - a.meanC
	a.c[cand3Beta] = anchor - beta*a.meanC
	vbar1 := sumV1 / nf

	// Pass 2: the influence terms and their co-moments.
	clear(a.com[:])
	clear(a.dif[:])
	for i := range n {
		p, q, w := a.pass2(b, i, vbar1, a.c[cand3WIS])
		du := 0.0
		if a.anchor == cand3DR {
			du = a.u[i] - a.c[cand3DR] // DR is a plain mean: its own influence term
		}
		phi := [cands3]float64{p, p + q, p + beta*q, w, du}
		for x := range cands3 {
			for y := x; y < cands3; y++ {
				a.com[x*cands3+y] += phi[x] * phi[y]
			}
		}
		for x := range cands3 {
			d := phi[x] - phi[a.anchor]
			a.dif[x] += d * d
		}
	}
	inv := 1 / nf
	for x := range cands3 {
		for y := x; y < cands3; y++ {
			v := a.com[x*cands3+y] * inv * inv
			a.com[x*cands3+y], a.com[y*cands3+x] = v, v
		}
	}
	return e.blend3(n)
}

// pass1 returns Y_i, C_i and v_{1,i} of trajectory i and adds its terms to
// rbar and dbar (a.wb is set to its normalised weights).
func (a *adaptive3) pass1(b *trajectory.Batch, i int) (y, c, v1 float64) {
	a.fillWeights(b, i)
	lo, hi := b.Offsets[i], b.Offsets[i+1]
	if hi == lo {
		return 0, 0, 0
	}
	qc, vc, fs := a.cf.Columns(lo)
	l := hi - lo
	rew := b.Reward[lo:hi]
	qs, vs := qc[fs:fs+l], vc[fs:fs+l]
	pow := a.cf.Pow()[:l+1]
	wb := a.wb[:l]
	rbar, dbar := a.rbar[:l], a.dbar[:l]
	nf := float64(b.N())
	v1 = vs[0] // pow[0] = 1
	prev := 1.0
	for t, r := range rew {
		w := wb[t]
		wt := nf * w
		qt, vt := pow[t]*qs[t], pow[t]*vs[t]
		next := 0.0
		if t+1 < l {
			next = pow[t+1] * vs[t+1]
		}
		y += wt * r
		c += wt*qt - prev*vt
		prev = wt
		rbar[t] += w * r
		dbar[t] += w * (qt - next)
	}
	return y, c, v1
}

// drTerm returns trajectory i's term of DR with the cross-fitted model,
// u_i = sum_t W_{t,i} (r_{t,i} - q_{t,i}) + W_{t-1,i} v_{t,i} (q, v
// discounted to the start as in pass1; W unnormalised, W_0 = 1): the
// anchor of revision 1, whose mean is unbiased for V(pi_e) whatever the
// model, as the model of a trajectory is fitted on the other fold. Not
// finite when a weight leaves the float64 range.
func (a *adaptive3) drTerm(b *trajectory.Batch, i int) float64 {
	lo, hi := b.Offsets[i], b.Offsets[i+1]
	if hi == lo {
		return 0
	}
	qc, vc, fs := a.cf.Columns(lo)
	l := hi - lo
	rew, rho := b.Reward[lo:hi], b.Ratio[lo:hi]
	qs, vs := qc[fs:fs+l], vc[fs:fs+l]
	pow := a.cf.Pow()[:l+1]
	u, prev := 0.0, 1.0
	for t, r := range rew {
		w := prev * rho[t]
		u += w*(r-pow[t]*qs[t]) + prev*pow[t]*vs[t]
		prev = w
	}
	return u
}

// pass2 returns trajectory i's influence terms: P_i = phi_i(0) (the
// anchor's), Q_i (phi_i(beta) = P_i + beta Q_i) and WIS's.
func (a *adaptive3) pass2(b *trajectory.Batch, i int, vbar1, wis float64) (p, q, w float64) {
	a.fillWeights(b, i)
	lo, hi := b.Offsets[i], b.Offsets[i+1]
	l := hi - lo
	nf := float64(b.N())
	h := len(a.wb)
	g := 0.0
	q = -vbar1
	if l > 0 {
		qc, vc, fs := a.cf.Columns(lo)
		rew := b.Reward[lo:hi]
		qs, vs := qc[fs:fs+l], vc[fs:fs+l]
		pow := a.cf.Pow()[:l+1]
		wb := a.wb[:l]
		rbar, dbar := a.rbar[:l], a.dbar[:l]
		q += vs[0]
		for t, r := range rew {
			wt := nf * wb[t]
			qt := pow[t] * qs[t]
			next := 0.0
			if t+1 < l {
				next = pow[t+1] * vs[t+1]
			}
			p += wt * (r - rbar[t])
			q -= wt * ((qt - next) - dbar[t])
			g += r
		}
	}
	// padding: r = d = 0, the weight frozen
	for t := l; t < h; t++ {
		wt := nf * a.wb[t]
		p -= wt * a.rbar[t]
		q += wt * a.dbar[t]
	}
	if h > 0 { // n W_{H,i} (G_i - WIS) / S_H
		w = nf * a.wb[h-1] * (g - wis)
	}
	return p, q, w
}

// fillWeights sets a.wb to trajectory i's W_{t,i} / S_t, t = 1..H (the
// weight frozen after the trajectory's end; 0 where S_t = 0), from the
// normalisers, as WDR computes them.
func (a *adaptive3) fillWeights(b *trajectory.Batch, i int) {
	lo, hi := b.Offsets[i], b.Offsets[i+1]
	rho := b.Ratio[lo:hi]
	den := a.nrm.den
	wb := a.wb
	if !a.nrm.scaled {
		w := 1.0
		for t := range wb {
			if t < len(rho) {
				w *= rho[t]
			}
			wb[t] = weights.Ratio(w, den[t+1])
		}
		return
	}
	w := weights.Scaled{M: 1}
	for t := range wb {
		if t < len(rho) {
			w.Mul(rho[t])
		}
		v := 0.0
		if d := den[t+1]; d != 0 {
			v = math.Ldexp(w.M/d, w.E-a.nrm.exp[t+1])
		}
		wb[t] = v
	}
}

// blend3 computes b, M and x from the candidates and Omega and returns
// sum_a x_a c_a (docs/adaptive.md, version 3).
func (e *AdaptiveBlend) blend3(n int) (float64, error) {
	a := &e.v3
	const k = cands3 - 1 // DR, the last candidate, is the anchor only: never blended
	nf := float64(n)
	c0 := a.c[a.anchor]
	for x := range k {
		if x == a.anchor {
			a.bias[x] = 0
			continue
		}
		s := math.Sqrt(a.dif[x]) / nf
		a.bias[x] = max(0, math.Abs(a.c[x]-c0)-magicZ*s)
	}
	for x := range k {
		for y := range k {
			a.m[x*k+y] = a.com[x*cands3+y] + a.bias[x]*a.bias[y]
		}
	}
	trace := addRidge(a.m[:k*k], k)
	for _, v := range a.m[:k*k] {
		if !finiteValue(v) {
			return 0, fmt.Errorf("adaptive: the covariance of the candidates %w", estimators.ErrNotRepresentable)
		}
	}
	if math.IsInf(trace, 0) {
		return 0, fmt.Errorf("adaptive: the trace of Omega + b b^T %w", estimators.ErrNotRepresentable)
	}
	e.x = scratch.Zero(e.x, k)
	if err := e.qp.solve(a.m[:k*k], k, e.x); err != nil {
		e.x = e.x[:0]
		return 0, fmt.Errorf("adaptive: blend weights: %w", err)
	}
	v := 0.0
	for x, xa := range e.x {
		if xa != 0 {
			v += xa * a.c[x]
		}
	}
	return estimators.Finite("adaptive", v)
}

// adaptive3Bytes bounds version 3's workspace on data of shape s (with
// ids): drl's cross-fitting of the fitted model (models.CrossFitBytes:
// about 56 bytes a step, 46 measured with folds of equal steps), the
// normalisers and per-step sums, and the per-trajectory DR terms.
func adaptive3Bytes(s estimators.Shape) float64 {
	return models.CrossFitBytes(s.Model, s.N, s.Steps, s.H, s.Obs, s.Actions) + 8*s.N + 56*(s.H+1) + 1<<10
}

// adaptive3BytesDoc is adaptive3Bytes's formula, for help texts.
const adaptive3BytesDoc = "models.CrossFitBytes (the cross-fitted model: compact ids, both folds, the fitted model's bound over the compact space) + 8 n (per-trajectory DR terms) + 56 (H+1) (normalisers, per-step sums) + 1 KiB"
