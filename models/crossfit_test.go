package models

import (
	"math"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// crossFitBatch: two trajectories of the same observation id 7 and action
// id 3, pi_e 0.5 there, rewards discounted by gamma = 0.5 (the view
// trajectory.Discounted gives): trajectory 0 one step of r = 1; trajectory
// 1 two steps of r = 2 and r = 4, the second seen as 0.5 x 4 = 2.
func crossFitBatch() *trajectory.Batch {
	var b trajectory.Batch
	for _, tr := range [][]float64{{1}, {2, 2}} {
		for _, r := range tr {
			b.Add(r, 1)
			b.AddIDs(7, 3)
			b.AddProbs(0.5, 0.5)
		}
		b.End()
	}
	b.Gamma = 0.5
	return &b
}

// TestCrossFitHand: fold A is trajectory 0, fold B trajectory 1 (n = 2,
// ceil(n/2) = 1); the ids are compact (observation 0, action 0, and the
// extra action of the unlogged mass, pi_e 0.5, q 0); H = 2. Fold B's
// undiscounted rewards are 2 and 4. The model of fold B, read on fold A's
// step (t = 1, K = 2 steps left): R(0, 0) = (2 + 4)/2 = 3; of its two
// visits only the first is uncensored, followed by observation 0, so
// P(0|0, 0) = 1; Q_1 = 3, V_1 = 0.5 x 3 = 1.5; Q_2 = 3 + 0.5 x 1.5 =
// 3.75, V_2 = 1.875. The model of fold A (one visit at t = 1, ended
// there: P(end) = 1), read on fold B at t = 1 (K = 2) and t = 2 (K = 1):
// Q = R = 1, V = 0.5.
func TestCrossFitHand(t *testing.T) {
	b := crossFitBatch()
	var c CrossFit
	m, err := c.Fit(b)
	if err != nil || m != 1 || c.Half() != 1 {
		t.Fatalf("Fit: %d observations, half %d, %v; want 1, 1, nil", m, c.Half(), err)
	}
	if got := c.Fold(1).Reward; len(got) != 2 || got[0] != 2 || got[1] != 4 {
		t.Errorf("fold B's rewards %v, want the undiscounted [2 4]", got)
	}
	for _, tc := range []struct {
		s, fs int
		q, v  float64
	}{
		{0, 0, 3.75, 1.875}, {1, 0, 1, 0.5}, {2, 1, 1, 0.5},
	} {
		q, v, fs := c.Columns(tc.s)
		if fs != tc.fs || math.Abs(q[fs]-tc.q) > 1e-15 || math.Abs(v[fs]-tc.v) > 1e-15 {
			t.Errorf("step %d: q %v v %v at %d, want %v %v at %d", tc.s, q[fs], v[fs], fs, tc.q, tc.v, tc.fs)
		}
	}
	if got := c.Obs(); len(got) != 3 || got[0] != 0 || got[2] != 0 {
		t.Errorf("compact observations %v, want [0 0 0]", got)
	}
	if p := c.Pow(); len(p) != 3 || p[2] != 0.25 {
		t.Errorf("powers of gamma %v, want [1 0.5 0.25]", p)
	}
}

// TestCrossFitWarm: a warm CrossFit refits a batch of the same size
// without allocating, to the same columns.
func TestCrossFitWarm(t *testing.T) {
	b := crossFitBatch()
	var c CrossFit
	if _, err := c.Fit(b); err != nil {
		t.Fatal(err)
	}
	q, _, _ := c.Columns(0)
	want := q[0]
	if a := testing.AllocsPerRun(5, func() { _, _ = c.Fit(b) }); a != 0 {
		t.Errorf("a warm Fit allocates %v times", a)
	}
	if q, _, _ := c.Columns(0); q[0] != want {
		t.Errorf("refit: q %v, first fit %v", q[0], want)
	}
}

// TestCrossFitKind: the learner comes from the registry entry Kind names
// (fitted-t gives fold A the model of fold B indexed by the step:
// Q_1(0, 0) = R_1 + 0.5 V_2(0) = 2 + 0.5 x (0.5 x 4) = 3, where `fitted`
// gives 3.75); a kind without a learner, or an unknown one, is refused.
func TestCrossFitKind(t *testing.T) {
	c := CrossFit{Kind: "fitted-t"}
	if _, err := c.Fit(crossFitBatch()); err != nil {
		t.Fatal(err)
	}
	if q, _, _ := c.Columns(0); q[0] != 3 {
		t.Errorf("fitted-t on fold A: q %v, want 3", q[0])
	}
	for _, kind := range []string{"exact", "fqe-typo"} {
		c := CrossFit{Kind: kind}
		if _, err := c.Fit(crossFitBatch()); err == nil || !strings.HasPrefix(err.Error(), "cross-fitting: ") {
			t.Errorf("kind %s: %v, want a cross-fitting error", kind, err)
		}
	}
}
