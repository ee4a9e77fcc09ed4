package modelbased

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/estimatortest"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// mstep is one step with the model columns of SPEC 1d.
type mstep struct{ r, rho, q, v float64 }

// modelBatchOf builds a primitive batch with model columns from
// per-trajectory steps.
func modelBatchOf(trajs ...[]mstep) *trajectory.Batch {
	var b trajectory.Batch
	for _, tr := range trajs {
		for _, s := range tr {
			b.Add(s.r, s.rho)
			b.AddModel(s.q, s.v)
		}
		b.End()
	}
	return &b
}

// zeroModel returns a copy of b whose model columns are all 0.
func zeroModel(b *trajectory.Batch) *trajectory.Batch {
	c := *b
	c.QHat, c.VHat = make([]float64, b.Steps()), make([]float64, b.Steps())
	return &c
}

// modelHandBatch: two trajectories of different lengths (H = 3, n = 2),
// the rewards and ratios of handBatch with model columns.
//
//	traj 1: (r=1, rho=2,   q=0.5, v=1), (r=0, rho=0.5, q=1, v=2), (r=3, rho=1, q=2, v=1.5)
//	        W = 2, 1, 1
//	traj 2: (r=2, rho=0.5, q=1,   v=3)
//	        W = 0.5, frozen at 0.5 for t = 2, 3 (padding: r = q = v = 0)
//
// Normalisers D_t = sum_i W^i_t: D_0 = n = 2, D_1 = 2 + 0.5 = 2.5,
// D_2 = D_3 = 1 + 0.5 = 1.5. Normalised weights wbar_0..3:
// traj 1: 1/2, 0.8, 2/3, 2/3; traj 2: 1/2, 0.2, 1/3, 1/3.
func modelHandBatch() *trajectory.Batch {
	return modelBatchOf(
		[]mstep{{1, 2, 0.5, 1}, {0, 0.5, 1, 2}, {3, 1, 2, 1.5}},
		[]mstep{{2, 0.5, 1, 3}},
	)
}

func TestModelHandComputed(t *testing.T) {
	for _, tc := range []struct {
		name string
		want float64
		how  string
	}{
		{"dm", 2, "(v^1_1 + v^2_1)/2 = (1 + 3)/2"},
		{"dr", 5.5, "traj 1: t=1: 2*1 - (2*0.5 - 1*1) = 2; t=2: 1*0 - (1*1 - 2*2) = 3; t=3: 1*3 - (1*2 - 1*1.5) = 2.5; " +
			"sum 7.5. traj 2: 0.5*2 - (0.5*1 - 1*3) = 3.5 (padding adds 0). (7.5 + 3.5)/2"},
		{"wdr", 5.2, "traj 1: t=1: 0.8*1 - (0.8*0.5 - 0.5*1) = 0.9; t=2: (2/3)*0 - ((2/3)*1 - 0.8*2) = 14/15; " +
			"t=3: (2/3)*3 - ((2/3)*2 - (2/3)*1.5) = 5/3; sum 105/30 = 3.5. traj 2: 0.2*2 - (0.2*1 - 0.5*3) = 1.7. 3.5 + 1.7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := estimate(t, tc.name, modelHandBatch()); !near(got, tc.want, 1e-15) {
				t.Errorf("%s = %v, want %v (%s)", tc.name, got, tc.want, tc.how)
			}
		})
	}
}

// TestMagicHandComputed works MAGIC through on modelHandBatch (H = 3, so
// J = (0, 1, 2, 3)), SPEC 1d step by step.
//
// g^i_j = sum_{t<=j} [wbar_t (r_t - q_t) + wbar_{t-1} v_t] + wbar_j v_{j+1},
// with the per-step terms of TestModelHandComputed's wdr:
//
//	traj 1: g_0 = 0.5*1 = 0.5; g_1 = 0.9 + 0.8*2 = 2.5;
//	        g_2 = 0.9 + 14/15 + (2/3)*1.5 = 17/6; g_3 = 3.5
//	traj 2: g_0 = 0.5*3 = 1.5; g_1 = g_2 = g_3 = 1.7 (v_2 = 0: padding)
//
// g = (2, 4.2, 17/6 + 1.7, 5.2). With n = 2 the sample covariance is
// u u^T / 2 for u = g^1 - g^2 = (-1, 0.8, 17/15, 1.8), so Omega = n S =
// u u^T. WDR's interval: 5.2 -/+ z * 1.8 (z = 1.6448536269514722), i.e.
// [2.2393, 8.1607]: only g_0 = 2 is outside, b = (beta, 0, 0, 0) with
// beta = 5.2 - 1.8 z - 2. M = u u^T + b b^T + lambda I, lambda = 1e-10
// (|u|^2 + beta^2)/4.
//
// The minimiser: with lambda = 0 the cost is (u.x)^2 + beta^2 x_0^2; for
// a given x_0 the first term is smallest with the rest of the weight on
// j = 1 (the smallest u_j > 0), so the support is {0, 1}, where the 2 x 2
// minimiser is x_0 = (M_11 - M_01) / (M_00 + M_11 - 2 M_01) =
// (0.64 + lambda + 0.8) / (1 + beta^2 + 0.64 + 1.6 + 2 lambda) = 0.4367.
// KKT off the support: u.x = 0.8 - 1.8 x_0 = 0.0139 > 0, so (M x)_j =
// u_j (u.x) for j = 2, 3 is 0.0158 and 0.0250, above x^T M x = 0.0111.
// MAGIC = 2 x_0 + 4.2 (1 - x_0) = 3.2392.
func TestMagicHandComputed(t *testing.T) {
	z := 1.6448536269514722
	beta := 5.2 - 1.8*z - 2
	uu := 1 + 0.64 + (17.0/15)*(17.0/15) + 1.8*1.8
	lambda := 1e-10 * (uu + beta*beta) / 4
	x0 := (1.44 + lambda) / (3.24 + beta*beta + 2*lambda)
	want := 2*x0 + 4.2*(1-x0)
	e := NewMAGIC()
	got, err := e.Estimate(modelHandBatch())
	if err != nil {
		t.Fatal(err)
	}
	if !near(got, want, 1e-14) {
		t.Errorf("magic = %v, want %v (x_0 = %v)", got, want, x0)
	}
	if js := e.J(); len(js) != 4 || js[0] != 0 || js[1] != 1 || js[2] != 2 || js[3] != 3 {
		t.Errorf("J = %v, want [0 1 2 3]", js)
	}
	wantX := []float64{x0, 1 - x0, 0, 0}
	x := e.AppendDiagnostic(nil, 0)
	if len(x) != 4 {
		t.Fatalf("x = %v, want 4 weights", x)
	}
	for j := range x {
		if math.Abs(x[j]-wantX[j]) > 1e-14 {
			t.Errorf("x = %v, want %v", x, wantX)
			break
		}
	}
}

