package models

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// The tests of what the learners of issue 30 (fqe, retrace, q-pi-lambda,
// tree-backup) share: the direct implementation they are compared with,
// random off-policy data, and the relations between learners that
// docs/models.md states. Each kind's own file tests its hand case.

// traceKinds are the three trace kinds, by name and trace.
var traceKinds = []struct {
	name  string
	trace Trace
}{{"retrace", Retrace}, {"q-pi-lambda", QPiLambda}, {"tree-backup", TreeBackup}}

// traceOf returns c_s of step s of b for trace tr with lambda (the Kind
// docs' formulas, read directly from the batch and the space).
func traceOf(tr Trace, lambda float64, b *trajectory.Batch, sp Space) func(s int) float64 {
	pi := make([]float64, sp.Actions)
	return func(s int) float64 {
		switch tr {
		case Retrace:
			return lambda * math.Min(1, b.Ratio[s])
		case QPiLambda:
			return lambda
		default:
			sp.PiE(int(b.Obs[s]), pi)
			return lambda * pi[b.Action[s]]
		}
	}
}

// refModel is the direct implementation of docs/models.md's definitions:
// Q[K][o*A+a] for K = 0..H, every table computed from scratch by the
// forward view of the operator of Munos et al. 2016 (the sum of the later
// TD errors along the trace, each at its own number of steps left), with
// maps of visits and no shared code with the learners. c == nil is fqe
// (no trace).
type refModel struct {
	q, v [][]float64
}

// visit is a step of a batch as refModel sees it.
type visit struct {
	o, a     int
	r        float64
	next     int // the successor step, -1 if none
	censored bool
}

// newRef fits the reference model of b (gamma, the space sp, trace c).
func newRef(b *trajectory.Batch, sp Space, gamma float64, c func(s int) float64) *refModel {
	na, h := sp.Actions, sp.Horizon
	steps := make([]visit, b.Steps())
	byPair := map[int][]int{}
	for i := range b.N() {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		for s := lo; s < hi; s++ {
			st := visit{o: int(b.Obs[s]), a: int(b.Action[s]), r: b.Reward[s], next: -1, censored: s-lo+1 == h}
			if s+1 < hi {
				st.next = s + 1
			}
			steps[s] = st
			byPair[st.o*na+st.a] = append(byPair[st.o*na+st.a], s)
		}
	}
	rMean := map[int]float64{}
	for p, vs := range byPair {
		sum := 0.0
		for _, s := range vs {
			sum += steps[s].r
		}
		rMean[p] = sum / float64(len(vs))
	}
	trace := func(s int) float64 {
		if c == nil {
			return 0
		}
		return c(s)
	}
	m := &refModel{q: [][]float64{make([]float64, sp.Obs*na)}, v: [][]float64{make([]float64, sp.Obs)}}
	// delta is the TD error of step u with k >= 1 steps left.
	delta := func(u, k int) float64 {
		st := steps[u]
		p := st.o*na + st.a
		switch {
		case st.censored: // its continuation is its pair's mean
			return st.r - rMean[p]
		case st.next < 0: // ended
			return st.r - m.q[k][p]
		}
		return st.r + gamma*m.v[k-1][steps[st.next].o] - m.q[k][p]
	}
	// g is the operator's sum from step s on with k steps left: the TD
	// errors of steps s, s+1, ... while steps are left, each weighted by
	// gamma^(u-s) c_{s+1}...c_u.
	g := func(s, k int) float64 {
		sum, w := 0.0, 1.0
		for u, j := s, 0; u >= 0 && j < k; u, j = steps[u].next, j+1 {
			if j > 0 {
				w *= gamma * trace(u)
			}
			sum += w * delta(u, k-j)
		}
		return sum
	}
	pi := make([]float64, na)
	for k := 1; k <= h; k++ {
		qk, vk := make([]float64, sp.Obs*na), make([]float64, sp.Obs)
		for p, vs := range byPair {
			cont, nu := 0.0, 0
			for _, s := range vs {
				if st := steps[s]; !st.censored {
					nu++
					if st.next >= 0 {
						cont += m.v[k-1][steps[st.next].o] + trace(st.next)*g(st.next, k-1)
					}
				}
			}
			qk[p] = rMean[p]
			if nu > 0 {
				qk[p] += gamma * cont / float64(nu)
			}
		}
		for o := range sp.Obs {
			sp.PiE(o, pi)
			for a, w := range pi {
				vk[o] += w * qk[o*na+a]
			}
		}
		m.q, m.v = append(m.q, qk), append(m.v, vk)
	}
	return m
}

