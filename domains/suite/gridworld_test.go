package suite

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/tabular"
)

// The helpers below are shared by the tests of the suite domains
// gridworld, sparse, credit and drift.

// suiteBuild resolves the parameters of the registered tabular domain name
// with set, builds its MDP and policies and validates the MDP.
func suiteBuild(t *testing.T, name string, set map[string]float64) (p domains.Params, m *tabular.MDP, pb, pe *tabular.Policy) {
	t.Helper()
	spec, ok := domains.Lookup(name)
	if !ok {
		t.Fatalf("domain %q not registered", name)
	}
	p, err := spec.Resolve(set)
	if err != nil {
		t.Fatal(err)
	}
	d, err := spec.New(p)
	if err != nil || d == nil {
		t.Fatalf("%s.New(%v): %v", name, set, err)
	}
	m, pb, pe, err = suiteBuilder(t, name)(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("%s %v: Validate: %v", name, set, err)
	}
	return p, m, pb, pe
}

// suiteBuilder returns the Build function of one of the four domains.
func suiteBuilder(t *testing.T, name string) func(domains.Params) (*tabular.MDP, *tabular.Policy, *tabular.Policy, error) {
	t.Helper()
	switch name {
	case "gridworld":
		return buildGridworld
	case "sparse":
		return buildSparse
	case "credit":
		return buildCredit
	case "drift":
		return buildDrift
	}
	t.Fatalf("no builder for %q", name)
	return nil
}

