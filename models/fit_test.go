package models

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// step is one logged step: observation id, action id, reward.
type step struct {
	o, a int32
	r    float64
}

// batchOf builds a batch with ids from trajectories of steps (ratio 1).
func batchOf(trajs [][]step) *trajectory.Batch {
	var b trajectory.Batch
	for _, tr := range trajs {
		for _, s := range tr {
			b.Add(s.r, 1)
			b.AddIDs(s.o, s.a)
		}
		b.End()
	}
	return &b
}

// table returns a PiE reading pi_e(.|o) from tab[o].
func table(tab [][]float64) func(o int, dst []float64) {
	return func(o int, dst []float64) { copy(dst, tab[o]) }
}

// handData is the tiny data set of TestFitHand, with observations o0 and
// o1 written as ids x and y and actions a0, a1 as 0, 1:
//
//	A (3 steps): (o0, a0, r 1) -> (o1, a1, r 0) -> (o0, a0, r 3), end
//	B (2 steps): (o0, a1, r 2) -> (o1, a0, r 1), end
//	C (1 step):  (o1, a1, r 4), end
//
// Visits, hence the model (at H = 3, A3 is censored, SPEC 1f: its reward
// counts in R, not in P; at H = 4 it "ended", P(o1) = P(end) = 1/2):
//
//	(o0, a0): A1 (r 1, then o1), A3 (r 3, t = 3): R = 2, P(o1) = 1 (H 3)
//	(o0, a1): B1 (r 2, then o1):                  R = 2, P(o1) = 1
//	(o1, a0): B2 (r 1, ended):                    R = 1, P(end) = 1
//	(o1, a1): A2 (r 0, then o0), C1 (r 4, ended): R = 2, P(o0) = 1/2, P(end) = 1/2
func handData(x, y int32) *trajectory.Batch {
	return batchOf([][]step{
		{{x, 0, 1}, {y, 1, 0}, {x, 0, 3}},
		{{x, 1, 2}, {y, 0, 1}},
		{{y, 1, 4}},
	})
}

