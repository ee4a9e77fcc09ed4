package modelbased

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// regHand3 is modelHandBatch with a third trajectory of one step, (r=0,
// rho=2, q=1.5, v=1), so that C is not constant. Y_i and C_i (gamma 1):
//
//	traj 1: W = 2, 1, 1: Y = 2*1 + 1*0 + 1*3 = 5,
//	        C = (2*0.5 - 1*1) + (1*1 - 2*2) + (1*2 - 1*1.5) = 0 - 3 + 0.5 = -2.5
//	traj 2: W = 0.5:     Y = 0.5*2 = 1, C = 0.5*1 - 1*3 = -2.5
//	traj 3: W = 2:       Y = 2*0 = 0,   C = 2*1.5 - 1*1 = 2
//
// (Y - C = 7.5, 3.5, -2: dr's per-trajectory terms of TestModelHandComputed,
// and -2.)
func regHand3() *trajectory.Batch {
	return modelBatchOf(
		[]mstep{{1, 2, 0.5, 1}, {0, 0.5, 1, 2}, {3, 1, 2, 1.5}},
		[]mstep{{2, 0.5, 1, 3}},
		[]mstep{{0, 2, 1.5, 1}},
	)
}

// TestREGHandComputed works reg (registry formula) through by hand: Y, C,
// beta = Cov_n(Y, C) / Var_n(C), estimate mean(Y) - beta mean(C); the
// pdis and dr of the same data (beta = 0 and 1) beside it.
func TestREGHandComputed(t *testing.T) {
	for _, tc := range []struct {
		name             string
		b                *trajectory.Batch
		gamma            float64
		want, wantBeta   float64
		wantPDIS, wantDR float64
		how              string
	}{
		{"three trajectories", regHand3(), 1, 4.0 / 3, -2.0 / 3, 2, 3,
			"Y = (5, 1, 0), C = (-2.5, -2.5, 2) (regHand3): mean Y = 2, mean C = -1; Y - 2 = (3, -1, -2), C + 1 = (-1.5, -1.5, 3); " +
				"Cov_n = (-4.5 + 1.5 - 6)/3 = -3, Var_n(C) = (2.25 + 2.25 + 9)/3 = 4.5, beta = -3/4.5 = -2/3; 2 - (-2/3)(-1) = 4/3; " +
				"pdis = mean Y = 2, dr = mean(Y - C) = (7.5 + 3.5 - 2)/3 = 3"},
		{"three trajectories, gamma 0.5", regHand3(), 0.5, 40.0 / 39, -14.0 / 39, 1.25, 1.875,
			"steps of traj 1 discounted by 1, 0.5, 0.25: Y_1 = 2 + 0 + 0.25*3 = 2.75, C_1 = 0 + 0.5*(-3) + 0.25*0.5 = -1.375; " +
				"traj 2, 3 have one step: Y = (2.75, 1, 0), C = (-1.375, -2.5, 2); mean Y = 1.25, mean C = -0.625; " +
				"Y - 1.25 = (1.5, -0.25, -1.25), C + 0.625 = (-0.75, -1.875, 2.625); n Cov_n = -1.125 + 0.46875 - 3.28125 = -3.9375, " +
				"n Var_n(C) = 0.5625 + 3.515625 + 6.890625 = 10.96875, beta = -3.9375/10.96875 = -14/39; 1.25 - (14/39)(0.625) = 40/39; " +
				"dr = 1.25 + 0.625 = 1.875"},
		{"two trajectories", modelBatchOf(
			[]mstep{{2, 1, 1, 0.5}},
			[]mstep{{0, 0.5, 2, 0.5}, {4, 2, 2, 1}},
		), 1, 4.0 / 3, 4.0 / 3, 3, 1.75,
			"traj 1: W = 1: Y = 2, C = 1*1 - 1*0.5 = 0.5; traj 2: W = 0.5, 1: Y = 0 + 1*4 = 4, C = (0.5*2 - 1*0.5) + (1*2 - 0.5*1) = 2; " +
				"n = 2: beta = (Y_1 - Y_2)/(C_1 - C_2) = -2/-1.5 = 4/3; mean Y = 3, mean C = 1.25: 3 - (4/3)(1.25) = 4/3; dr = 3 - 1.25 = 1.75"},
		{"C constant: pdis", modelHandBatch(), 1, 3, 0, 3, 5.5,
			"modelHandBatch: C = (-2.5, -2.5) (regHand3's first two), Var_n(C) = 0, beta := 0: pdis = (5 + 1)/2 = 3; dr = 5.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var disc trajectory.Discounted
			b := disc.Of(tc.b, tc.gamma)
			e := NewREG()
			got, err := e.Estimate(b)
			if err != nil {
				t.Fatal(err)
			}
			if !near(got, tc.want, 1e-15) || !near(e.Beta(), tc.wantBeta, 1e-15) {
				t.Errorf("reg = %v, beta %v; want %v, beta %v (%s)", got, e.Beta(), tc.want, tc.wantBeta, tc.how)
			}
			if d := e.AppendDiagnostic(nil, 0); len(d) != 1 || d[0] != e.Beta() {
				t.Errorf("diagnostic %v, want [beta] = [%v]", d, e.Beta())
			}
			if p, dr := estimate(t, "pdis", b), estimate(t, "dr", b); !near(p, tc.wantPDIS, 1e-15) || !near(dr, tc.wantDR, 1e-15) {
				t.Errorf("pdis = %v, dr = %v; want %v, %v (%s)", p, dr, tc.wantPDIS, tc.wantDR, tc.how)
			}
		})
	}
}

