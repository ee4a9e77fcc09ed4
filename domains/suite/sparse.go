package suite

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/tabular"
)

func init() {
	domains.RegisterTabular(domains.TabularSpec{
		Name: "sparse",
		Doc: "suite (issue 16): sparse, rare, heavy-tailed rewards on a random MDP: each (state, action) pays 0 except, " +
			"with a small probability, a Pareto(alpha, scale) reward (finite mean alpha scale/(alpha-1), infinite variance " +
			"for alpha <= 2). It tests estimators whose selection relies on variance estimates or t-tests, which have no " +
			"power here, and the weighted estimators' bias when most trajectories carry no reward at all. pi_e prefers " +
			"the actions that pay more often (softmax of q(s, a)/rare_prob at temperature), pi_b mixes it with the uniform " +
			"policy. At the defaults (alpha = 1.5, scale = 10: a paid reward's mean is 30) under pi_e a step pays with " +
			"probability 0.027, some 0.54 rewards an episode of 20 steps; V(pi_e) = 16.3 and V(pi_b) = 14.0 (instance 1: an " +
			"estimator that drops the ratios is off by 2.2), and E_b[W^2] is 13 to 21 over instances 1 to 4: feasible at " +
			"n = 10^4, hard at n = 100, where a data set holds some 50 rewards and one huge one can dominate",
		Params: []domains.ParamSpec{
			{Name: "states", Kind: domains.Int, Default: 10, Min: 1, Max: 1000, Doc: "number of states"},
			{Name: "actions", Kind: domains.Int, Default: 3, Min: 1, Max: 100, Doc: "number of actions"},
			{Name: "horizon", Kind: domains.Int, Default: 20, Min: 1, Max: 100000, Doc: "steps of an episode (episodes never end early)"},
			{Name: "rare_prob", Kind: domains.Float, Default: 0.02, Min: 0, Max: 0.5, Doc: "mean probability that a step pays: (state, action) pays with probability rare_prob x 2U, U uniform on [0, 1) drawn by the instance"},
			{Name: "alpha", Kind: domains.Float, Default: 1.5, Min: 1.01, Max: 100, Doc: "Pareto tail index of a paid reward (finite mean for alpha > 1, infinite variance for alpha <= 2)"},
			{Name: "scale", Kind: domains.Float, Default: 10, Min: 1e-9, Max: 1e9, Doc: "Pareto scale: the smallest paid reward"},
			{Name: "temperature", Kind: domains.Float, Default: 0.5, Min: 0.01, Max: 100, Doc: "pi_e(a|s) is proportional to exp(q(s, a) / (rare_prob temperature)), q(s, a) the pay probability: it prefers the actions that pay more often, more so at a lower temperature"},
			{Name: "mix", Kind: domains.Float, Default: 0.5, Min: 0, Max: 1, Doc: "behavior policy: (1 - mix) pi_e + mix x uniform"},
		},
		Build: buildSparse,
		TruthDoc: "exact dynamic program over (step, state) on the exact mean rewards, " +
			"pay probability x alpha scale/(alpha - 1)",
	})
}

// buildSparse builds the sparse-reward MDP of parameters p and its
// behavior and evaluation policies. The instance draws, in this order:
// each row P(.|s, a) from the flat Dirichlet (dirichlet, alpha = 1), the
// pay probability q(s, a) = rare_prob u(s, a), u = 2U, of every (s, a).
// pi_e(a|s) is proportional to exp(u(s, a) / temperature), pi_b = (1 -
// mix) pi_e + mix uniform. The start state is uniform; episodes last the
// horizon. A step of (s, a) pays, with probability q(s, a), the
// Pareto draw scale U^(-1/alpha) (U uniform on (0, 1]) and else 0, so
// its mean is q(s, a) alpha scale / (alpha - 1).
func buildSparse(p domains.Params) (*tabular.MDP, *tabular.Policy, *tabular.Policy, error) {
	ns, na := p.Int("states"), p.Int("actions")
	alpha, scale := p["alpha"], p["scale"]
	if !(alpha > 1) {
		return nil, nil, nil, fmt.Errorf("alpha = %v, want > 1 (a finite mean)", alpha)
	}
	rng := instanceRand(p, sparseStream)
	k := &tabular.Kernel{P: make([][]float64, ns*na), Mean: make([]float64, ns*na)}
	for i := range k.P {
		k.P[i] = make([]float64, ns+1)
		dirichlet(k.P[i][:ns], 1, rng)
	}
	payMean := alpha * scale / (alpha - 1)
	prob, u := make([]float64, ns*na), make([]float64, ns*na)
	for i := range prob {
		u[i] = 2 * rng.Float64()
		prob[i] = p["rare_prob"] * u[i]
		k.Mean[i] = prob[i] * payMean
	}
	invAlpha := 1 / alpha
	k.Draw = func(s, a int, rng *rand.Rand) float64 {
		if rng.Float64() >= prob[s*na+a] {
			return 0
		}
		return scale * math.Pow(1-rng.Float64(), -invAlpha)
	}
	pe := &tabular.Policy{Actions: na, Pi: make([]float64, ns*na)}
	temp := p["temperature"]
	for s := range ns {
		row := pe.Pi[s*na : (s+1)*na]
		sum := 0.0
		for a := range row {
			// u = q/rare_prob in [0, 2): at most exp(2/0.01), no overflow.
			row[a] = math.Exp(u[s*na+a] / temp)
			sum += row[a]
		}
		for a := range row {
			row[a] /= sum
		}
	}
	start := make([]float64, ns)
	for s := range start {
		start[s] = 1 / float64(ns)
	}
	m := &tabular.MDP{States: ns, Actions: na, Horizon: p.Int("horizon"), Start: start,
		At: func(int) *tabular.Kernel { return k }}
	pb := &tabular.Policy{Actions: na, Pi: make([]float64, len(pe.Pi))}
	mix := p["mix"]
	for i, x := range pe.Pi {
		pb.Pi[i] = (1-mix)*x + mix/float64(na)
	}
	return m, pb, pe, nil
}
