package models

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFQEHand: handData at H = 3, gamma 1 and 0.5, as regressions. The
// visits and their one-step targets y = r + gamma V_{K-1}(o') (V of
// "ended" 0; A3, at t = H, is censored: its reward is observed, its
// continuation is the pair's mean over its uncensored visits):
//
//	(o0, a0): A1 (r 1, then o1), A3 (r 3, censored)
//	(o0, a1): B1 (r 2, then o1)
//	(o1, a0): B2 (r 1, ended)
//	(o1, a1): A2 (r 0, then o0), C1 (r 4, ended)
//
// gamma 1. K = 1: the targets are the rewards, Q1 = (2, 2 | 1, 2) (means
// of {1, 3}, {2}, {1}, {0, 4}); V1(o0) = 2, V1(o1) = 1/4 + 3/4 2 = 1.75.
// K = 2: (o0, a0): R = 2, continuation V1(o1) = 1.75 (A1 alone), Q2 =
// 3.75; (o0, a1): 2 + 1.75 = 3.75; (o1, a0): 1 + 0 = 1; (o1, a1): mean of
// 0 + V1(o0) = 2 and 4 + 0 = 4, 3. V2(o0) = 3.75, V2(o1) = 1/4 + 3/4 3 =
// 2.5. K = 3: Q3(o0, .) = 2 + 2.5 = 4.5, Q3(o1,a0) = 1, Q3(o1,a1) = mean
// of 0 + 3.75 and 4, 3.875; V3(o0) = 4.5, V3(o1) = 1/4 + 3/4 3.875 =
// 3.15625. Steps A1 A2 A3 B1 B2 C1 read K = 3 2 1 3 2 3: TestFitHand's
// numbers, since tabular FQE is the maximum-likelihood model's dynamic
// program (docs/models.md). gamma 0.5: TestFitHand's second case, the same
// regressions with continuations halved. Dyadic numbers: exact.
func TestFQEHand(t *testing.T) {
	sp := Space{Obs: 2, Actions: 2, Horizon: 3, PiE: table([][]float64{{0.5, 0.5}, {0.25, 0.75}})}
	for _, tc := range []struct {
		gamma        float64
		wantQ, wantV []float64
	}{
		{1, []float64{4.5, 3, 2, 4.5, 1, 3.875}, []float64{4.5, 2.5, 2, 4.5, 2.5, 3.15625}},
		{0.5, []float64{3.0625, 2.5, 2, 3.0625, 1, 2.71875}, []float64{3.0625, 2.125, 2, 3.0625, 2.125, 2.2890625}},
	} {
		b := handData(0, 1)
		var f FQE
		if err := f.FitTo(b, b, sp, tc.gamma); err != nil {
			t.Fatal(err)
		}
		for s := range tc.wantQ {
			if b.QHat[s] != tc.wantQ[s] || b.VHat[s] != tc.wantV[s] {
				t.Errorf("gamma %v, step %d: q_hat, v_hat = %v, %v; want %v, %v", tc.gamma, s, b.QHat[s], b.VHat[s], tc.wantQ[s], tc.wantV[s])
			}
		}
	}
}

// TestFQEEqualsFitted: tabular FQE and the fitted model are the same
// model (docs/models.md); on random data with episodes that end and
// episodes cut at H (censored), actions never taken, sparse ids and
// gamma 1, 0.9, 0.5, FQE's columns equal Fitter's to 1e-12 relative,
// not bit for bit: Fitter sums P(o'|o, a) V(o') over distinct transitions
// (each probability a rounded quotient), FQE sums V(o') over the visits
// in four partial sums and divides once. The test reports how many of the
// columns happen to be equal bit for bit, and the largest difference.
func TestFQEEqualsFitted(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	for _, tc := range []struct {
		name string
		n, h int
	}{
		{"short", 2000, 5},
		{"long", 500, 40},
	} {
		b, sp := offPolicy(rng, tc.n, tc.h, 25, 4)
		for _, gamma := range []float64{1, 0.9, 0.5} {
			var f Fitter
			wq, wv := fit(t, &f, b, sp, gamma)
			q, v := fit(t, new(FQE), b, sp, gamma)
			d := max(maxRelDiff(q, wq), maxRelDiff(v, wv))
			if d > 1e-12 {
				t.Errorf("%s, gamma %v: fqe is %.3g from fitted", tc.name, gamma, d)
			}
			same := 0
			for s := range q {
				if math.Float64bits(q[s]) == math.Float64bits(wq[s]) {
					same++
				}
			}
			t.Logf("%s (%d steps), gamma %v: largest difference %.3g, q_hat equal bit for bit at %d steps", tc.name, b.Steps(), gamma, d, same)
		}
	}
}

// TestFQEDirect: FQE against the direct implementation (newRef with no
// trace: every pair's regression recomputed from its visits' targets) on
// random data, to refTol.
func TestFQEDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 7))
	b, sp := offPolicy(rng, 300, 8, 12, 3)
	for _, gamma := range []float64{1, 0.8} {
		wq, wv := newRef(b, sp, gamma, nil).columns(b, sp)
		q, v := fit(t, new(FQE), b, sp, gamma)
		if d := max(maxRelDiff(q, wq), maxRelDiff(v, wv)); d > refTol {
			t.Errorf("gamma %v: %.3g from the direct implementation", gamma, d)
		}
	}
}