// TestREGEqualsPDIS: with q_hat = v_hat = 0, C is identically 0, so
// Var_n(C) = 0, beta := 0 and reg is mean(Y), PDIS. Exactly (bit for bit)
// on handBatch, whose terms are dyadic (pdis = 3, TestHandComputed);
// elsewhere to rounding (the sums are added in another order), 1e-12
// relative to the sum of |W_t r_t| / n, as TestModelReducesToIS.
func TestREGEqualsPDIS(t *testing.T) {
	e := NewREG()
	if got, err := e.Estimate(zeroModel(handBatch())); err != nil || got != 3 || e.Beta() != 0 {
		t.Errorf("reg on handBatch, zero model: %v (beta %v), %v; want exactly 3 (pdis), beta 0", got, e.Beta(), err)
	}
	rng := rand.New(rand.NewPCG(41, 42))
	for trial := range 40 {
		var b *trajectory.Batch
		switch trial % 3 {
		case 0:
			b = randomBatch(rng, 1+rng.IntN(60), 1+rng.IntN(12))
		case 1:
			b = optionBatch(rng, 1+rng.IntN(60), 1+rng.IntN(12))
		default:
			b = subepisodeBatch(rng, 1+rng.IntN(60), 1+rng.IntN(6))
		}
		f := b.Factors(nil)
		abs := 0.0
		for i := range b.N() {
			w := 1.0
			for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
				w *= f[s]
				abs += math.Abs(w*b.Reward[s]) / float64(b.N())
			}
		}
		got, err := e.Estimate(zeroModel(b))
		want := estimate(t, "pdis", b)
		if err != nil || math.Abs(got-want) > 1e-12*max(math.Abs(want), abs, 1) || e.Beta() != 0 {
			t.Errorf("trial %d: reg = %v (beta %v), %v; pdis = %v", trial, got, e.Beta(), err, want)
		}
	}
}

// constantDRBatch returns a copy of b (every trajectory with a step) whose
// model columns make dr's term of every trajectory equal k: q_hat = r +
// N(0, 1) and v_hat ~ N(0, 1) at random, except v_hat_1, set to
// k - sum_t W_t (r_t - q_t) - sum_{t>=2} W_{t-1} v_t. Then Y_i = C_i + k.
func constantDRBatch(rng *rand.Rand, b *trajectory.Batch, k float64) *trajectory.Batch {
	c := withModelColumns(rng, b)
	for s := range c.VHat {
		c.VHat[s] = rng.NormFloat64()
	}
	f := b.Factors(nil)
	for i := range c.N() {
		lo, hi := c.Offsets[i], c.Offsets[i+1]
		rest, w := 0.0, 1.0
		for s := lo; s < hi; s++ {
			prev := w
			w *= f[s]
			rest += w * (c.Reward[s] - c.QHat[s])
			if s > lo {
				rest += prev * c.VHat[s]
			}
		}
		c.VHat[lo] = k - rest
	}
	return c
}

