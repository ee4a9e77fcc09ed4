package modelbased

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/estimatortest"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// idBatch draws n trajectories of a small random MDP with observation and
// action ids (nObs observations, nAct actions), pi_b uniform and pi_e a
// random distribution per observation, so that pi_e(a|o) is consistent
// across the rows, as version 3 assumes: every step may end the episode
// (probability 0.1) before the cap h, the reward depends on (o, a) plus
// noise, and the next observation on (o, a). The ratios are pi_e/pi_b,
// written as the probabilities' quotient.
func idBatch(rng *rand.Rand, n, h, nObs, nAct int) *trajectory.Batch {
	pe := make([]float64, nObs*nAct)
	for o := range nObs {
		row, s := pe[o*nAct:(o+1)*nAct], 0.0
		for a := range row {
			row[a] = 0.2 + rng.Float64()
			s += row[a]
		}
		for a := range row {
			row[a] /= s
		}
	}
	mean := make([]float64, nObs*nAct)
	next := make([]int, nObs*nAct*2)
	for p := range mean {
		mean[p] = rng.NormFloat64()
		next[2*p], next[2*p+1] = rng.IntN(nObs), rng.IntN(nObs)
	}
	var b trajectory.Batch
	pb := 1 / float64(nAct)
	for range n {
		o := rng.IntN(nObs)
		for t := range h {
			a := rng.IntN(nAct)
			p := o*nAct + a
			b.Add(mean[p]+0.5*rng.NormFloat64(), pe[p]/pb)
			b.AddIDs(int32(o), int32(a))
			b.AddProbs(pb, pe[p])
			if t > 0 && rng.Float64() < 0.1 {
				break
			}
			o = next[2*p+rng.IntN(2)]
		}
		b.End()
	}
	return &b
}

// reference3 is version 3 written directly from docs/adaptive.md on the
// padded n x H arrays of b (the discounted view) with the model columns
// q, v (discounted, per step of b): the weights W and sums S, the family
// g(beta) by its defining formula, beta_hat from Y and C, the influence
// terms phi by their formulas, DR's terms u_i (revision 1: the anchor),
// Omega, s_a from Omega's entries against the anchor, b_a, and the blend
// weights by exhaustive search over the supports (solveSimplex).
type ref3 struct {
	c, bias, s [5]float64
	beta       float64
	omega      [25]float64
	x          []float64
	est        float64
}

