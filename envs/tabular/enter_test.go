package tabular

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// withEnter gives every kernel of m (a time-dependent MDP of randomMDP)
// rewards on entering each outcome, uniform in [-2, 2], drawn from rng.
func withEnter(m *MDP, rng *rand.Rand) {
	for t := range m.Horizon {
		k := m.At(t)
		k.Enter = make([]float64, m.States+1)
		for j := range k.Enter {
			k.Enter[j] = 4*rng.Float64() - 2
		}
	}
}

// TestEnterValueBruteForce: with rewards on entering outcomes, Value
// equals the enumeration of every trajectory (which adds Enter of each
// outcome on its branch, the end included) to 1e-12, at gamma 1 and 0.9,
// on time-dependent MDPs with early ends; the Q tables averaged over pi
// and Start give Value; and on a one-step MDP whose action leads to state
// 0 or 1 with probabilities 0.25 and 0.75 (Mean 1, Enter +4 and -4), Q =
// 1 + 0.25 x 4 - 0.75 x 4 = -1.
func TestEnterValueBruteForce(t *testing.T) {
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 12))
		m := randomMDP(3, 2, 4, rng)
		withEnter(m, rng)
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		pi := randomPolicy(3, 2, seed%2 == 1, rng)
		for _, gamma := range []float64{1, 0.9} {
			got, want := m.Value(pi, gamma), bruteForce(m, pi, gamma)
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("seed %d gamma %v: Value %v, brute force %v", seed, gamma, got, want)
			}
			q := m.QTables(pi, gamma)
			v := 0.0
			for s, p := range m.Start {
				for a := range m.Actions {
					v += p * pi.Pi[s*m.Actions+a] * q[0][s*m.Actions+a]
				}
			}
			if math.Abs(v-got) > 1e-12 {
				t.Errorf("seed %d gamma %v: Q tables give %v, Value %v", seed, gamma, v, got)
			}
		}
	}
	k := &Kernel{P: [][]float64{{0.25, 0.75, 0}, {0.25, 0.75, 0}}, Mean: []float64{1, 1}, Enter: []float64{4, -4, 0}}
	m := &MDP{States: 2, Actions: 1, Horizon: 1, Start: []float64{1, 0}, At: func(int) *Kernel { return k }}
	if q := m.QTables(&Policy{Actions: 1, Pi: []float64{1, 1}}, 1); q[0][0] != -1 {
		t.Errorf("Q = %v, want -1", q[0][0])
	}
}

// TestEnterSamplerMonteCarlo: with rewards on entering outcomes, the mean
// discounted return of 200,000 sampled episodes is within 4 standard
// errors of Value (S = 3, A = 2, H = 4 and S = 5, A = 3, H = 7; gamma 1
// and 0.9), and Enter draws nothing: the sampler's states and episode
// ends are those of the same MDP without Enter on the same stream.
func TestEnterSamplerMonteCarlo(t *testing.T) {
	const n = 200000
	for _, tc := range []struct{ ns, na, h int }{{3, 2, 4}, {5, 3, 7}} {
		for _, gamma := range []float64{1, 0.9} {
			rng := rand.New(rand.NewPCG(uint64(tc.ns), 13))
			m := randomMDP(tc.ns, tc.na, tc.h, rng)
			pi := randomPolicy(tc.ns, tc.na, true, rng)
			plain, err := NewSampler(m)
			if err != nil {
				t.Fatal(err)
			}
			withEnter(m, rng)
			env, err := NewSampler(m)
			if err != nil {
				t.Fatal(err)
			}
			act := NewPolicySampler(pi)
			var sum, sum2 float64
			rng = rand.New(rand.NewPCG(7, 8)) // the same stream twice
			rng2 := rand.New(rand.NewPCG(7, 8))
			for range n {
				env.Reset(rng)
				plain.Reset(rng2)
				g, disc := 0.0, 1.0
				for {
					s := env.State()
					if s != plain.State() {
						t.Fatal("Enter changed the draws: states differ")
					}
					a := act.Sample(s, rng)
					act.Sample(s, rng2)
					r, done := env.Step(a, rng)
					if _, d2 := plain.Step(a, rng2); d2 != done {
						t.Fatal("Enter changed the draws: episode ends differ")
					}
					g += disc * r
					disc *= gamma
					if done {
						break
					}
				}
				sum += g
				sum2 += g * g
			}
			mean := sum / n
			se := math.Sqrt((sum2/n - mean*mean) / (n - 1))
			if v := m.Value(pi, gamma); math.Abs(mean-v) > 4*se {
				t.Errorf("%+v gamma %v: Monte Carlo %v +- %v, Value %v", tc, gamma, mean, se, v)
			}
		}
	}
}

// TestEnterValidate: Enter of the wrong length or with a non-finite entry
// is refused, naming the step and the outcome.
func TestEnterValidate(t *testing.T) {
	for _, tc := range []struct {
		enter []float64
		want  string
	}{
		{[]float64{0, 1}, "step 1: 2 rewards on entering an outcome, want 3 (states + end)"},
		{[]float64{0, math.NaN(), 1}, "step 1: reward NaN on entering outcome 1 is not finite"},
		{[]float64{0, 1, math.Inf(-1)}, "step 1: reward -Inf on entering outcome 2 is not finite"},
	} {
		k := &Kernel{P: [][]float64{{0.5, 0.25, 0.25}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, Mean: []float64{0, 1, 2, 3}, Enter: tc.enter}
		m := &MDP{States: 2, Actions: 2, Horizon: 3, Start: []float64{0.5, 0.5}, At: func(int) *Kernel { return k }}
		if err := m.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Enter %v: error %v, want %q", tc.enter, err, tc.want)
		}
	}
}
