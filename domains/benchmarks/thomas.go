package benchmarks

import (
	"math"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/tabular"
)

// ModelWin's and ModelFail's fixed sizes (Thomas & Brunskill 2016;
// BENCHMARKS B2): ModelWin's 20 steps, ten decisions at s1, and the
// probability that ModelWin's a1 at s1 enters s2; ModelFail's 2 steps.
const (
	modelWinHorizon  = 20
	modelWinUp       = 0.4
	modelFailHorizon = 2
)

func init() {
	domains.RegisterTabular(domains.TabularSpec{
		Name: "modelwin",
		Doc: "Thomas & Brunskill's ModelWin (ICML 2016; BENCHMARKS B2), where a model wins: states s1, s2, s3 (ids 0, 1, 2), start s1; " +
			"at s1, a1 (action 0) enters s2 with probability 0.4 (reward +1) and s3 with 0.6 (reward -1), a2 (action 1) swaps the " +
			"probabilities; from s2 or s3 any action returns to s1 with reward 0. 20 steps (ten decisions at s1); fully observed. " +
			"The policies choose only at s1 (pi(a1|s1) = p) and take either action with 0.5 at s2 and s3 (ratio 1 there)",
		Params: []domains.ParamSpec{
			{Name: "p_b", Kind: domains.Float, Default: 0.73, Min: 0, Max: 1, Interp: true, Doc: "behavior policy's probability of a1 at s1 (BENCHMARKS B2's value, as in public ports of the benchmark; not read from the paper)"},
			{Name: "p_e", Kind: domains.Float, Default: 0.27, Min: 0, Max: 1, Interp: true, Doc: "evaluation policy's probability of a1 at s1 (BENCHMARKS B2's value, as in public ports of the benchmark; not read from the paper)"},
		},
		NoInstance: true,
		Build:      buildModelWin,
		TruthDoc: "exact finite-horizon dynamic programming over (step, state) (envs/tabular), discounted by gamma (SPEC 1c); it equals " +
			"B2's closed form (ModelWinValue): with q = 0.4 p_e + 0.6 (1 - p_e), V = (2q - 1) sum_{k<10} gamma^(2k), 10 (2q - 1) = 0.92 at " +
			"gamma = 1 and the defaults",
	})
	domains.RegisterTabular(domains.TabularSpec{
		Name: "modelfail",
		Doc: "Thomas & Brunskill's ModelFail (ICML 2016; BENCHMARKS B2), where a model fails even with infinite data: start s0; a1 " +
			"(action 0) enters `up`, a2 (action 1) `down`, reward 0; from up or down any action ends the episode, +1 from up, -1 from " +
			"down. 2 steps. s0, up and down are one observation (id 0): the estimators and every learned model see only it, so the " +
			"policies act the same in all three and both steps' ratios enter the weights. It is graph with horizon 2, sparse rewards " +
			"and one observation block",
		Params: []domains.ParamSpec{
			{Name: "p_b", Kind: domains.Float, Default: 0.88, Min: 0, Max: 1, Interp: true, Doc: "behavior policy's probability of a1 (BENCHMARKS B2's value, as in public ports of the benchmark; not read from the paper)"},
			{Name: "p_e", Kind: domains.Float, Default: 0.12, Min: 0, Max: 1, Interp: true, Doc: "evaluation policy's probability of a1 (BENCHMARKS B2's value, as in public ports of the benchmark; not read from the paper)"},
		},
		NoInstance: true,
		Build:      buildModelFail,
		Observe:    func(domains.Params) ([]int, error) { return []int{0, 0, 0}, nil },
		TruthDoc: "exact finite-horizon dynamic programming over (step, latent state) (envs/tabular), discounted by gamma (SPEC 1c); it " +
			"equals B2's closed form (ModelFailValue): V = gamma (2 p_e - 1), -0.76 at gamma = 1 and the defaults",
	})
}

// buildModelWin returns ModelWin's MDP: states s1, s2, s3 = 0, 1, 2;
// rewards on entering s2 (+1) and s3 (-1) (tabular.Kernel.Enter); the
// policies' p at s1 and 0.5 at s2 and s3.
func buildModelWin(p domains.Params) (*tabular.MDP, *tabular.Policy, *tabular.Policy, error) {
	const ns, na = 3, 2
	k := &tabular.Kernel{
		P: [][]float64{
			{0, modelWinUp, 1 - modelWinUp, 0}, // s1, a1
			{0, 1 - modelWinUp, modelWinUp, 0}, // s1, a2
			{1, 0, 0, 0}, {1, 0, 0, 0},         // s2: back to s1
			{1, 0, 0, 0}, {1, 0, 0, 0}, // s3: back to s1
		},
		Mean:  make([]float64, ns*na),
		Enter: []float64{0, 1, -1, 0},
	}
	m := &tabular.MDP{States: ns, Actions: na, Horizon: modelWinHorizon, Start: unit(ns, 0), At: func(int) *tabular.Kernel { return k }}
	policy := func(p float64) *tabular.Policy {
		return &tabular.Policy{Actions: na, Pi: []float64{p, 1 - p, 0.5, 0.5, 0.5, 0.5}}
	}
	return m, policy(p["p_b"]), policy(p["p_e"]), nil
}

// buildModelFail returns ModelFail's MDP, graph's with horizon 2, no slip,
// sparse rewards and no noise (graphMDP): s0, up, down = 0, 1, 2, the
// last step paying +1 from up and -1 from down; the policies' p in every
// state, as they see one observation.
func buildModelFail(p domains.Params) (*tabular.MDP, *tabular.Policy, *tabular.Policy, error) {
	m := graphMDP(modelFailHorizon, 0, true, 0)
	return m, constantPolicy(m.States, p["p_b"]), constantPolicy(m.States, p["p_e"]), nil
}

// ModelWinValue returns V(pi_e) of modelwin (BENCHMARKS B2) with
// pi_e(a1|s1) = pe under gamma: each decision at s1 (0-based steps 0, 2,
// ..., 18) pays +1 with probability q = 0.4 pe + 0.6 (1 - pe) and -1
// otherwise, and the steps back to s1 pay 0, so V = (2q - 1)
// sum_{k<10} gamma^(2k): 10 (2q - 1) at gamma = 1.
func ModelWinValue(pe, gamma float64) float64 {
	q := modelWinUp*pe + (1-modelWinUp)*(1-pe)
	sum := 0.0
	for k := range modelWinHorizon / 2 {
		sum += math.Pow(gamma, float64(2*k))
	}
	return (2*q - 1) * sum
}

// ModelFailValue returns V(pi_e) of modelfail (BENCHMARKS B2) with
// pi_e(a1) = pe under gamma: the second step pays +1 with probability pe
// (a1 entered up) and -1 otherwise, so V = gamma (2 pe - 1).
func ModelFailValue(pe, gamma float64) float64 { return gamma * (2*pe - 1) }
