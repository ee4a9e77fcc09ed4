package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// TestWeightedOneStep: where q-reg and mrdr coincide with `fitted`. At
// H = 1 with ratios that depend on (o, a) only, q-reg's weighted mean over
// a pair's visits has one weight, so it is the pair's mean reward,
// fitted's Q (within 1e-12: rounding). MRDR divides by pi_e(a|o) and sums
// c_t over all of o's visits: it equals fitted where o's action counts
// are in proportion to pi_b(.|o) (each o: 4k visits, k of a0 and 3k of a1,
// pi_b = (1/4, 3/4)), and differs where they are drawn (measured: the
// largest relative difference above 0.01).
func TestWeightedOneStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 30))
	const obs, k = 5, 40
	pib, pie := []float64{0.25, 0.75}, []float64{0.6, 0.4}
	sp := Space{Obs: obs, Actions: 2, Horizon: 1, PiE: func(_ int, dst []float64) { copy(dst, pie) }}
	build := func(action func(o, j int) int) *trajectory.Batch {
		var b trajectory.Batch
		for o := range obs {
			for j := range 4 * k {
				a := action(o, j)
				b.Add(rng.NormFloat64()+float64(o), pie[a]/pib[a])
				b.AddIDs(int32(o), int32(a))
				b.End()
			}
		}
		return &b
	}
	exact := build(func(_, j int) int { return min(j%4, 1) }) // one a0 in four
	drawn := build(func(_, _ int) int { return draw(rng, pib) })
	for _, gamma := range []float64{1, 0.9} {
		for _, tc := range []struct {
			name       string
			b          *trajectory.Batch
			mrdrEquals bool
		}{{"proportional counts", exact, true}, {"drawn counts", drawn, false}} {
			qf, vf := fit(t, new(Fitter), tc.b, sp, gamma)
			qr, vr := fit(t, new(QReg), tc.b, sp, gamma)
			qm, vm := fit(t, new(MRDR), tc.b, sp, gamma)
			if d := max(maxRelDiff(qr, qf), maxRelDiff(vr, vf)); d > 1e-12 {
				t.Errorf("%s, gamma %v: q-reg differs from fitted by %v", tc.name, gamma, d)
			}
			d := max(maxRelDiff(qm, qf), maxRelDiff(vm, vf))
			t.Logf("%s, gamma %v: mrdr's largest relative difference from fitted %.3g", tc.name, gamma, d)
			if tc.mrdrEquals != (d <= 1e-12) || (!tc.mrdrEquals && d < 0.01) {
				t.Errorf("%s, gamma %v: mrdr differs from fitted by %v", tc.name, gamma, d)
			}
		}
	}
}

// rmsError is the root mean square over the steps of b of q - exact Q_K
// (K = h - t + 1 steps left), exact from exactQ.
func rmsError(b *trajectory.Batch, q []float64, exact [][]float64, actions, h int) float64 {
	sum := 0.0
	for i := range b.N() {
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			k := h - (s - b.Offsets[i])
			e := q[s] - exact[k][int(b.Obs[s])*actions+int(b.Action[s])]
			sum += e * e
		}
	}
	return math.Sqrt(sum / float64(b.Steps()))
}

// learnerErrors returns the RMS errors of fitted, q-reg and mrdr on b.
func learnerErrors(t *testing.T, b *trajectory.Batch, sp Space, gamma float64, exact [][]float64) [3]float64 {
	var out [3]float64
	for j, l := range []Learner{new(Fitter), new(QReg), new(MRDR)} {
		q, _ := fit(t, l, b, sp, gamma)
		out[j] = rmsError(b, q, exact, sp.Actions, sp.Horizon)
	}
	return out
}

