package models

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// TestTimeFitHand checks every q_hat and v_hat of a small data set against
// the time-indexed model computed by hand: observations o0, o1 (ids 0,
// 1), actions a0, a1, H = 3, gamma = 1/2, pi_e(.|o0) = (1/2, 1/2),
// pi_e(.|o1) = (1/4, 3/4).
//
//	A: (o0, a0, r 1) -> (o1, a1, r 0) -> (o0, a0, r 3)   reaches H: A3 censored
//	B: (o0, a1, r 2) -> (o1, a0, r 1), ended
//	C: (o1, a1, r 4), ended
//	D: (o0, a0, r 3) -> (o1, a1, r 2) -> (o1, a0, r 5)   reaches H: D3 censored
//
// Step 3 (visits A3, D3; v_4 = 0): q_3(o0, a0) = R_3 = 3, q_3(o1, a0) = 5,
// the other pairs unvisited at t = 3 (q 0):
//
//	v_3(o0) = 1/2 3 + 1/2 0 = 1.5,   v_3(o1) = 1/4 5 + 3/4 0 = 1.25
//
// Step 2 (A2, B2, D2; o0 unvisited): (o1, a1): A2 (r 0, then o0), D2 (r 2,
// then o1): R_2 = 1, P_2(o0) = P_2(o1) = 1/2, q_2 = 1 + 1/2 (1/2 1.5 + 1/2
// 1.25) = 1.6875; (o1, a0): B2 (r 1, ended): q_2 = 1 + 1/2 0 = 1.
//
//	v_2(o1) = 1/4 1 + 3/4 1.6875 = 1.515625
//
// Step 1 (A1, B1, C1, D1): (o0, a0): A1 (r 1), D1 (r 3), both then o1:
// q_1 = 2 + 1/2 1.515625 = 2.7578125; (o0, a1): B1 (r 2, then o1): q_1 =
// 2.7578125 too; (o1, a1): C1 (r 4, ended): q_1 = 4; (o1, a0) unvisited.
//
//	v_1(o0) = 2.7578125,   v_1(o1) = 1/4 0 + 3/4 4 = 3
//
// The time-homogeneous model of Fitter pools the steps and differs (e.g.
// its R(o0, a0) = 7/3 over A1, A3, D1): checked below.
func TestTimeFitHand(t *testing.T) {
	b := batchOf([][]step{
		{{0, 0, 1}, {1, 1, 0}, {0, 0, 3}},
		{{0, 1, 2}, {1, 0, 1}},
		{{1, 1, 4}},
		{{0, 0, 3}, {1, 1, 2}, {1, 0, 5}},
	})
	sp := Space{Obs: 2, Actions: 2, Horizon: 3, PiE: table([][]float64{{0.5, 0.5}, {0.25, 0.75}})}
	//                  A1         A2      A3   B1         B2  C1  D1         D2      D3
	wantQ := []float64{2.7578125, 1.6875, 3, 2.7578125, 1, 4, 2.7578125, 1.6875, 5}
	wantV := []float64{2.7578125, 1.515625, 1.5, 2.7578125, 1.515625, 3, 2.7578125, 1.515625, 1.25}
	var f TimeFitter
	if err := f.Fit(b, sp, 0.5); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.QHat, wantQ) || !slices.Equal(b.VHat, wantV) {
		t.Errorf("q_hat %v\nwant  %v\nv_hat %v\nwant  %v", b.QHat, wantQ, b.VHat, wantV)
	}
	var h Fitter
	c := batchOf(nil)
	*c = *b
	c.QHat, c.VHat = nil, nil
	if err := h.Fit(c, sp, 0.5); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(c.QHat, wantQ) {
		t.Error("the time-homogeneous model gives the same q_hat: the hand case does not tell them apart")
	}
}