// TestMagicVertices: data where SPEC 1d's minimiser is exactly a vertex
// of the simplex, so MAGIC returns dm or wdr bit for bit, and data where it
// is near one, checked against the 2 x 2 closed form. All have H = 1, so
// J = (0, 1), every ratio 1 and n = 4: wbar_0 = wbar_1 = 1/4, and
// g^i_0 = v_i/4, g^i_1 = (r_i - q_i)/4 + v_i/4. For two points the
// minimiser over the simplex is x_0 = (M_11 - M_01)/(M_00 + M_11 - 2 M_01)
// clipped to [0, 1].
func TestMagicVertices(t *testing.T) {
	oneStep := func(r, q, v []float64) *trajectory.Batch {
		var b trajectory.Batch
		for i := range r {
			b.Add(r[i], 1)
			b.AddModel(q[i], v[i])
			b.End()
		}
		return &b
	}
	v := []float64{1, 2, 3, 4}
	for _, tc := range []struct {
		name    string
		b       *trajectory.Batch
		x0      float64 // expected x_0
		exact   bool    // a vertex: the estimate equals dm (x_0 = 1) or wdr (x_0 = 0) exactly
		x0Close func(lambda float64) float64
		how     string
	}{
		{
			name: "dm vertex", x0: 1, exact: true,
			// r_i = v_i - 2, q = 0: g^i_1 = (2 v_i - 2)/4 = 2 g^i_0 - 1/2, so
			// Omega_01 = 2 Omega_00 and Omega_11 = 4 Omega_00, Omega_00 =
			// s^2(v)/4 = (5/3)/4 = 5/12. dm = 2.5, wdr = 2*2.5 - 2 = 3,
			// interval 3 -/+ z sqrt(5/3) = 3 -/+ 2.12: dm inside, b = 0.
			// KKT at x = e_0: (M e_0)_1 = 5/6 >= M_00 = 5/12 + lambda.
			b:   oneStep([]float64{-1, 0, 1, 2}, []float64{0, 0, 0, 0}, v),
			how: "M_01 = 2 Omega_00 > M_00 = Omega_00 + lambda: x = e_0, magic = dm = 2.5",
		},
		{
			name: "wdr vertex", x0: 0, exact: true,
			// q_i = 0, r_i = -v_i/2 + 40: g^i_1 = v_i/8 + 10 = g^i_0/2 + 10, so
			// Omega_01 = Omega_00/2 = 2 Omega_11. dm = 2.5 is far from
			// wdr = 1.25 + 40 = 41.25 (b_0 = 38.75 - z sqrt(5/48)), but at
			// x = e_1, (M e_1)_0 = M_01 = Omega_01 + b_0 b_1 = 2 Omega_11 >=
			// M_11 = Omega_11 + lambda whatever b_0 is.
			b:   oneStep([]float64{39.5, 39, 38.5, 38}, []float64{0, 0, 0, 0}, v),
			how: "M_01 = 2 Omega_11 > M_11 = Omega_11 + lambda: x = e_1, magic = wdr = 41.25",
		},
		{
			name: "near wdr",
			// v_hat_1 = 100 for all: g^i_0 = 25, Omega_0j = 0, dm = 100.
			// r = (10, 10.1, 9.9, 10), q = 0: g^i_1 = 25 + r_i/4, wdr =
			// 100 + 10 = 110, Omega_11 = 4 s^2(r/4) = s^2(r)/4 = (0.02/3)/4.
			// b_0 = 10 - z sqrt(Omega_11) (dm far outside).
			// M = diag(b_0^2 + lambda, Omega_11 + lambda):
			// x_0 = (Omega_11 + lambda)/(b_0^2 + Omega_11 + 2 lambda), about 1.7e-5.
			b: oneStep([]float64{10, 10.1, 9.9, 10}, []float64{0, 0, 0, 0}, []float64{100, 100, 100, 100}),
			x0Close: func(lambda float64) float64 {
				o11 := 0.02 / 3 / 4
				b0 := 10 - 1.6448536269514722*math.Sqrt(o11)
				return (o11 + lambda) / (b0*b0 + o11 + 2*lambda)
			},
			how: "x_0 = Omega_11/b_0^2 to first order: magic = wdr - 10 x_0",
		},
		{
			name: "near dm",
			// v_hat_1 = 3 for all: g^i_0 = 3/4, Omega_0j = 0, dm = 3.
			// r = (-1, 0, 0, 1.4), q = 0: g^i_1 = 3/4 + r_i/4, wdr = 3 + 0.1,
			// Omega_11 = s^2(r)/4 = (2.92/3)/4 (deviations -1.1, -0.1, -0.1,
			// 1.3), interval 3.1 -/+ z sqrt(0.2433) = 3.1 -/+ 0.81: dm inside,
			// b = 0. M = diag(lambda, Omega_11 + lambda): x_0 = (Omega_11 +
			// lambda)/(Omega_11 + 2 lambda) = 1 - 5e-11 (the ridge alone keeps
			// it off the vertex).
			b: oneStep([]float64{-1, 0, 0, 1.4}, []float64{0, 0, 0, 0}, []float64{3, 3, 3, 3}),
			x0Close: func(lambda float64) float64 {
				o11 := 2.92 / 3 / 4
				return (o11 + lambda) / (o11 + 2*lambda)
			},
			how: "x_1 = lambda/(Omega_11 + 2 lambda): magic = dm + 0.1 x_1",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewMAGIC()
			got, err := e.Estimate(tc.b)
			if err != nil {
				t.Fatal(err)
			}
			dm, wdr := estimate(t, "dm", tc.b), estimate(t, "wdr", tc.b)
			x := e.X()
			if tc.exact {
				want := wdr
				if tc.x0 == 1 {
					want = dm
				}
				if got != want || x[0] != tc.x0 || x[1] != 1-tc.x0 {
					t.Errorf("magic = %v with x = %v; want exactly %v with x_0 = %v (%s)", got, x, want, tc.x0, tc.how)
				}
				return
			}
			// the 2 x 2 closed form, lambda = 1e-10 trace(M - lambda I)/2
			trace := 0.0
			for j := range 2 {
				trace += e.m[j*2+j]
			}
			lambda := 1e-10 * trace / (2 + 2e-10) // trace(M) = T + 2 lambda, lambda = 1e-10 T/2
			x0 := tc.x0Close(lambda)
			want := x0*dm + (1-x0)*wdr
			if math.Abs(x[0]-x0) > 1e-9*max(x0, 1e-6) || !near(got, want, 1e-12) {
				t.Errorf("magic = %v with x = %v; want %v with x_0 = %v (%s)", got, x, want, x0, tc.how)
			}
		})
	}
}

