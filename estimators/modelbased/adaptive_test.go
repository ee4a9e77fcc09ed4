package modelbased

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestAdaptiveHand: two trajectories of H = 2, so J = {1, 2} and the
// candidates are (g_1, g_2 = cwpdis, wis); n = 2, so every influence
// vector is phi^1 = v, phi^2 = -v (they sum to 0) and Omega = v v^T / 2.
// With one reward Delta at t = 2 (on trajectory 1) and none at t = 1, a
// candidate with weights (B1, B2) at t = 2 has g = B1 Delta / (B1 + B2)
// and v = n B1 B2 Delta / (B1 + B2)^2 (phi^1 = n B1 (Delta - g) / S), and
// wis equals the anchor (one reward, at t = H). So b = (|g_1 - g_2|, 0, 0),
// the anchor and wis are one candidate (the ridge splits their weight),
// x = (s, x_2, x_3) with x_2 + x_3 = 1 - s, and
// x^T M x = (v_2 + (v_1 - v_2) s)^2 / 2 + b_1^2 s^2 (+ the ridge), minimised
// over [0, 1] at s = v_2 (v_2 - v_1) / ((v_1 - v_2)^2 + 2 b_1^2) (when that
// is in [0, 1]); the estimate is s g_1 + (1 - s) g_2.
func TestAdaptiveHand(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *trajectory.Batch
		g, v [3]float64 // g_1, g_2, wis and their v
		s    float64    // the closed form above, evaluated
	}{
		{
			// traj 1: (r 0, f 0.5), (r 4, f 2); traj 2: (r 0, f 2), (r 0, f 0.5).
			// window 1 at t = 2: B = (2, 0.5): g_1 = 8/2.5 = 3.2, v_1 = 2*2*0.5*4/6.25 = 1.28.
			// anchor: W_2 = (1, 1): g_2 = 4/2 = 2, v_2 = 2*1*1*4/4 = 2.
			// wis: W_H = (1, 1), G = (4, 0): 2, v_w = 2*1*(4-2)/2 = 2.
			// b_1 = 1.2: s = 2*0.72/(0.72^2 + 2*1.44) = 1.44/3.3984 = 0.42373...
			name: "window with less variance",
			b:    batchOf([]step{{0, 0.5}, {4, 2}}, []step{{0, 2}, {0, 0.5}}),
			g:    [3]float64{3.2, 2, 2}, v: [3]float64{1.28, 2, 2}, s: 1.44 / 3.3984,
		},
		{
			// traj 1: (r 0, f 0.125), (r 4, f 8); traj 2: (r 0, f 3), (r 0, f 1).
			// window 1: B = (8, 1): g_1 = 32/9, v_1 = 2*8*1*4/81 = 64/81.
			// anchor: W_2 = (1, 3): g_2 = 4/4 = 1, v_2 = 2*1*3*4/16 = 1.5.
			// wis: W_H = (1, 3), G = (4, 0): 1, v_w = 2*1*(4-1)/4 = 1.5.
			// b_1 = 23/9: s = 1.5 (1.5 - 64/81) / ((1.5 - 64/81)^2 + 2 (23/9)^2) = 0.0785...
			name: "window far from the anchor",
			b:    batchOf([]step{{0, 0.125}, {4, 8}}, []step{{0, 3}, {0, 1}}),
			g:    [3]float64{32.0 / 9, 1, 1}, v: [3]float64{64.0 / 81, 1.5, 1.5},
			s: 1.5 * (1.5 - 64.0/81) / ((1.5-64.0/81)*(1.5-64.0/81) + 2*(23.0/9)*(23.0/9)),
		},
		{
			// the same with r = 4 on traj 2 at t = 2 instead: every
			// candidate is 4 and every influence term 0 (r = rhat), so
			// Omega = 0, b = 0, M = lambda I: x = (1/3, 1/3, 1/3), estimate 4.
			name: "all candidates agree",
			b:    batchOf([]step{{0, 0.125}, {4, 8}}, []step{{0, 3}, {4, 1}}),
			g:    [3]float64{4, 4, 4}, s: 1.0 / 3,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewAdaptiveBlend()
			got, err := e.Estimate(tc.b)
			if err != nil {
				t.Fatal(err)
			}
			for a := range 3 {
				if !relNear(e.g[a], tc.g[a], 1e-15) {
					t.Errorf("g[%d] = %v, want %v", a, e.g[a], tc.g[a])
				}
				for c := range 3 {
					if w := tc.v[a] * tc.v[c] / 2; math.Abs(e.com[a*3+c]-w) > 1e-14*max(1, w) {
						t.Errorf("Omega[%d][%d] = %v, want v_a v_c / 2 = %v", a, c, e.com[a*3+c], w)
					}
				}
			}
			if b := e.bias[0]; math.Abs(b-math.Abs(tc.g[0]-tc.g[1])) > 1e-14 || e.bias[1] != 0 || e.bias[2] != 0 {
				t.Errorf("b = %v, want (|g_1 - g_2|, 0, 0) = (%v, 0, 0)", e.bias, math.Abs(tc.g[0]-tc.g[1]))
			}
			x := e.X()
			// x_2 - x_3 is decided by the ridge alone (curvature lambda), so
			// only x_1 and x_2 + x_3 are checked
			if len(x) != 3 || math.Abs(x[0]-tc.s) > 1e-8 || math.Abs(x[1]+x[2]-(1-tc.s)) > 1e-8 {
				t.Errorf("x = %v, want x_1 = %v, x_2 + x_3 = %v", x, tc.s, 1-tc.s)
			}
			want := tc.s*tc.g[0] + (1-tc.s)*tc.g[1]
			if math.Abs(got-want) > 1e-8*math.Abs(want) {
				t.Errorf("adaptive = %v, want %v", got, want)
			}
		})
	}
}

