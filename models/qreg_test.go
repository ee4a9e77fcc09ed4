package models

import (
	"math"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// wstep is one logged step with its ratio: observation id, action id,
// reward, rho = pi_e(a|o) / pi_b(a|o).
type wstep struct {
	o, a   int32
	r, rho float64
}

// weightedBatch builds a batch with ids and ratios from trajectories.
func weightedBatch(trajs [][]wstep) *trajectory.Batch {
	var b trajectory.Batch
	for _, tr := range trajs {
		for _, s := range tr {
			b.Add(s.r, s.rho)
			b.AddIDs(s.o, s.a)
		}
		b.End()
	}
	return &b
}

// weightedHand is the data set of the hand-computed cases of q-reg and
// mrdr, at gamma = 1/2 over 2 observations, 2 actions, H = 3, with
// pi_e(.|o) = (1/4, 3/4) at both observations:
//
//	A (3 steps, cut by the horizon): (o0, a0, r 1, rho 2) -> (o1, a1, r 2, rho 1/2) -> (o0, a1, r 4, rho 1)
//	B (2 steps, ended):              (o0, a0, r 3, rho 1/2) -> (o1, a1, r 1, rho 2)
//
// gamma^(t-1) W_t: A 2, 1/2 (= 1/2 * 2 * 1/2), 1/4 (= 1/4 * 1); B 1/2, 1/2 (= 1/2 * 1/2 * 2).
// The PDIS tails gamma^(t-1) W_t G_t = sum_{tau >= t} gamma^(tau-1) W_tau r_tau:
// A3 = 1/4 * 4 = 1, A2 = 1 + 1/2 * 2 = 2, A1 = 2 + 2 * 1 = 4; B2 = 1/2 * 1 = 1/2, B1 = 1/2 + 1/2 * 3 = 2
// (A1's G_1 = 1 + 1/2 * 1/2 * 2 + 1/4 * 1/2 * 1 * 4 = 2, times W_1 = 2: 4).
func weightedHand() (*trajectory.Batch, Space) {
	b := weightedBatch([][]wstep{
		{{0, 0, 1, 2}, {1, 1, 2, 0.5}, {0, 1, 4, 1}},
		{{0, 0, 3, 0.5}, {1, 1, 1, 2}},
	})
	sp := Space{Obs: 2, Actions: 2, Horizon: 3, PiE: table([][]float64{{0.25, 0.75}, {0.25, 0.75}})}
	return b, sp
}

// TestQRegHand: q-reg on weightedHand, Q(o, a) = sum of the tails / sum
// of the weights gamma^(t-1) W_t over the visits of (o, a):
//
//	(o0, a0): A1, B1: (4 + 2) / (2 + 1/2) = 2.4
//	(o1, a1): A2, B2: (2 + 1/2) / (1/2 + 1/2) = 2.5
//	(o0, a1): A3:     1 / (1/4) = 4 (G_3 = r_3: the horizon cut it)
//	(o1, a0): never visited: 0
//	V(o0) = 1/4 * 2.4 + 3/4 * 4 = 3.6,  V(o1) = 1/4 * 0 + 3/4 * 2.5 = 1.875.
func TestQRegHand(t *testing.T) {
	b, sp := weightedHand()
	var l QReg
	if err := l.FitTo(b, b, sp, 0.5); err != nil {
		t.Fatal(err)
	}
	wantQ := []float64{2.4, 2.5, 4, 2.4, 2.5}
	wantV := []float64{3.6, 1.875, 3.6, 3.6, 1.875}
	for s := range wantQ {
		if math.Abs(b.QHat[s]-wantQ[s]) > 1e-15*wantQ[s] || math.Abs(b.VHat[s]-wantV[s]) > 1e-15*wantV[s] {
			t.Errorf("step %d: q_hat %v, v_hat %v; want %v, %v", s, b.QHat[s], b.VHat[s], wantQ[s], wantV[s])
		}
	}
}

// TestWeightedToOther: fitted on weightedHand and read on another batch,
// both learners write Q(o, a) and V(o) of the fit at every step, q = 0
// at the pair (o1, a0) the fit never visits (v_hat still V(o1)), and
// q_hat = v_hat = 0 at an observation (id 2) it never visits.
func TestWeightedToOther(t *testing.T) {
	train, sp := weightedHand()
	sp.Obs = 3
	to := weightedBatch([][]wstep{{{1, 0, 0, 1}, {2, 1, 0, 1}, {0, 1, 0, 1}}})
	for _, l := range []Learner{new(QReg), new(MRDR)} {
		self := clone(train)
		if err := l.FitTo(self, self, sp, 0.5); err != nil {
			t.Fatal(err)
		}
		if err := l.FitTo(train, to, sp, 0.5); err != nil {
			t.Fatal(err)
		}
		want := []struct{ q, v float64 }{{0, self.VHat[1]}, {0, 0}, {self.QHat[2], self.VHat[2]}}
		for s, w := range want {
			if to.QHat[s] != w.q || to.VHat[s] != w.v {
				t.Errorf("%T, step %d: q_hat %v, v_hat %v; want %v, %v", l, s, to.QHat[s], to.VHat[s], w.q, w.v)
			}
		}
	}
}

// TestWeightedErrors: both learners refuse what Fitter refuses, and a
// batch without one ratio a step, a negative or infinite ratio, and
// weights that overflow (ratio 10^200 twice); the message names the
// problem, and the batch's columns are not written.
func TestWeightedErrors(t *testing.T) {
	base, sp := weightedHand()
	for _, tc := range []struct {
		name, want string
		edit       func(b *trajectory.Batch)
	}{
		{"no ratios", "ratios for", func(b *trajectory.Batch) { b.Ratio = nil }},
		{"negative ratio", "ratio -1", func(b *trajectory.Batch) { b.Ratio[1] = -1 }},
		{"infinite ratio", "ratio +Inf", func(b *trajectory.Batch) { b.Ratio[1] = math.Inf(1) }},
		{"overflow", "overflows", func(b *trajectory.Batch) { b.Ratio[0], b.Ratio[1] = 1e200, 1e200 }},
		{"reward", "reward NaN", func(b *trajectory.Batch) { b.Reward[2] = math.NaN() }},
		{"action id", "not in [0, 2) x [0, 2)", func(b *trajectory.Batch) { b.Action[2] = 2 }},
		{"too long", "longer than the horizon", func(b *trajectory.Batch) { b.Offsets = []int{0, 5} }},
		{"no ids", "no observation and action ids", func(b *trajectory.Batch) { b.Obs = nil }},
	} {
		for _, l := range []Learner{new(QReg), new(MRDR)} {
			b := clone(base)
			tc.edit(b)
			err := l.FitTo(b, b, sp, 0.5)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%T, %s: error %v, want one containing %q", l, tc.name, err, tc.want)
			}
			if len(b.QHat) != 0 {
				t.Errorf("%T, %s: columns written on error", l, tc.name)
			}
		}
	}
}
