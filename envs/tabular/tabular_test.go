package tabular

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomDist returns a random distribution over k outcomes, with some
// entries exactly 0 when sparse.
func randomDist(k int, sparse bool, rng *rand.Rand) []float64 {
	p := make([]float64, k)
	sum := 0.0
	for j := range p {
		if sparse && rng.IntN(3) == 0 {
			continue
		}
		p[j] = rng.Float64() + 0.05
		sum += p[j]
	}
	if sum == 0 {
		p[rng.IntN(k)], sum = 1, 1
	}
	for j := range p {
		p[j] /= sum
	}
	return p
}

// randomMDP returns a time-dependent MDP (a different kernel at every
// step) with end probabilities in [0, 0.3), some zero transitions, and
// Gaussian rewards (sd 0.3) around random means in [-1, 1].
func randomMDP(ns, na, h int, rng *rand.Rand) *MDP {
	ks := make([]*Kernel, h)
	for t := range ks {
		k := &Kernel{P: make([][]float64, ns*na), Mean: make([]float64, ns*na)}
		for i := range k.P {
			end := 0.3 * rng.Float64()
			if rng.IntN(4) == 0 {
				end = 0
			}
			p := randomDist(ns, true, rng)
			for j := range p {
				p[j] *= 1 - end
			}
			k.P[i] = append(p, end)
			k.Mean[i] = 2*rng.Float64() - 1
		}
		mean := k.Mean
		k.Draw = func(s, a int, rng *rand.Rand) float64 { return mean[s*na+a] + 0.3*rng.NormFloat64() }
		ks[t] = k
	}
	return &MDP{States: ns, Actions: na, Horizon: h, Start: randomDist(ns, false, rng), At: func(t int) *Kernel { return ks[t] }}
}

// randomPolicy returns a random policy over na actions in ns states.
func randomPolicy(ns, na int, sparse bool, rng *rand.Rand) *Policy {
	pi := &Policy{Actions: na}
	for range ns {
		pi.Pi = append(pi.Pi, randomDist(na, sparse, rng)...)
	}
	return pi
}

// bruteForce returns E[sum_t gamma^(t-1) r_t] under pi by enumerating
// every trajectory (start state, then action and outcome at every step)
// with its probability and discounted mean return (Mean of the pair, plus
// Enter of the outcome when the kernel has one), with no sharing between
// trajectories: sum over paths of P(path) x return(path).
func bruteForce(m *MDP, pi *Policy, gamma float64) float64 {
	total := 0.0
	var walk func(t, s int, prob, ret, disc float64)
	walk = func(t, s int, prob, ret, disc float64) {
		if t == m.Horizon {
			total += prob * ret
			return
		}
		k := m.At(t)
		for a := range m.Actions {
			i := s*m.Actions + a
			pa := pi.Pi[i]
			if pa == 0 {
				continue
			}
			for j, pj := range k.P[i] {
				if pj == 0 {
					continue
				}
				r := ret + disc*k.Mean[i]
				if k.Enter != nil { // the outcome's own reward
					r += disc * k.Enter[j]
				}
				if j == m.States { // the episode ends
					total += prob * pa * pj * r
					continue
				}
				walk(t+1, j, prob*pa*pj, r, disc*gamma)
			}
		}
	}
	for s, p := range m.Start {
		walk(0, s, p, 0, 1)
	}
	return total
}

// bruteWeightMoment returns E_b[W_H^2] by enumerating every trajectory
// under b with its weight prod e/b.
func bruteWeightMoment(m *MDP, b, e *Policy) float64 {
	total := 0.0
	var walk func(t, s int, prob, w float64)
	walk = func(t, s int, prob, w float64) {
		if t == m.Horizon {
			total += prob * w * w
			return
		}
		k := m.At(t)
		for a := range m.Actions {
			i := s*m.Actions + a
			if b.Pi[i] == 0 {
				continue
			}
			wa := w * e.Pi[i] / b.Pi[i]
			for j, pj := range k.P[i] {
				switch {
				case pj == 0:
				case j == m.States:
					total += prob * b.Pi[i] * pj * wa * wa
				default:
					walk(t+1, j, prob*b.Pi[i]*pj, wa)
				}
			}
		}
	}
	for s, p := range m.Start {
		walk(0, s, p, 1)
	}
	return total
}