func reference3(b *trajectory.Batch, q, v []float64) ref3 {
	n, h := b.N(), b.Horizon()
	nf := float64(n)
	W := make([][]float64, n) // W[i][t], t = 0..H
	R, Q, V := make([][]float64, n), make([][]float64, n), make([][]float64, n)
	G := make([]float64, n)
	for i := range n {
		W[i], R[i], Q[i], V[i] = make([]float64, h+1), make([]float64, h+2), make([]float64, h+2), make([]float64, h+2)
		W[i][0] = 1
		lo, l := b.Offsets[i], b.Len(i)
		for t := 1; t <= h; t++ {
			W[i][t] = W[i][t-1]
			if t <= l {
				s := lo + t - 1
				W[i][t] *= b.Ratio[s]
				R[i][t], Q[i][t], V[i][t] = b.Reward[s], q[s], v[s]
				G[i] += b.Reward[s]
			}
		}
	}
	S := make([]float64, h+1)
	for t := range h + 1 {
		for i := range n {
			S[t] += W[i][t]
		}
	}
	wt := func(i, t int) float64 { return weights.Ratio(nf*W[i][t], S[t]) }
	a := func(beta float64, i, t int) float64 { return R[i][t] - beta*(Q[i][t]-V[i][t+1]) }
	vbar := 0.0
	for i := range n {
		vbar += V[i][1] / nf
	}
	g := func(beta float64) float64 {
		x := beta * vbar
		for t := 1; t <= h; t++ {
			for i := range n {
				x += weights.Ratio(W[i][t]*a(beta, i, t), S[t])
			}
		}
		return x
	}
	// beta_hat from Y and C (denominators n)
	Y, C := make([]float64, n), make([]float64, n)
	my, mc := 0.0, 0.0
	for i := range n {
		for t := 1; t <= h; t++ {
			Y[i] += wt(i, t) * R[i][t]
			C[i] += wt(i, t)*Q[i][t] - wt(i, t-1)*V[i][t]
		}
		my += Y[i] / nf
		mc += C[i] / nf
	}
	cov, vc := 0.0, 0.0
	for i := range n {
		cov += (Y[i] - my) * (C[i] - mc)
		vc += (C[i] - mc) * (C[i] - mc)
	}
	var r ref3
	if vc > 0 {
		r.beta = min(max(cov/vc, 0), 1)
	}
	// WIS
	num, den := 0.0, 0.0
	for i := range n {
		num += W[i][h] * G[i]
		den += W[i][h]
	}
	wis := weights.Ratio(num, den)
	betas := [3]float64{0, 1, r.beta}
	for k, be := range betas {
		r.c[k] = g(be)
	}
	r.c[3] = wis
	phi := make([][5]float64, n)
	for k, be := range betas {
		abar := make([]float64, h+1)
		for t := 1; t <= h; t++ {
			for i := range n {
				abar[t] += weights.Ratio(W[i][t]*a(be, i, t), S[t])
			}
		}
		for i := range n {
			x := be * (V[i][1] - vbar)
			for t := 1; t <= h; t++ {
				x += wt(i, t) * (a(be, i, t) - abar[t])
			}
			phi[i][k] = x
		}
	}
	for i := range n {
		phi[i][3] = weights.Ratio(nf*W[i][h]*(G[i]-wis), S[h])
	}
	// DR with the model: u_i = sum_t W_t (r_t - q_t) + W_{t-1} v_t, the
	// anchor, a plain mean (phi_i = u_i - mean u)
	u := make([]float64, n)
	for i := range n {
		for t := 1; t <= h; t++ {
			u[i] += W[i][t]*(R[i][t]-Q[i][t]) + W[i][t-1]*V[i][t]
		}
		r.c[4] += u[i] / nf
	}
	for i := range n {
		phi[i][4] = u[i] - r.c[4]
	}
	const k, anchor = 5, 4
	for x := range k {
		for y := range k {
			for i := range n {
				r.omega[x*k+y] += phi[i][x] * phi[i][y] / (nf * nf)
			}
		}
	}
	const z = 1.6448536269514722
	for a := range anchor {
		r.s[a] = math.Sqrt(max(0, r.omega[a*k+a]+r.omega[anchor*k+anchor]-2*r.omega[a*k+anchor]))
		r.bias[a] = max(0, math.Abs(r.c[a]-r.c[anchor])-z*r.s[a])
	}
	const kb = 4 // the anchor is not blended
	m := make([]float64, kb*kb)
	tr := 0.0
	for x := range kb {
		for y := range kb {
			m[x*kb+y] = r.omega[x*k+y] + r.bias[x]*r.bias[y]
		}
		tr += m[x*kb+x]
	}
	for x := range kb {
		m[x*kb+x] += 1e-10 * max(tr/kb, 1e-300)
	}
	r.x = solveSimplex(m, kb)
	for k, xa := range r.x {
		r.est += xa * r.c[k]
	}
	return r
}

// solveSimplex minimises x^T m x over the simplex by trying every support
// S: the minimiser over {sum x = 1, x = 0 off S} is m_SS^-1 1 / 1^T
// m_SS^-1 1 (Gaussian elimination); among the supports whose solution is
// >= 0 the one with the least objective wins (m positive definite: the
// KKT point is among them).
func solveSimplex(m []float64, k int) []float64 {
	best, bestObj := []float64(nil), math.Inf(1)
	for mask := 1; mask < 1<<k; mask++ {
		var idx []int
		for j := range k {
			if mask>>j&1 == 1 {
				idx = append(idx, j)
			}
		}
		s := len(idx)
		a := make([][]float64, s)
		for r := range s {
			a[r] = make([]float64, s+1)
			for c := range s {
				a[r][c] = m[idx[r]*k+idx[c]]
			}
			a[r][s] = 1
		}
		ok := true
		for c := range s {
			p := c
			for r := c + 1; r < s; r++ {
				if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
					p = r
				}
			}
			a[c], a[p] = a[p], a[c]
			if a[c][c] == 0 {
				ok = false
				break
			}
			for r := range s {
				if r != c {
					f := a[r][c] / a[c][c]
					for cc := c; cc <= s; cc++ {
						a[r][cc] -= f * a[c][cc]
					}
				}
			}
		}
		if !ok {
			continue
		}
		x := make([]float64, k)
		tot := 0.0
		for r := range s {
			x[idx[r]] = a[r][s] / a[r][r]
			tot += x[idx[r]]
		}
		neg := false
		for r := range s {
			x[idx[r]] /= tot
			if x[idx[r]] < 0 {
				neg = true
			}
		}
		if neg {
			continue
		}
		obj := 0.0
		for r := range k {
			for c := range k {
				obj += x[r] * m[r*k+c] * x[c]
			}
		}
		if obj < bestObj {
			best, bestObj = x, obj
		}
	}
	return best
}