// randomModelBatch draws n trajectories of random length in [1, h] (some
// of length 0 when empty is set) with ratios in {0, 0.5, 1.5, 2}, rewards
// that depend on the ratios, and model columns q_hat = r + noise, v_hat =
// q_hat + noise.
func randomModelBatch(rng *rand.Rand, n, h int, empty bool) *trajectory.Batch {
	var b trajectory.Batch
	ratios := []float64{0, 0.5, 1.5, 2}
	for range n {
		l := 1 + rng.IntN(h)
		if empty && rng.IntN(8) == 0 {
			l = 0
		}
		for range l {
			rho := ratios[rng.IntN(len(ratios))]
			r := 0.0
			if rng.Float64() < 0.7 {
				r = rho + rng.NormFloat64()
			}
			q := r + 0.5*rng.NormFloat64()
			b.Add(r, rho)
			b.AddModel(q, q+0.5*rng.NormFloat64())
		}
		b.End()
	}
	return &b
}

// TestModelReducesToIS: with q_hat = v_hat = 0 every model term vanishes
// (SPEC 1d): dr is PDIS, wdr is CWPDIS (wbar_t r_t summed over i is
// CWPDIS's step-t term) and dm is 0. The sums are added in another order,
// so the match is to rounding, 1e-12 relative to the sum of the terms'
// absolute values (random rewards can cancel).
func TestModelReducesToIS(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
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
		m := zeroModel(b)
		// the scale of the terms: (1/n) sum |W_t r_t| for PDIS, sum |r_t|
		// (wbar <= 1) for CWPDIS
		f := b.Factors(nil)
		absPDIS, absCW := 0.0, 0.0
		for i := range b.N() {
			w := 1.0
			for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
				w *= f[s]
				absPDIS += math.Abs(w*b.Reward[s]) / float64(b.N())
				absCW += math.Abs(b.Reward[s])
			}
		}
		for _, tc := range []struct {
			name, is string
			scale    float64
		}{{"dr", "pdis", absPDIS}, {"wdr", "cwpdis", absCW}} {
			got, want := estimate(t, tc.name, m), estimate(t, tc.is, b)
			if math.Abs(got-want) > 1e-12*max(math.Abs(want), tc.scale, 1) {
				t.Errorf("trial %d: %s = %v, %s = %v", trial, tc.name, got, tc.is, want)
			}
		}
		if got := estimate(t, "dm", m); got != 0 {
			t.Errorf("trial %d: dm = %v with v_hat = 0, want 0", trial, got)
		}
	}
}

// referenceModel computes dm, dr, wdr and MAGIC's g^i_j straight from SPEC
// 1d's formulas on dense, padded arrays (every trajectory H steps, padding
// r = q = v = 0 and ratio 1), wbar^i_t = W^i_t / sum_j W^j_t literally.
func referenceModel(b *trajectory.Batch) (dm, dr, wdr float64, g [][]float64, js []int) {
	n, h := b.N(), b.Horizon()
	f := b.Factors(nil)
	w := make([][]float64, n) // w[i][t], t = 0..h
	r, q, v := make([][]float64, n), make([][]float64, n), make([][]float64, n)
	for i := range n {
		w[i] = make([]float64, h+1)
		r[i], q[i], v[i] = make([]float64, h+2), make([]float64, h+2), make([]float64, h+2)
		w[i][0] = 1
		for t := 1; t <= h; t++ {
			rho := 1.0
			if t <= b.Len(i) {
				s := b.Offsets[i] + t - 1
				rho, r[i][t], q[i][t], v[i][t] = f[s], b.Reward[s], b.QHat[s], b.VHat[s]
			}
			w[i][t] = w[i][t-1] * rho
		}
	}
	wbar := make([][]float64, n)
	for i := range n {
		wbar[i] = make([]float64, h+1)
	}
	for t := 0; t <= h; t++ {
		d := 0.0
		for i := range n {
			d += w[i][t]
		}
		for i := range n {
			wbar[i][t] = weights.Ratio(w[i][t], d)
		}
	}
	for j := 0; j <= h; j = max(2*j, j+1) {
		if j < h {
			js = append(js, j)
		}
	}
	js = append(js, h)
	if h == 0 {
		js = js[:1]
	}
	g = make([][]float64, n)
	for i := range n {
		dm += v[i][1] / float64(n)
		for t := 1; t <= h; t++ {
			dr += (w[i][t]*r[i][t] - (w[i][t]*q[i][t] - w[i][t-1]*v[i][t])) / float64(n)
			wdr += wbar[i][t]*r[i][t] - (wbar[i][t]*q[i][t] - wbar[i][t-1]*v[i][t])
		}
		g[i] = make([]float64, len(js))
		for k, j := range js {
			for t := 1; t <= j; t++ {
				g[i][k] += wbar[i][t]*r[i][t] - (wbar[i][t]*q[i][t] - wbar[i][t-1]*v[i][t])
			}
			g[i][k] += wbar[i][j] * v[i][j+1] // v[i][h+1] = 0
		}
	}
	return dm, dr, wdr, g, js
}