// columns returns the model's q_hat and v_hat of every step of b.
func (m *refModel) columns(b *trajectory.Batch, sp Space) (q, v []float64) {
	for i := range b.N() {
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			k := sp.Horizon - (s - b.Offsets[i])
			q = append(q, m.q[k][int(b.Obs[s])*sp.Actions+int(b.Action[s])])
			v = append(v, m.v[k][b.Obs[s]])
		}
	}
	return q, v
}

// offPolicy draws n trajectories of at most h steps from a random walk
// over obs observations under a behaviour policy pi_b (a random table,
// one action of observation 0 never taken), with the ratios to a random
// pi_e (which puts no weight on one action of observation 1, and weight
// on the action pi_b never takes): episodes end with probability 1/h a
// step or are cut at h (censored), rewards are normal. It returns the
// batch and its space.
func offPolicy(rng *rand.Rand, n, h, obs, actions int) (*trajectory.Batch, Space) {
	piB, piE := make([][]float64, obs), make([][]float64, obs)
	dist := func(zero int) []float64 {
		p, sum := make([]float64, actions), 0.0
		for a := range p {
			if a != zero {
				p[a] = 0.1 + rng.Float64()
				sum += p[a]
			}
		}
		for a := range p {
			p[a] /= sum
		}
		return p
	}
	for o := range obs {
		zb, ze := -1, -1
		if o == 0 {
			zb = 1
		}
		if o == 1 {
			ze = 0
		}
		piB[o], piE[o] = dist(zb), dist(ze)
	}
	var b trajectory.Batch
	for range n {
		o := rng.IntN(obs)
		for range h {
			a := draw(rng, piB[o])
			b.Add(rng.NormFloat64()+float64(o%3), piE[o][a]/piB[o][a])
			b.AddIDs(int32(o), int32(a))
			if rng.IntN(h) == 0 {
				break
			}
			o = (o + a + rng.IntN(3)) % obs
		}
		b.End()
	}
	return &b, Space{Obs: obs, Actions: actions, Horizon: h, PiE: table(piE)}
}

// maxRelDiff is max_s |x_s - y_s| / max(1, |y_s|), +Inf when the lengths
// differ.
func maxRelDiff(x, y []float64) float64 {
	if len(x) != len(y) {
		return math.Inf(1)
	}
	worst := 0.0
	for s := range x {
		worst = max(worst, math.Abs(x[s]-y[s])/max(1, math.Abs(y[s])))
	}
	return worst
}

// fit fits learner l on a copy of b and returns its columns.
func fit(t *testing.T, l Learner, b *trajectory.Batch, sp Space, gamma float64) (q, v []float64) {
	t.Helper()
	c := clone(b)
	if err := l.FitTo(c, c, sp, gamma); err != nil {
		t.Fatal(err)
	}
	return c.QHat, c.VHat
}

// refTol is the tolerance of a learner against the reference: the two sum
// the same terms in other orders (the reference per visit and forward,
// the learners per pair or per step and backward), so they agree to a few
// hundred roundings of numbers of the size of the returns, 1e-12 relative.
const refTol = 1e-12