// TestFitHand checks every q_hat and v_hat of handData against the dynamic
// program worked out by hand. Steps are in the order A1 A2 A3 B1 B2 C1, at
// t = 1 2 3 1 2 1. Every number below is a dyadic rational reached by
// exact floating-point operations, so the comparison is exact.
func TestFitHand(t *testing.T) {
	// pi_e(.|o0) = (1/2, 1/2), pi_e(.|o1) = (1/4, 3/4).
	two := [][]float64{{0.5, 0.5}, {0.25, 0.75}}
	for _, tc := range []struct {
		name         string
		x, y         int32 // ids of o0 and o1
		sp           Space
		gamma        float64
		wantQ, wantV []float64
	}{
		{
			// A3 censored: P(o1|o0,a0) = 1.
			// K = 1: Q1 = R = (2, 2 | 1, 2); V1(o0) = 2, V1(o1) = 1/4 + 3/4*2 = 1.75.
			// K = 2: Q2(o0,a0) = Q2(o0,a1) = 2 + 1.75 = 3.75,
			//        Q2(o1,a0) = 1, Q2(o1,a1) = 2 + 1/2*2 = 3;
			//        V2(o0) = 3.75, V2(o1) = 1/4 + 3/4*3 = 2.5.
			// K = 3: Q3(o0,a0) = Q3(o0,a1) = 2 + 2.5 = 4.5,
			//        Q3(o1,a0) = 1, Q3(o1,a1) = 2 + 1/2*3.75 = 3.875;
			//        V3(o0) = 4.5, V3(o1) = 1/4 + 3/4*3.875 = 3.15625.
			// t = 1, 2, 3 read K = 3, 2, 1.
			name: "gamma 1, H 3", x: 0, y: 1,
			sp: Space{Obs: 2, Actions: 2, PiE: table(two), Horizon: 3}, gamma: 1,
			wantQ: []float64{4.5, 3, 2, 4.5, 1, 3.875},
			wantV: []float64{4.5, 2.5, 2, 4.5, 2.5, 3.15625},
		},
		{
			// A3 censored. K = 1 as above. K = 2: Q2(o0,a0) = Q2(o0,a1) = 2 + 0.5*1.75 = 2.875,
			//   Q2(o1,a0) = 1, Q2(o1,a1) = 2 + 0.5*0.5*2 = 2.5;
			//   V2(o0) = 2.875, V2(o1) = 1/4 + 3/4*2.5 = 2.125.
			// K = 3: Q3(o0,a0) = Q3(o0,a1) = 2 + 0.5*2.125 = 3.0625,
			//   Q3(o1,a0) = 1, Q3(o1,a1) = 2 + 0.25*2.875 = 2.71875;
			//   V3(o0) = 3.0625, V3(o1) = 1/4 + 3/4*2.71875 = 2.2890625.
			// No factor gamma^(t-1): that is trajectory.Discounted's.
			name: "gamma 0.5, H 3", x: 0, y: 1,
			sp: Space{Obs: 2, Actions: 2, PiE: table(two), Horizon: 3}, gamma: 0.5,
			wantQ: []float64{3.0625, 2.5, 2, 3.0625, 1, 2.71875},
			wantV: []float64{3.0625, 2.125, 2, 3.0625, 2.125, 2.2890625},
		},
		{
			// Horizon 4 > the longest trajectory: t = 1, 2, 3 read K = 4, 3, 2,
			// and nothing is censored: A3 ended, P(o1|o0,a0) = P(end|o0,a0) = 1/2.
			// Ids o0 = 3, o1 = 1 of 5 (ids 0, 2, 4 never occur).
			// K = 1: Q1 = R = (2, 2 | 1, 2); V1(o0) = 2, V1(o1) = 1.75.
			// K = 2: Q2(o0,a0) = 2 + 1/2*1.75 = 2.875, Q2(o0,a1) = 3.75, Q2(o1,a0) = 1,
			//   Q2(o1,a1) = 3; V2(o0) = 3.3125, V2(o1) = 2.5.
			// K = 3: Q3(o0,a0) = 2 + 1/2*2.5 = 3.25, Q3(o0,a1) = 4.5, Q3(o1,a0) = 1,
			//   Q3(o1,a1) = 2 + 1/2*3.3125 = 3.65625; V3(o0) = 3.875, V3(o1) = 2.9921875.
			// K = 4: Q4(o0,a0) = 2 + 1/2*2.9921875 = 3.49609375,
			// Q4(o0,a1) = 2 + 2.9921875 = 4.9921875, Q4(o1,a0) = 1,
			// Q4(o1,a1) = 2 + 1/2*3.875 = 3.9375;
			// V4(o0) = (3.49609375 + 4.9921875)/2 = 4.244140625,
			// V4(o1) = 1/4 + 3/4*3.9375 = 3.203125.
			name: "gamma 1, H 4, sparse ids", x: 3, y: 1,
			sp: Space{Obs: 5, Actions: 2, Horizon: 4,
				PiE: table([][]float64{{1, 0}, {0.25, 0.75}, {1, 0}, {0.5, 0.5}, {1, 0}})},
			gamma: 1,
			wantQ: []float64{3.49609375, 3.65625, 2.875, 4.9921875, 1, 3.9375},
			wantV: []float64{4.244140625, 2.9921875, 3.3125, 4.244140625, 2.9921875, 3.203125},
		},
		{
			// A third action a2, never taken: Q_K(., a2) = 0, and pi_e(.|o0) =
			// (1/4, 1/4, 1/2) puts half its weight on it, halving V(o0) against
			// the first case at K = 1. pi_e(.|o1) = (1/4, 3/4, 0).
			// A3 censored. K = 1: Q1 = R; V1(o0) = (2 + 2)/4 = 1, V1(o1) = 1.75.
			// K = 2: Q2(o0,a0) = Q2(o0,a1) = 2 + 1.75 = 3.75 (as in the first case: no
			//   V(o0) in them), Q2(o1,a0) = 1, Q2(o1,a1) = 2 + 1/2*1 = 2.5;
			//   V2(o0) = (3.75 + 3.75)/4 = 1.875, V2(o1) = 1/4 + 3/4*2.5 = 2.125.
			// K = 3: Q3(o0,a0) = Q3(o0,a1) = 2 + 2.125 = 4.125,
			//   Q3(o1,a0) = 1, Q3(o1,a1) = 2 + 1/2*1.875 = 2.9375;
			//   V3(o0) = (4.125 + 4.125)/4 = 2.0625, V3(o1) = 1/4 + 3/4*2.9375 = 2.453125.
			name: "unseen action", x: 0, y: 1,
			sp: Space{Obs: 2, Actions: 3, Horizon: 3,
				PiE: table([][]float64{{0.25, 0.25, 0.5}, {0.25, 0.75, 0}})},
			gamma: 1,
			wantQ: []float64{4.125, 2.5, 2, 4.125, 1, 2.9375},
			wantV: []float64{2.0625, 2.125, 1, 2.0625, 2.125, 2.453125},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := handData(tc.x, tc.y)
			var f Fitter
			if err := f.Fit(b, tc.sp, tc.gamma); err != nil {
				t.Fatal(err)
			}
			if !b.HasModel() {
				t.Fatalf("no model columns: %d q_hat, %d v_hat for %d steps", len(b.QHat), len(b.VHat), b.Steps())
			}
			for s := range tc.wantQ {
				if b.QHat[s] != tc.wantQ[s] || b.VHat[s] != tc.wantV[s] {
					t.Errorf("step %d: q_hat, v_hat = %v, %v; want %v, %v", s, b.QHat[s], b.VHat[s], tc.wantQ[s], tc.wantV[s])
				}
			}
		})
	}
}

