package suite

import (
	"fmt"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/tabular"
)

// fewStatesStream is the PCG stream of fewstates' instances ("few").
const fewStatesStream = 0x666577

func init() {
	domains.RegisterTabular(domains.TabularSpec{
		Name: "fewstates",
		Doc: "policies that differ in only a few states (issue 16 suite): the random MDP of randommdp (S = 20 states by default); " +
			"pi_b = pi_e, a random softmax policy, except in `differ` randomly chosen states, where pi_b is uniform and pi_e nearly " +
			"deterministic: it takes the action of highest mean reward with probability p_e and splits the rest evenly. " +
			"Every ratio outside those states is exactly 1, so most steps carry no information about the difference. " +
			"The defaults make importance sampling hard but feasible at n = 100..10^4: a visit to a differing state multiplies the weight " +
			"by A p_e = 2.85 or by A (1 - p_e)/(A - 1) = 0.075, with E_b[rho^2] = 2.71; with about H differ/S = 3 visits per episode " +
			"(2 of 20 states, H = 30 steps) E_b[W_H^2] (recorded in meta.json as is_weight_second_moment) is 34 to 159 over instances 1 to 8 " +
			"(13 to 24 at H = 20, 150 to 500 at H = 40), so that IS's relative standard error, about sqrt(E_b[W_H^2] / n), is near 1 at n = 100 and 0.1 at n = 10^4",
		Params: append(randomModelParams(20, 30), []domains.ParamSpec{
			{Name: "differ", Kind: domains.Int, Default: 2, Min: 0, Max: 1000, Doc: "number of states where the policies differ, at most states"},
			{Name: "p_e", Kind: domains.Float, Default: 0.95, Min: 0, Max: 1, Doc: "probability with which pi_e takes its chosen action (highest mean reward) in a differing state; the other actions share the rest evenly"},
			{Name: "temperature", Kind: domains.Float, Default: 1, Min: 0.01, Max: 100, Doc: "temperature of the softmax policy that pi_b and pi_e share outside the differing states"},
		}...),
		Build:    buildFewStates,
		TruthDoc: "exact finite-horizon dynamic programming over (step, state) (envs/tabular), discounted by gamma (SPEC 1c)",
	})
}

// buildFewStates draws fewstates' instance from the instance's stream: the
// MDP (randomModel), the shared softmax policy, then the differing states
// (the first `differ` of a random permutation). In a differing state s,
// pi_b is uniform and pi_e takes a* = argmax_a Mean(s, a) (the first on
// ties) with probability p_e and each other action with
// (1 - p_e)/(A - 1); with one action both are that action.
func buildFewStates(p domains.Params) (*tabular.MDP, *tabular.Policy, *tabular.Policy, error) {
	ns, na, k := p.Int("states"), p.Int("actions"), p.Int("differ")
	if k > ns {
		return nil, nil, nil, fmt.Errorf("differ = %d, want at most states = %d", k, ns)
	}
	rng := instanceRand(p, fewStatesStream)
	m := randomModel(p, rng)
	b := softmaxPolicy(ns, na, p["temperature"], rng)
	e := &tabular.Policy{Actions: na, Pi: append([]float64(nil), b.Pi...)}
	mean := m.At(0).Mean
	pe := p["p_e"]
	for _, s := range rng.Perm(ns)[:k] {
		best := 0
		for a := range na {
			if mean[s*na+a] > mean[s*na+best] {
				best = a
			}
		}
		for a := range na {
			b.Pi[s*na+a] = 1 / float64(na)
			switch {
			case na == 1:
				e.Pi[s*na+a] = 1
			case a == best:
				e.Pi[s*na+a] = pe
			default:
				e.Pi[s*na+a] = (1 - pe) / float64(na-1)
			}
		}
	}
	return m, b, e, nil
}