// checkTraceRef: on random off-policy data (episodes that end and
// episodes cut at H, actions pi_b never takes and actions pi_e never
// takes), at gamma 1 and 0.9 and lambda 1 (the kinds') and 0.5, the
// learner of trace tr gives the reference's columns to refTol, and the
// reference's Q is the fixed point of the operator in its sampled form
// (docs/models.md): at every K and pair, the mean over all the pair's
// visits of the operator's correction is 0.
func checkTraceRef(t *testing.T, tr Trace) {
	rng := rand.New(rand.NewPCG(30, 2))
	b, sp := offPolicy(rng, 150, 7, 9, 3)
	for _, gamma := range []float64{1, 0.9} {
		for _, lambda := range []float64{1, 0.5} {
			c := traceOf(tr, lambda, b, sp)
			ref := newRef(b, sp, gamma, c)
			checkFixedPoint(t, ref, b, sp, gamma, c)
			wq, wv := ref.columns(b, sp)
			q, v := fit(t, &TraceLearner{Trace: tr, Lambda: lambda}, b, sp, gamma)
			if d := max(maxRelDiff(q, wq), maxRelDiff(v, wv)); d > refTol {
				t.Errorf("%v, gamma %v, lambda %v: %.3g from the reference", tr, gamma, lambda, d)
			}
		}
	}
}

// traceHand is the hand case of the trace learners: handData (TestFitHand:
// observations o0, o1, actions a0, a1, pi_e(.|o0) = (1/2, 1/2),
// pi_e(.|o1) = (1/4, 3/4), H = 3, gamma 1) with ratios, first steps' 4, 4
// and 2 (never read: a trace starts at the second step):
//
//	A: (o0, a0, r 1) -> (o1, a1, r 0, ratio 3/2) -> (o0, a0, r 3, ratio 1/2), censored
//	B: (o0, a1, r 2) -> (o1, a0, r 1, ratio 1/2), ended
//	C: (o1, a1, r 4), ended
//
// With c2 = c at A2, c3 at A3, cb at B2 (the learner's traces there), the
// sweep of docs/models.md gives, from K = 1 (Q1 = R = (2, 2 | 1, 2),
// V1(o0) = 2, V1(o1) = 1/4 + 3/4 2 = 1.75, Y1 = r at every step):
//
//	K = 2: C(A1) = V1(o1) + c2 (Y1(A2) - Q1(o1,a1)) = 1.75 + c2 (0 - 2)
//	       C(A2) = V1(o0) + c3 (Y1(A3) - Q1(o0,a0)) = 2 + c3 (3 - 2)
//	       C(B1) = V1(o1) + cb (Y1(B2) - Q1(o1,a0)) = 1.75 + cb (1 - 1) = 1.75
//	       C(B2) = C(C1) = 0 (ended); A3 censored
//	       Q2(o0,a0) = 2 + C(A1) = 3.75 - 2 c2,   Q2(o0,a1) = 2 + 1.75 = 3.75,
//	       Q2(o1,a0) = 1,   Q2(o1,a1) = 2 + (C(A2) + 0)/2 = 3 + c3/2;
//	       V2(o0) = 3.75 - c2,   V2(o1) = 1/4 + 3/4 Q2(o1,a1) = 2.5 + 3 c3/8;
//	       Y2(A2) = 0 + C(A2) = 2 + c3, Y2(B2) = 1,
//	       Y2(A3) = r + Q2(o0,a0) - R(o0,a0) = 3 + 1.75 - 2 c2 = 4.75 - 2 c2
//	K = 3: C(A1) = V2(o1) + c2 (Y2(A2) - Q2(o1,a1)) = 2.5 + 3 c3/8 + c2 (c3/2 - 1)
//	       C(A2) = V2(o0) + c3 (Y2(A3) - Q2(o0,a0)) = 3.75 - c2 + c3 (4.75 - 3.75)
//	       C(B1) = V2(o1) + cb (1 - 1) = 2.5 + 3 c3/8
//	       Q3(o0,a0) = 2 + C(A1),  Q3(o0,a1) = 2 + C(B1),  Q3(o1,a1) = 2 + C(A2)/2,
//	       V3(o0) = (Q3(o0,a0) + Q3(o0,a1))/2,  V3(o1) = 1/4 + 3/4 Q3(o1,a1)
//
// and the steps A1 A2 A3 B1 B2 C1 (t = 1 2 3 1 2 1, K = 3 2 1 3 2 3) read
// q = Q3(o0,a0), Q2(o1,a1), Q1(o0,a0) = 2, Q3(o0,a1), Q2(o1,a0) = 1,
// Q3(o1,a1) and v = V3(o0), V2(o1), V1(o0) = 2, V3(o0), V2(o1), V3(o1).
// With c = 0 this is TestFitHand's first case (4.5, 3, 2, 4.5, 1, 3.875).
// Every number is dyadic, so the learners reach them exactly.
func traceHand() (*trajectory.Batch, Space) {
	b := handData(0, 1)
	copy(b.Ratio, []float64{4, 1.5, 0.5, 4, 0.5, 2})
	return b, Space{Obs: 2, Actions: 2, Horizon: 3, PiE: table([][]float64{{0.5, 0.5}, {0.25, 0.75}})}
}

