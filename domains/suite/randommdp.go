package suite

import (
	"fmt"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/tabular"
)

// randomStream is the PCG stream of randommdp's instances ("random").
const randomStream = 0x72616e646f6d

func init() {
	domains.RegisterTabular(domains.TabularSpec{
		Name: "randommdp",
		Doc: "random tabular MDPs with dense rewards (issue 16 suite): S states, A actions, horizon H; each P(.|s,a) a Dirichlet(alpha) draw, " +
			"scaled by 1 - end_prob beside an end outcome of probability end_prob; mean rewards uniform in [0, 1], paid with Gaussian noise; " +
			"start state uniform; pi_e a random softmax policy, pi_b = (1 - mix) pi_e + mix uniform. " +
			"The defaults make importance sampling hard but feasible at n = 100..10^4: every ratio is at most 1/(1 - mix) = 2, " +
			"and the second moment of the full weight, E_b[W_H^2] (recorded in meta.json as is_weight_second_moment), is 24 to 64 over instances 1 to 4 " +
			"at H = 20 steps (temperature 0.5; 5 to 7 at temperature 1, 90 to 300 at 0.3), so that IS's relative standard error, about sqrt(E_b[W_H^2] / n), " +
			"is near 0.6 at n = 100 and 0.06 at n = 10^4; dense rewards make every step count. V(pi_b) is recorded as behavior_value",
		Params:   randomMDPParams(),
		Build:    buildRandomMDP,
		TruthDoc: "exact finite-horizon dynamic programming over (step, state) (envs/tabular), discounted by gamma (SPEC 1c)",
	})
}

// randomMDPParams are the parameters of randommdp; fewstates shares the
// MDP's.
func randomMDPParams() []domains.ParamSpec {
	return append(randomModelParams(10, 20), []domains.ParamSpec{
		{Name: "temperature", Kind: domains.Float, Default: 0.5, Min: 0.01, Max: 100, Doc: "temperature of pi_e's softmax over standard normal scores: lower is closer to deterministic"},
		{Name: "mix", Kind: domains.Float, Default: 0.5, Min: 0.01, Max: 1, Doc: "pi_b = (1 - mix) pi_e + mix uniform: every ratio is at most 1/(1 - mix); 1 is a uniform behavior"},
	}...)
}

// randomModelParams declares the random MDP of the suite's tabular
// domains, with defaults of states S and horizon H.
func randomModelParams(states, horizon float64) []domains.ParamSpec {
	return []domains.ParamSpec{
		{Name: "states", Kind: domains.Int, Default: states, Min: 1, Max: 1000, Doc: "S, number of states"},
		{Name: "actions", Kind: domains.Int, Default: 3, Min: 1, Max: 100, Doc: "A, number of actions"},
		{Name: "horizon", Kind: domains.Int, Default: horizon, Min: 1, Max: 100000, Doc: "H, steps per episode at most"},
		{Name: "alpha", Kind: domains.Float, Default: 1, Min: 0.001, Max: 1000, Doc: "concentration of the symmetric Dirichlet of each P(.|s,a): 1 is uniform over distributions, smaller is sparser (nearer deterministic)"},
		{Name: "end_prob", Kind: domains.Float, Default: 0.02, Min: 0, Max: 1, Doc: "probability that the episode ends after any step (before the horizon)"},
		{Name: "reward_noise", Kind: domains.Float, Default: 0.5, Min: 0, Max: 1000, Doc: "standard deviation of the Gaussian noise around each step's mean reward (means uniform in [0, 1])"},
	}
}

// randomModel draws the time-homogeneous random MDP of randomModelParams
// from rng: for each (s, a) in order, P(.|s, a) = (1 - end_prob) x a
// Dirichlet(alpha) draw over the S states, then end_prob; then the mean
// rewards, uniform in [0, 1], in (s, a) order. The start is uniform.
// Rewards are the means plus Gaussian noise of sd reward_noise (no draw
// at 0).
func randomModel(p domains.Params, rng *rand.Rand) *tabular.MDP {
	ns, na := p.Int("states"), p.Int("actions")
	end, noise := p["end_prob"], p["reward_noise"]
	k := &tabular.Kernel{P: make([][]float64, ns*na), Mean: make([]float64, ns*na)}
	flat := make([]float64, ns*na*(ns+1))
	for i := range k.P {
		row := flat[i*(ns+1) : (i+1)*(ns+1) : (i+1)*(ns+1)]
		dirichlet(row[:ns], p["alpha"], rng)
		for j := range ns {
			row[j] *= 1 - end
		}
		row[ns] = end
		k.P[i] = row
	}
	for i := range k.Mean {
		k.Mean[i] = rng.Float64()
	}
	if noise > 0 {
		mean := k.Mean
		k.Draw = func(s, a int, rng *rand.Rand) float64 { return mean[s*na+a] + noise*rng.NormFloat64() }
	}
	start := make([]float64, ns)
	for s := range start {
		start[s] = 1 / float64(ns)
	}
	return &tabular.MDP{States: ns, Actions: na, Horizon: p.Int("horizon"), Start: start,
		At: func(int) *tabular.Kernel { return k }}
}

// buildRandomMDP draws randommdp's instance: the MDP (randomModel), then
// pi_e (softmaxPolicy at temperature), from the instance's stream; pi_b
// mixes pi_e with the uniform policy.
func buildRandomMDP(p domains.Params) (*tabular.MDP, *tabular.Policy, *tabular.Policy, error) {
	if mix := p["mix"]; !(mix > 0 && mix <= 1) {
		return nil, nil, nil, fmt.Errorf("mix = %v, want a value in (0, 1]", mix)
	}
	rng := instanceRand(p, randomStream)
	m := randomModel(p, rng)
	e := softmaxPolicy(m.States, m.Actions, p["temperature"], rng)
	b := &tabular.Policy{Actions: m.Actions, Pi: make([]float64, len(e.Pi))}
	mix, u := p["mix"], 1/float64(m.Actions)
	for i, pe := range e.Pi {
		b.Pi[i] = (1-mix)*pe + mix*u
	}
	return m, b, e, nil
}