// crossFitted returns the q and v columns version 3 uses on view (the
// discounted view of raw), computed directly: the folds cut by hand
// (the first ceil(n/2) trajectories, the rest), each fitted with
// models.Fitter on the raw ids (not compacted) over a space of max id + 1
// observations and max id + 2 actions, pi_e from the rows (the mass of the
// actions never logged at o on the last action), H the longest
// trajectory, and the values scaled by gamma^(t-1).
func crossFitted(t *testing.T, raw *trajectory.Batch, gamma float64) (q, v []float64) {
	t.Helper()
	return crossFittedWith(t, raw, gamma, new(models.Fitter))
}

// crossFittedWith is crossFitted with learner fit instead of the fitted
// model's.
func crossFittedWith(t *testing.T, raw *trajectory.Batch, gamma float64, fit models.Learner) (q, v []float64) {
	t.Helper()
	n, h := raw.N(), raw.Horizon()
	nObs := int(slices.Max(raw.Obs)) + 1
	nAct := int(slices.Max(raw.Action)) + 2
	pie := make([]float64, nObs*nAct)
	for s := range raw.Obs {
		pie[int(raw.Obs[s])*nAct+int(raw.Action[s])] = raw.PiE[s]
	}
	for o := range nObs {
		row := pie[o*nAct : (o+1)*nAct]
		s := 0.0
		for _, x := range row[:nAct-1] {
			s += x
		}
		row[nAct-1] = max(0, 1-s)
	}
	sp := models.Space{Obs: nObs, Actions: nAct, Horizon: h, PiE: func(o int, dst []float64) { copy(dst, pie[o*nAct:(o+1)*nAct]) }}
	half := (n + 1) / 2
	cut := func(lo, hi int) *trajectory.Batch {
		var f trajectory.Batch
		for i := lo; i < hi; i++ {
			f.AppendTrajectory(raw, i)
		}
		return &f
	}
	folds := [2]*trajectory.Batch{cut(0, half), cut(half, n)}
	q, v = make([]float64, raw.Steps()), make([]float64, raw.Steps())
	for k := range 2 {
		if err := fit.FitTo(folds[1-k], folds[k], sp, gamma); err != nil {
			t.Fatal(err)
		}
		base := raw.Offsets[[2]int{0, half}[k]]
		for s := range folds[k].Reward {
			q[base+s], v[base+s] = folds[k].QHat[s], folds[k].VHat[s]
		}
	}
	for i := range n {
		for s := raw.Offsets[i]; s < raw.Offsets[i+1]; s++ {
			p := math.Pow(gamma, float64(s-raw.Offsets[i]))
			q[s] *= p
			v[s] *= p
		}
	}
	return q, v
}

