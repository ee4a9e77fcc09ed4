package taxi

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/envs/noisytaxi"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

// The Q methods below serve the tests: the rollout reads the values
// through StepValues.

// Q returns Q_left(s, a): the expected discounted return (discounted to
// this step) from taking action a in hidden state s with left steps left
// before the cap, this one included (1 <= left <= cap; at 1-based step t
// of an episode, left = cap - t + 1), and following the policy after it.
func (q *Q) Q(s noisytaxi.State, a noisytaxi.Action, left int) float64 {
	return q.at(s.Index(), a, left)
}

// V returns sum_a pi(a|o) Q_left(s, a): the value of hidden state s with
// left steps left when the policy acts on the observation o (pi(a|o) =
// policies.TaxiPrimitiveProb(eps, a, o)). Averaged over the observations of s it is
// StateValue(s, left).
func (q *Q) V(s noisytaxi.State, o noisytaxi.Obs, left int) float64 {
	return q.v1(s.Index(), policies.TaxiOptimalAction(o), left)
}

// StateValue returns V_left(s), the expected discounted return from hidden
// state s with left steps left (0 at left = 0), the observation noise
// averaged.
func (q *Q) StateValue(s noisytaxi.State, left int) float64 {
	return q.layer(left)[s.Index()]
}

// Value returns V(pi) = sum_s P(start in s) V_cap(s), which is
// ExactValue(p, eps, 1, gamma, nil).Value.
func (q *Q) Value() float64 {
	var v float64
	for s, x := range q.layer(q.cap) {
		v += q.p.StartProb(noisytaxi.StateAt(s)) * x
	}
	return v
}

// Layers returns the number of value layers V_0, V_1, ... stored: at most
// cap + 1, fewer when the recursion reached a fixed point.
func (q *Q) Layers() int { return len(q.v) / noisytaxi.NumStates }

// TestTaxiQValue: the start-averaged V_cap of a Q is ExactValue's
// value for m = 1 (the same recursion; SPEC 2.3 with SPEC 1c's discount),
// for both policies, with and without discounting, with a binding cap (10)
// and the default one (200).
func TestTaxiQValue(t *testing.T) {
	for _, cap := range []int{10, 200} {
		for _, eps := range []float64{0.05, 0.3} {
			for _, gamma := range []float64{1, 0.9} {
				p := noisytaxi.DefaultParams()
				p.Cap = cap
				q, err := NewQ(p, eps, gamma)
				if err != nil {
					t.Fatal(err)
				}
				ex, err := ExactValue(p, eps, 1, gamma, nil)
				if err != nil {
					t.Fatal(err)
				}
				if got := q.Value(); math.Abs(got-ex.Value) > 1e-14*math.Abs(ex.Value) {
					t.Errorf("cap %d eps %v gamma %v: Q value %v, ExactValue %v", cap, eps, gamma, got, ex.Value)
				}
				if q.Cap() != cap || q.Layers() < 1 || q.Layers() > cap+1 {
					t.Errorf("cap %d: Cap %d, %d layers, want 1..cap+1", cap, q.Cap(), q.Layers())
				}
			}
		}
	}
}

// TestTaxiQFixedPoint: the values do not depend on the cap (Q_T depends on
// the steps left T only), so a Q for cap 2000 agrees bit for bit with
// one for cap 200 on every (state, action, steps left <= 200); it stops
// storing layers at its fixed point (144 layers at eps 0.05 and the
// default noise, as Q's comment says), and its value is still the
// DP's at cap 2000, which stores nothing and runs all 2000 steps.
func TestTaxiQFixedPoint(t *testing.T) {
	p := noisytaxi.DefaultParams()
	q200, _ := NewQ(p, 0.05, 1)
	p.Cap = 2000
	q2000, err := NewQ(p, 0.05, 1)
	if err != nil {
		t.Fatal(err)
	}
	if q2000.Layers() != 144 || q200.Layers() != 144 {
		t.Errorf("layers %d (cap 2000), %d (cap 200), want 144: the fixed point of eps 0.05", q2000.Layers(), q200.Layers())
	}
	for i := range noisytaxi.NumStates {
		s := noisytaxi.StateAt(i)
		for left := 1; left <= 200; left++ {
			for a := range noisytaxi.Action(noisytaxi.NumActions) {
				if x, y := q2000.Q(s, a, left), q200.Q(s, a, left); x != y {
					t.Fatalf("Q(%+v, %v, %d): %v at cap 2000, %v at cap 200", s, a, left, x, y)
				}
			}
		}
		if x, y := q2000.StateValue(s, 2000), q2000.StateValue(s, 143); x != y {
			t.Fatalf("V_2000(%+v) = %v, V_143 = %v: want the fixed point", s, x, y)
		}
	}
	ex, _ := ExactValue(p, 0.05, 1, 1, nil)
	if got := q2000.Value(); math.Abs(got-ex.Value) > 1e-14*math.Abs(ex.Value) {
		t.Errorf("cap 2000: Q value %v, ExactValue %v", got, ex.Value)
	}
	// 2 (slack) x 8 bytes x 500 states x 201 layers + 500 x 6 x (4 + 8)
	// bytes of tables = 1608000 + 36000
	if b := QBytes(200); b != 1644000 {
		t.Errorf("QBytes(200) = %v, want 1644000", b)
	}
	if used := float64(8 * noisytaxi.NumStates * q2000.Layers()); used > QBytes(2000) {
		t.Errorf("%v bytes of layers above the bound %v", used, QBytes(2000))
	}
}

