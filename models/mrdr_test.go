package models

import (
	"math"
	"testing"
)

// TestMRDRHand: mrdr on weightedHand (qreg_test.go). With
// c_t = gamma^(2(t-1)) W_{t-1}^2 rho_t and c_t G_t = gamma^(t-1) W_{t-1}
// times the PDIS tail:
//
//	A1: c = 1 * 1 * 2 = 2,           c G = 1 * 4 = 4
//	A2: c = 1/4 * 4 * 1/2 = 1/2,     c G = 1 * 2 = 2      (gamma W_1 = 1)
//	A3: c = 1/16 * 1 * 1 = 1/16,     c G = 1/4 * 1 = 1/4  (gamma^2 W_2 = 1/4)
//	B1: c = 1/2,                     c G = 2
//	B2: c = 1/4 * 1/4 * 2 = 1/8,     c G = 1/4 * 1/2 = 1/8
//
// so sum c over o0's visits = 2 + 1/16 + 1/2 = 41/16, over o1's = 5/8, and
// Q(o, a) = sum_{(o, a)} c G / (pi_e(a|o) sum_o c):
//
//	(o0, a0) = (4 + 2) / (1/4 * 41/16) = 384/41,  (o0, a1) = (1/4) / (3/4 * 41/16) = 16/123,
//	(o1, a1) = (2 + 1/8) / (3/4 * 5/8) = 68/15,   (o1, a0) = 0 (never visited);
//	V(o0) = (6 + 1/4) / (41/16) = 100/41,  V(o1) = (17/8) / (5/8) = 3.4.
func TestMRDRHand(t *testing.T) {
	b, sp := weightedHand()
	var l MRDR
	if err := l.FitTo(b, b, sp, 0.5); err != nil {
		t.Fatal(err)
	}
	q00, q01, q11 := 384.0/41, 16.0/123, 68.0/15
	v0, v1 := 100.0/41, 3.4
	wantQ := []float64{q00, q11, q01, q00, q11}
	wantV := []float64{v0, v1, v0, v0, v1}
	for s := range wantQ {
		if math.Abs(b.QHat[s]-wantQ[s]) > 1e-14*wantQ[s] || math.Abs(b.VHat[s]-wantV[s]) > 1e-14*wantV[s] {
			t.Errorf("step %d: q_hat %v, v_hat %v; want %v, %v", s, b.QHat[s], b.VHat[s], wantQ[s], wantV[s])
		}
	}
}

// TestMRDRMinimisesVariance: on random data from behaviour policies that
// depend on the observation (known tables), the MRDR Q zeroes the
// gradient of the objective J of Farajtabar et al. 2018 (docs/models-
// weighted.md), computed literally with D = diag pi_e(.|o) and
// Omega(o) = diag(1/pi_b(.|o)) - 1 1^T, and no random perturbation of Q
// lowers J: at observations where pi_b has mass outside the actions with
// pi_e > 0 (Omega definite there) and at those where it has not (Omega
// singular: the minimiser is one of a line, on which J is flat). Tolerance:
// the gradient within 1e-9 of the sum of its terms' sizes (rounding).
func TestMRDRMinimisesVariance(t *testing.T) {
	d := newWeightedData(71, 300, 8, 6, 3)
	var l MRDR
	b := clone(d.b)
	if err := l.FitTo(b, b, d.sp, d.gamma); err != nil {
		t.Fatal(err)
	}
	q := d.qTable(b)
	grad, scale := d.mrdrGradient(q)
	for k, g := range grad {
		if math.Abs(g) > 1e-9*scale[k] {
			t.Errorf("dJ/dQ(%d, %d) = %v, not 0 (its terms' sizes sum to %v)", k/d.sp.Actions, k%d.sp.Actions, g, scale[k])
		}
	}
	j0 := d.mrdrObjective(q)
	for trial := range 20 {
		moved := make([]float64, len(q))
		for k := range q {
			moved[k] = q[k] + 0.01*d.rng.NormFloat64()
		}
		if j := d.mrdrObjective(moved); j < j0*(1-1e-12) {
			t.Errorf("perturbation %d lowers J from %v to %v", trial, j0, j)
		}
	}
	if d.singular == 0 || d.singular == d.sp.Obs {
		t.Errorf("%d of %d observations with a singular Omega: the test does not reach both cases", d.singular, d.sp.Obs)
	}
}