// TestREGEqualsDR: on data where Y_i = C_i + k for every trajectory
// (constantDRBatch, C not constant), Cov_n(Y, C) = Var_n(C), so beta = 1
// and reg is dr, which is k: beta to 1e-9 and reg to dr to 1e-9 relative
// to the scale of the terms, mean |Y| + mean |C| (beta is 1 to rounding:
// the terms cancel).
func TestREGEqualsDR(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	e := NewREG()
	for trial := range 30 {
		var b *trajectory.Batch
		if trial%2 == 0 {
			b = randomBatch(rng, 2+rng.IntN(60), 1+rng.IntN(12))
		} else {
			b = subepisodeBatch(rng, 2+rng.IntN(60), 1+rng.IntN(6))
		}
		k := 3 * rng.NormFloat64()
		m := constantDRBatch(rng, b, k)
		got, err := e.Estimate(m)
		if err != nil {
			t.Fatal(err)
		}
		ys, cs := regTerms(m)
		scale := 0.0
		for i := range ys {
			scale += (math.Abs(ys[i]) + math.Abs(cs[i])) / float64(len(ys))
		}
		dr := estimate(t, "dr", m)
		if math.Abs(e.Beta()-1) > 1e-9 || math.Abs(got-dr) > 1e-9*max(scale, 1) || math.Abs(dr-k) > 1e-9*max(scale, 1) {
			t.Errorf("trial %d: reg = %v, beta %v; dr = %v, k = %v (scale %v)", trial, got, e.Beta(), dr, k, scale)
		}
	}
}

// regTerms returns Y_i and C_i of every trajectory of b straight from the
// registry formula, with the factors (trajectory.Batch.Factors) as the
// weights: Y_i = sum_t W_t r_t, C_i = sum_t (W_t q_t - W_{t-1} v_t).
func regTerms(b *trajectory.Batch) (ys, cs []float64) {
	f := b.Factors(nil)
	for i := range b.N() {
		y, c, w := 0.0, 0.0, 1.0
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			prev := w
			w *= f[s]
			y += w * b.Reward[s]
			c += w*b.QHat[s] - prev*b.VHat[s]
		}
		ys, cs = append(ys, y), append(cs, c)
	}
	return ys, cs
}

// regReference computes beta and reg from regTerms in two passes (means,
// then the co-moments), and the scale of the estimate's two parts,
// |mean Y| + |beta mean C|.
func regReference(b *trajectory.Batch) (beta, v, scale float64) {
	ys, cs := regTerms(b)
	n := float64(len(ys))
	my, mc := 0.0, 0.0
	for i := range ys {
		my += ys[i] / n
		mc += cs[i] / n
	}
	cov, vc := 0.0, 0.0
	for i := range ys {
		cov += (ys[i] - my) * (cs[i] - mc) / n
		vc += (cs[i] - mc) * (cs[i] - mc) / n
	}
	if vc > 0 {
		beta = cov / vc
	}
	return beta, my - beta*mc, math.Abs(my) + math.Abs(beta*mc)
}

// TestREGMatchesReference: reg and its beta equal the two-pass reference
// (regReference) on random data with model columns, primitive (with
// empty trajectories), options (factors materialised) and under gamma 0.9
// (the discounted view), to 1e-11 relative to the scale of the parts; and
// beta minimises the sample variance of Y - b C: it is no larger at beta
// than at b = 0 (pdis), 1 (dr) and beta -/+ 0.01.
func TestREGMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	e := NewREG()
	var disc trajectory.Discounted
	for trial := range 45 {
		var b *trajectory.Batch
		switch trial % 3 {
		case 0:
			b = randomModelBatch(rng, 1+rng.IntN(80), 1+rng.IntN(15), true)
		case 1:
			b = withModelColumns(rng, optionBatch(rng, 1+rng.IntN(80), 1+rng.IntN(15)))
		default:
			b = disc.Of(randomModelBatch(rng, 1+rng.IntN(80), 1+rng.IntN(15), false), 0.9)
		}
		got, err := e.Estimate(b)
		if err != nil {
			t.Fatal(err)
		}
		beta, want, scale := regReference(b)
		if math.Abs(got-want) > 1e-11*max(scale, 1) || math.Abs(e.Beta()-beta) > 1e-11*max(math.Abs(beta), 1) {
			t.Errorf("trial %d: reg = %v, beta %v; reference %v, beta %v", trial, got, e.Beta(), want, beta)
		}
		ys, cs := regTerms(b)
		variance := func(c float64) float64 {
			n, m, s := float64(len(ys)), 0.0, 0.0
			for i := range ys {
				m += (ys[i] - c*cs[i]) / n
			}
			for i := range ys {
				d := ys[i] - c*cs[i] - m
				s += d * d / n
			}
			return s
		}
		at := variance(e.Beta())
		for _, c := range []float64{0, 1, e.Beta() - 0.01, e.Beta() + 0.01} {
			if v := variance(c); at > v*(1+1e-12)+1e-300 {
				t.Errorf("trial %d: sample variance %v at beta = %v above %v at %v", trial, at, e.Beta(), v, c)
			}
		}
	}
}