// referenceMAGIC is MAGIC from the reference g^i_j: two-pass covariance,
// and the minimiser over the simplex by enumeration of supports (bruteQP).
func referenceMAGIC(b *trajectory.Batch) (float64, []float64) {
	_, _, _, g, js := referenceModel(b)
	n, k := len(g), len(js)
	sum, mean := make([]float64, k), make([]float64, k)
	for i := range n {
		for a := range k {
			sum[a] += g[i][a]
		}
	}
	for a := range k {
		mean[a] = sum[a] / float64(n)
	}
	m := make([]float64, k*k)
	for a := range k {
		for c := range k {
			s := 0.0
			for i := range n {
				s += (g[i][a] - mean[a]) * (g[i][c] - mean[c])
			}
			m[a*k+c] = float64(n) * s / float64(n-1) // Omega = n S
		}
	}
	half := 1.6448536269514722 * math.Sqrt(m[k*k-1])
	bias := make([]float64, k)
	for a := range k {
		bias[a] = max(sum[k-1]-half-sum[a], sum[a]-sum[k-1]-half, 0)
	}
	trace := 0.0
	for a := range k {
		for c := range k {
			m[a*k+c] += bias[a] * bias[c]
		}
		trace += m[a*k+a]
	}
	for a := range k {
		m[a*k+a] += 1e-10 * max(trace/float64(k), 1e-300)
	}
	x, _ := bruteQP(m, k)
	v := 0.0
	for a := range k {
		v += x[a] * sum[a]
	}
	return v, x
}

// bruteQP minimises x^T M x over the simplex by enumerating every support
// S: the minimiser is the minimiser over the affine hull of its support's
// face, strictly positive there, so it is the best of the affine
// minimisers y_S = M_SS^{-1} 1 / 1^T M_SS^{-1} 1 that are > 0 (M positive
// definite). Gaussian elimination with partial pivoting.
func bruteQP(m []float64, k int) ([]float64, float64) {
	best, bestObj := []float64(nil), math.Inf(1)
	for mask := 1; mask < 1<<k; mask++ {
		var s []int
		for j := range k {
			if mask&(1<<j) != 0 {
				s = append(s, j)
			}
		}
		z, ok := solveDense(m, k, s)
		if !ok {
			continue
		}
		total := 0.0
		for _, v := range z {
			total += v
		}
		x := make([]float64, k)
		pos := total > 0
		for a, j := range s {
			x[j] = z[a] / total
			pos = pos && x[j] > 0
		}
		if !pos {
			continue
		}
		if o := quad(m, k, x); o < bestObj {
			best, bestObj = x, o
		}
	}
	return best, bestObj
}

// solveDense solves M_SS z = 1.
func solveDense(m []float64, k int, s []int) ([]float64, bool) {
	p := len(s)
	a := make([][]float64, p)
	for r := range p {
		a[r] = make([]float64, p+1)
		for c := range p {
			a[r][c] = m[s[r]*k+s[c]]
		}
		a[r][p] = 1
	}
	for c := range p {
		piv := c
		for r := c + 1; r < p; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[piv][c]) {
				piv = r
			}
		}
		if a[piv][c] == 0 {
			return nil, false
		}
		a[c], a[piv] = a[piv], a[c]
		for r := c + 1; r < p; r++ {
			f := a[r][c] / a[c][c]
			for cc := c; cc <= p; cc++ {
				a[r][cc] -= f * a[c][cc]
			}
		}
	}
	z := make([]float64, p)
	for r := p - 1; r >= 0; r-- {
		v := a[r][p]
		for c := r + 1; c < p; c++ {
			v -= a[r][c] * z[c]
		}
		z[r] = v / a[r][r]
	}
	return z, true
}

// quad returns x^T M x.
func quad(m []float64, k int, x []float64) float64 {
	o := 0.0
	for a := range k {
		for c := range k {
			o += x[a] * m[a*k+c] * x[c]
		}
	}
	return o
}

// TestModelMatchesReference compares every estimator with the direct
// formulas of SPEC 1d (referenceModel, referenceMAGIC) on random data
// with padding, empty trajectories, zero ratios and options data (the
// estimators weight by the per-step factors, as every estimator does).
// Tolerances: 1e-12 relative to the scale of the terms for the sums (they
// are added in another order); 1e-9 for MAGIC, whose weights come from a
// linear system with condition number up to about 1e10 (the ridge).
func TestModelMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := range 60 {
		n := 2 + rng.IntN(50)
		var b *trajectory.Batch
		switch trial % 3 {
		case 0:
			b = randomModelBatch(rng, n, 1+rng.IntN(9), true)
		case 1:
			b = withModelColumns(rng, optionBatch(rng, n, 1+rng.IntN(9)))
		default:
			b = withModelColumns(rng, subepisodeBatch(rng, n, 1+rng.IntN(4)))
		}
		dm, dr, wdr, _, _ := referenceModel(b)
		magic, x := referenceMAGIC(b)
		for _, tc := range []struct {
			name string
			want float64
			tol  float64
		}{
			{"dm", dm, 1e-13}, {"dr", dr, 1e-12}, {"wdr", wdr, 1e-12}, {"magic", magic, 1e-9},
		} {
			if got := estimate(t, tc.name, b); !near(got, tc.want, tc.tol) {
				t.Errorf("trial %d (n = %d, H = %d): %s = %v, reference %v", trial, n, b.Horizon(), tc.name, got, tc.want)
			}
		}
		e := NewMAGIC()
		if _, err := e.Estimate(b); err != nil {
			t.Fatal(err)
		}
		total := 0.0
		for j, v := range e.X() {
			total += v
			if v < 0 || math.Abs(v-x[j]) > 1e-6 {
				t.Errorf("trial %d: x = %v, reference %v", trial, e.X(), x)
				break
			}
		}
		if math.Abs(total-1) > 1e-12 {
			t.Errorf("trial %d: x = %v sums to %v", trial, e.X(), total)
		}
	}
}

