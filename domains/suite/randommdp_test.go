package suite

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/tabular"
	"github.com/ope-lab/longhorizon/trajectory"
)

// buildSuite resolves domain name's parameters with set and builds its
// MDP and policies, checked as New checks them.
func buildSuite(t *testing.T, name string, set map[string]float64) (*tabular.MDP, *tabular.Policy, *tabular.Policy, domains.Params) {
	t.Helper()
	spec, ok := domains.Lookup(name)
	if !ok {
		t.Fatalf("%s not registered", name)
	}
	p, err := spec.Resolve(set)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := spec.New(p); err != nil {
		t.Fatal(err)
	}
	var build func(domains.Params) (*tabular.MDP, *tabular.Policy, *tabular.Policy, error)
	switch name {
	case "randommdp":
		build = buildRandomMDP
	case "fewstates":
		build = buildFewStates
	}
	m, b, e, err := build(p)
	if err != nil {
		t.Fatal(err)
	}
	return m, b, e, p
}

// sameMDP reports whether two time-homogeneous MDPs and their policies
// are equal bit for bit.
func sameMDP(m1, m2 *tabular.MDP, b1, b2, e1, e2 *tabular.Policy) bool {
	k1, k2 := m1.At(0), m2.At(0)
	if !slices.Equal(k1.Mean, k2.Mean) || !slices.Equal(m1.Start, m2.Start) || !slices.Equal(b1.Pi, b2.Pi) || !slices.Equal(e1.Pi, e2.Pi) {
		return false
	}
	for i := range k1.P {
		if !slices.Equal(k1.P[i], k2.P[i]) {
			return false
		}
	}
	return true
}

// suiteDeterminism checks that domain name's instance is a function of
// its parameters: the same parameters give the same MDP, policies and
// truth bit for bit; another instance a different MDP and truth.
func suiteDeterminism(t *testing.T, name string) {
	spec, _ := domains.Lookup(name)
	m1, b1, e1, p := buildSuite(t, name, nil)
	m2, b2, e2, _ := buildSuite(t, name, nil)
	m3, b3, e3, q := buildSuite(t, name, map[string]float64{"instance": 2})
	t1, _ := spec.Truth(p, nil)
	t2, _ := spec.Truth(p, nil)
	t3, _ := spec.Truth(q, nil)
	if !sameMDP(m1, m2, b1, b2, e1, e2) || t1.Value != t2.Value || t1.Extra["behavior_value"] != t2.Extra["behavior_value"] {
		t.Errorf("%s: the same parameters built different instances (truths %v, %v)", name, t1.Value, t2.Value)
	}
	if sameMDP(m1, m3, b1, b3, e1, e3) || t1.Value == t3.Value {
		t.Errorf("%s: instances 1 and 2 are the same MDP (truths %v, %v)", name, t1.Value, t3.Value)
	}
	if t1.Method != "exact dynamic program over (step, state)" || !(t1.Extra["is_weight_second_moment"] > 1) {
		t.Errorf("%s: truth %+v", name, t1)
	}
}