// TestREGModelScale: multiplying both model columns by k != 0 multiplies
// C by k, so beta by 1/k, and leaves reg unchanged (to rounding, 1e-12
// relative to the scale of its parts); dr moves.
func TestREGModelScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	e := NewREG()
	for trial := range 12 {
		b := randomModelBatch(rng, 5+rng.IntN(50), 1+rng.IntN(10), true)
		want, err := e.Estimate(b)
		if err != nil {
			t.Fatal(err)
		}
		beta := e.Beta()
		_, _, scale := regReference(b)
		for _, k := range []float64{3, -0.5, 0x1p-20} {
			c := *b
			c.QHat, c.VHat = append([]float64(nil), b.QHat...), append([]float64(nil), b.VHat...)
			for s := range c.QHat {
				c.QHat[s] *= k
				c.VHat[s] *= k
			}
			got, err := e.Estimate(&c)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want) > 1e-12*max(scale, 1) || !near(e.Beta()*k, beta, 1e-12) {
				t.Errorf("trial %d, model times %v: reg = %v, beta %v; unscaled %v, beta %v", trial, k, got, e.Beta(), want, beta)
			}
		}
	}
}

// TestREGWeightScale: weights beyond the float64 range take the scaled
// path, with the same estimate. On random data with two more trajectories
// of 40 steps, of ratios 2 and 0.5 (W_40 = 2^40 and 2^-40), every
// trajectory's first factor is multiplied by 2^1000 (weights overflow) or
// 2^-1000 (subnormal ones), its
// rewards and model columns by the inverse, and v_hat_1 set to 0 first
// (W_0 = 1 is not scaled): Y_i and C_i are unchanged, so reg is too, to
// 1e-12 relative to the scale of its parts.
func TestREGWeightScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 50))
	e := NewREG()
	for trial := range 12 {
		b := randomModelBatch(rng, 5+rng.IntN(40), 1+rng.IntN(20), false)
		for _, rho := range []float64{2, 0.5} { // W_40 = 2^40 and 2^-40
			for range 40 {
				r := rng.NormFloat64()
				b.Add(r, rho)
				b.AddModel(r+rng.NormFloat64(), rng.NormFloat64())
			}
			b.End()
		}
		for i := range b.N() {
			b.VHat[b.Offsets[i]] = 0
		}
		want, err := e.Estimate(b)
		if err != nil {
			t.Fatal(err)
		}
		_, _, scale := regReference(b)
		for _, sc := range []float64{0x1p1000, 0x1p-1000} {
			c := *b
			c.Ratio = append([]float64(nil), b.Ratio...)
			c.OptionRatio = c.Ratio
			c.Reward = append([]float64(nil), b.Reward...)
			c.QHat, c.VHat = append([]float64(nil), b.QHat...), append([]float64(nil), b.VHat...)
			for i := range c.N() {
				c.Ratio[c.Offsets[i]] *= sc
			}
			for s := range c.Reward {
				c.Reward[s] /= sc
				c.QHat[s] /= sc
				c.VHat[s] /= sc
			}
			var m regMoments
			if regFast(&c, &m) {
				t.Fatalf("trial %d, first factors times %v: the fast path accepted it", trial, sc)
			}
			got, err := e.Estimate(&c)
			if err != nil || math.Abs(got-want) > 1e-12*max(scale, 1) {
				t.Errorf("trial %d, first factors times %v: reg = %v, %v; unscaled %v", trial, sc, got, err, want)
			}
		}
	}
}

