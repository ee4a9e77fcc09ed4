package suite

import (
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/tabular"
)

func init() {
	domains.RegisterTabular(domains.TabularSpec{
		Name: "credit",
		Doc: "suite (issue 16): long-range credit assignment: the action of step 1 (one of two) chooses the stream the agent " +
			"lives in for the other H - 1 steps, the good stream paying good_reward a step more than the bad one; later " +
			"actions matter little (rewards shifted by at most late_effect) and pi_b nearly equals pi_e there. " +
			"pi_e takes the good action with probability p_e, pi_b with p_b, so the step-1 ratio decides everything: " +
			"an estimator that drops it is biased by (H - 1) good_reward (p_e - p_b), 199 x 0.1 x 0.4 = 7.96 at the " +
			"defaults against a value of 17.1 (instance 1), though each step's share (0.04) hides under reward noise of sd 0.5. " +
			"E_b[W^2] is about 1.72, of which the step-1 ratio gives 1.64: importance sampling itself is easy, dropping ratios is not",
		Params: []domains.ParamSpec{
			{Name: "horizon", Kind: domains.Int, Default: 200, Min: 2, Max: 100000, Doc: "steps of an episode: the choice, then horizon - 1 steps in a stream"},
			{Name: "p_e", Kind: domains.Float, Default: 0.9, Min: 0, Max: 1, Doc: "evaluation policy's probability of the good action (action 0) at step 1"},
			{Name: "p_b", Kind: domains.Float, Default: 0.5, Min: 0, Max: 1, Doc: "behavior policy's probability of the good action at step 1"},
			{Name: "good_reward", Kind: domains.Float, Default: 0.1, Min: -1e6, Max: 1e6, Doc: "extra mean reward per step in the good stream (the bad one pays 0)"},
			{Name: "noise_states", Kind: domains.Int, Default: 3, Min: 1, Max: 100, Doc: "noise states per stream, between which later actions move the agent at random (flat Dirichlet rows drawn by the instance)"},
			{Name: "late_effect", Kind: domains.Float, Default: 0.01, Min: 0, Max: 1e6, Doc: "later actions shift the mean reward of a step by a uniform draw of the instance in [-late_effect, late_effect], per (noise state, action)"},
			{Name: "late_mix", Kind: domains.Float, Default: 0.05, Min: 0, Max: 1, Doc: "after step 1, pi_b = (1 - late_mix) pi_e + late_mix x uniform (0: the later ratios are exactly 1)"},
			{Name: "reward_noise", Kind: domains.Float, Default: 0.5, Min: 0, Max: 1e6, Doc: "standard deviation of the Gaussian noise added to every reward after step 1"},
		},
		Build:    buildCredit,
		TruthDoc: "exact dynamic program over (step, state) on the mean rewards",
	})
}

// Actions of the credit domain's step 1: the good action enters the good
// stream.
const (
	creditGood = 0
	creditBad  = 1
)

// buildCredit builds the credit-assignment MDP of parameters p and its
// behavior and evaluation policies. Two actions. State 0 is the start;
// state 1 + stream N + j is noise state j (of N = noise_states) of stream
// 0 (bad) or 1 (good). At step 1 in the start, the good action enters
// the good stream, the bad action the bad one, in a uniform noise state,
// paying 0. In a stream, action a in noise state j moves to noise state
// j' with probability D_{j,a}(j') (the stream stays) and pays
//
//	good_reward [stream = 1] + c_{j,a} + reward_noise Z,
//
// Z standard normal, c_{j,a} uniform on [-late_effect, late_effect]. The
// instance draws, in this order: the rows D_{j,a}, the shifts c_{j,a},
// and pi_e(0|j) uniform on [0.25, 0.75] (the same in both streams, so
// the policy carries no information about the stream). pi_e takes the
// good action at the start with probability p_e, pi_b with p_b; after
// that pi_b = (1 - late_mix) pi_e + late_mix uniform.
func buildCredit(p domains.Params) (*tabular.MDP, *tabular.Policy, *tabular.Policy, error) {
	const na = 2
	nn := p.Int("noise_states")
	ns := 1 + 2*nn
	good, eff, sd := p["good_reward"], p["late_effect"], p["reward_noise"]
	rng := instanceRand(p, creditStream)
	dist := make([][]float64, nn*na)
	for i := range dist {
		dist[i] = make([]float64, nn)
		dirichlet(dist[i], 1, rng)
	}
	shift := make([]float64, nn*na)
	for i := range shift {
		shift[i] = eff * (2*rng.Float64() - 1)
	}
	late := make([]float64, nn)
	for j := range late {
		late[j] = 0.25 + 0.5*rng.Float64()
	}

	k := &tabular.Kernel{P: make([][]float64, ns*na), Mean: make([]float64, ns*na)}
	for a := range na {
		row := make([]float64, ns+1)
		stream := 1
		if a == creditBad {
			stream = 0
		}
		for j := range nn {
			row[1+stream*nn+j] = 1 / float64(nn)
		}
		k.P[a] = row
	}
	for stream := range 2 {
		for j := range nn {
			s := 1 + stream*nn + j
			for a := range na {
				row := make([]float64, ns+1)
				for j2, q := range dist[j*na+a] {
					row[1+stream*nn+j2] = q
				}
				k.P[s*na+a] = row
				k.Mean[s*na+a] = good*float64(stream) + shift[j*na+a]
			}
		}
	}
	if sd > 0 {
		mean := k.Mean
		k.Draw = func(s, a int, rng *rand.Rand) float64 {
			if s == 0 {
				return mean[a]
			}
			return mean[s*na+a] + sd*rng.NormFloat64()
		}
	}

	pe := &tabular.Policy{Actions: na, Pi: make([]float64, ns*na)}
	pb := &tabular.Policy{Actions: na, Pi: make([]float64, ns*na)}
	pe.Pi[creditGood], pe.Pi[creditBad] = p["p_e"], 1-p["p_e"]
	pb.Pi[creditGood], pb.Pi[creditBad] = p["p_b"], 1-p["p_b"]
	mix := p["late_mix"]
	for s := 1; s < ns; s++ {
		x := late[(s-1)%nn]
		pe.Pi[s*na], pe.Pi[s*na+1] = x, 1-x
		pb.Pi[s*na], pb.Pi[s*na+1] = (1-mix)*x+mix/2, (1-mix)*(1-x)+mix/2
	}
	start := make([]float64, ns)
	start[0] = 1
	m := &tabular.MDP{States: ns, Actions: na, Horizon: p.Int("horizon"), Start: start,
		At: func(int) *tabular.Kernel { return k }}
	return m, pb, pe, nil
}