// TestValueBruteForce: Value equals the enumeration of every trajectory
// (S = 3, A = 2, H = 4, a different kernel at every step, early ends,
// zero-probability outcomes) to 1e-12, at gamma 1 and 0.9; the Q tables
// averaged over pi and Start give Value (to 1e-12); and WeightMoment
// equals its own enumeration of every trajectory under b (relative 1e-12).
func TestValueBruteForce(t *testing.T) {
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 11))
		m := randomMDP(3, 2, 4, rng)
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		pi := randomPolicy(3, 2, seed%2 == 1, rng)
		if err := m.CheckPolicy(pi); err != nil {
			t.Fatal(err)
		}
		for _, gamma := range []float64{1, 0.9} {
			got, want := m.Value(pi, gamma), bruteForce(m, pi, gamma)
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("seed %d gamma %v: Value %v, brute force %v", seed, gamma, got, want)
			}
			// Q consistency: sum_s Start(s) sum_a pi(a|s) Q_1(s, a) = Value.
			q := m.QTables(pi, gamma)
			v := 0.0
			for s, p := range m.Start {
				vs := 0.0
				for a := range m.Actions {
					vs += pi.Pi[s*m.Actions+a] * q[0][s*m.Actions+a]
				}
				v += p * vs
			}
			if math.Abs(v-got) > 1e-12 || len(q) != m.Horizon || len(q[3]) != 6 {
				t.Errorf("seed %d gamma %v: Q tables give %v (%d x %d), Value %v", seed, gamma, v, len(q), len(q[3]), got)
			}
		}
		b := randomPolicy(3, 2, false, rng)
		if got, want := m.WeightMoment(b, pi), bruteWeightMoment(m, b, pi); math.Abs(got-want) > 1e-12*want {
			t.Errorf("seed %d: WeightMoment %v, brute force %v", seed, got, want)
		}
	}
}

// TestValueClosedForm: a one-state MDP paying 1 a step with end
// probability e has V = sum_{t=1..H} (gamma (1-e))^(t-1): at H = 3,
// e = 0.5, gamma = 0.5, 1 + 0.25 + 0.0625 = 1.3125 (all exact in binary).
// Its last-step Q is the mean itself, 1.
func TestValueClosedForm(t *testing.T) {
	k := &Kernel{P: [][]float64{{0.5, 0.5}}, Mean: []float64{1}}
	m := &MDP{States: 1, Actions: 1, Horizon: 3, Start: []float64{1}, At: func(int) *Kernel { return k }}
	pi := &Policy{Actions: 1, Pi: []float64{1}}
	if got := m.Value(pi, 0.5); got != 1.3125 {
		t.Errorf("Value = %v, want 1.3125", got)
	}
	if q := m.QTables(pi, 0.5); q[2][0] != 1 || q[1][0] != 1.25 || q[0][0] != 1.3125 {
		t.Errorf("Q = %v, want [[1.3125] [1.25] [1]]", q)
	}
	// Same weight under e and b: every weight is 1.
	if got := m.WeightMoment(pi, pi); got != 1 {
		t.Errorf("WeightMoment(pi, pi) = %v, want 1", got)
	}
	// A behavior that never takes an action e takes: infinite moment.
	k2 := &Kernel{P: [][]float64{{0, 1}, {0, 1}}, Mean: []float64{0, 0}}
	m2 := &MDP{States: 1, Actions: 2, Horizon: 1, Start: []float64{1}, At: func(int) *Kernel { return k2 }}
	if got := m2.WeightMoment(&Policy{Actions: 2, Pi: []float64{1, 0}}, &Policy{Actions: 2, Pi: []float64{0.5, 0.5}}); !math.IsInf(got, 1) {
		t.Errorf("WeightMoment without coverage = %v, want +Inf", got)
	}
	// b uniform, e deterministic, one step: E_b[W^2] = 1^2 / 0.5 = 2.
	if got := m2.WeightMoment(&Policy{Actions: 2, Pi: []float64{0.5, 0.5}}, &Policy{Actions: 2, Pi: []float64{1, 0}}); got != 2 {
		t.Errorf("WeightMoment = %v, want 2", got)
	}
}