// TestAdaptive3Hand: four one-step trajectories, one observation, two
// actions, pi_b = (1/2, 1/2), pi_e = (3/4, 1/4): rho = 1.5 for a = 0, 0.5
// for a = 1.
//
//	i:  1     2     3     4
//	a:  0     0     0     1
//	r:  2     3     4     1
//
// Fold A = {1, 2}, fold B = {3, 4}; H = 1, so every visit is censored and
// q(o, a) = the other fold's mean reward of (o, a) (0 if it has none),
// v = 3/4 q(0) + 1/4 q(1). Fold B's model (for 1, 2): q = (4, 1),
// v = 3.25; fold A's (for 3, 4): q = (2.5, 0), v = 1.875.
// W = (1.5, 1.5, 1.5, 0.5), S = 5, wt = 4 W / 5 = (1.2, 1.2, 1.2, 0.4).
// c0 = (3 + 4.5 + 6 + 0.5)/5 = 2.8 = c3 (H = 1: wis is cwpdis).
// Y = wt r = (2.4, 3.6, 4.8, 0.4); C = wt q - v =
// (1.55, 1.55, 1.125, -1.875), mean(C) = 0.5875: c1 = 2.8 - 0.5875 = 2.2125
// (= mean v_1 + sum W (r - q)/S = 2.5625 - 0.35).
// Cov_n sum = 7.37, Var_n sum = 8.205625: beta = 7.37/8.205625, c2 = 2.8 -
// beta 0.5875.
// P = wt (r - 2.8) = (-0.96, 0.24, 1.44, -0.72); dbar = 15.75/5 = 3.15,
// Q = (v_1 - 2.5625) - wt (q - 3.15) = (-0.3325, -0.3325, 0.0925, 0.5725);
// phi_1 = P + Q, phi_2 = P + beta Q, phi_3 = P (H = 1).
// Revision 1's anchor, DR with the cross-fitted model: u = W (r - q) + v =
// (1.5 (2 - 4) + 3.25, 1.5 (3 - 4) + 3.25, 1.5 (4 - 2.5) + 1.875,
// 0.5 (1 - 0) + 1.875) = (0.25, 1.75, 4.125, 2.375), c4 = 8.5/4 = 2.125,
// phi_4 = u - 2.125 = (-1.875, -0.375, 2, 0.25).
// s_0 = s_3 = sqrt(sum (P - phi_4)^2)/4, P - phi_4 = (0.915, 0.615, -0.56,
// -0.97), sum of squares 2.46995: b_0 = b_3 = 0.675 - z sqrt(2.46995)/4 =
// 0.0287; phi_1 - phi_4 = (0.5825, 0.2825, -0.4675, -0.3975), sum of
// squares 0.795675: |d_1| = 0.0875 < z sqrt(0.795675)/4 = 0.367, b_1 = 0;
// likewise b_2 = 0 (|d_2| = 0.147 < z s_2 = 0.39); b_4 = 0 (the anchor,
// which is not blended: x has 4 positions).
func TestAdaptive3Hand(t *testing.T) {
	var b trajectory.Batch
	for _, st := range []struct {
		a int32
		r float64
	}{{0, 2}, {0, 3}, {0, 4}, {1, 1}} {
		pe := [2]float64{0.75, 0.25}[st.a]
		b.Add(st.r, pe/0.5)
		b.AddIDs(0, st.a)
		b.AddProbs(0.5, pe)
		b.End()
	}
	e := NewAdaptiveBlend()
	got, err := e.Estimate(&b)
	if err != nil {
		t.Fatal(err)
	}
	beta := 7.37 / 8.205625
	b0 := 0.675 - magicZ*math.Sqrt(2.46995)/4
	for _, tc := range []struct {
		what      string
		got, want float64
	}{
		{"c0", e.v3.c[0], 2.8},
		{"c1", e.v3.c[1], 2.2125},
		{"c2", e.v3.c[2], 2.8 - beta*0.5875},
		{"c3", e.v3.c[3], 2.8},
		{"beta", e.Beta(), beta},
		{"mean C", e.v3.meanC, 0.5875},
		{"c4", e.v3.c[4], 2.125},
		{"b_0", e.v3.bias[0], b0},
		{"b_1", e.v3.bias[1], 0},
		{"b_2", e.v3.bias[2], 0},
		{"b_3", e.v3.bias[3], b0},
		{"b_4", e.v3.bias[4], 0},
		{"Omega_00", e.v3.com[0], (0.96*0.96 + 0.24*0.24 + 1.44*1.44 + 0.72*0.72) / 16},
	} {
		if math.Abs(tc.got-tc.want) > 1e-14*max(1, math.Abs(tc.want)) {
			t.Errorf("%s = %v, want %v", tc.what, tc.got, tc.want)
		}
	}
	q, v := crossFitted(t, &b, 1)
	ref := reference3(&b, q, v)
	if !near(got, ref.est, 1e-9) {
		t.Errorf("adaptive = %v, reference %v", got, ref.est)
	}
	if e.Version() != 3 || len(e.X()) != 4 {
		t.Errorf("version %d, x %v", e.Version(), e.X())
	}
}