// timeEncoded returns b with every observation id o at 1-based step t
// replaced by (t-1) obs + o: a time-homogeneous model over these ids is
// the time-indexed model over b's.
func timeEncoded(b *trajectory.Batch, obs int) *trajectory.Batch {
	c := &trajectory.Batch{Offsets: slices.Clone(b.Offsets), Reward: slices.Clone(b.Reward),
		Ratio: slices.Clone(b.Ratio), Action: slices.Clone(b.Action), Obs: slices.Clone(b.Obs)}
	for i := 0; i+1 < len(b.Offsets); i++ {
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			c.Obs[s] = int32(s-b.Offsets[i])*int32(obs) + b.Obs[s]
		}
	}
	return c
}

// TestTimeFitEqualsEncoded: on random data, the time-indexed model equals
// Fitter's time-homogeneous model over (t, observation) ids (to 1e-12:
// the sums are taken in another order), at gamma 1 and 0.9, with
// trajectories that end early and reach the horizon.
func TestTimeFitEqualsEncoded(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, h, obs, actions = 400, 12, 6, 3
	b := randomBatch(rng, n, h, obs, actions)
	pie := func(o int, dst []float64) {
		o %= obs
		w := []float64{float64(o + 1), 1, 2}
		s := w[0] + w[1] + w[2]
		for a := range dst {
			dst[a] = w[a] / s
		}
	}
	sp := Space{Obs: obs, Actions: actions, Horizon: h, PiE: pie}
	enc := timeEncoded(b, obs)
	spEnc := Space{Obs: obs * h, Actions: actions, Horizon: h, PiE: pie}
	for _, gamma := range []float64{1, 0.9} {
		var f TimeFitter
		var g Fitter
		if err := f.Fit(b, sp, gamma); err != nil {
			t.Fatal(err)
		}
		if err := g.Fit(enc, spEnc, gamma); err != nil {
			t.Fatal(err)
		}
		for s := range b.Reward {
			if math.Abs(b.QHat[s]-enc.QHat[s]) > 1e-12*(1+math.Abs(enc.QHat[s])) ||
				math.Abs(b.VHat[s]-enc.VHat[s]) > 1e-12*(1+math.Abs(enc.VHat[s])) {
				t.Fatalf("gamma %v, step %d: q_hat, v_hat = %v, %v; over (t, o) ids %v, %v", gamma, s, b.QHat[s], b.VHat[s], enc.QHat[s], enc.VHat[s])
			}
		}
	}
}

// TestTimeFitRefit: a warm TimeFitter gives the same bits as a fresh one,
// after a different batch (no stale sums or indices), and allocates
// nothing; an empty batch empties the columns.
func TestTimeFitRefit(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x := randomBatch(rng, 300, 20, 40, 3)
	y := randomBatch(rng, 200, 20, 40, 3)
	sp := Space{Obs: 40, Actions: 3, Horizon: 20, PiE: uniform(3)}
	fresh := func(b *trajectory.Batch) ([]float64, []float64) {
		var f TimeFitter
		if err := f.Fit(b, sp, 0.95); err != nil {
			t.Fatal(err)
		}
		return slices.Clone(b.QHat), slices.Clone(b.VHat)
	}
	qx, vx := fresh(x)
	qy, vy := fresh(y)
	var f TimeFitter
	for _, tc := range []struct {
		b    *trajectory.Batch
		q, v []float64
	}{{x, qx, vx}, {y, qy, vy}, {x, qx, vx}} {
		if err := f.Fit(tc.b, sp, 0.95); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tc.b.QHat, tc.q) || !slices.Equal(tc.b.VHat, tc.v) {
			t.Fatal("a warm TimeFitter differs from a fresh one")
		}
	}
	if a := testing.AllocsPerRun(5, func() {
		if err := f.Fit(x, sp, 0.95); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("a warm Fit allocates %v times, want 0", a)
	}
	var e trajectory.Batch
	e.End()
	e.QHat, e.VHat = []float64{1}, []float64{2}
	if err := f.Fit(&e, sp, 1); err != nil || len(e.QHat) != 0 || len(e.VHat) != 0 {
		t.Errorf("empty batch: error %v, columns %v %v", err, e.QHat, e.VHat)
	}
}