// checkHand fits kind on traceHand and compares every column exactly.
func checkHand(t *testing.T, kind string, wantQ, wantV []float64) {
	t.Helper()
	b, sp := traceHand()
	k, err := Get(kind)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.New().FitTo(b, b, sp, 1); err != nil {
		t.Fatal(err)
	}
	for s := range wantQ {
		if b.QHat[s] != wantQ[s] || b.VHat[s] != wantV[s] {
			t.Errorf("%s, step %d: q_hat, v_hat = %v, %v; want %v, %v", kind, s, b.QHat[s], b.VHat[s], wantQ[s], wantV[s])
		}
	}
}

// checkFixedPoint checks that the reference's tables are a fixed point of
// the sampled operator R Q(o, a) = Q(o, a) + the mean over every visit of
// (o, a) of sum_{s >= t} gamma^(s-t) c_{t+1}...c_s delta_s: the mean
// correction is 0 to refTol at every K and visited pair (a censored
// visit's correction is r - R: its continuation is the pair's mean).
func checkFixedPoint(t *testing.T, m *refModel, b *trajectory.Batch, sp Space, gamma float64, c func(int) float64) {
	t.Helper()
	na, h := sp.Actions, sp.Horizon
	type acc struct {
		sum float64
		n   int
	}
	for k := 1; k <= h; k++ {
		corr := map[int]*acc{}
		rSum := map[int]*acc{}
		for i := range b.N() {
			for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
				p := int(b.Obs[s])*na + int(b.Action[s])
				if rSum[p] == nil {
					rSum[p], corr[p] = &acc{}, &acc{}
				}
				rSum[p].sum += b.Reward[s]
				rSum[p].n++
			}
		}
		for i := range b.N() {
			lo, hi := b.Offsets[i], b.Offsets[i+1]
			for s := lo; s < hi; s++ {
				sum, w := 0.0, 1.0
				for u, j := s, 0; u < hi && j < k; u, j = u+1, j+1 {
					if j > 0 {
						w *= gamma * c(u)
					}
					p, kk := int(b.Obs[u])*na+int(b.Action[u]), k-j
					d := b.Reward[u] - m.q[kk][p]
					switch {
					case u-lo+1 == h:
						d = b.Reward[u] - rSum[p].sum/float64(rSum[p].n)
					case u+1 < hi:
						d += gamma * m.v[kk-1][b.Obs[u+1]]
					}
					sum += w * d
				}
				p := int(b.Obs[s])*na + int(b.Action[s])
				corr[p].sum += sum
				corr[p].n++
			}
		}
		for p, a := range corr {
			if x := a.sum / float64(a.n); math.Abs(x) > refTol*max(1, math.Abs(m.q[k][p])) {
				t.Fatalf("K = %d, pair %d: the operator moves Q by %v: not a fixed point", k, p, x)
			}
		}
	}
}