// suiteTruth returns the registered truth of domain name with set.
func suiteTruth(t *testing.T, name string, set map[string]float64) float64 {
	t.Helper()
	spec, _ := domains.Lookup(name)
	p, err := spec.Resolve(set)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := spec.Truth(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Value
}

// enumerateValue returns V(pi) by walking every trajectory of m under pi
// (every start state, action and outcome of every step, the end outcome
// stopping the walk) and summing probability x discounted mean reward: no
// dynamic program, exponential in the horizon, for tiny sizes only.
func enumerateValue(m *tabular.MDP, pi *tabular.Policy, gamma float64) float64 {
	var walk func(t, s int, prob, disc float64) float64
	walk = func(t, s int, prob, disc float64) float64 {
		if t == m.Horizon || prob == 0 {
			return 0
		}
		k := m.At(t)
		v := 0.0
		for a := 0; a < m.Actions; a++ {
			i := s*m.Actions + a
			pa := prob * pi.Pi[i]
			if pa == 0 {
				continue
			}
			v += pa * disc * k.Mean[i]
			for s2 := 0; s2 < m.States; s2++ {
				v += walk(t+1, s2, pa*k.P[i][s2], disc*gamma)
			}
		}
		return v
	}
	v := 0.0
	for s, p0 := range m.Start {
		v += walk(0, s, p0, 1)
	}
	return v
}

// suiteSample is what suiteEpisodes measures over n episodes.
type suiteSample struct {
	// Mean and SE are the mean undiscounted return and its standard error.
	Mean, SE float64
	// Len and LenSE are the mean episode length in steps and its
	// standard error.
	Len, LenSE float64
	// Hits and HitsSE are the mean number of steps per episode with a
	// non-zero reward and its standard error.
	Hits, HitsSE float64
}

// suiteEpisodes samples n episodes of m under pi with the engine's
// samplers (tabular.Sampler, tabular.PolicySampler), those of Collect.
func suiteEpisodes(t *testing.T, m *tabular.MDP, pi *tabular.Policy, n int, rng *rand.Rand) suiteSample {
	t.Helper()
	env, err := tabular.NewSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	act := tabular.NewPolicySampler(pi)
	var sum, sum2, steps, steps2, hits, hits2 float64
	for range n {
		env.Reset(rng)
		g, h, l := 0.0, 0.0, 0.0
		for done := false; !done; {
			var r float64
			r, done = env.Step(act.Sample(env.State(), rng), rng)
			if r != 0 {
				h++
			}
			g += r
			l++
		}
		sum += g
		sum2 += g * g
		hits += h
		hits2 += h * h
		steps += l
		steps2 += l * l
	}
	fn := float64(n)
	se := func(s, s2 float64) (mean, se float64) {
		mean = s / fn
		return mean, math.Sqrt(math.Max(s2-fn*mean*mean, 0) / (fn - 1) / fn)
	}
	var out suiteSample
	out.Mean, out.SE = se(sum, sum2)
	out.Hits, out.HitsSE = se(hits, hits2)
	out.Len, out.LenSE = se(steps, steps2)
	return out
}

func TestGridworldInstances(t *testing.T) {
	// Same parameters: the same truth, bit for bit; other instances place
	// the pits elsewhere, so at least one of instances 2..5 differs.
	v1 := suiteTruth(t, "gridworld", nil)
	if again := suiteTruth(t, "gridworld", nil); math.Float64bits(again) != math.Float64bits(v1) {
		t.Errorf("instance 1 twice: %v then %v", v1, again)
	}
	g1, err := newGridworld(suiteParams(t, "gridworld", nil))
	if err != nil {
		t.Fatal(err)
	}
	differ := false
	for inst := 2; inst <= 5; inst++ {
		set := map[string]float64{"instance": float64(inst)}
		suiteBuild(t, "gridworld", set)
		g, err := newGridworld(suiteParams(t, "gridworld", set))
		if err != nil {
			t.Fatal(err)
		}
		for c := range g.pit {
			differ = differ || g.pit[c] != g1.pit[c]
		}
		if v := suiteTruth(t, "gridworld", set); v != v1 {
			differ = true
		}
	}
	if !differ {
		t.Error("instances 1..5 all place the same pits")
	}
	pits := 0
	for _, b := range g1.pit {
		if b {
			pits++
		}
	}
	if pits != 3 || g1.pit[0] || g1.pit[24] || g1.dist[0] < 8 {
		t.Errorf("instance 1: %d pits (want 3), start pit %v, goal pit %v, distance %d (want >= 8, the Manhattan distance)",
			pits, g1.pit[0], g1.pit[24], g1.dist[0])
	}
}

// suiteParams resolves the parameters of domain name with set.
func suiteParams(t *testing.T, name string, set map[string]float64) domains.Params {
	t.Helper()
	spec, _ := domains.Lookup(name)
	p, err := spec.Resolve(set)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGridworldHandWorked(t *testing.T) {
	// 2 x 2 grid, no pits, no slip, eps_e = 0, H = 3: from cell 0 both S
	// and E reach distance 1 and S comes first (ties N, S, E, W), then E
	// enters the goal (cell 3), which pays +1 on step 3:
	// -0.01 - 0.01 + 1 = 0.98.
	set := map[string]float64{"width": 2, "height": 2, "pits": 0, "slip": 0, "eps_e": 0, "eps_b": 1, "horizon": 3}
	_, m, _, pe := suiteBuild(t, "gridworld", set)
	if got, want := suiteTruth(t, "gridworld", set), 0.98; math.Abs(got-want) > 1e-15 {
		t.Errorf("truth %v, want %v", got, want)
	}
	if got := enumerateValue(m, pe, 1); math.Abs(got-0.98) > 1e-15 {
		t.Errorf("enumeration %v, want 0.98", got)
	}
	// With H = 2 the goal is entered on the last step and never pays.
	set["horizon"] = 2
	if got, want := suiteTruth(t, "gridworld", set), -0.02; math.Abs(got-want) > 1e-15 {
		t.Errorf("H = 2: truth %v, want %v", got, want)
	}
}

func TestGridworldBruteForce(t *testing.T) {
	// Tiny grids with slips, pits and both policies: the engine's dynamic
	// program equals the enumeration of every trajectory.
	for _, tc := range []map[string]float64{
		{"width": 2, "height": 2, "pits": 1, "horizon": 3},
		{"width": 2, "height": 2, "pits": 1, "horizon": 3, "instance": 2, "gamma": 0.9},
		{"width": 3, "height": 2, "pits": 1, "horizon": 4, "slip": 0.5, "eps_e": 0.3},
		{"width": 2, "height": 3, "pits": 0, "horizon": 4, "step_cost": 0.5},
	} {
		p, m, pb, pe := suiteBuild(t, "gridworld", tc)
		want := enumerateValue(m, pe, p["gamma"])
		if got := suiteTruth(t, "gridworld", tc); math.Abs(got-want) > 1e-12 {
			t.Errorf("%v: truth %v, enumeration %v", tc, got, want)
		}
		if got, want := m.Value(pb, p["gamma"]), enumerateValue(m, pb, p["gamma"]); math.Abs(got-want) > 1e-12 {
			t.Errorf("%v: V(pi_b) %v, enumeration %v", tc, got, want)
		}
	}
}

func TestGridworldPitsRefused(t *testing.T) {
	// A 2 x 2 grid has 2 cells besides start and goal: 2 pits cut every
	// path, 3 do not fit.
	spec, _ := domains.Lookup("gridworld")
	for _, pits := range []float64{2, 3} {
		p, err := spec.Resolve(map[string]float64{"width": 2, "height": 2, "pits": pits})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := spec.New(p); err == nil {
			t.Errorf("pits = %v in a 2 x 2 grid: no error", pits)
		}
	}
}

func TestGridworldMonteCarlo(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo")
	}
	// Defaults: returns under pi_e within 4 standard errors of the truth;
	// mean episode lengths under pi_b and pi_e apart (the point of the
	// domain: the episode length depends on the policy); the variance
	// scale E_b[W^2] in the range the Doc states (hard at n = 100,
	// feasible at 10^4).
	_, m, pb, pe := suiteBuild(t, "gridworld", nil)
	truth := suiteTruth(t, "gridworld", nil)
	rng := rand.New(rand.NewPCG(1, 2))
	e := suiteEpisodes(t, m, pe, 20000, rng)
	if math.Abs(e.Mean-truth) > 4*e.SE {
		t.Errorf("Monte Carlo %v +- %v, truth %v", e.Mean, e.SE, truth)
	}
	b := suiteEpisodes(t, m, pb, 20000, rng)
	if d, se := b.Len-e.Len, math.Hypot(b.LenSE, e.LenSE); math.Abs(d) < 4*se {
		t.Errorf("mean episode length: pi_b %v, pi_e %v; want them apart by more than 4 standard errors (%v)", b.Len, e.Len, 4*se)
	}
	if w2 := m.WeightMoment(pb, pe); w2 < 30 || w2 > 150 {
		t.Errorf("E_b[W^2] = %v, want within [30, 150]", w2)
	}
	t.Logf("truth %v, MC %v +- %v, lengths pi_e %v pi_b %v, E_b[W^2] %v, V(pi_b) %v",
		truth, e.Mean, e.SE, e.Len, b.Len, m.WeightMoment(pb, pe), m.Value(pb, 1))
}