// TestTimeFitErrors: bad input is refused as Fitter refuses it, with the
// batch's columns unchanged.
func TestTimeFitErrors(t *testing.T) {
	good := Space{Obs: 2, Actions: 2, Horizon: 3, PiE: uniform(2)}
	hand := func() *trajectory.Batch { return handData(0, 1) }
	nan := func() *trajectory.Batch { b := handData(0, 1); b.Reward[2] = math.NaN(); return b }
	bigObs := func() *trajectory.Batch { b := handData(0, 1); b.Obs[4] = 2; return b }
	for _, tc := range []struct {
		name  string
		b     func() *trajectory.Batch
		sp    Space
		gamma float64
		want  string
	}{
		{"reward NaN", nan, good, 1, "step 2 (trajectory 0, t = 3): reward NaN"},
		{"observation too large", bigObs, good, 1, "ids (2, 0) not in [0, 2) x [0, 2)"},
		{"gamma 0", hand, good, 0, "gamma 0 is not in (0, 1]"},
		{"longer than the horizon", hand, Space{Obs: 2, Actions: 2, Horizon: 2, PiE: good.PiE}, 1,
			"trajectory 0 has 3 steps, longer than the horizon 2"},
		{"no policy", hand, Space{Obs: 2, Actions: 2, Horizon: 3}, 1, "PiE is nil"},
		{"pi_e not summing to 1", hand, Space{Obs: 2, Actions: 2, Horizon: 3,
			PiE: table([][]float64{{0.5, 0.5}, {0.25, 0.5}})}, 1, "pi_e(.|1) sums to 0.75"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.b()
			b.QHat, b.VHat = make([]float64, len(b.Reward)), make([]float64, len(b.Reward))
			b.QHat[0], b.VHat[0] = 7, 8
			var f TimeFitter
			err := f.Fit(b, tc.sp, tc.gamma)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if len(b.QHat) != len(b.Reward) || b.QHat[0] != 7 || b.VHat[0] != 8 {
				t.Error("the batch's columns changed on error")
			}
		})
	}
}

// TestTimeFitBytes: a cold TimeFitter allocates at most TimeFitBytes, the
// columns included, and, when every observation id occurs and every
// trajectory has one step, at least TimeFitBytes less its rounding
// allowance.
func TestTimeFitBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
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
		tight        bool
	}{
		{name: "hand", b: handData(0, 1), obs: 2, actions: 2, horizon: 3},
		{name: "one-step episodes", b: oneStep(30000, 700, 6), obs: 700, actions: 6, horizon: 1, tight: true},
		{name: "random walk", b: randomBatch(rng, 2000, 60, 300, 4), obs: 300, actions: 4, horizon: 60},
		{name: "ids far more than steps", b: randomBatch(rng, 50, 10, 100000, 3), obs: 100000, actions: 3, horizon: 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := Space{Obs: tc.obs, Actions: tc.actions, Horizon: tc.horizon, PiE: uniform(tc.actions)}
			b := tc.b
			b.QHat, b.VHat = nil, nil
			got := allocated(func() {
				var f TimeFitter
				if err := f.Fit(b, sp, 1); err != nil {
					t.Fatal(err)
				}
			})
			bound := TimeFitBytes(float64(b.Steps()), float64(tc.obs), float64(tc.actions), float64(tc.horizon))
			if got > bound {
				t.Errorf("allocated %.0f bytes, TimeFitBytes says at most %.0f", got, bound)
			}
			if exact := bound - timeFitAllocs*pageSlack; tc.tight && got < exact {
				t.Errorf("allocated %.0f bytes, less than the %.0f TimeFitBytes counts before rounding", got, exact)
			}
			t.Logf("%d steps: allocated %.0f, bound %.0f", b.Steps(), got, bound)
		})
	}
}