// TestTraceLambdaZeroIsFQE: with lambda = 0 every trace is 0, the target
// is FQE's r + gamma V_{K-1}(o'), and every trace learner equals fqe, to
// 1e-12 relative (fqe sums a pair's targets in four partial sums, the
// trace learners in step order: the same numbers, rounded differently).
func TestTraceLambdaZeroIsFQE(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 3))
	b, sp := offPolicy(rng, 400, 12, 15, 3)
	for _, gamma := range []float64{1, 0.95} {
		wq, wv := fit(t, new(FQE), b, sp, gamma)
		for _, tk := range traceKinds {
			q, v := fit(t, &TraceLearner{Trace: tk.trace}, b, sp, gamma)
			if d := max(maxRelDiff(q, wq), maxRelDiff(v, wv)); d > 1e-12 {
				t.Errorf("%s, lambda 0, gamma %v: %.3g from fqe", tk.name, gamma, d)
			}
		}
	}
}

// graphLike draws n episodes of COBS's Graph (BENCHMARKS.md B1, dense
// rewards, slip 0): T steps, at step t the agent is in one of two states
// of layer t, row 0 or 1 (observed as 2t + row, or, with blocks > 0, as
// the block of layers t * blocks / T, aliasing layers and rows); action a
// leads to row a of the next layer, reward +1 for row 0 and -1 for row 1;
// the last step gives +1 from row 0, -1 from row 1, whatever the action.
// pi_b(0) = pb, pi_e(0) = pe in every state. Every episode has T steps:
// its last is censored at H = T.
func graphLike(rng *rand.Rand, n, T, blocks int, pb, pe float64) (*trajectory.Batch, Space) {
	obsOf := func(t, row int) int32 {
		if blocks == 0 {
			return int32(2*t + row)
		}
		return int32(t * blocks / T)
	}
	var b trajectory.Batch
	for range n {
		row := 0
		for t := range T {
			a, ratio := 0, pe/pb
			if rng.Float64() >= pb {
				a, ratio = 1, (1-pe)/(1-pb)
			}
			r := 1 - 2*float64(a)
			if t == T-1 {
				r = 1 - 2*float64(row)
			}
			b.Add(r, ratio)
			b.AddIDs(obsOf(t, row), int32(a))
			row = a
		}
		b.End()
	}
	obs := 2 * T
	if blocks > 0 {
		obs = blocks
	}
	pi := []float64{pe, 1 - pe}
	return &b, Space{Obs: obs, Actions: 2, Horizon: T, PiE: func(_ int, dst []float64) { copy(dst, pi) }}
}

// TestTracesDeterministicAreFitted: on deterministic, fully observed data
// whose observation fixes the steps left (graphLike without blocks), every
// visit of a pair is followed by the same rewards and observations, so
// every Y - Q is 0, the traces add nothing, and each of the four learners
// equals fitted (COBS's Table 12, where FQE, R(lambda), Q^pi(lambda) and
// Tree all print 1.8E-3). To 1e-12 relative, not bit for bit: the mean of
// N equal numbers is that number only up to rounding, which leaves Y - Q
// of the order of 1e-16 instead of 0.
func TestTracesDeterministicAreFitted(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 4))
	for _, gamma := range []float64{1, 0.98} {
		b, sp := graphLike(rng, 300, 10, 0, 0.3, 0.8)
		var f Fitter
		wq, wv := fit(t, &f, b, sp, gamma)
		for _, name := range []string{"fqe", "retrace", "q-pi-lambda", "tree-backup"} {
			k, _ := Lookup(name)
			q, v := fit(t, k.New(), b, sp, gamma)
			if d := max(maxRelDiff(q, wq), maxRelDiff(v, wv)); d > 1e-12 {
				t.Errorf("%s, gamma %v: %.3g from fitted on deterministic data", name, gamma, d)
			}
		}
	}
}