// TestFitEmpty: a batch without steps is fitted trivially, its columns
// emptied, and ids are not required.
func TestFitEmpty(t *testing.T) {
	var b trajectory.Batch
	b.End()
	b.End()
	b.QHat, b.VHat = []float64{1}, []float64{2}
	var f Fitter
	if err := f.Fit(&b, Space{Obs: 1, Actions: 1, Horizon: 1, PiE: table([][]float64{{1}})}, 1); err != nil {
		t.Fatal(err)
	}
	if len(b.QHat) != 0 || len(b.VHat) != 0 {
		t.Errorf("columns of %d and %d values, want none", len(b.QHat), len(b.VHat))
	}
}

// dagMDP is a random fully observed MDP whose states are visited in
// increasing order (state s moves to some s' > s or ends; the last state
// always ends), so that every episode ends on its own within S steps and
// the time-homogeneous model is the true one.
type dagMDP struct {
	S, A       int
	mu         [][]float64   // mu[s][a]: P(reward 1); rewards are 0 or 1
	next       [][][]float64 // next[s][a][s']: P(s'|s, a); 1 - their sum: P(end)
	piB, piE   [][]float64
	startState []float64
}

func newDAGMDP(rng *rand.Rand, S, A int) *dagMDP {
	m := &dagMDP{S: S, A: A}
	dist := func(k int, lo float64) []float64 {
		p, sum := make([]float64, k), 0.0
		for i := range p {
			p[i] = lo + rng.Float64()
			sum += p[i]
		}
		for i := range p {
			p[i] /= sum
		}
		return p
	}
	for s := range S {
		m.mu = append(m.mu, dist(A, 0)) // any numbers in [0, 1]
		m.piB = append(m.piB, dist(A, 1))
		m.piE = append(m.piE, dist(A, 0.1))
		var rows [][]float64
		for range A {
			row := make([]float64, S)
			if s < S-1 {
				w := dist(S-s, 0.2) // s+1..S-1, then end
				copy(row[s+1:], w[:S-s-1])
			}
			rows = append(rows, row)
		}
		m.next = append(m.next, rows)
	}
	m.startState = []float64{0.6, 0.4}
	return m
}

// draw returns i with probability p[i] (the rest: len(p)).
func draw(rng *rand.Rand, p []float64) int {
	u := rng.Float64()
	for i, w := range p {
		if u < w {
			return i
		}
		u -= w
	}
	return len(p)
}