// TestAdaptive3Reference: on random batches with ids (several n, H and
// gamma, some with empty trajectories), version 3's pieces equal
// reference3's (a direct implementation of docs/adaptive.md on padded
// arrays, with crossFitted's model): beta_hat, the candidates, b_a, Omega
// and the estimate; c0 is cwpdis and c3 wis (within 1e-12 relative: the
// same sums, so bit for bit in fact), c1 the wdr estimator on the batch
// with crossFitted's columns.
func TestAdaptive3Reference(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 2))
	var disc trajectory.Discounted
	for trial, tc := range []struct {
		n, h, obs, act int
		gamma          float64
		empty          int // empty trajectories appended (padding from t = 1)
	}{
		{4, 3, 2, 2, 1, 0},
		{5, 1, 1, 2, 1, 0},
		{9, 6, 3, 2, 1, 0},
		{9, 6, 3, 2, 0.9, 0},
		{30, 10, 4, 3, 1, 0},
		{31, 10, 4, 3, 0.5, 0},
		{200, 20, 5, 3, 1, 0},
		{200, 20, 5, 3, 0.95, 0},
		{12, 5, 3, 2, 1, 3},
		{13, 5, 3, 2, 0.8, 1},
	} {
		raw := idBatch(rng, tc.n, tc.h, tc.obs, tc.act)
		for range tc.empty {
			raw.End()
		}
		view := disc.Of(raw, tc.gamma)
		e := NewAdaptiveBlend()
		got, err := e.Estimate(view)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if e.Version() != 3 {
			t.Fatalf("trial %d: version %d", trial, e.Version())
		}
		q, v := crossFitted(t, raw, tc.gamma)
		ref := reference3(view, q, v)
		tol := 1e-9
		check := func(what string, got, want float64) {
			t.Helper()
			if !near(got, want, tol) {
				t.Errorf("trial %d: %s = %v, reference %v", trial, what, got, want)
			}
		}
		check("beta", e.Beta(), ref.beta)
		for a := range 4 {
			check("c", e.v3.c[a], ref.c[a])
			check("b", e.v3.bias[a], ref.bias[a])
			for c := range 4 {
				check("Omega", e.v3.com[a*4+c], ref.omega[a*4+c])
			}
		}
		check("estimate", got, ref.est)
		if cw := estimate(t, "cwpdis", view); !relNear(e.v3.c[0], cw, 1e-12) {
			t.Errorf("trial %d: c0 = %v, cwpdis %v", trial, e.v3.c[0], cw)
		}
		if w := estimate(t, "wis", view); !relNear(e.v3.c[3], w, 1e-12) {
			t.Errorf("trial %d: c3 = %v, wis %v", trial, e.v3.c[3], w)
		}
		withModel := *view
		withModel.QHat, withModel.VHat = q, v
		if w := estimate(t, "wdr", &withModel); !near(e.v3.c[1], w, 1e-12) {
			t.Errorf("trial %d: c1 = %v, wdr with the cross-fitted model %v", trial, e.v3.c[1], w)
		}
	}
}

// TestAdaptive3UsesModel: with UseModel(kind), version 3's WDR candidate
// reads the cross-fitted model of that kind: for every learned kind of
// the registry, c1 equals wdr over the columns crossFittedWith computes
// with that kind's learner, and the whole estimate equals reference3's
// over them; a fresh estimator keeps fitting `fitted` (the importance-
// weighted q-reg differs from it on these data, so the check can fail).
func TestAdaptive3UsesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 5))
	var disc trajectory.Discounted
	raw := idBatch(rng, 40, 6, 3, 2)
	view := disc.Of(raw, 0.9)
	plain := NewAdaptiveBlend()
	base, err := plain.Estimate(view)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range models.Kinds() {
		if !k.Learned() {
			continue
		}
		e := NewAdaptiveBlend()
		e.UseModel(k.Name)
		got, err := e.Estimate(view)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		q, v := crossFittedWith(t, raw, 0.9, k.New())
		ref := reference3(view, q, v)
		withModel := *view
		withModel.QHat, withModel.VHat = q, v
		if w := estimate(t, "wdr", &withModel); !near(e.v3.c[1], w, 1e-9) {
			t.Errorf("%s: c1 = %v, wdr with the cross-fitted %s model %v", k.Name, e.v3.c[1], k.Name, w)
		}
		if !near(got, ref.est, 1e-9) {
			t.Errorf("%s: estimate %v, reference %v", k.Name, got, ref.est)
		}
		if k.Name == "q-reg" && near(got, base, 1e-6) {
			t.Errorf("q-reg: estimate %v equals fitted's %v: the kind was not used", got, base)
		}
	}
}