// TestRetraceOnPolicyIsQPiLambda: on on-policy data every ratio is 1, so
// Retrace's c = lambda min(1, 1) = lambda is Q^pi(lambda)'s, and the two
// learners compute the same numbers in the same order: equal bit for bit.
// On off-policy data they differ (the check that the test can fail).
func TestRetraceOnPolicyIsQPiLambda(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 5))
	for _, tc := range []struct {
		name  string
		b     *trajectory.Batch
		equal bool
	}{
		{"on-policy", randomBatch(rng, 400, 12, 15, 3), true},
		{"off-policy", func() *trajectory.Batch { b, _ := offPolicy(rng, 400, 12, 15, 3); return b }(), false},
	} {
		sp := Space{Obs: 15, Actions: 3, Horizon: 12, PiE: uniform(3)}
		for _, gamma := range []float64{1, 0.9} {
			rk, _ := Lookup("retrace")
			qk, _ := Lookup("q-pi-lambda")
			rq, rv := fit(t, rk.New(), tc.b, sp, gamma)
			qq, qv := fit(t, qk.New(), tc.b, sp, gamma)
			if same := bitsEqual(rq, qq) && bitsEqual(rv, qv); same != tc.equal {
				t.Errorf("%s, gamma %v: retrace and q-pi-lambda equal bit for bit: %v, want %v (largest difference %.3g)",
					tc.name, gamma, same, tc.equal, max(maxRelDiff(rq, qq), maxRelDiff(rv, qv)))
			}
		}
	}
}

// TestLearnersToOther: fqe and the trace learners fitted on b and read on
// another batch give, at each step (t, o, a) of the other batch, what
// FitTo(b, b) writes at b's visits of (t, o, a) (the model depends on
// (K, o, a) only), V_K(o) with q = 0 at an action b never takes at o, and
// 0 at an observation b never visits.
func TestLearnersToOther(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 6))
	const obs, actions, h = 8, 3, 6
	b, sp := offPolicy(rng, 200, h, obs, actions)
	sp.Obs = obs + 1 // id 8 never occurs in b
	inner := sp.PiE
	sp.PiE = func(o int, dst []float64) {
		if o == obs {
			dst[0], dst[1], dst[2] = 1, 0, 0
			return
		}
		inner(o, dst)
	}
	var to trajectory.Batch
	for i := range 50 {
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			o, a := b.Obs[s], b.Action[s]
			switch {
			case i%5 == 0 && s == b.Offsets[i]:
				o = obs // never visited
			case i%7 == 1 && o == 0:
				a = 1 // pi_b never takes it at observation 0
			}
			to.Add(0, 1)
			to.AddIDs(o, a)
		}
		to.End()
	}
	for _, name := range []string{"fqe", "retrace", "q-pi-lambda", "tree-backup"} {
		k, _ := Lookup(name)
		self := clone(b)
		if err := k.New().FitTo(self, self, sp, 0.9); err != nil {
			t.Fatal(err)
		}
		type key struct{ t, o, a int32 }
		q, v := map[key]float64{}, map[key]float64{}
		for i := range self.N() {
			for s := self.Offsets[i]; s < self.Offsets[i+1]; s++ {
				tt := int32(s - self.Offsets[i])
				q[key{tt, self.Obs[s], self.Action[s]}] = self.QHat[s]
				v[key{tt, self.Obs[s], -1}] = self.VHat[s]
			}
		}
		other := clone(&to)
		if err := k.New().FitTo(b, other, sp, 0.9); err != nil {
			t.Fatal(err)
		}
		unseen := 0
		for i := range other.N() {
			for s := other.Offsets[i]; s < other.Offsets[i+1]; s++ {
				tt := int32(s - other.Offsets[i])
				wq, okq := q[key{tt, other.Obs[s], other.Action[s]}]
				wv := v[key{tt, other.Obs[s], -1}]
				if !okq {
					unseen++ // unvisited pair: q = 0; v is V_K(o), or 0 for an unvisited o
				}
				if other.QHat[s] != wq || other.VHat[s] != wv {
					t.Fatalf("%s: trajectory %d, t = %d, (o, a) = (%d, %d): q_hat, v_hat = %v, %v; want %v, %v",
						name, i, tt+1, other.Obs[s], other.Action[s], other.QHat[s], other.VHat[s], wq, wv)
				}
			}
		}
		if unseen < 10 {
			t.Errorf("%s: only %d steps of pairs b never visits: the test does not reach its cases", name, unseen)
		}
	}
}