// collect appends n episodes under pi_b.
func (m *dagMDP) collect(rng *rand.Rand, n int, b *trajectory.Batch) {
	for range n {
		s := draw(rng, m.startState)
		for s < m.S {
			a := draw(rng, m.piB[s])
			r := 0.0
			if rng.Float64() < m.mu[s][a] {
				r = 1
			}
			b.Add(r, m.piE[s][a]/m.piB[s][a])
			b.AddIDs(int32(s), int32(a))
			s = draw(rng, m.next[s][a])
		}
		b.End()
	}
}

// exactQ returns Q_K(s, a) and V_K(s) of pi_e for K = 0..h from the true
// model: q[K][s*A+a], v[K][s].
func (m *dagMDP) exactQ(h int, gamma float64) (q, v [][]float64) {
	q, v = [][]float64{make([]float64, m.S*m.A)}, [][]float64{make([]float64, m.S)}
	for k := 1; k <= h; k++ {
		qk, vk := make([]float64, m.S*m.A), make([]float64, m.S)
		for s := range m.S {
			for a := range m.A {
				x := m.mu[s][a]
				for s2, p := range m.next[s][a] {
					x += gamma * p * v[k-1][s2]
				}
				qk[s*m.A+a] = x
				vk[s] += m.piE[s][a] * x
			}
		}
		q, v = append(q, qk), append(v, vk)
	}
	return q, v
}

// TestFitConsistency: on a random 5-state, 2-action MDP with data from a
// behavior policy, the fitted q_hat and v_hat of every step are within a
// Hoeffding bound of the exact Q_K and V_K at n = 10^5, and the largest
// error is smaller than at n = 10^3.
//
// The bound: write d_K(s,a) = R^(s,a) - R(s,a) + gamma (P^ - P)(.|s,a) V_{K-1},
// the error of the mean of the N(s,a) visits' y = r + gamma V_{K-1}(s')
// (V of "ended" 0), y in [0, 1 + gamma Vmax_{K-1}], Vmax_k = sum_{j<k} gamma^j.
// Then Q^_K - Q_K = d_K + gamma P^ (V^_{K-1} - V_{K-1}); P^(.|s,a) sums to
// at most 1 over states s' > s (the data never go back) and |V^_{K-1}(s') -
// V_{K-1}(s')| <= max_a' |Q^_{K-1}(s',a') - Q_{K-1}(s',a')|, so the error
// e_K(s,a) = |Q^_K(s,a) - Q_K(s,a)| satisfies
//
//	e_K(s,a) <= |d_K(s,a)| + gamma max_{s' > s, a'} e_{K-1}(s',a'),   e_0 = 0.
//
// Hoeffding: P(|d_K(s,a)| > eps) <= 2 exp(-2 N(s,a) eps^2 / range_K^2), so
// with eps_K(s,a) = range_K sqrt(ln(2 S A H / p) / (2 N(s,a))) all S A H
// errors d are within their eps with probability at least 1 - p, p = 1e-6,
// and then every e_K(s,a) is within the recursion's B_K(s,a), and
// |V^_K(s) - V_K(s)| within max_a B_K(s,a).
func TestFitConsistency(t *testing.T) {
	const (
		S, A, obs = 5, 2, 8 // ids 5, 6, 7 never occur
		h         = S + 1   // longer than any episode
		gamma     = 0.9
		p         = 1e-6
		n         = 100000
	)
	rng := rand.New(rand.NewPCG(17, 2017))
	mdp := newDAGMDP(rng, S, A)
	var b trajectory.Batch
	mdp.collect(rng, n, &b)
	qTrue, vTrue := mdp.exactQ(h, gamma)
	sp := Space{Obs: obs, Actions: A, Horizon: h, PiE: func(o int, dst []float64) {
		if o < S {
			copy(dst, mdp.piE[o])
		}
	}}

	visits := make([]int, S*A)
	for s := range b.Steps() {
		visits[int(b.Obs[s])*A+int(b.Action[s])]++
	}
	if slices.Min(visits) == 0 {
		t.Fatal("a pair was never visited: the bound below needs them all")
	}
	// bq[K][s*A+a] = B_K(s,a); bv[K][s] = max_a B_K(s,a).
	bq, bv := [][]float64{make([]float64, S*A)}, [][]float64{make([]float64, S)}
	vmax := 0.0 // Vmax_{K-1}
	for k := 1; k <= h; k++ {
		bq, bv = append(bq, make([]float64, S*A)), append(bv, make([]float64, S))
		for s := range S {
			later := 0.0
			for s2 := s + 1; s2 < S; s2++ {
				later = max(later, bv[k-1][s2])
			}
			for a := range A {
				eps := (1 + gamma*vmax) * math.Sqrt(math.Log(2*S*A*h/p)/(2*float64(visits[s*A+a])))
				bq[k][s*A+a] = eps + gamma*later
				bv[k][s] = max(bv[k][s], bq[k][s*A+a])
			}
		}
		vmax = 1 + gamma*vmax
	}

	maxErr := func(b *trajectory.Batch, check bool) (worst, worstRatio float64) {
		t.Helper()
		var f Fitter
		if err := f.Fit(b, sp, gamma); err != nil {
			t.Fatal(err)
		}
		for i := range b.N() {
			for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
				k := h - (s - b.Offsets[i])
				o, a := int(b.Obs[s]), int(b.Action[s])
				eq := math.Abs(b.QHat[s] - qTrue[k][o*A+a])
				ev := math.Abs(b.VHat[s] - vTrue[k][o])
				worst = max(worst, eq, ev)
				worstRatio = max(worstRatio, eq/bq[k][o*A+a], ev/bv[k][o])
				if check && (eq > bq[k][o*A+a] || ev > bv[k][o]) {
					t.Fatalf("n = %d, step %d (o %d, a %d, K %d): q_hat %v (exact %v, bound %v), v_hat %v (exact %v, bound %v)",
						b.N(), s, o, a, k, b.QHat[s], qTrue[k][o*A+a], bq[k][o*A+a], b.VHat[s], vTrue[k][o], bv[k][o])
				}
			}
		}
		return worst, worstRatio
	}
	big, ratio := maxErr(&b, true)
	small := b.Prefix(1000)
	smallErr, _ := maxErr(&small, false)
	t.Logf("visits per pair %v; max error %.5f at n = %d (at most %.2f of its bound), %.5f at n = 1000",
		visits, big, n, ratio, smallErr)
	if !(big < smallErr) {
		t.Errorf("max error %v at n = %d is not below %v at n = 1000", big, n, smallErr)
	}
}