// TestSamplerMonteCarlo: the mean discounted return of sampled episodes
// under pi is within 4 standard errors of Value, on random time-dependent
// MDPs with random rewards (S = 3, A = 2, H = 4 and S = 5, A = 3, H = 7),
// at gamma 1 and 0.9; the empirical episode-length distribution never
// exceeds the horizon.
func TestSamplerMonteCarlo(t *testing.T) {
	const n = 200000
	for _, tc := range []struct{ ns, na, h int }{{3, 2, 4}, {5, 3, 7}} {
		for _, gamma := range []float64{1, 0.9} {
			rng := rand.New(rand.NewPCG(uint64(tc.ns), 3))
			m := randomMDP(tc.ns, tc.na, tc.h, rng)
			pi := randomPolicy(tc.ns, tc.na, true, rng)
			env, err := NewSampler(m)
			if err != nil {
				t.Fatal(err)
			}
			act := NewPolicySampler(pi)
			var sum, sum2 float64
			for range n {
				env.Reset(rng)
				g, disc, steps := 0.0, 1.0, 0
				for {
					r, done := env.Step(act.Sample(env.State(), rng), rng)
					g += disc * r
					disc *= gamma
					steps++
					if done {
						break
					}
				}
				if steps > tc.h {
					t.Fatalf("episode of %d steps, horizon %d", steps, tc.h)
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

// TestSamplerZeroProbability: outcomes and actions of probability 0 are
// never drawn, wherever they sit in the distribution (first, middle,
// last), and the frequencies of the others match their probabilities
// within 4 standard errors.
func TestSamplerZeroProbability(t *testing.T) {
	// State 0, action 0: P = (0, 0.25, 0, 0.75 end); action 1: P = (0.5, 0, 0.5, 0).
	k := &Kernel{
		P:    [][]float64{{0, 0.25, 0, 0.75}, {0.5, 0, 0.5, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}},
		Mean: make([]float64, 6),
	}
	m := &MDP{States: 3, Actions: 2, Horizon: 2, Start: []float64{1, 0, 0}, At: func(int) *Kernel { return k }}
	env, err := NewSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	pi := &Policy{Actions: 2, Pi: []float64{0.3, 0.7, 0, 1, 1, 0}}
	act := NewPolicySampler(pi)
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 100000
	var count [2][4]float64
	for range n {
		env.Reset(rng)
		if env.State() != 0 {
			t.Fatalf("start state %d, want 0 (probability 1)", env.State())
		}
		a := act.Sample(0, rng)
		_, done := env.Step(a, rng)
		j := env.State()
		if done {
			j = 3
		}
		count[a][j]++
		if !done && j > 0 {
			if b := act.Sample(j, rng); b != 2-j { // state 1: action 1 only; state 2: action 0 only
				t.Fatalf("state %d: action %d has probability 0", j, b)
			}
		}
	}
	want := [2][4]float64{{0, 0.3 * 0.25, 0, 0.3 * 0.75}, {0.7 * 0.5, 0, 0.7 * 0.5, 0}}
	for a := range 2 {
		for j := range 4 {
			p := want[a][j]
			if p == 0 && count[a][j] != 0 {
				t.Errorf("action %d outcome %d: drawn %v times, probability 0", a, j, count[a][j])
			}
			if se := math.Sqrt(p * (1 - p) / n); math.Abs(count[a][j]/n-p) > 4*se {
				t.Errorf("action %d outcome %d: frequency %v, want %v +- %v", a, j, count[a][j]/n, p, se)
			}
		}
	}
}

// TestSamplerNoAlloc: Reset, Step (with a Draw) and Sample allocate
// nothing.
func TestSamplerNoAlloc(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m := randomMDP(4, 3, 6, rng)
	pi := randomPolicy(4, 3, false, rng)
	env, err := NewSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	act := NewPolicySampler(pi)
	allocs := testing.AllocsPerRun(100, func() {
		env.Reset(rng)
		for {
			if _, done := env.Step(act.Sample(env.State(), rng), rng); done {
				break
			}
		}
	})
	if allocs != 0 {
		t.Errorf("an episode allocates %v times, want 0", allocs)
	}
}

// TestSamplerSharesKernels: a time-homogeneous MDP keeps one cumulative
// table, a time-dependent one a table per step.
func TestSamplerSharesKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := randomMDP(3, 2, 5, rng)
	e, err := NewSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	k := m.At(0)
	h := &MDP{States: 3, Actions: 2, Horizon: 5, Start: m.Start, At: func(int) *Kernel { return k }}
	e1, err := NewSampler(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.kernels) != 5 || len(e1.kernels) != 1 {
		t.Errorf("%d and %d tables, want 5 and 1", len(e.kernels), len(e1.kernels))
	}
}

// TestValidate: each malformed MDP or policy is refused with an error
// naming what is wrong and where (1-based step, state, action).
func TestValidate(t *testing.T) {
	good := func() *MDP {
		k := &Kernel{P: [][]float64{{0.5, 0.25, 0.25}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, Mean: []float64{0, 1, 2, 3}}
		return &MDP{States: 2, Actions: 2, Horizon: 3, Start: []float64{0.5, 0.5}, At: func(int) *Kernel { return k }}
	}
	if err := good().Validate(); err != nil {
		t.Fatalf("valid MDP: %v", err)
	}
	withKernel := func(step int, edit func(k *Kernel)) func(m *MDP) {
		return func(m *MDP) {
			k0 := m.At(0)
			k := &Kernel{Mean: append([]float64(nil), k0.Mean...)}
			for _, p := range k0.P {
				k.P = append(k.P, append([]float64(nil), p...))
			}
			edit(k)
			m.At = func(t int) *Kernel {
				if t == step-1 {
					return k
				}
				return k0
			}
		}
	}
	for _, tc := range []struct {
		name string
		edit func(m *MDP)
		want string
	}{
		{"no states", func(m *MDP) { m.States = 0 }, "0 states"},
		{"zero horizon", func(m *MDP) { m.Horizon = 0 }, "horizon 0"},
		{"start size", func(m *MDP) { m.Start = []float64{1} }, "start distribution has 1 entries, want 2"},
		{"start sum", func(m *MDP) { m.Start = []float64{0.5, 0.6} }, "start distribution: probabilities sum to 1.1"},
		{"start negative", func(m *MDP) { m.Start = []float64{1.5, -0.5} }, "start distribution: entry 1 is -0.5"},
		{"no At", func(m *MDP) { m.At = nil }, "no kernel function"},
		{"nil kernel", func(m *MDP) {
			k0 := m.At(0)
			m.At = func(t int) *Kernel {
				if t == 2 {
					return nil
				}
				return k0
			}
		}, "step 3: no kernel"},
		{"P sum", withKernel(2, func(k *Kernel) { k.P[3][2] = 0.9 }), "step 2, state 1, action 1: probabilities sum to 0.9"},
		{"P sum off by 1e-11", withKernel(1, func(k *Kernel) { k.P[0][0] += 1e-11 }), "step 1, state 0, action 0: probabilities sum to"},
		{"P NaN", withKernel(3, func(k *Kernel) { k.P[1][1] = math.NaN() }), "step 3, state 0, action 1: entry 1 is NaN"},
		{"P length", withKernel(2, func(k *Kernel) { k.P[2] = k.P[2][:2] }), "step 2, state 1, action 0: 2 outcomes, want 3"},
		{"mean Inf", withKernel(1, func(k *Kernel) { k.Mean[2] = math.Inf(1) }), "step 1, state 1, action 0: mean reward +Inf"},
		{"mean count", withKernel(1, func(k *Kernel) { k.Mean = k.Mean[:3] }), "step 1: kernel has 4 distributions and 3 means, want 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := good()
			tc.edit(m)
			err := m.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
			if _, err := NewSampler(m); err == nil {
				t.Error("NewSampler accepted an invalid MDP")
			}
		})
	}
	// A sum off by less than 1e-12 is accepted.
	m := good()
	withKernel(1, func(k *Kernel) { k.P[0][0] += 1e-13 })(m)
	if err := m.Validate(); err != nil {
		t.Errorf("sum off by 1e-13: %v", err)
	}
	for _, tc := range []struct {
		pi   *Policy
		want string
	}{
		{nil, "no policy"},
		{&Policy{Actions: 3, Pi: make([]float64, 6)}, "policy over 3 actions"},
		{&Policy{Actions: 2, Pi: []float64{1, 0, 0.5}}, "with 3 probabilities"},
		{&Policy{Actions: 2, Pi: []float64{1, 0, 0.5, 0.4}}, "policy in state 1: probabilities sum to 0.9"},
		{&Policy{Actions: 2, Pi: []float64{-1, 2, 0.5, 0.5}}, "policy in state 0: entry 0 is -1"},
	} {
		if err := good().CheckPolicy(tc.pi); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.pi, err, tc.want)
		}
	}
}

// ExampleMDP_Value: one state, one action paying 1 a step, ending after
// each step with probability 1/2, horizon 3: V = 1 + 1/2 + 1/4.
func ExampleMDP_Value() {
	k := &Kernel{P: [][]float64{{0.5, 0.5}}, Mean: []float64{1}}
	m := &MDP{States: 1, Actions: 1, Horizon: 3, Start: []float64{1}, At: func(int) *Kernel { return k }}
	if err := m.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Value(&Policy{Actions: 1, Pi: []float64{1}}, 1))
	// Output: 1.75
}