// TestREGOverflow: PDIS = 2^1099 on the all-a1 chain of H = 1100 with a
// zero model (beta = 0): not representable, an error and no diagnostic.
// Then data whose terms reach 2^930 (TestDROverflow's trajectory A with
// 20 small random ones) against math/big (bigREG): within 1e-12 relative
// to the scale of the parts, |mean Y| + |beta mean C| (the parts cancel).
func TestREGOverflow(t *testing.T) {
	e := NewREG()
	if v, err := e.Estimate(zeroModel(chainAllA1(1100))); !errors.Is(err, estimators.ErrNotRepresentable) || len(e.AppendDiagnostic(nil, 0)) != 0 {
		t.Errorf("reg = %v, %v, diagnostic %v; want estimators.ErrNotRepresentable and none", v, err, e.AppendDiagnostic(nil, 0))
	}
	rng := rand.New(rand.NewPCG(51, 52))
	c := *overflowModelBatch(rng)
	want, wantBeta, scale := bigREG(&c)
	got, err := e.Estimate(&c)
	if err != nil || math.Abs(got-want) > 1e-12*scale || !near(e.Beta(), wantBeta, 1e-12) {
		t.Errorf("reg = %v (beta %v), %v; math/big %v (beta %v, scale %v)", got, e.Beta(), err, want, wantBeta, scale)
	}
}

// bigREG is reg in math/big arithmetic (512-bit mantissas): Y_i, C_i,
// their means and co-moments, beta; it returns the estimate, beta and
// |mean Y| + |beta mean C|, rounded to float64.
func bigREG(b *trajectory.Batch) (v, beta, scale float64) {
	const prec = 512
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	f64 := func(x float64) *big.Float { return nf().SetFloat64(x) }
	n := b.N()
	ys, cs := make([]*big.Float, n), make([]*big.Float, n)
	my, mc := nf(), nf()
	for i := range n {
		y, c, w := nf(), nf(), f64(1)
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			prev := nf().Set(w)
			w.Mul(w, f64(b.Ratio[s]))
			y.Add(y, nf().Mul(w, f64(b.Reward[s])))
			c.Add(c, nf().Mul(w, f64(b.QHat[s])))
			c.Sub(c, prev.Mul(prev, f64(b.VHat[s])))
		}
		ys[i], cs[i] = y, c
		my.Add(my, y)
		mc.Add(mc, c)
	}
	my.Quo(my, f64(float64(n)))
	mc.Quo(mc, f64(float64(n)))
	cov, vc := nf(), nf()
	for i := range n {
		dy, dc := nf().Sub(ys[i], my), nf().Sub(cs[i], mc)
		cov.Add(cov, nf().Mul(dy, dc))
		vc.Add(vc, nf().Mul(dc, dc))
	}
	bb := nf()
	if vc.Sign() > 0 {
		bb.Quo(cov, vc)
	}
	part := nf().Mul(bb, mc)
	est := nf().Sub(my, part)
	v, _ = est.Float64()
	beta, _ = bb.Float64()
	a, _ := my.Float64()
	p, _ := part.Float64()
	return v, beta, math.Abs(a) + math.Abs(p)
}

// TestREGGrid: EstimateGrid (the package's generic prefix loop: reg is no
// GridEstimator, as dr) reports beta at every grid point, equal to
// Estimate's on that prefix.
func TestREGGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	b := randomModelBatch(rng, 60, 8, true)
	grid := []int{1, 2, 10, 60}
	out := make([]float64, len(grid))
	diags := [][][]float64{make([][]float64, len(grid))}
	if err := estimators.EstimateGrid(NewREG(), b, grid, out, diags); err != nil {
		t.Fatal(err)
	}
	e := NewREG()
	for j, n := range grid {
		p := b.Prefix(n)
		v, err := e.Estimate(&p)
		if err != nil {
			t.Fatal(err)
		}
		if out[j] != v || len(diags[0][j]) != 1 || diags[0][j][0] != e.Beta() {
			t.Errorf("n = %d: grid %v, beta %v; Estimate %v, beta %v", n, out[j], diags[0][j], v, e.Beta())
		}
	}
}