// randomBatch returns n trajectories of up to h steps on obs observation
// and actions action ids: a random walk over observations, episodes ending
// with probability 1/(h/2) a step or at h.
func randomBatch(rng *rand.Rand, n, h, obs, actions int) *trajectory.Batch {
	var b trajectory.Batch
	for range n {
		o := rng.IntN(obs)
		for t := 0; t < h; t++ {
			b.Add(rng.NormFloat64(), 1)
			b.AddIDs(int32(o), int32(rng.IntN(actions)))
			if rng.IntN(h/2+1) == 0 {
				break
			}
			o = (o + rng.IntN(5) + obs - 2) % obs
		}
		b.End()
	}
	return &b
}

// uniform is pi_e uniform over actions actions.
func uniform(actions int) func(int, []float64) {
	return func(_ int, dst []float64) {
		for a := range dst {
			dst[a] = 1 / float64(actions)
		}
	}
}

// TestFitRefit: refitting gives the same bits, whether the Fitter is
// fresh, warm from the same batch or warm from a different one (a stale
// observation index must not leak), reuses the batch's columns, and
// allocates nothing once warm.
func TestFitRefit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := randomBatch(rng, 300, 20, 40, 3)
	y := randomBatch(rng, 200, 20, 40, 3)
	sp := Space{Obs: 40, Actions: 3, Horizon: 20, PiE: uniform(3)}
	var f Fitter
	fit := func(b *trajectory.Batch) ([]float64, []float64) {
		t.Helper()
		if err := f.Fit(b, sp, 0.95); err != nil {
			t.Fatal(err)
		}
		return slices.Clone(b.QHat), slices.Clone(b.VHat)
	}
	q1, v1 := fit(x)
	qy, vy := fit(y)
	q2, v2 := fit(x)
	if !slices.Equal(q1, q2) || !slices.Equal(v1, v2) {
		t.Error("refitting x after y changed its columns")
	}
	var fresh Fitter
	if err := fresh.Fit(y, sp, 0.95); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(qy, y.QHat) || !slices.Equal(vy, y.VHat) {
		t.Error("a fresh Fitter and a warm one disagree on y")
	}
	if slices.Equal(q1[:10], qy[:10]) {
		t.Error("x and y gave the same columns: the test data do not differ")
	}
	col := &x.QHat[0]
	if allocs := testing.AllocsPerRun(10, func() {
		if err := f.Fit(x, sp, 0.95); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("%v allocations per warm Fit", allocs)
	}
	if &x.QHat[0] != col {
		t.Error("Fit reallocated q_hat that had room")
	}
	if !slices.Equal(q1, x.QHat) {
		t.Error("a warm refit changed the columns")
	}
}