// stripIDs returns a copy of b without ids and probabilities.
func stripIDs(b *trajectory.Batch) *trajectory.Batch {
	c := *b
	c.Obs, c.Action, c.PiB, c.PiE = nil, nil, nil, nil
	return &c
}

// TestAdaptive3FallsBack: where version 3 does not apply, the estimate,
// the blend weights and the version equal version 2's code path
// (estimate2) on the same batch, bit for bit: without ids, with ids but
// n < 4, with ids but without pi_e, on options data, with no steps.
func TestAdaptive3FallsBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 7))
	withIDs3 := idBatch(rng, 3, 8, 3, 2)
	noPiE := *idBatch(rng, 40, 8, 3, 2)
	noPiE.PiE, noPiE.PiB = nil, nil
	options := withIDs(rng, optionBatch(rng, 50, 9), 4, 3) // ids on options data: not primitive
	var empty trajectory.Batch
	for range 5 {
		empty.End()
	}
	for _, tc := range []struct {
		name string
		b    *trajectory.Batch
	}{
		{"no ids (random)", randomBatch(rng, 60, 12)},
		{"no ids (sub-episodes)", subepisodeBatch(rng, 300, 10)},
		{"no ids (options)", optionBatch(rng, 80, 12)},
		{"ids stripped", stripIDs(idBatch(rng, 100, 10, 4, 3))},
		{"ids, n = 1", idBatch(rng, 1, 8, 3, 2)},
		{"ids, n = 2", idBatch(rng, 2, 8, 3, 2)},
		{"ids, n = 3", withIDs3},
		{"ids, no pi_e", &noPiE},
		{"ids on options data", options},
		{"no steps", &empty},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref := NewAdaptiveBlend()
			want, werr := ref.estimate2(tc.b)
			e := NewAdaptiveBlend()
			got, err := e.Estimate(tc.b)
			if (err != nil) != (werr != nil) || !sameFloat(got, want) || !slices.Equal(e.X(), ref.X()) {
				t.Fatalf("adaptive = %v (%v), x %v; version 2 = %v (%v), x %v", got, err, e.X(), want, werr, ref.X())
			}
			if err != nil {
				return
			}
			if e.Version() != 2 || e.Beta() != 0 {
				t.Errorf("version %d, beta %v; want 2, 0", e.Version(), e.Beta())
			}
			if d := e.AppendDiagnostic(nil, 1); len(d) != 0 {
				t.Errorf("adaptive_beta %v, want none", d)
			}
			if d := e.AppendDiagnostic(nil, 2); !slices.Equal(d, []float64{2}) {
				t.Errorf("adaptive_version %v, want [2]", d)
			}
		})
	}
	// negative ids are bad input, as for drl
	bad := idBatch(rng, 10, 5, 3, 2)
	bad.Obs[3] = -1
	if _, err := NewAdaptiveBlend().Estimate(bad); err == nil {
		t.Error("negative observation id: no error")
	}
}