// TestSimplexQPBruteForce checks the active-set solver against enumeration
// of supports on random positive definite matrices, k = 1..7: rank
// deficient A A^T plus a ridge of 1e-10 trace/k (as SPEC 1d's M), and
// well-conditioned ones (ridge 0.1 trace/k). The solver's objective may
// exceed the enumerated optimum only by the rounding of x^T M x itself
// (1e-14 k max M_jj: its terms are up to max M_jj, its value can be 1e-12
// of that); on the well-conditioned matrices x must equal the enumerated
// minimiser to 1e-12.
func TestSimplexQPBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	var p simplexQP
	for trial := range 400 {
		k := 1 + trial%7
		rank := 1 + rng.IntN(k)
		m := make([]float64, k*k)
		for range rank {
			u := make([]float64, k)
			for a := range u {
				u[a] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(3)))
			}
			for a := range k {
				for c := range k {
					m[a*k+c] += u[a] * u[c]
				}
			}
		}
		trace := 0.0
		for a := range k {
			trace += m[a*k+a]
		}
		ridge := 1e-10
		if trial%2 == 1 {
			ridge = 0.1
		}
		for a := range k {
			m[a*k+a] += ridge * trace / float64(k)
		}
		x := make([]float64, k)
		if err := p.solve(m, k, x); err != nil {
			t.Fatalf("trial %d (k = %d): %v", trial, k, err)
		}
		want, wantObj := bruteQP(m, k)
		maxDiag := 0.0
		for a := range k {
			maxDiag = max(maxDiag, m[a*k+a])
		}
		if got := quad(m, k, x); got > wantObj+1e-14*float64(k)*maxDiag {
			t.Errorf("trial %d (k = %d): objective %v, enumeration %v (x = %v, want %v)", trial, k, got, wantObj, x, want)
		}
		if ridge < 0.1 {
			// x is only determined to about eps/1e-10 = 2e-6 by M's rounding
			continue
		}
		for j := range x {
			if math.Abs(x[j]-want[j]) > 1e-12 {
				t.Errorf("trial %d (k = %d): x = %v, enumeration %v", trial, k, x, want)
				break
			}
		}
	}
}

// TestSimplexQPGrid: for k = 3 the solver's objective is at most the
// smallest over a grid of step 1/400 on the simplex (every grid point is
// feasible, so the minimum cannot be above any of them).
func TestSimplexQPGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	var p simplexQP
	const steps = 400
	for trial := range 20 {
		m := make([]float64, 9)
		for range 2 {
			u := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			for a := range 3 {
				for c := range 3 {
					m[a*3+c] += u[a] * u[c]
				}
			}
		}
		for a := range 3 {
			m[a*3+a] += 1e-3
		}
		x := make([]float64, 3)
		if err := p.solve(m, 3, x); err != nil {
			t.Fatal(err)
		}
		got := quad(m, 3, x)
		for i := 0; i <= steps; i++ {
			for j := 0; i+j <= steps; j++ {
				y := []float64{float64(i) / steps, float64(j) / steps, float64(steps-i-j) / steps}
				if o := quad(m, 3, y); o < got*(1-1e-12) {
					t.Fatalf("trial %d: objective %v at %v, grid point %v has %v", trial, got, x, y, o)
				}
			}
		}
	}
}

// TestSimplexQPLarge: the solver on |J| = 22 (H near 2^20) with MAGIC-like
// ill-conditioned matrices: the covariance of nested partial sums (each
// g_j adds independent terms to g_{j-1}: Omega_jk = min(j, k)-like, nearly
// singular between neighbours), a low-rank one, and bias vectors; with
// SPEC's ridge 1e-10 trace/|J|. It must finish, pass its KKT check and
// beat every vertex and the uniform point.
func TestSimplexQPLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	var p simplexQP
	const k = 22
	for trial := range 30 {
		m := make([]float64, k*k)
		switch trial % 3 {
		case 0: // nested sums: Omega_ab = sum_{c <= min(a, b)} s_c
			s := 0.0
			for a := range k {
				s += rng.Float64() * math.Pow(2, float64(a%8))
				for c := a; c < k; c++ {
					m[a*k+c], m[c*k+a] = s, s
				}
			}
		case 1: // rank 2
			for range 2 {
				var u [k]float64
				for a := range u {
					u[a] = rng.NormFloat64()
				}
				for a := range k {
					for c := range k {
						m[a*k+c] += u[a] * u[c]
					}
				}
			}
		default: // nearly equal rows
			for a := range k {
				for c := range k {
					m[a*k+c] = 1 + 1e-6*float64(min(a, c))
				}
			}
		}
		var b [k]float64
		for a := range b {
			if rng.IntN(3) == 0 {
				b[a] = 3 * rng.Float64()
			}
		}
		trace := 0.0
		for a := range k {
			for c := range k {
				m[a*k+c] += b[a] * b[c]
			}
			trace += m[a*k+a]
		}
		for a := range k {
			m[a*k+a] += 1e-10 * trace / k
		}
		x := make([]float64, k)
		if err := p.solve(m, k, x); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		got := quad(m, k, x)
		uniform := make([]float64, k)
		for a := range k {
			uniform[a] = 1.0 / k
			if m[a*k+a] < got*(1-1e-12) {
				t.Errorf("trial %d: objective %v above vertex %d's %v", trial, got, a, m[a*k+a])
			}
		}
		if o := quad(m, k, uniform); o < got*(1-1e-12) {
			t.Errorf("trial %d: objective %v above the uniform point's %v", trial, got, o)
		}
	}
}

