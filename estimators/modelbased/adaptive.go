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

// AdaptiveBlend is `adaptive` (docs/adaptive.md, beside SPEC 1b): MAGIC's
// blend (SPEC 1d) anchored on CWPDIS, in two versions.
//
// Version 3 (adaptive3.go) runs on primitive data with observation and
// action ids and pi_e at every step (what drl reads) and n >= 4: its
// candidates are CWPDIS, WDR with drl's cross-fitted model, the point
// g(beta_hat) between them with REG's clipped coefficient, and WIS, and a
// candidate's bias term is its distance from CWPDIS beyond z paired
// standard errors.
//
// Version 2, on any other data (bit for bit as before version 3), is
// MAGIC's blend applied to importance sampling alone. Its candidates are
// the windowed per-decision self-normalised estimates
//
//	g_j = sum_t [ sum_i B^i_{t,j} r^i_t / sum_i B^i_{t,j} ]   (0/0 := 0),
//	B^i_{t,j} = prod_{s = max(1, t-j+1)}^{t} f^i_s           (the last j factors),
//
// for j in J = {2^m : 2^m < H} united with {H} (g_H is CWPDIS, the
// consistent anchor), and WIS when H >= 2. With phi^i_a the influence
// terms of candidate a (for a window: sum_t n B^i_{t,j} (r^i_t - rhat_{t,j})
// / sum_k B^k_{t,j}; for WIS: n W^i_H (G^i - WIS) / sum_k W^k_H) and
// Omega = (1/n^2) sum_i phi^i (phi^i)^T, the estimate is
//
//	adaptive = sum_a x_a g_a,  x = argmin { x^T M x : x >= 0, sum_a x_a = 1 },
//	M = Omega + b b^T + lambda I,
//
// b_a = |g_a - g_H| the candidate's distance from the anchor (not from the
// anchor's interval, as MAGIC: docs/adaptive.md, revision) and lambda SPEC
// 1d's ridge.
// Padding is literal (r = 0, f = 1 after a trajectory ends; every sum runs
// over all n trajectories); f are the batch's per-step factors, so options
// data work as for every estimator.
//
// The anchor and WIS are computed by the sums CWPDIS and WIS use, so they
// are those estimators bit for bit. The window products of one trajectory
// come from a doubling table (B_{t,2j} = B_{t,j} B_{t-j,j}), O(H |J|);
// two passes (per-step sums, then influence terms) cost O(n H |J| +
// n |J|^2). If a product leaves the normal float64 range the passes are
// redone with mantissa and exponent and every (t, j) column scaled by its
// largest exponent: self-normalised values and influence terms are
// scale-free per column, so they stay exact. The blend weights are found by
// MAGIC's exact simplex solver and reported as the diagnostic "adaptive_x".
//
// An AdaptiveBlend reuses its workspace: once warm, Estimate does not allocate.
// It is not safe for concurrent use.
type AdaptiveBlend struct {
	view weights.View
	s    weights.Sums // the anchor (CWPDIS) and WIS

	js     []int // J, sorted; the anchor j = H last
	nw, k  int   // windows (len(js)) and candidates (nw, + 1 for WIS)
	h      int
	scaled bool

	tab    []float64 // B_{t,a} of one trajectory at t*nw+a (scaled: mantissa, then the column-scaled value)
	texp   []int     // scaled path: the exponents of tab
	colExp []int     // scaled path: the largest exponent of each (t, a) column
	sb     []float64 // sum_i B_{t,a}, then n / that (0 if it is 0)
	sbr    []float64 // sum_i B_{t,a} r_t, then rhat_{t,a}
	g      []float64 // g_a
	phi    []float64 // phi^i_a of one trajectory
	com    []float64 // k x k: sum_i phi_a phi_c, then Omega
	m      []float64 // k x k: M
	bias   []float64 // b_a
	x      []float64 // the blend weights of the last Estimate
	qp     simplexQP

	v3      adaptive3 // version 3's workspace (adaptive3.go)
	version int       // the version of the last successful Estimate (0: it failed)
}

// NewAdaptiveBlend returns an AdaptiveBlend estimator (key "adaptive").
func NewAdaptiveBlend() *AdaptiveBlend { return &AdaptiveBlend{} }

// Name returns "adaptive".
func (*AdaptiveBlend) Name() string { return "adaptive" }

// UseModel sets the kind of the model version 3 cross-fits for its WDR
// (estimators.ModelFitter): a learned kind of package models' registry;
// "" (the default) is `fitted`.
func (e *AdaptiveBlend) UseModel(kind string) { e.v3.cf.Kind = kind }