// TestAdaptive3Diagnostics: version 3 reports 4 weights (>= 0, sum 1),
// beta_hat as one value in [0, 1] and the version 3; the estimate lies in
// the candidates' range (a convex combination); J is empty.
func TestAdaptive3Diagnostics(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 8))
	for trial := range 10 {
		b := idBatch(rng, 4+rng.IntN(100), 1+rng.IntN(12), 1+rng.IntN(5), 1+rng.IntN(3))
		e := NewAdaptiveBlend()
		got, err := e.Estimate(b)
		if err != nil {
			t.Fatal(err)
		}
		x := e.AppendDiagnostic(nil, 0)
		sum, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
		for a, xa := range x {
			if !(xa >= 0) {
				t.Errorf("trial %d: x[%d] = %v", trial, a, xa)
			}
			sum += xa
			lo, hi = min(lo, e.v3.c[a]), max(hi, e.v3.c[a])
		}
		if len(x) != 4 || math.Abs(sum-1) > 1e-12 {
			t.Errorf("trial %d: x = %v", trial, x)
		}
		if got < lo-1e-12*math.Abs(lo) || got > hi+1e-12*math.Abs(hi) {
			t.Errorf("trial %d: adaptive = %v outside [%v, %v]", trial, got, lo, hi)
		}
		if d := e.AppendDiagnostic(nil, 1); len(d) != 1 || !(d[0] >= 0 && d[0] <= 1) || d[0] != e.Beta() {
			t.Errorf("trial %d: adaptive_beta %v", trial, d)
		}
		if d := e.AppendDiagnostic(nil, 2); !slices.Equal(d, []float64{3}) || len(e.J()) != 0 {
			t.Errorf("trial %d: adaptive_version %v, J %v", trial, d, e.J())
		}
	}
}

// TestAdaptive3Scaled: weights beyond the float64 range take the
// normalisers' scaled path. Multiplying every trajectory's first factor by
// 2^1020 (overflow) or 2^-1020 (the later products subnormal) multiplies
// every column of W by that number, which no self-normalised weight wt,
// and so none of the candidates c0..c3, sees; the model reads no ratio.
// DR (c4, revision 1's anchor) uses W itself: at 2^1020 its terms
// overflow, so the anchor falls back to CWPDIS (and the blend to c0..c3);
// at 2^-1020 it is finite and stays the anchor. The ratios are 1.5 and 0.5
// (pi_e = (3/4, 1/4) in every observation, pi_b uniform over 2 actions),
// so every product, subnormal ones included, is exact.
func TestAdaptive3Scaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 9))
	b := idBatch(rng, 150, 10, 4, 2)
	for s, a := range b.Action {
		b.PiB[s], b.PiE[s] = 0.5, [2]float64{0.75, 0.25}[a]
		b.Ratio[s] = b.PiE[s] / b.PiB[s]
		b.OptionRatio[s] = b.Ratio[s]
	}
	e := NewAdaptiveBlend()
	if _, err := e.Estimate(b); err != nil || e.v3.nrm.scaled || e.v3.anchor != cand3DR {
		t.Fatalf("%v (scaled %v, anchor %d)", err, e.v3.nrm.scaled, e.v3.anchor)
	}
	want := e.v3.c
	for _, tc := range []struct {
		exp, anchor int
	}{{1020, cand3CWPDIS}, {-1020, cand3DR}} {
		c := *b
		c.Ratio, c.OptionRatio = slices.Clone(b.Ratio), slices.Clone(b.OptionRatio)
		for i := range c.N() {
			s := c.Offsets[i]
			c.Ratio[s] = math.Ldexp(c.Ratio[s], tc.exp)
			c.OptionRatio[s] = c.Ratio[s]
		}
		got, err := e.Estimate(&c)
		if err != nil || !e.v3.nrm.scaled || e.Version() != 3 || e.v3.anchor != tc.anchor || !finiteValue(got) {
			t.Errorf("first factors times 2^%d: %v, %v (scaled %v, version %d, anchor %d); want anchor %d", tc.exp, got, err, e.v3.nrm.scaled, e.Version(), e.v3.anchor, tc.anchor)
		}
		for a := range cand3DR {
			if !near(e.v3.c[a], want[a], 1e-12) {
				t.Errorf("first factors times 2^%d: c%d = %v, unscaled %v", tc.exp, a, e.v3.c[a], want[a])
			}
		}
	}
}

