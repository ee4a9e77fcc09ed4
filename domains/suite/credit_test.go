package suite

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestCreditInstances(t *testing.T) {
	// Same parameters: the same truth, bit for bit; instance 2 draws other
	// reward shifts, so another truth.
	v1 := suiteTruth(t, "credit", nil)
	if again := suiteTruth(t, "credit", nil); math.Float64bits(again) != math.Float64bits(v1) {
		t.Errorf("instance 1 twice: %v then %v", v1, again)
	}
	suiteBuild(t, "credit", map[string]float64{"instance": 2})
	if v2 := suiteTruth(t, "credit", map[string]float64{"instance": 2}); v2 == v1 {
		t.Errorf("instances 1 and 2 have the same truth %v", v1)
	}
}

func TestCreditClosedForm(t *testing.T) {
	// Without late shifts every step after the first pays good_reward in
	// the good stream and 0 in the bad one, so V(pi) = (H - 1) good_reward
	// P(good): 199 x 0.1 x 0.9 = 17.91 for pi_e and 199 x 0.1 x 0.5 = 9.95
	// for pi_b at the defaults; their difference, 7.96, is the bias of
	// dropping the step-1 ratio that the Doc states.
	set := map[string]float64{"late_effect": 0}
	p, m, pb, _ := suiteBuild(t, "credit", set)
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"V(pi_e)", suiteTruth(t, "credit", set), 199 * 0.1 * 0.9},
		{"V(pi_b)", m.Value(pb, p["gamma"]), 199 * 0.1 * 0.5},
	} {
		if math.Abs(tc.got-tc.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

func TestCreditBruteForce(t *testing.T) {
	// H = 4 with two noise states: the engine's dynamic program equals
	// the enumeration of every trajectory.
	for _, tc := range []map[string]float64{
		{"horizon": 4, "noise_states": 2},
		{"horizon": 4, "noise_states": 2, "gamma": 0.9, "late_effect": 0.5, "instance": 3},
		{"horizon": 3, "noise_states": 3, "p_e": 0.2, "late_mix": 1},
	} {
		p, m, pb, pe := suiteBuild(t, "credit", tc)
		want := enumerateValue(m, pe, p["gamma"])
		if got := suiteTruth(t, "credit", tc); math.Abs(got-want) > 1e-12 {
			t.Errorf("%v: truth %v, enumeration %v", tc, got, want)
		}
		if got, want := m.Value(pb, p["gamma"]), enumerateValue(m, pb, p["gamma"]); math.Abs(got-want) > 1e-12 {
			t.Errorf("%v: V(pi_b) %v, enumeration %v", tc, got, want)
		}
	}
}

func TestCreditMonteCarlo(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo")
	}
	// Defaults: returns under pi_e within 4 standard errors of the truth;
	// E_b[W^2] in the range the Doc states (the step-1 ratio alone gives
	// 0.9^2/0.5 + 0.1^2/0.5 = 1.64).
	_, m, pb, pe := suiteBuild(t, "credit", nil)
	truth := suiteTruth(t, "credit", nil)
	e := suiteEpisodes(t, m, pe, 5000, rand.New(rand.NewPCG(7, 8)))
	if math.Abs(e.Mean-truth) > 4*e.SE {
		t.Errorf("Monte Carlo %v +- %v, truth %v", e.Mean, e.SE, truth)
	}
	if w2 := m.WeightMoment(pb, pe); w2 < 1.64 || w2 > 3 {
		t.Errorf("E_b[W^2] = %v, want within [1.64, 3]", w2)
	}
	t.Logf("truth %v, V(pi_b) %v, MC %v +- %v, E_b[W^2] %v", truth, m.Value(pb, 1), e.Mean, e.SE, m.WeightMoment(pb, pe))
}