// TestAdaptiveOnPolicy: with every factor 1 every candidate is the mean
// of the returns (each step's self-normalised mean is the plain mean, and
// their sum is the mean of the sums), so the blend is too, whatever x is.
func TestAdaptiveOnPolicy(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 3))
	for _, tc := range []struct{ n, h int }{{1, 5}, {2, 1}, {7, 13}, {200, 40}} {
		var b trajectory.Batch
		sum := 0.0
		for range tc.n {
			l := 1 + rng.IntN(tc.h)
			for range l {
				r := rng.NormFloat64() * 3
				sum += r
				b.Add(r, 1)
			}
			b.End()
		}
		want := sum / float64(tc.n)
		e := NewAdaptiveBlend()
		got, err := e.Estimate(&b)
		if err != nil {
			t.Fatal(err)
		}
		if !near(got, want, 1e-12) {
			t.Errorf("n = %d, H = %d: adaptive = %v, mean return %v", tc.n, b.Horizon(), got, want)
		}
	}
}

// TestAdaptiveAnchorOnly: with H = 1 the only candidate is the anchor
// (J = {1} and wis is cwpdis), so x = (1) and adaptive is cwpdis bit for
// bit; likewise with no steps at all (0).
func TestAdaptiveAnchorOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := range 20 {
		var b trajectory.Batch
		for range 1 + rng.IntN(30) {
			if rng.IntN(5) > 0 {
				b.Add(rng.NormFloat64(), rng.Float64()*3)
			}
			b.End()
		}
		want := estimate(t, "cwpdis", &b)
		e := NewAdaptiveBlend()
		got, err := e.Estimate(&b)
		if err != nil {
			t.Fatal(err)
		}
		if !sameFloat(got, want) || len(e.X()) != 1 || e.X()[0] != 1 {
			t.Errorf("trial %d (H = %d): adaptive = %v, x = %v; cwpdis = %v", trial, b.Horizon(), got, e.X(), want)
		}
	}
}

// adaptiveBatches are the shapes the property tests run on.
func adaptiveBatches(rng *rand.Rand) []*trajectory.Batch {
	return []*trajectory.Batch{
		randomBatch(rng, 50, 17),
		optionBatch(rng, 80, 12),
		subepisodeBatch(rng, 300, 10),
		subepisodeBatch(rng, 5, 3),
		chainAllA1(9),
	}
}

// TestAdaptiveWeights: x >= 0, sum x = 1, one weight per candidate
// (|J| + 1 for H >= 2), and the estimate lies between the smallest and
// largest candidate (a convex combination).
func TestAdaptiveWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for bi, b := range adaptiveBatches(rng) {
		e := NewAdaptiveBlend()
		got, err := e.Estimate(b)
		if err != nil {
			t.Fatal(err)
		}
		x := e.X()
		wantK := len(e.J()) + 1
		if len(x) != wantK || e.J()[len(e.J())-1] != b.Horizon() {
			t.Errorf("batch %d: %d weights, J = %v, H = %d", bi, len(x), e.J(), b.Horizon())
		}
		sum, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
		for a, xa := range x {
			if !(xa >= 0) {
				t.Errorf("batch %d: x[%d] = %v < 0", bi, a, xa)
			}
			sum += xa
			lo, hi = min(lo, e.g[a]), max(hi, e.g[a])
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("batch %d: sum x = %v", bi, sum)
		}
		if got < lo-1e-12*math.Abs(lo) || got > hi+1e-12*math.Abs(hi) {
			t.Errorf("batch %d: adaptive = %v outside the candidates' range [%v, %v]", bi, got, lo, hi)
		}
		if d := e.AppendDiagnostic(nil, 0); len(d) != len(x) {
			t.Errorf("batch %d: diagnostic %v, x %v", bi, d, x)
		}
	}
}