// TestModelErrors: no model columns (ErrNoModel, for each estimator, and
// for mismatched columns instead of a panic), too few trajectories
// (estimators.ErrTooFew: n = 0 for all, n = 1 for magic).
func TestModelErrors(t *testing.T) {
	noModel := handBatch()
	short := modelHandBatch()
	short.VHat = short.VHat[:2] // malformed: must not index past the end
	one := modelBatchOf([]mstep{{1, 1, 1, 1}})
	var empty trajectory.Batch
	for _, name := range []string{"dm", "dr", "wdr", "magic", "reg"} {
		e, _ := estimators.New(name)
		for _, tc := range []struct {
			label string
			b     *trajectory.Batch
			want  error
		}{
			{"no model columns", noModel, ErrNoModel},
			{"v_hat shorter than the steps", short, ErrNoModel},
			{"n = 0", &empty, estimators.ErrTooFew},
		} {
			if v, err := e.Estimate(tc.b); !errors.Is(err, tc.want) {
				t.Errorf("%s on %s: %v, %v; want %v", name, tc.label, v, err, tc.want)
			}
		}
		v, err := e.Estimate(one)
		if name == "magic" {
			if !errors.Is(err, estimators.ErrTooFew) {
				t.Errorf("magic at n = 1: %v, %v; want estimators.ErrTooFew", v, err)
			}
			continue
		}
		// one trajectory, one step, every weight 1: dm = v = 1, dr = wdr =
		// r - (q - v) = 1 - (1 - 1) = 1; reg: Y = 1, C = q - v = 0,
		// Var_n(C) = 0 so beta := 0, mean(Y) = 1
		if err != nil || v != 1 {
			t.Errorf("%s at n = 1: %v, %v; want 1", name, v, err)
		}
	}
	if err := checkModel("dr", handBatch(), 1); err == nil || err.Error() != "dr: the data has no model columns q_hat and v_hat" {
		t.Errorf("message %q", err)
	}
}

// TestModelNoSteps: trajectories without steps are all padding (r = q_hat
// = v_hat = 0), so a batch of them needs no model columns and every
// estimate is 0 (magic: J = (0), x = (1)).
func TestModelNoSteps(t *testing.T) {
	var b trajectory.Batch
	b.End()
	b.End()
	for _, name := range []string{"dm", "dr", "wdr", "magic", "reg"} {
		if got := estimate(t, name, &b); got != 0 {
			t.Errorf("%s = %v on two empty trajectories, want 0", name, got)
		}
	}
}

// TestModelWeightScale: the normalised weights wbar are unchanged when
// every trajectory's first factor is multiplied by 2^1022 or 2^-1060
// (numerator and normaliser alike), so wdr and magic must not move beyond
// rounding although the weights leave the float64 range (the scaled path);
// every trajectory has a step, so no unscaled W_0 = 1 is frozen in a
// normaliser.
func TestModelWeightScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := range 12 {
		b := randomModelBatch(rng, 5+rng.IntN(30), 1+rng.IntN(8), false)
		want := map[string]float64{"wdr": estimate(t, "wdr", b), "magic": estimate(t, "magic", b)}
		for _, scale := range []float64{0x1p1022, 0x1p-1060} {
			c := *b
			c.Ratio = append([]float64(nil), b.Ratio...)
			c.OptionRatio = c.Ratio
			for i := range c.N() {
				c.Ratio[c.Offsets[i]] *= scale
			}
			for name, w := range want {
				if got := estimate(t, name, &c); !near(got, w, 1e-12) {
					t.Errorf("trial %d, first factors times %v: %s = %v, unscaled %v", trial, scale, name, got, w)
				}
			}
			e := NewWDR()
			if _, err := e.Estimate(&c); err != nil || !e.s.scaled {
				t.Errorf("trial %d, first factors times %v: err %v, scaled path %v; want the scaled path", trial, scale, err, e.s.scaled)
			}
		}
	}
}

// TestDROverflow: weights beyond the float64 range. The all-a1 chain
// trajectory of H = 1100 (weight 2^1100, reward 1 at H) with q_hat =
// v_hat = 0 makes dr = PDIS = 2^1099: an error, estimators.ErrNotRepresentable; wdr =
// CWPDIS = 1 exactly. Then dr on data whose terms need the scaled path but
// whose value fits, against math/big.
func TestDROverflow(t *testing.T) {
	b := zeroModel(chainAllA1(1100))
	if v, err := NewDR().Estimate(b); !errors.Is(err, estimators.ErrNotRepresentable) {
		t.Errorf("dr = %v, %v; want estimators.ErrNotRepresentable", v, err)
	}
	if got := estimate(t, "wdr", b); got != 1 {
		t.Errorf("wdr = %v, want exactly 1", got)
	}
	if _, err := NewMAGIC().Estimate(b); err != nil {
		t.Errorf("magic: %v", err)
	}

	// Trajectory A: 1030 steps of ratio 2 (W_t = 2^t), r_t = 2^-100 t,
	// q_t = 2^-101, v_t = 2^-102 (t - 1): terms up to 2^930 (beyond any
	// float64 product chain: 2^1030). Others: random, small.
	rng := rand.New(rand.NewPCG(23, 24))
	c := *overflowModelBatch(rng)
	want := bigDR(&c)
	if got := estimate(t, "dr", &c); !near(got, want, 1e-13) {
		t.Errorf("dr = %v, math/big %v", got, want)
	}
}