// TestWeightedConsistent: where the three learners agree in the limit. On
// fitted_test.go's random 5-state DAG MDP (episodes end before the
// horizon, so Q^pi does not depend on t) with data from pi_b, the RMS
// error of q_hat against the exact Q of fitted, q-reg and mrdr falls from
// n = 10^3 to n = 10^5, and at 10^5 is below 0.02 for each (measured:
// 0.0032 fitted, 0.0036 q-reg, 0.0076 mrdr, whose weights are the squared
// ratios; at 10^3: 0.029, 0.037, 0.063; Bernoulli rewards). q-reg and mrdr
// are not fitted: at n = 10^3 the three differ (the model's certainty
// equivalence against weighted Monte Carlo returns).
func TestWeightedConsistent(t *testing.T) {
	const S, A, gamma = 5, 2, 0.9
	rng := rand.New(rand.NewPCG(17, 2017))
	mdp := newDAGMDP(rng, S, A)
	var b trajectory.Batch
	mdp.collect(rng, 100000, &b)
	h := S + 1
	exact, _ := mdp.exactQ(h, gamma)
	sp := Space{Obs: S, Actions: A, Horizon: h, PiE: table(mdp.piE)}
	small := b.Prefix(1000)
	eSmall := learnerErrors(t, &small, sp, gamma, exact)
	eBig := learnerErrors(t, &b, sp, gamma, exact)
	names := []string{"fitted", "q-reg", "mrdr"}
	for j, name := range names {
		t.Logf("%s: RMS error %.4f at n = 1000, %.4f at n = 100000", name, eSmall[j], eBig[j])
		if !(eBig[j] < eSmall[j]) || eBig[j] > 0.02 {
			t.Errorf("%s: RMS error %v at n = 10^5 (%v at 10^3): want it smaller and below 0.02", name, eBig[j], eSmall[j])
		}
	}
	qf, _ := fit(t, new(Fitter), &small, sp, gamma)
	for j, l := range []Learner{new(QReg), new(MRDR)} {
		q, _ := fit(t, l, &small, sp, gamma)
		if d := maxRelDiff(q, qf); d < 1e-3 {
			t.Errorf("%s equals fitted within %v at n = 1000", names[j+1], d)
		}
	}
}

// TestWeightedTimeHomogeneous: where q-reg and mrdr differ from fitted in
// the limit. On a random 3-state MDP whose episodes never end (every one
// cut at H = 6; the same observations recur at every step), Q_K depends
// on the K steps left. fitted's dynamic program counts them: its RMS
// error falls below 0.02 at n = 10^5 (measured 0.011 at 10^3, 0.0026 at
// 10^5); q-reg and mrdr fit one Q(o, a) for every t and keep an error
// above 0.3 at n = 10^3 and 10^5 alike (measured 0.66 and 0.65 for q-reg,
// 0.67 and 0.66 for mrdr: the spread of Q_K over K), a bias that does not
// shrink with n.
func TestWeightedTimeHomogeneous(t *testing.T) {
	const S, A, h, gamma = 3, 2, 6, 0.9
	rng := rand.New(rand.NewPCG(23, 2023))
	mdp := newDAGMDP(rng, S, A)
	for s := range S { // cycles, no end
		for a := range A {
			row, sum := mdp.next[s][a], 0.0
			for j := range row {
				row[j] = 0.2 + rng.Float64()
				sum += row[j]
			}
			for j := range row {
				row[j] /= sum
			}
		}
	}
	mdp.startState = []float64{1.0 / 3, 1.0 / 3}
	var b trajectory.Batch
	for range 100000 {
		s := draw(rng, mdp.startState)
		for range h {
			a := draw(rng, mdp.piB[s])
			r := 0.0
			if rng.Float64() < mdp.mu[s][a] {
				r = 1
			}
			b.Add(r, mdp.piE[s][a]/mdp.piB[s][a])
			b.AddIDs(int32(s), int32(a))
			s = draw(rng, mdp.next[s][a])
		}
		b.End()
	}
	exact, _ := mdp.exactQ(h, gamma)
	sp := Space{Obs: S, Actions: A, Horizon: h, PiE: table(mdp.piE)}
	small := b.Prefix(1000)
	eSmall := learnerErrors(t, &small, sp, gamma, exact)
	eBig := learnerErrors(t, &b, sp, gamma, exact)
	for j, name := range []string{"fitted", "q-reg", "mrdr"} {
		t.Logf("%s: RMS error %.4f at n = 1000, %.4f at n = 100000", name, eSmall[j], eBig[j])
	}
	if eBig[0] > 0.02 {
		t.Errorf("fitted: RMS error %v at n = 10^5, want below 0.02", eBig[0])
	}
	for j := 1; j < 3; j++ {
		if eSmall[j] < 0.3 || eBig[j] < 0.3 {
			t.Errorf("learner %d: RMS errors %v and %v, want both above 0.3 (the time-homogeneous bias)", j, eSmall[j], eBig[j])
		}
	}
}