// TestFitErrors: every bad input is an error naming what is wrong, and
// leaves the batch's columns unchanged.
func TestFitErrors(t *testing.T) {
	good := Space{Obs: 2, Actions: 2, Horizon: 3, PiE: table([][]float64{{0.5, 0.5}, {0.25, 0.75}})}
	noIDs := func() *trajectory.Batch {
		var b trajectory.Batch
		b.Add(1, 1)
		b.End()
		return &b
	}
	withStep := func(s int, o, a int32, r float64) func() *trajectory.Batch {
		return func() *trajectory.Batch {
			b := handData(0, 1)
			b.Obs[s], b.Action[s], b.Reward[s] = o, a, r
			return b
		}
	}
	hand := func() *trajectory.Batch { return handData(0, 1) }
	for _, tc := range []struct {
		name  string
		b     func() *trajectory.Batch
		sp    Space
		gamma float64
		want  string
	}{
		{"no ids", noIDs, good, 1, "no observation and action ids"},
		{"actions missing", func() *trajectory.Batch {
			b := hand()
			b.Action = b.Action[:5]
			return b
		}, good, 1, "no observation and action ids"},
		// step 4 is B2, trajectory 1 at t = 2
		{"negative observation", withStep(4, -1, 0, 1), good, 1, "step 4 (trajectory 1, t = 2): observation id -1 is not in [0, 2)"},
		{"observation too large", withStep(4, 2, 0, 1), good, 1, "step 4 (trajectory 1, t = 2): observation id 2"},
		{"action too large", withStep(5, 1, 2, 4), good, 1, "step 5 (trajectory 2, t = 1): action id 2 is not in [0, 2)"},
		{"reward NaN", withStep(2, 0, 0, math.NaN()), good, 1, "step 2 (trajectory 0, t = 3): reward NaN"},
		{"gamma 0", hand, good, 0, "gamma 0 is not in (0, 1]"},
		{"gamma above 1", hand, good, 1.5, "gamma 1.5"},
		{"gamma NaN", hand, good, math.NaN(), "gamma NaN"},
		{"longer than the horizon", hand, Space{Obs: 2, Actions: 2, Horizon: 2, PiE: good.PiE}, 1,
			"trajectory 0 has 3 steps, longer than the horizon 2"},
		{"no observations", hand, Space{Actions: 2, Horizon: 3, PiE: good.PiE}, 1, "0 observations"},
		{"no policy", hand, Space{Obs: 2, Actions: 2, Horizon: 3}, 1, "PiE is nil"},
		{"pi_e not summing to 1", hand, Space{Obs: 2, Actions: 2, Horizon: 3,
			PiE: table([][]float64{{0.5, 0.5}, {0.25, 0.5}})}, 1, "pi_e(.|1) sums to 0.75"},
		{"pi_e negative", hand, Space{Obs: 2, Actions: 2, Horizon: 3,
			PiE: table([][]float64{{1.5, -0.5}, {0.25, 0.75}})}, 1, "pi_e(1|0) = -0.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.b()
			b.QHat, b.VHat = make([]float64, len(b.Reward)), make([]float64, len(b.Reward))
			b.QHat[0], b.VHat[0] = 7, 8
			var f Fitter
			err := f.Fit(b, tc.sp, tc.gamma)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if len(b.QHat) != len(b.Reward) || b.QHat[0] != 7 || b.VHat[0] != 8 {
				t.Error("the batch's columns changed on error")
			}
		})
	}
	var f Fitter
	if err := f.Fit(nil, good, 1); err == nil {
		t.Error("nil batch: no error")
	}
}

// allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc,
// which counts every allocation whether or not it was collected since).
func allocated(f func()) float64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc - before.TotalAlloc)
}

// TestFitBytes: a cold Fitter allocates at most FitBytes, the columns of
// the batch included; and when every observation id occurs and every
// trajectory has one step, so that every term of the bound is allocated,
// at least FitBytes less its rounding allowance (the bound is not loose).
func TestFitBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	oneStep := func(n, obs, actions int) *trajectory.Batch {
		var b trajectory.Batch
		for i := range n {
			b.Add(1, 1)
			b.AddIDs(int32(i%obs), int32(i%actions))
			b.End()
		}
		return &b
	}
	for _, tc := range []struct {
		name         string
		b            *trajectory.Batch
		obs, actions int
		horizon      int
		tight        bool // every observation occurs, every trajectory has one step
	}{
		{name: "hand", b: handData(0, 1), obs: 2, actions: 2, horizon: 3},
		{name: "one-step episodes", b: oneStep(30000, 700, 6), obs: 700, actions: 6, horizon: 1, tight: true},
		{name: "random walk", b: randomBatch(rng, 2000, 60, 300, 4), obs: 300, actions: 4, horizon: 60},
		{name: "ids far more than steps", b: randomBatch(rng, 50, 10, 100000, 3), obs: 100000, actions: 3, horizon: 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := Space{Obs: tc.obs, Actions: tc.actions, Horizon: tc.horizon, PiE: uniform(tc.actions)}
			b := tc.b
			got := allocated(func() {
				var f Fitter
				if err := f.Fit(b, sp, 1); err != nil {
					t.Fatal(err)
				}
			})
			bound := FitBytes(float64(b.Steps()), float64(tc.obs), float64(tc.actions), float64(tc.horizon))
			if got > bound {
				t.Errorf("allocated %.0f bytes, FitBytes says at most %.0f", got, bound)
			}
			if exact := bound - fitAllocs*pageSlack; tc.tight && got < exact {
				t.Errorf("allocated %.0f bytes, less than the %.0f FitBytes counts before rounding", got, exact)
			}
			t.Logf("%d steps: allocated %.0f, bound %.0f", b.Steps(), got, bound)
		})
	}
}

// TestFitCensored: SPEC 1f's censoring at H = 2, pi_e = a0 everywhere.
// D = (o0, a0, r 1) -> (o1, a0, r 5) reaches the horizon: its second visit
// is censored. Alone, (o1, a0) has only that visit: no transition, Q = R
// = 5 at every K, and (o0, a0): R = 1, P(o1) = 1, Q2 = 1 + 5 = 6. With
// E = (o1, a0, r 3), which ended at t = 1 < H: (o1, a0) has R = (5 + 3)/2
// = 4 over both visits and P(end) = 1 over its one uncensored visit, so
// Q = 4 at every K, and Q2(o0, a0) = 1 + 4 = 5.
func TestFitCensored(t *testing.T) {
	d := []step{{0, 0, 1}, {1, 0, 5}}
	e := []step{{1, 0, 3}}
	sp := Space{Obs: 2, Actions: 2, Horizon: 2, PiE: table([][]float64{{1, 0}, {1, 0}})}
	for _, tc := range []struct {
		name  string
		data  [][]step
		wantQ []float64
	}{
		{"censored only", [][]step{d}, []float64{6, 5}},
		{"censored and ended", [][]step{d, e}, []float64{5, 4, 4}},
	} {
		b := batchOf(tc.data)
		var f Fitter
		if err := f.Fit(b, sp, 1); err != nil {
			t.Fatal(err)
		}
		for s, w := range tc.wantQ {
			if b.QHat[s] != w || b.VHat[s] != w {
				t.Errorf("%s: step %d: q_hat, v_hat = %v, %v; want %v (both)", tc.name, s, b.QHat[s], b.VHat[s], w)
			}
		}
	}
}
