package suite

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDriftClosedForm(t *testing.T) {
	// Sub-episode j (0-based) takes s1 at step 2j+1 and s2 or s3 at step
	// 2j+2, worth p (1 + base + drift (2j+2)) + (1 - p)(-1 + 2); summed
	// over j < S: S (1 + p base) + p drift S (S + 1).
	for _, tc := range []struct {
		set  map[string]float64
		want float64
	}{
		// Defaults: 50 (1 - 1.5) + 0.75 x 0.01 x 50 x 51 = -25 + 19.125.
		{nil, -5.875},
		// No drift: SPEC 2.2 with eps = 0, S (1 - 2p) = 50 x (-0.5).
		{map[string]float64{"drift": 0}, -25},
		// S = 3, p = 0.5, base = 0, drift = 1: 3 x 1 + 0.5 x 3 x 4 = 9.
		{map[string]float64{"subepisodes": 3, "p_e": 0.5, "base": 0, "drift": 1}, 9},
	} {
		if got := suiteTruth(t, "drift", tc.set); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%v: truth %v, want %v", tc.set, got, tc.want)
		}
	}
}

func TestDriftInstances(t *testing.T) {
	// jitter = 0: every instance is SPEC 2.2's rewards, the same truth bit
	// for bit. jitter > 0: deterministic per instance, different across.
	v1 := suiteTruth(t, "drift", nil)
	if v2 := suiteTruth(t, "drift", map[string]float64{"instance": 2}); math.Float64bits(v2) != math.Float64bits(v1) {
		t.Errorf("jitter 0: instance 1 %v, instance 2 %v", v1, v2)
	}
	j1 := map[string]float64{"jitter": 0.5}
	j2 := map[string]float64{"jitter": 0.5, "instance": 2}
	a, b := suiteTruth(t, "drift", j1), suiteTruth(t, "drift", j1)
	if math.Float64bits(a) != math.Float64bits(b) {
		t.Errorf("jitter 0.5, instance 1 twice: %v then %v", a, b)
	}
	if c := suiteTruth(t, "drift", j2); c == a {
		t.Errorf("jitter 0.5: instances 1 and 2 have the same truth %v", a)
	}
}

func TestDriftKernels(t *testing.T) {
	// The kernels are built once (At returns the same kernel for a step
	// every time) and s2 pays base + drift t at 1-based step t: at step
	// 100, -2 + 0.01 x 100 = -1.
	_, m, _, _ := suiteBuild(t, "drift", nil)
	if m.At(7) != m.At(7) {
		t.Error("At(7) builds a new kernel at each call")
	}
	for _, tc := range []struct {
		t    int
		want float64
	}{{0, -2 + 0.01}, {1, -2 + 0.02}, {99, -1}} {
		k := m.At(tc.t)
		for a := range 2 {
			if got := k.Mean[driftS2*2+a]; math.Abs(got-tc.want) > 1e-15 {
				t.Errorf("At(%d): s2 pays %v with a%d, want %v", tc.t, got, a+1, tc.want)
			}
		}
	}
}

func TestDriftBruteForce(t *testing.T) {
	// Two sub-episodes (H = 4): the engine's dynamic program equals the
	// enumeration of every trajectory.
	for _, tc := range []map[string]float64{
		{"subepisodes": 2},
		{"subepisodes": 2, "gamma": 0.9, "jitter": 0.3, "drift": 0.5},
		{"subepisodes": 3, "p_e": 0.1, "p_b": 0.7, "jitter": 1, "instance": 9},
	} {
		p, m, pb, pe := suiteBuild(t, "drift", tc)
		want := enumerateValue(m, pe, p["gamma"])
		if got := suiteTruth(t, "drift", tc); math.Abs(got-want) > 1e-12 {
			t.Errorf("%v: truth %v, enumeration %v", tc, got, want)
		}
		if got, want := m.Value(pb, p["gamma"]), enumerateValue(m, pb, p["gamma"]); math.Abs(got-want) > 1e-12 {
			t.Errorf("%v: V(pi_b) %v, enumeration %v", tc, got, want)
		}
	}
}

func TestDriftMonteCarlo(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo")
	}
	// Defaults: returns under pi_e within 4 standard errors of the truth;
	// E_b[W^2] = (0.75^2/0.5 + 0.25^2/0.5)^100 = 1.25^100, as the Doc
	// states (every step has a ratio).
	_, m, pb, pe := suiteBuild(t, "drift", nil)
	truth := suiteTruth(t, "drift", nil)
	e := suiteEpisodes(t, m, pe, 20000, rand.New(rand.NewPCG(9, 10)))
	if math.Abs(e.Mean-truth) > 4*e.SE {
		t.Errorf("Monte Carlo %v +- %v, truth %v", e.Mean, e.SE, truth)
	}
	if w2, want := m.WeightMoment(pb, pe), math.Pow(1.25, 100); math.Abs(w2/want-1) > 1e-12 {
		t.Errorf("E_b[W^2] = %v, want 1.25^100 = %v", w2, want)
	}
}