func TestAdaptive3Deterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 10))
	bs := []*trajectory.Batch{idBatch(rng, 80, 10, 4, 3), subepisodeBatch(rng, 50, 5), idBatch(rng, 7, 3, 2, 2), idBatch(rng, 300, 30, 6, 3)}
	reused := NewAdaptiveBlend()
	for bi, b := range bs {
		first, err := NewAdaptiveBlend().Estimate(b)
		if err != nil {
			t.Fatal(err)
		}
		for rep := range 2 {
			reused.Estimate(bs[(bi+1)%len(bs)])
			got, err := reused.Estimate(b)
			if err != nil || !sameFloat(got, first) {
				t.Errorf("batch %d rep %d: %v, %v; first %v", bi, rep, got, err, first)
			}
		}
	}
}

// TestAdaptive3NoAllocs: once warm, version 3 allocates nothing (dense
// and sparse ids, the scaled path, discounting), nor does switching
// between the versions on batches it has seen.
func TestAdaptive3NoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 11))
	sparse := idBatch(rng, 200, 12, 5, 3)
	for s := range sparse.Obs {
		sparse.Obs[s] = sparse.Obs[s]*1000003 + 7 // ids far apart: the map tables
	}
	scaled := idBatch(rng, 100, 9, 3, 2)
	for i := range scaled.N() {
		s := scaled.Offsets[i]
		scaled.Ratio[s] = math.Ldexp(scaled.Ratio[s], 1020)
		scaled.OptionRatio[s] = scaled.Ratio[s]
	}
	var disc trajectory.Discounted
	for bi, b := range []*trajectory.Batch{idBatch(rng, 300, 20, 5, 3), sparse, scaled, disc.Of(idBatch(rng, 100, 10, 4, 2), 0.9)} {
		e := NewAdaptiveBlend()
		if _, err := e.Estimate(b); err != nil {
			t.Fatal(err)
		}
		if e.Version() != 3 {
			t.Fatalf("batch %d: version %d", bi, e.Version())
		}
		if a := testing.AllocsPerRun(5, func() { e.Estimate(b) }); a != 0 {
			t.Errorf("batch %d: %v allocations per Estimate", bi, a)
		}
		v2 := subepisodeBatch(rng, 60, 6)
		e.Estimate(v2)
		if a := testing.AllocsPerRun(5, func() { e.Estimate(v2); e.Estimate(b) }); a != 0 {
			t.Errorf("batch %d: %v allocations per pair of versions", bi, a)
		}
	}
}

// TestAdaptive3Memory: adaptive's Memory bounds what a fresh estimator
// allocates for its first version-3 estimate (dense ids, many
// observations, sparse ids), at the data's shape (the ids' ranges known)
// and with the ids unknown, with the allocator's allowance
// (estimatortest.Within).
func TestAdaptive3Memory(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 12))
	sparse := idBatch(rng, 400, 60, 50, 4)
	for s := range sparse.Obs {
		sparse.Obs[s] = sparse.Obs[s]*7919 + 1<<20
		sparse.Action[s] = sparse.Action[s]*104729 + 3
	}
	info, _ := estimators.Lookup("adaptive")
	for _, tc := range []struct {
		name string
		b    *trajectory.Batch
	}{
		{"dense ids", idBatch(rng, 400, 60, 5, 3)},
		{"many observations", idBatch(rng, 300, 40, 2000, 6)},
		{"sparse ids", sparse},
	} {
		var e *AdaptiveBlend
		got := allocated(func() {
			e = NewAdaptiveBlend()
			if _, err := e.Estimate(tc.b); err != nil {
				t.Fatal(err)
			}
		})
		if e.Version() != 3 {
			t.Fatalf("%s: version %d", tc.name, e.Version())
		}
		n, h := tc.b.N(), tc.b.Horizon()
		known := estimators.ShapeOf(tc.b)
		unknown := known
		unknown.Obs, unknown.Actions = 0, 0
		for _, s := range []estimators.Shape{known, unknown} {
			if bound := info.Memory(s); !estimatortest.Within(got, bound) {
				t.Errorf("%s (n = %d, H = %d, ids below %v, %v): allocated %.0f bytes, Memory says at most %.0f", tc.name, n, h, s.Obs, s.Actions, got, bound)
			} else {
				t.Logf("%s (n = %d, H = %d, %d steps, ids below %v, %v): allocated %.0f bytes, Memory %.0f", tc.name, n, h, tc.b.Steps(), s.Obs, s.Actions, got, bound)
			}
		}
	}
}