// SharePolicies implements models.PolicySharer: version 3's CrossFit
// refits its folds when the next batch holds the last one's data under
// another pi_e (models.CrossFit.Policies).
func (e *AdaptiveBlend) SharePolicies(s *models.PolicyShare) { e.v3.cf.Policies = s }

// X returns the blend weights of the last Estimate call, one per
// candidate: version 3's (cwpdis, wdr, g(beta_hat), wis), or version 2's in
// the order j = 1, 2, 4, ..., H, then WIS (when H >= 2); empty if it
// failed. The slice is reused by the next call.
func (e *AdaptiveBlend) X() []float64 { return e.x }

// J returns version 2's windows j of the last Estimate call, in the order
// of X (WIS, when present, is the position after them); empty when
// version 3 ran.
func (e *AdaptiveBlend) J() []int { return e.js }

// Candidates returns the candidates' values of the last Estimate call, in
// the order of X: version 3's (cwpdis, wdr with the cross-fitted model,
// g(beta_hat), wis) or version 2's (g_j for j = 1, 2, 4, ..., H, then
// wis); empty if it failed. The slice is the estimator's and changes with
// the next call.
func (e *AdaptiveBlend) Candidates() []float64 {
	switch e.version {
	case 3:
		return e.v3.c[:]
	case 2:
		return e.g[:e.k]
	}
	return nil
}

// Version returns the version of the last Estimate call: 3 or 2
// (docs/adaptive.md), 0 if it failed.
func (e *AdaptiveBlend) Version() int { return e.version }

// Beta returns version 3's coefficient beta_hat of the last Estimate call
// (0 unless version 3 ran).
func (e *AdaptiveBlend) Beta() float64 {
	if e.version != 3 {
		return 0
	}
	return e.v3.beta
}

// AppendDiagnostic implements Reporter: diagnostic 0 is the blend weights
// x (X), by position; 1 is beta_hat (one value, none unless version 3
// ran); 2 is the version (one value, none if the estimate failed).
func (e *AdaptiveBlend) AppendDiagnostic(dst []float64, d int) []float64 {
	switch d {
	case 0:
		return append(dst, e.x...)
	case 1:
		if e.version == 3 {
			return append(dst, e.v3.beta)
		}
	case 2:
		if e.version != 0 {
			return append(dst, float64(e.version))
		}
	}
	return dst
}

// Estimate returns the adaptive estimate from b (at least 1 trajectory):
// version 3 on primitive data with ids and pi_e and n >= 4, else version
// 2 (docs/adaptive.md).
func (e *AdaptiveBlend) Estimate(b *trajectory.Batch) (float64, error) {
	e.x = e.x[:0]
	e.version = 0
	use3, err := applies3(b)
	if err != nil {
		return 0, err
	}
	version := 2
	var v float64
	if use3 {
		e.js = e.js[:0]
		version = 3
		v, err = e.estimate3(b)
	} else {
		v, err = e.estimate2(b)
	}
	if err != nil {
		e.x = e.x[:0]
		return 0, err
	}
	e.version = version
	return v, nil
}

// estimate2 is version 2.
func (e *AdaptiveBlend) estimate2(b *trajectory.Batch) (float64, error) {
	b = e.view.Of(b)
	n := b.N()
	if n == 0 {
		return 0, fmt.Errorf("adaptive: %w: n = 0, needs n >= 1", estimators.ErrTooFew)
	}
	h := b.Horizon()
	e.h = h
	e.js = e.js[:0]
	for j := 1; j < h; j *= 2 {
		e.js = append(e.js, j)
	}
	e.js = append(e.js, h) // the anchor (j = 0 when every trajectory is empty)
	e.nw = len(e.js)
	e.k = e.nw
	if h >= 2 {
		e.k++ // WIS
	}
	nw, k := e.nw, e.k
	cells := h * nw
	e.tab = scratch.Zero(e.tab, cells)
	e.sb = scratch.Zero(e.sb, cells)
	e.sbr = scratch.Zero(e.sbr, cells)
	e.g = scratch.Zero(e.g, k)
	e.phi = scratch.Zero(e.phi, k)
	e.com = scratch.Zero(e.com, k*k)
	e.m = scratch.Zero(e.m, k*k)
	e.bias = scratch.Zero(e.bias, k)

	// The anchor and WIS, exactly as the estimators cwpdis and wis.
	e.s.Accumulate(b, false)
	e.g[nw-1] = e.s.CWPDIS()
	if k > nw {
		e.g[nw] = e.s.WIS()
	}
	for _, v := range e.g[nw-1:] {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, fmt.Errorf("adaptive: cwpdis or wis %w", estimators.ErrNotRepresentable)
		}
	}

	// Pass 1: per-step sums of every window.
	e.scaled = false
	if !e.sumPass(b) {
		e.scaled = true
		e.scales(b)
		clear(e.sb)
		clear(e.sbr)
		e.sumPass(b)
	}
	nf := float64(n)
	for c, s := range e.sb {
		e.sbr[c] = weights.Ratio(e.sbr[c], s)
		if s != 0 {
			e.sb[c] = nf / s
		}
	}
	for t := range h {
		row := e.sbr[t*nw : t*nw+nw-1]
		for a, v := range row {
			e.g[a] += v
		}
	}
	for a, v := range e.g[:nw-1] {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, fmt.Errorf("adaptive: the window-%d estimate %w", e.js[a], estimators.ErrNotRepresentable)
		}
	}

	// Pass 2: influence terms and their co-moments.
	for i := range n {
		e.influence(b, i)
		for a, pa := range e.phi {
			row := e.com[a*k+a : a*k+k]
			for c, pc := range e.phi[a:] {
				row[c] += pa * pc
			}
		}
	}
	inv := 1 / nf
	for a := range k {
		for c := a; c < k; c++ {
			v := e.com[a*k+c] * inv * inv
			e.com[a*k+c], e.com[c*k+a] = v, v
		}
	}
	return e.blend()
}