// bigDR is dr (SPEC 1d) in math/big arithmetic (512-bit mantissas,
// exponents unbounded), rounded to a float64 at the end.
func bigDR(b *trajectory.Batch) float64 {
	const prec = 512
	total := new(big.Float).SetPrec(prec)
	for i := range b.N() {
		w := new(big.Float).SetPrec(prec).SetFloat64(1)
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			prev := new(big.Float).SetPrec(prec).Set(w)
			w.Mul(w, new(big.Float).SetFloat64(b.Ratio[s]))
			d := new(big.Float).SetPrec(prec).Sub(new(big.Float).SetFloat64(b.Reward[s]), new(big.Float).SetFloat64(b.QHat[s]))
			total.Add(total, d.Mul(d, w))
			total.Add(total, prev.Mul(prev, new(big.Float).SetFloat64(b.VHat[s])))
		}
	}
	total.Quo(total, new(big.Float).SetInt64(int64(b.N())))
	v, _ := total.Float64()
	return v
}

// chainModel is a small MDP for checking dr with the true q (SPEC 1d:
// q_hat_t = q(o_t, a_t), the expected return from step t on): two states,
// two actions, H = 3, start in state 0. Action a leads to state a with
// probability 0.8 (else to 1 - a); reward R[s][a] is deterministic. The
// behavior policy is uniform, pi_e(a = 1 | s) = peOne[s].
type chainModel struct {
	q [3][2][2]float64 // q[t][s][a], t = 0..2 (1-based step t+1)
	v [3][2]float64
}

var (
	chainR     = [2][2]float64{{0, 1}, {2, 0}}
	chainPeOne = [2]float64{0.8, 0.3}
)

func chainPe(s, a int) float64 {
	if a == 1 {
		return chainPeOne[s]
	}
	return 1 - chainPeOne[s]
}

// newChainModel computes q and v by backward dynamic programming:
// q_t(s, a) = R(s, a) + sum_s' P(s' | s, a) v_{t+1}(s'), v_t(s) = sum_a
// pi_e(a | s) q_t(s, a), v_4 = 0.
func newChainModel() *chainModel {
	var m chainModel
	for t := 2; t >= 0; t-- {
		for s := range 2 {
			for a := range 2 {
				next := 0.0
				if t < 2 {
					next = 0.8*m.v[t+1][a] + 0.2*m.v[t+1][1-a]
				}
				m.q[t][s][a] = chainR[s][a] + next
				m.v[t][s] += chainPe(s, a) * m.q[t][s][a]
			}
		}
	}
	return &m
}

// collect draws n trajectories under the uniform behavior policy with the
// true model columns.
func (m *chainModel) collect(rng *rand.Rand, b *trajectory.Batch, n int) {
	b.Reset()
	for range n {
		s := 0
		for t := range 3 {
			a := rng.IntN(2)
			b.Add(chainR[s][a], chainPe(s, a)/0.5)
			b.AddModel(m.q[t][s][a], m.v[t][s])
			if rng.Float64() < 0.8 {
				s = a
			} else {
				s = 1 - a
			}
		}
		b.End()
	}
}

// TestDRTrueModelVariance: with the true q, dr is unbiased and has a lower
// variance than PDIS (the model's control variate removes the variance of
// the actions' ratios; what remains comes from the transitions). Over
// 4000 data sets of n = 10: |mean(dr) - v| <= 4 standard errors, and
// Var(pdis) - Var(dr) > 4 standard errors of the paired difference of
// squared deviations, d_k = (pdis_k - mean)^2 - (dr_k - mean)^2.
func TestDRTrueModelVariance(t *testing.T) {
	m := newChainModel()
	truth := m.v[0][0]
	rng := rand.New(rand.NewPCG(25, 26))
	const sets, n = 4000, 10
	dr, pdis := NewDR(), estimators.NewPDIS()
	var b trajectory.Batch
	xs, ys := make([]float64, sets), make([]float64, sets)
	for k := range sets {
		m.collect(rng, &b, n)
		var err error
		if xs[k], err = dr.Estimate(&b); err != nil {
			t.Fatal(err)
		}
		if ys[k], err = pdis.Estimate(&b); err != nil {
			t.Fatal(err)
		}
	}
	meanX, meanY := 0.0, 0.0
	for k := range sets {
		meanX += xs[k] / sets
		meanY += ys[k] / sets
	}
	varX, varY, dMean, dSq := 0.0, 0.0, 0.0, 0.0
	for k := range sets {
		dx, dy := (xs[k]-meanX)*(xs[k]-meanX), (ys[k]-meanY)*(ys[k]-meanY)
		varX += dx / (sets - 1)
		varY += dy / (sets - 1)
		dMean += (dy - dx) / sets
		dSq += (dy - dx) * (dy - dx) / sets
	}
	seDiff := math.Sqrt((dSq - dMean*dMean) / (sets - 1))
	if se := math.Sqrt(varX / sets); math.Abs(meanX-truth) > 4*se {
		t.Errorf("mean dr = %v, truth %v (SE %v)", meanX, truth, se)
	}
	if se := math.Sqrt(varY / sets); math.Abs(meanY-truth) > 4*se {
		t.Errorf("mean pdis = %v, truth %v (SE %v)", meanY, truth, se)
	}
	if !(dMean > 4*seDiff) || !(varX < varY) {
		t.Errorf("Var(dr) = %v, Var(pdis) = %v: difference %v, want > 4 SE = %v", varX, varY, dMean, 4*seDiff)
	}
	t.Logf("truth %.4f; dr mean %.4f var %.4f; pdis mean %.4f var %.4f", truth, meanX, varX, meanY, varY)
}