// TestLearnersErrors: the learners of issue 30 refuse what Fitter refuses
// (each error names what is wrong), and retrace's ratios and a lambda
// outside [0, 1]; on error the batch's columns are unchanged.
func TestLearnersErrors(t *testing.T) {
	good := Space{Obs: 2, Actions: 2, Horizon: 3, PiE: table([][]float64{{0.5, 0.5}, {0.25, 0.75}})}
	withStep := func(s int, o, a int32, r float64) func() *trajectory.Batch {
		return func() *trajectory.Batch {
			b := handData(0, 1)
			b.Obs[s], b.Action[s], b.Reward[s] = o, a, r
			return b
		}
	}
	withRatio := func(s int, rho float64) func() *trajectory.Batch {
		return func() *trajectory.Batch {
			b := handData(0, 1)
			b.Ratio[s] = rho
			return b
		}
	}
	hand := func() *trajectory.Batch { return handData(0, 1) }
	retraceOnly := []string{"retrace"}
	all := []string{"fqe", "retrace", "q-pi-lambda", "tree-backup"}
	for _, tc := range []struct {
		name  string
		kinds []string
		b     func() *trajectory.Batch
		sp    Space
		gamma float64
		want  string
	}{
		{"observation too large", all, withStep(4, 2, 0, 1), good, 1, "step 4 (trajectory 1): ids (2, 0) not in [0, 2) x [0, 2)"},
		{"action negative", all, withStep(5, 1, -1, 4), good, 1, "step 5 (trajectory 2): ids (1, -1)"},
		{"reward infinite", all, withStep(2, 0, 0, math.Inf(1)), good, 1, "step 2 (trajectory 0, t = 3): reward +Inf is not finite"},
		{"gamma 0", all, hand, good, 0, "gamma 0 is not in (0, 1]"},
		{"longer than the horizon", all, hand, Space{Obs: 2, Actions: 2, Horizon: 2, PiE: good.PiE}, 1,
			"trajectory 0 has 3 steps, longer than the horizon 2"},
		{"no policy", all, hand, Space{Obs: 2, Actions: 2, Horizon: 3}, 1, "PiE is nil"},
		{"pi_e not summing to 1", all, hand, Space{Obs: 2, Actions: 2, Horizon: 3,
			PiE: table([][]float64{{0.5, 0.5}, {0.25, 0.5}})}, 1, "pi_e(.|1) sums to 0.75"},
		{"ratio NaN", retraceOnly, withRatio(1, math.NaN()), good, 1, "retrace: step 1 (trajectory 0, t = 2): ratio NaN"},
		{"ratio negative", retraceOnly, withRatio(3, -1), good, 1, "retrace: step 3 (trajectory 1, t = 1): ratio -1"},
		{"no ratios", retraceOnly, func() *trajectory.Batch {
			b := hand()
			b.Ratio = nil
			return b
		}, good, 1, "retrace needs the ratio pi_e/pi_b of every step: 0 ratios for 6 steps"},
	} {
		for _, name := range tc.kinds {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				b := tc.b()
				b.QHat, b.VHat = make([]float64, len(b.Reward)), make([]float64, len(b.Reward))
				b.QHat[0], b.VHat[0] = 7, 8
				k, _ := Lookup(name)
				err := k.New().FitTo(b, b, tc.sp, tc.gamma)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want one containing %q", err, tc.want)
				}
				if len(b.QHat) != len(b.Reward) || b.QHat[0] != 7 || b.VHat[0] != 8 {
					t.Error("the batch's columns changed on error")
				}
			})
		}
	}
	for _, lambda := range []float64{-0.1, 1.5, math.NaN()} {
		l := &TraceLearner{Trace: Retrace, Lambda: lambda}
		if err := l.FitTo(handData(0, 1), handData(0, 1), good, 1); err == nil || !strings.Contains(err.Error(), "is not in [0, 1]") {
			t.Errorf("lambda %v: error %v", lambda, err)
		}
	}
	if err := (&TraceLearner{Trace: 7, Lambda: 1}).FitTo(handData(0, 1), handData(0, 1), good, 1); err == nil || !strings.Contains(err.Error(), "unknown trace Trace(7)") {
		t.Errorf("unknown trace: error %v", err)
	}
	// An empty batch is fitted trivially, its columns emptied.
	var e trajectory.Batch
	e.End()
	e.QHat, e.VHat = []float64{1}, []float64{2}
	for _, name := range all {
		k, _ := Lookup(name)
		if err := k.New().FitTo(&e, &e, good, 1); err != nil || len(e.QHat) != 0 || len(e.VHat) != 0 {
			t.Errorf("%s on an empty batch: %v, columns of %d and %d", name, err, len(e.QHat), len(e.VHat))
		}
	}
}