// blend computes b, M and x from g and Omega (e.com), and returns
// sum_a x_a g_a (SPEC 1d's rule with the anchor at position nw-1, and b_a
// the distance from the anchor itself).
func (e *AdaptiveBlend) blend() (float64, error) {
	k, anc := e.k, e.nw-1
	gh := e.g[anc]
	for a, ga := range e.g {
		e.bias[a] = math.Abs(ga - gh)
	}
	for a := range k {
		for c := range k {
			e.m[a*k+c] = e.com[a*k+c] + e.bias[a]*e.bias[c]
		}
	}
	trace := addRidge(e.m, k)
	for _, v := range e.m {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, fmt.Errorf("adaptive: the covariance of the candidates %w", estimators.ErrNotRepresentable)
		}
	}
	if math.IsInf(trace, 0) {
		return 0, fmt.Errorf("adaptive: the trace of Omega + b b^T %w", estimators.ErrNotRepresentable)
	}
	e.x = scratch.Zero(e.x, k)
	if err := e.qp.solve(e.m, k, e.x); err != nil {
		e.x = e.x[:0]
		return 0, fmt.Errorf("adaptive: blend weights: %w", err)
	}
	v := 0.0
	for a, xa := range e.x {
		if xa != 0 {
			v += xa * e.g[a]
		}
	}
	return estimators.Finite("adaptive", v)
}

// addRidge adds SPEC 1d's ridge, lambda = 1e-10 max(trace(m)/k, 1e-300),
// to the diagonal of the k x k matrix m and returns trace(m) before it.
func addRidge(m []float64, k int) float64 {
	trace := 0.0
	for a := range k {
		trace += m[a*k+a]
	}
	lambda := 1e-10 * max(trace/float64(k), 1e-300)
	for a := range k {
		m[a*k+a] += lambda
	}
	return trace
}

// sumPass adds every trajectory's B_{t,a} and B_{t,a} r_t to sb and sbr.
// On the fast path it reports false as soon as a product leaves the
// normal float64 range or a sum is not finite (sb and sbr are then
// partial).
func (e *AdaptiveBlend) sumPass(b *trajectory.Batch) bool {
	nw := e.nw
	for i := range b.N() {
		if !e.fill(b, i) {
			return false
		}
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		rew := b.Reward[lo:hi]
		for t, r := range rew {
			row := e.tab[t*nw : t*nw+nw]
			sb, sbr := e.sb[t*nw:t*nw+nw], e.sbr[t*nw:t*nw+nw]
			sb, sbr = sb[:len(row)], sbr[:len(row)]
			for a, w := range row {
				sb[a] += w
				sbr[a] += w * r
			}
		}
		pad := e.tab[len(rew)*nw:]
		sb := e.sb[len(rew)*nw:]
		sb = sb[:len(pad)]
		for c, w := range pad {
			sb[c] += w
		}
	}
	if e.scaled {
		return true
	}
	for _, v := range [...][]float64{e.sb, e.sbr} {
		for _, x := range v {
			if math.IsInf(x, 0) || math.IsNaN(x) {
				return false
			}
		}
	}
	return true
}