// suiteBruteForce checks, at tiny sizes (S = 3, H = 3), that the truth is
// the enumeration of every trajectory under pi_e (to 1e-12) at gamma 1
// and 0.9, and behavior_value that under pi_b, for three instances.
func suiteBruteForce(t *testing.T, name string, set map[string]float64) {
	spec, _ := domains.Lookup(name)
	for _, gamma := range []float64{1, 0.9} {
		for inst := 1.0; inst <= 3; inst++ {
			s := map[string]float64{"states": 3, "horizon": 3, "gamma": gamma, "instance": inst}
			for k, v := range set {
				s[k] = v
			}
			m, b, e, p := buildSuite(t, name, s)
			tr, err := spec.Truth(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := enumerateValue(m, e, gamma); math.Abs(tr.Value-want) > 1e-12 {
				t.Errorf("%s %v: truth %v, brute force %v", name, s, tr.Value, want)
			}
			if want := enumerateValue(m, b, gamma); math.Abs(tr.Extra["behavior_value"]-want) > 1e-12 {
				t.Errorf("%s %v: V(pi_b) %v, brute force %v", name, s, tr.Extra["behavior_value"], want)
			}
		}
	}
}

// suiteMonteCarlo checks at the default sizes that the mean discounted
// return of n episodes under pi_e is within 4 standard errors of the
// truth, at gamma 1 and 0.95.
func suiteMonteCarlo(t *testing.T, name string, n int) {
	spec, _ := domains.Lookup(name)
	for _, gamma := range []float64{1, 0.95} {
		m, _, e, p := buildSuite(t, name, map[string]float64{"gamma": gamma})
		tr, _ := spec.Truth(p, nil)
		mean, se := monteCarlo(t, m, e, gamma, n, rand.New(rand.NewPCG(21, 22)))
		if math.Abs(mean-tr.Value) > 4*se {
			t.Errorf("%s gamma %v: Monte Carlo %v +- %v, truth %v", name, gamma, mean, se, tr.Value)
		}
	}
}

func TestSuiteRandomDeterministic(t *testing.T) { suiteDeterminism(t, "randommdp") }

func TestSuiteRandomBruteForce(t *testing.T) {
	suiteBruteForce(t, "randommdp", map[string]float64{"actions": 2, "end_prob": 0.2})
}

func TestSuiteRandomMonteCarlo(t *testing.T) { suiteMonteCarlo(t, "randommdp", 20000) }

// TestSuiteRandomPolicies: at the defaults (mix 0.5, A = 3) pi_b =
// 0.5 pi_e + 0.5/3 exactly as computed, every recorded ratio is at most
// 1/(1 - mix) = 2 and at least 0, and the kernel's end outcome has
// probability end_prob = 0.02 at every (s, a).
func TestSuiteRandomPolicies(t *testing.T) {
	m, b, e, _ := buildSuite(t, "randommdp", nil)
	for i := range b.Pi {
		if b.Pi[i] != 0.5*e.Pi[i]+0.5*(1.0/3) {
			t.Fatalf("pi_b[%d] = %v, pi_e %v", i, b.Pi[i], e.Pi[i])
		}
	}
	for i, p := range m.At(0).P {
		if p[m.States] != 0.02 {
			t.Fatalf("(s, a) %d: end probability %v, want 0.02", i, p[m.States])
		}
	}
	d, _, err := domains.New("randommdp", nil)
	if err != nil {
		t.Fatal(err)
	}
	var batch trajectory.Batch
	d.Collect(&batch, 1000, rand.New(rand.NewPCG(1, 2)))
	if lo, hi := slices.Min(batch.Ratio), slices.Max(batch.Ratio); lo < 0 || hi > 2 || hi < 1.2 {
		t.Errorf("ratios in [%v, %v], want within [0, 2] and some well above 1", lo, hi)
	}
	if batch.Horizon() != 20 {
		t.Errorf("horizon %d, want 20", batch.Horizon())
	}
}

// monteCarlo returns the mean and standard error of n sampled discounted
// returns of pi on m.
func monteCarlo(t *testing.T, m *tabular.MDP, pi *tabular.Policy, gamma float64, n int, rng *rand.Rand) (mean, se float64) {
	t.Helper()
	env, err := tabular.NewSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	act := tabular.NewPolicySampler(pi)
	var sum, sum2 float64
	for range n {
		env.Reset(rng)
		g, disc := 0.0, 1.0
		for {
			r, done := env.Step(act.Sample(env.State(), rng), rng)
			g += disc * r
			disc *= gamma
			if done {
				break
			}
		}
		sum += g
		sum2 += g * g
	}
	mean = sum / float64(n)
	return mean, math.Sqrt((sum2/float64(n) - mean*mean) / float64(n-1))
}