// taxiQRollouts simulates n continuations of the primitive policy eps from
// hidden state s with left steps left: action a first, then the policy
// (a*(o) of a fresh observation, or with probability eps a uniform
// action), until delivery or left steps in all; it returns the moments of
// the returns discounted to the first step, sum_k gamma^k r_(k+1) (SPEC 1c,
// 1d: what q(s, a) with left steps left is the mean of).
func taxiQRollouts(p noisytaxi.Params, s noisytaxi.State, a noisytaxi.Action, left int, eps, gamma float64, n int, rng *rand.Rand) moments {
	p.Cap = left
	env, _ := noisytaxi.New(p)
	var mo moments
	for range n {
		env.ResetTo(s)
		r, done := env.Step(a)
		ret, disc := r, gamma
		for !done {
			act := policies.TaxiOptimalAction(env.Observe(rng))
			if rng.Float64() < eps {
				act = noisytaxi.Action(rng.IntN(noisytaxi.NumActions))
			}
			r, done = env.Step(act)
			ret += disc * r
			disc *= gamma
		}
		mo.add(ret)
	}
	return mo
}

// TestTaxiQVsMonteCarlo: for sampled (hidden state, action, steps left),
// Q equals the mean of 20000 simulated discounted returns (taxiQRollouts)
// within 4 standard errors, under the evaluation policy (eps 0.05) with
// gamma 1 and 0.9. Three cases are exact: a dropoff of the carried
// passenger at its destination is worth +20 and ends the episode; with one
// step left a step is worth its reward alone (an illegal pickup: -10; a
// move: -1).
func TestTaxiQVsMonteCarlo(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const eps, n = 0.05, 20000
	p := noisytaxi.DefaultParams()
	type sample struct {
		s     noisytaxi.State
		a     noisytaxi.Action
		left  int
		exact float64 // NaN: not known in closed form
	}
	nan := math.NaN()
	samples := []sample{
		{noisytaxi.State{Row: 0, Col: 4, Pass: noisytaxi.InTaxi, Dest: noisytaxi.LocG}, noisytaxi.Dropoff, 50, 20},
		{noisytaxi.State{Row: 2, Col: 2, Pass: noisytaxi.LocR, Dest: noisytaxi.LocB}, noisytaxi.Pickup, 1, -10},
		{noisytaxi.State{Row: 2, Col: 2, Pass: noisytaxi.LocR, Dest: noisytaxi.LocB}, noisytaxi.West, 1, -1},
		// at R with the passenger at R: the pickup succeeds (-1), then
		// the trip R to B (7 moves) and the dropoff
		{noisytaxi.State{Row: 0, Col: 0, Pass: noisytaxi.LocR, Dest: noisytaxi.LocB}, noisytaxi.Pickup, 200, nan},
		{noisytaxi.State{Row: 0, Col: 0, Pass: noisytaxi.LocR, Dest: noisytaxi.LocB}, noisytaxi.Pickup, 6, nan}, // cap binds
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for range 8 {
		samples = append(samples, sample{noisytaxi.StateAt(rng.IntN(noisytaxi.NumStates)),
			noisytaxi.Action(rng.IntN(noisytaxi.NumActions)), 2 + rng.IntN(p.Cap-1), nan})
	}
	for _, gamma := range []float64{1, 0.9} {
		q, err := NewQ(p, eps, gamma)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range samples {
			got := q.Q(c.s, c.a, c.left)
			if !math.IsNaN(c.exact) {
				if got != c.exact {
					t.Errorf("gamma %v: Q(%+v, %v, %d) = %v, want %v exactly", gamma, c.s, c.a, c.left, got, c.exact)
				}
				continue
			}
			mo := taxiQRollouts(p, c.s, c.a, c.left, eps, gamma, n, rand.New(rand.NewPCG(uint64(i), 17)))
			t.Logf("gamma %v: Q(%+v, %v, %d) = %.4f, Monte Carlo %.4f +- %.4f", gamma, c.s, c.a, c.left, got, mo.mean, mo.se())
			if math.Abs(mo.mean-got) > 4*mo.se() {
				t.Errorf("gamma %v: Q(%+v, %v, %d) = %v, Monte Carlo %v +- %v", gamma, c.s, c.a, c.left, got, mo.mean, mo.se())
			}
		}
	}
}

// TestTaxiQVAveragesToStateValue: V(s, o, left) = sum_a pi(a|o) Q(s, a,
// left), averaged over the observation distribution of s, is the
// recursion's V_left(s) (Q's comment: the policy's action distribution
// in s is the observation average of pi(.|o)).
func TestTaxiQVAveragesToStateValue(t *testing.T) {
	p := noisytaxi.DefaultParams()
	q, err := NewQ(p, 0.05, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < noisytaxi.NumStates; i += 7 {
		s := noisytaxi.StateAt(i)
		for _, left := range []int{1, 2, 17, 200} {
			var avg, mass float64
			for j := range noisytaxi.NumObs {
				o := noisytaxi.ObsAt(j)
				if pr := p.ObsProb(s, o); pr > 0 {
					avg += pr * q.V(s, o, left)
					mass += pr
				}
			}
			want := q.StateValue(s, left)
			if math.Abs(mass-1) > 1e-12 || math.Abs(avg-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("state %+v, left %d: observation average of V %v (mass %v), V_left %v", s, left, avg, mass, want)
			}
		}
	}
}

// TestTaxiQRecordedColumns replays each episode of
// policies.TaxiRollout.EpisodeRecord with the exact model with the same stream,
// transcribing the behavior policy (as TestRolloutPrimitiveRatios does),
// and checks every step's columns: the observation id o_t.Index() and
// action a_t; q_hat_t = Q(s_t, a_t, cap - t + 1) and v_hat_t = V(s_t, o_t,
// cap - t + 1) for the hidden state s_t before step t (steps left counting
// step t). Known values: a delivering last step has q_hat = +20 exactly
// (nothing after it); a last step at the cap has q_hat = its reward.
func TestTaxiQRecordedColumns(t *testing.T) {
	const epsB, epsE, gamma = 0.3, 0.05, 0.9
	for _, capSteps := range []int{200, 12} {
		p := noisytaxi.DefaultParams()
		p.Cap = capSteps
		q, _ := NewQ(p, epsE, gamma)
		ro, _ := policies.NewTaxiRollout(1, epsB, epsE)
		env, _ := noisytaxi.New(p)
		replay, _ := noisytaxi.New(p)
		var b trajectory.Batch
		delivered, capped := 0, 0
		for ep := range 300 {
			b.Reset()
			ro.EpisodeRecord(env, rand.New(rand.NewPCG(uint64(ep), 3)), &b, policies.TaxiRecord{IDs: true, Model: q})
			rng := rand.New(rand.NewPCG(uint64(ep), 3))
			replay.Reset(rng)
			for i := 0; ; i++ {
				s, left := replay.State(), capSteps-i
				o := replay.Observe(rng)
				a := policies.TaxiOptimalAction(o)
				if rng.Float64() < epsB {
					a = noisytaxi.Action(rng.IntN(noisytaxi.NumActions))
				}
				r, done := replay.Step(a)
				if i >= b.Steps() {
					t.Fatalf("cap %d episode %d: %d steps recorded, the replay has more", capSteps, ep, b.Steps())
				}
				if b.Obs[i] != int32(o.Index()) || b.Action[i] != int32(a) {
					t.Fatalf("cap %d episode %d step %d: ids (%d, %d), want (%d, %d)", capSteps, ep, i, b.Obs[i], b.Action[i], o.Index(), a)
				}
				if wq, wv := q.Q(s, a, left), q.V(s, o, left); b.QHat[i] != wq || b.VHat[i] != wv {
					t.Fatalf("cap %d episode %d step %d: (q_hat, v_hat) = (%v, %v), want (%v, %v)", capSteps, ep, i, b.QHat[i], b.VHat[i], wq, wv)
				}
				if done {
					switch {
					case replay.Delivered():
						delivered++
						if b.QHat[i] != 20 {
							t.Fatalf("cap %d episode %d: delivering step has q_hat %v, want 20", capSteps, ep, b.QHat[i])
						}
					default:
						capped++
						if b.QHat[i] != r {
							t.Fatalf("cap %d episode %d: last step at the cap has q_hat %v, want its reward %v", capSteps, ep, b.QHat[i], r)
						}
					}
					if i+1 != b.Steps() {
						t.Fatalf("cap %d episode %d: replay ends after %d steps, %d recorded", capSteps, ep, i+1, b.Steps())
					}
					break
				}
			}
		}
		if delivered == 0 || (capSteps == 12 && capped == 0) {
			t.Errorf("cap %d: %d delivered, %d capped episodes: the known values were not checked", capSteps, delivered, capped)
		}
	}
}