// influence sets e.phi to trajectory i's influence terms (e.sb holds
// n / S_{t,a}, e.sbr rhat_{t,a}).
func (e *AdaptiveBlend) influence(b *trajectory.Batch, i int) {
	nw := e.nw
	e.fill(b, i)
	clear(e.phi)
	lo, hi := b.Offsets[i], b.Offsets[i+1]
	rew := b.Reward[lo:hi]
	phi := e.phi[:nw]
	g := 0.0
	for t := range e.h {
		r := 0.0
		if t < len(rew) {
			r = rew[t]
			g += r
		}
		row := e.tab[t*nw : t*nw+nw]
		inv, rh := e.sb[t*nw:t*nw+nw], e.sbr[t*nw:t*nw+nw]
		inv, rh, phi = inv[:len(row)], rh[:len(row)], phi[:len(row)]
		for a, w := range row {
			phi[a] += w * (r - rh[a]) * inv[a]
		}
	}
	if e.k > nw {
		last := (e.h-1)*nw + nw - 1 // W_H: the anchor's product at t = H
		e.phi[nw] = e.tab[last] * (g - e.g[nw]) * e.sb[last]
	}
}

// fill writes trajectory i's products B_{t,a}, t = 0..H-1 (0-based), into
// e.tab: a < nw-1 the window 2^a, a = nw-1 the cumulative weight W_t. On
// the fast path it reports false when a product leaves the normal float64
// range; on the scaled path it writes each product scaled by its column's
// largest exponent (e.colExp).
func (e *AdaptiveBlend) fill(b *trajectory.Batch, i int) bool {
	if e.scaled {
		e.fillScaled(b, i)
		for c, m := range e.tab {
			e.tab[c] = math.Ldexp(m, e.texp[c]-e.colExp[c])
		}
		return true
	}
	nw, h := e.nw, e.h
	lo, hi := b.Offsets[i], b.Offsets[i+1]
	f := b.Ratio[lo:hi]
	w := 1.0
	for t := range h {
		ft := 1.0
		if t < len(f) {
			ft = f[t]
		}
		row := e.tab[t*nw : t*nw+nw]
		if nw > 1 {
			row[0] = ft
			for a := 1; a < nw-1; a++ {
				half := 1 << (a - 1)
				if t < half {
					row[a] = row[a-1]
					continue
				}
				p, q := row[a-1], e.tab[(t-half)*nw+a-1]
				v := p * q
				if weights.LeftNormal(v, p, q) {
					return false
				}
				row[a] = v
			}
		}
		prev := w
		w *= ft
		if weights.LeftNormal(w, ft, prev) {
			return false
		}
		row[nw-1] = w
	}
	return true
}

// fillScaled is fill with every product as mantissa (e.tab) and binary
// exponent (e.texp).
func (e *AdaptiveBlend) fillScaled(b *trajectory.Batch, i int) {
	nw, h := e.nw, e.h
	lo, hi := b.Offsets[i], b.Offsets[i+1]
	f := b.Ratio[lo:hi]
	w := weights.Scaled{M: 1}
	for t := range h {
		ft := 1.0
		if t < len(f) {
			ft = f[t]
		}
		row, ex := e.tab[t*nw:t*nw+nw], e.texp[t*nw:t*nw+nw]
		if nw > 1 {
			row[0], ex[0] = math.Frexp(ft)
			for a := 1; a < nw-1; a++ {
				half := 1 << (a - 1)
				if t < half {
					row[a], ex[a] = row[a-1], ex[a-1]
					continue
				}
				m := row[a-1] * e.tab[(t-half)*nw+a-1]
				if m == 0 {
					row[a], ex[a] = 0, 0
					continue
				}
				fr, de := math.Frexp(m)
				row[a], ex[a] = fr, ex[a-1]+e.texp[(t-half)*nw+a-1]+de
			}
		}
		w.Mul(ft)
		row[nw-1], ex[nw-1] = w.M, w.E
	}
}

// scales sets e.colExp to the largest exponent of each (t, a) column over
// the trajectories (0 for a column of zeros) and sizes e.texp.
func (e *AdaptiveBlend) scales(b *trajectory.Batch) {
	cells := len(e.tab)
	if cap(e.texp) < cells {
		e.texp = make([]int, cells)
		e.colExp = make([]int, cells)
	}
	e.texp, e.colExp = e.texp[:cells], e.colExp[:cells]
	for c := range e.colExp {
		e.colExp[c] = weights.MinExp
	}
	for i := range b.N() {
		e.fillScaled(b, i)
		for c, m := range e.tab {
			if m != 0 {
				e.colExp[c] = max(e.colExp[c], e.texp[c])
			}
		}
	}
	for c, x := range e.colExp {
		if x == weights.MinExp {
			e.colExp[c] = 0
		}
	}
}