// TestAdaptiveCandidates: the anchor is cwpdis and the last candidate wis,
// bit for bit; the window candidates equal a direct computation of
// sum_t sum_i B_{t,j} r_t / sum_i B_{t,j} with the products taken factor
// by factor (padding literal), to rounding.
func TestAdaptiveCandidates(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	for bi, b := range adaptiveBatches(rng) {
		e := NewAdaptiveBlend()
		if _, err := e.Estimate(b); err != nil {
			t.Fatal(err)
		}
		nw := len(e.J())
		if c := estimate(t, "cwpdis", b); !sameFloat(e.g[nw-1], c) {
			t.Errorf("batch %d: anchor %v, cwpdis %v", bi, e.g[nw-1], c)
		}
		if w := estimate(t, "wis", b); !sameFloat(e.g[nw], w) {
			t.Errorf("batch %d: last candidate %v, wis %v", bi, e.g[nw], w)
		}
		f := b.Factors(nil)
		h := b.Horizon()
		for a, j := range e.J()[:nw-1] {
			want := 0.0
			for s := range h {
				num, den := 0.0, 0.0
				for i := range b.N() {
					lo, l := b.Offsets[i], b.Len(i)
					w := 1.0
					for u := max(0, s-j+1); u <= s && u < l; u++ {
						w *= f[lo+u]
					}
					den += w
					if s < l {
						num += w * b.Reward[lo+s]
					}
				}
				want += weights.Ratio(num, den)
			}
			if !near(e.g[a], want, 1e-12) {
				t.Errorf("batch %d: g_%d = %v, direct %v", bi, j, e.g[a], want)
			}
		}
	}
}

// TestAdaptiveReruns: the same batch gives the same bits from a fresh
// estimator, a reused one, and after another batch in between.
func TestAdaptiveReruns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	bs := adaptiveBatches(rng)
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

// TestAdaptiveNoAllocs: once warm, Estimate allocates nothing, on
// primitive and options data and on the scaled path.
func TestAdaptiveNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for bi, b := range []*trajectory.Batch{subepisodeBatch(rng, 300, 10), optionBatch(rng, 100, 9), chainAllA1(1100)} {
		e := NewAdaptiveBlend()
		if _, err := e.Estimate(b); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(5, func() { e.Estimate(b) }); a != 0 {
			t.Errorf("batch %d: %v allocations per Estimate", bi, a)
		}
	}
}

// TestAdaptiveScaled: weights beyond float64 take the scaled path and stay
// exact. chainAllA1(1100): one trajectory of weight 2^1100 with reward 1 at
// t = H, one of weight 0: every candidate is 1 (each step without reward
// gives 0/den = 0, t = H gives 2^j / 2^j), every influence term is 0, so
// adaptive = 1. And multiplying every trajectory's first factor by 2^1020 or 2^-1060
// changes no self-normalised ratio (a common factor of each column that
// holds it) and no influence term: the estimate is unchanged.
func TestAdaptiveScaled(t *testing.T) {
	e := NewAdaptiveBlend()
	got, err := e.Estimate(chainAllA1(1100))
	if err != nil || math.Abs(got-1) > 1e-15 {
		t.Errorf("adaptive on 2^1100 weights = %v, %v; want 1", got, err)
	}
	if !e.scaled {
		t.Error("2^1100 weights did not take the scaled path")
	}
	rng := rand.New(rand.NewPCG(12, 12))
	b := subepisodeBatch(rng, 200, 8)
	want, err := NewAdaptiveBlend().Estimate(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, exp := range []int{1020, -1060} { // overflow; underflow (subnormal factors)
		var big trajectory.Batch
		for i := range b.N() {
			lo, hi := b.Offsets[i], b.Offsets[i+1]
			for s := lo; s < hi; s++ {
				f := b.Ratio[s]
				if s == lo {
					f = math.Ldexp(f, exp)
				}
				big.Add(b.Reward[s], f)
			}
			big.End()
		}
		got, err = e.Estimate(&big)
		if err != nil || !e.scaled || !near(got, want, 1e-12) {
			t.Errorf("first factors times 2^%d: %v, %v (scaled %v); want %v", exp, got, err, e.scaled, want)
		}
	}
}

// TestAdaptiveErrors: no trajectories is estimators.ErrTooFew; a single one works
// (Omega = 0: the anchor's interval is a point).
func TestAdaptiveErrors(t *testing.T) {
	var empty trajectory.Batch
	if _, err := NewAdaptiveBlend().Estimate(&empty); !errors.Is(err, estimators.ErrTooFew) {
		t.Errorf("n = 0: %v, want estimators.ErrTooFew", err)
	}
	// one trajectory, f = (2, 0.5), r = (1, 3): every candidate is
	// sum_t r_t = 4 (n = 1: each ratio is B r / B), so adaptive = 4.
	one := batchOf([]step{{1, 2}, {3, 0.5}})
	if got, err := NewAdaptiveBlend().Estimate(one); err != nil || math.Abs(got-4) > 1e-15 {
		t.Errorf("n = 1: %v, %v; want 4", got, err)
	}
}