// TestTracesConsistent: on a random 5-state, 2-action MDP, fully
// observed, every pair visited (dagMDP: episodes end on their own, so
// nothing is censored), with ratios from its behaviour policy, every
// learner's q_hat and v_hat tend to the exact Q_K and V_K as n grows: the
// trace term's mean given the next pair tends to 0 (docs/models.md). The
// largest error over the steps at n = 10^5 is below 0.02 (fitted's, the
// Hoeffding-bounded one of TestFitConsistency, is about 0.005 here; the
// traces add the variance of the later steps' returns, at most about
// 4 times fitted's, as measured) and below a third of the error at
// n = 10^3 (the root-n rate gives a tenth).
func TestTracesConsistent(t *testing.T) {
	const (
		S, A  = 5, 2
		h     = S + 1
		gamma = 0.9
	)
	rng := rand.New(rand.NewPCG(17, 2017))
	mdp := newDAGMDP(rng, S, A)
	var b trajectory.Batch
	mdp.collect(rng, 100000, &b)
	qTrue, vTrue := mdp.exactQ(h, gamma)
	sp := Space{Obs: S, Actions: A, Horizon: h, PiE: table(mdp.piE)}
	maxErr := func(l Learner, b *trajectory.Batch) float64 {
		q, v := fit(t, l, b, sp, gamma)
		worst := 0.0
		for i := range b.N() {
			for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
				k := h - (s - b.Offsets[i])
				o, a := int(b.Obs[s]), int(b.Action[s])
				worst = max(worst, math.Abs(q[s]-qTrue[k][o*A+a]), math.Abs(v[s]-vTrue[k][o]))
			}
		}
		return worst
	}
	small := b.Prefix(1000)
	for _, name := range []string{"fitted", "fqe", "retrace", "q-pi-lambda", "tree-backup"} {
		k, _ := Lookup(name)
		big, sm := maxErr(k.New(), &b), maxErr(k.New(), &small)
		t.Logf("%s: largest error %.4f at n = 10^5, %.4f at n = 10^3", name, big, sm)
		if !(big < 0.02 && big < sm/3) {
			t.Errorf("%s: largest error %.4f at n = 10^5 (%.4f at n = 10^3): not consistent", name, big, sm)
		}
	}
}