// TestModelNoAllocs: once warm, Estimate allocates nothing, on the fast
// path and on the scaled one (weights beyond the float64 range), with
// factors materialised (options data).
func TestModelNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	fast := randomModelBatch(rng, 300, 20, true)
	scaled := randomModelBatch(rng, 300, 20, false)
	for i := range scaled.N() {
		scaled.OptionRatio[scaled.Offsets[i]] *= 0x1p-1060 // the factors: subnormal products
	}
	options := withModelColumns(rng, optionBatch(rng, 300, 20))
	for _, name := range []string{"dm", "dr", "wdr", "magic", "reg"} {
		e, _ := estimators.New(name)
		for _, b := range []*trajectory.Batch{fast, scaled, options} {
			if _, err := e.Estimate(b); err != nil {
				t.Fatal(err)
			}
		}
		for label, b := range map[string]*trajectory.Batch{"fast": fast, "scaled": scaled, "options": options} {
			if a := testing.AllocsPerRun(5, func() { _, _ = e.Estimate(b) }); a != 0 {
				t.Errorf("%s on %s: %v allocations per Estimate", name, label, a)
			}
		}
	}
}

// TestModelMemoryBounds: the registry's Memory bound of each estimator
// that needs the model holds for a fresh estimator's first estimate, with
// TestMemoryBoundsWorkspace's allowance, on primitive and options data
// (factors materialised) and on a long horizon (|J| = 12).
func TestModelMemoryBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	for _, tc := range []struct {
		name string
		b    *trajectory.Batch
	}{
		{"primitive", randomModelBatch(rng, 400, 60, true)},
		{"options", withModelColumns(rng, optionBatch(rng, 400, 60))},
		{"long", randomModelBatch(rng, 20, 1500, false)},
	} {
		n, h := tc.b.N(), tc.b.Horizon()
		shape := estimators.ShapeOf(tc.b)
		for _, info := range estimators.All() {
			if info.Needs&estimators.Model == 0 {
				continue
			}
			got := allocated(func() {
				e, _ := estimators.New(info.Name)
				if _, err := e.Estimate(tc.b); err != nil {
					t.Fatalf("%s on %s: %v", info.Name, tc.name, err)
				}
			})
			if bound := info.Memory(shape); !estimatortest.Within(got, bound) {
				t.Errorf("%s on %s (n = %d, H = %d): allocated %.0f bytes, Memory says at most %.0f (%s)",
					info.Name, tc.name, n, h, got, bound, info.MemoryDoc())
			}
		}
	}
}

// TestModelRegistry: the four entries of SPEC 1d, and reg, need the
// model, with the class model-based (no closed form of a domain speaks of
// them), minimum n and diagnostic of SPEC 1d (reg: its beta).
func TestModelRegistry(t *testing.T) {
	for _, tc := range []struct {
		name  string
		class estimators.Class
		minN  int
		diags int
	}{
		{"dm", estimators.ModelBased, 1, 0}, {"dr", estimators.ModelBased, 1, 0}, {"wdr", estimators.ModelBased, 1, 0}, {"magic", estimators.ModelBased, 2, 1},
		{"reg", estimators.ModelBased, 1, 1},
	} {
		info, ok := estimators.Lookup(tc.name)
		if !ok {
			t.Fatalf("%s: not registered", tc.name)
		}
		if info.Needs != estimators.Model || info.Class != tc.class || info.MinN != tc.minN || len(info.Diagnostics) != tc.diags || info.Default != (tc.name != "reg") {
			t.Errorf("%s: %+v", tc.name, info)
		}
		e, _ := estimators.New(tc.name)
		if e.Name() != tc.name {
			t.Errorf("%s: Name() = %q", tc.name, e.Name())
		}
		if _, ok := e.(estimators.Reporter); ok != (tc.diags > 0) {
			t.Errorf("%s: Reporter %v, diagnostics %d", tc.name, ok, tc.diags)
		}
	}
	// a default needing the model only where the data has one (issue 32)
	for _, name := range estimators.Defaults(estimators.SplitPoints | estimators.Options | estimators.IDs | estimators.Probs) {
		if info, _ := estimators.Lookup(name); info.Needs&estimators.Model != 0 {
			t.Errorf("default estimators on data without a model include %s, which needs the model", name)
		}
	}
}

// TestAppendJ: J of SPEC 1d for several horizons.
func TestAppendJ(t *testing.T) {
	for _, tc := range []struct {
		h    int
		want []int
	}{
		{0, []int{0}}, {1, []int{0, 1}}, {2, []int{0, 1, 2}}, {3, []int{0, 1, 2, 3}},
		{4, []int{0, 1, 2, 4}}, {5, []int{0, 1, 2, 4, 5}}, {100, []int{0, 1, 2, 4, 8, 16, 32, 64, 100}},
	} {
		got := appendJ(nil, tc.h)
		if len(got) != len(tc.want) {
			t.Errorf("H = %d: J = %v, want %v", tc.h, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("H = %d: J = %v, want %v", tc.h, got, tc.want)
				break
			}
		}
	}
}

// TestModelAllZero: rewards and model columns all 0 (as on the chain of
// SPEC 2.1 where every weight that meets a reward is 0, with a zero
// model): every estimate is exactly 0. For magic every g_j is 0, so Omega
// = 0, b = 0 and M = lambda I with lambda at its floor, 1e-10 * 1e-300 (a
// subnormal number): by symmetry x = 1/|J| for each j.
func TestModelAllZero(t *testing.T) {
	var b trajectory.Batch
	for i := range 6 {
		for s := range 1 + i%4 {
			b.Add(0, float64(s%3))
			b.AddModel(0, 0)
		}
		b.End()
	}
	for _, name := range []string{"dm", "dr", "wdr", "magic", "reg"} {
		if got := estimate(t, name, &b); got != 0 {
			t.Errorf("%s = %v, want 0", name, got)
		}
	}
	e := NewMAGIC()
	if _, err := e.Estimate(&b); err != nil {
		t.Fatal(err)
	}
	if k := len(e.J()); k != 4 { // H = 4: J = (0, 1, 2, 4)
		t.Fatalf("J = %v, want 4 entries", e.J())
	}
	for _, x := range e.X() {
		if math.Abs(x-0.25) > 1e-15 {
			t.Errorf("x = %v, want 1/4 each", e.X())
			break
		}
	}
}
