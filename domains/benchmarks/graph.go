package benchmarks

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/tabular"
)

// graphMaxHorizon bounds graph's horizon: the tabular engine stores dense
// kernels, 2 (2T - 1) 2T numbers and as many cumulative ones (32 MB at T
// = 500), and its dynamic program takes O(T^3) time.
const graphMaxHorizon = 500

func init() {
	domains.RegisterTabular(domains.TabularSpec{
		Name: "graph",
		Doc: "COBS's Graph and Graph-POMDP (Voloshin et al. 2021, Appendix C; BENCHMARKS B1): start in state 0; after step t " +
			"(t = 1..T-1) the agent is in state 2t-1 (the odd row) or 2t (the even row); action 0 aims at the odd row, action 1 at " +
			"the even one, whatever the current row, and with probability `slip` it lands in the other. Dense rewards: +1 on entering " +
			"an odd state, -1 on entering an even one (0 when sparse); step T ends the episode from the odd state with +1, from the even " +
			"one with -1, dense or sparse. Every episode lasts exactly T steps, and all T actions enter the importance weights. " +
			"`reward_noise` s adds N(0, s^2) to every reward. `obs_blocks` K >= 1 hides the state: latent states 1..2T-2 are split " +
			"into K contiguous blocks as numpy's array_split does (the first (2T-2) mod K blocks one larger), observation = block " +
			"index, state 0 observed as 0; the estimators and every learned model see only that id. Both policies ignore the state: " +
			"pi(a=0) = p. The defaults are Table 12's setting (T = 10, p_b = 0.1, p_e = 0.1 x 9^0.1, deterministic, dense, no noise)",
		Params: []domains.ParamSpec{
			{Name: "horizon", Kind: domains.Int, Default: 10, Min: 2, Max: graphMaxHorizon, Doc: "T, steps per episode (2T - 1 latent states; at most 500: the tabular engine's kernels are dense)"},
			{Name: "p_b", Kind: domains.Float, Default: 0.1, Min: 0, Max: 1, Doc: "behavior policy's probability of action 0 (the odd row), in every state"},
			{Name: "p_e", Kind: domains.Float, Default: 0.1 * math.Pow(9, 0.1), Min: 0, Max: 1, Doc: "evaluation policy's probability of action 0, in every state (Voloshin et al.'s Tables 12-13: 0.1 x 9^0.1 = 0.1246, so that (p_e/p_b)^100 = 9^10; Table 14: 0.9)"},
			{Name: "slip", Kind: domains.Float, Default: 0, Min: 0, Max: 1, Doc: "probability of landing in the row the action did not aim at (COBS's stochastic Graph: 0.25)"},
			{Name: "sparse", Kind: domains.Bool, Default: 0, Doc: "reward 0 on every step but the last"},
			{Name: "reward_noise", Kind: domains.Float, Default: 0, Min: 0, Max: 1000, Doc: "s: N(0, s^2) added to every reward (COBS's stochastic rewards: 1); the true value does not change"},
			{Name: "obs_blocks", Kind: domains.Int, Default: 0, Min: 0, Max: 2 * graphMaxHorizon, Doc: "K: 0 fully observable; K >= 1 (at most 2T - 2) the Graph-POMDP's K observation blocks (COBS's runs: T = 16, K = 5)"},
		},
		Gamma: domains.ParamSpec{Name: "gamma", Kind: domains.Float, Default: 0.98, Min: 0, Max: 1, Interp: true,
			Doc: "discount factor: the reward of 1-based step t counts gamma^(t-1) (SPEC 1c); 0.98 is the value of COBS's configs and run scripts, which the paper's tables do not state"},
		NoInstance: true,
		Build:      buildGraph,
		Observe:    graphObservations,
		TruthDoc: "exact finite-horizon dynamic programming over (step, state) (envs/tabular), discounted by gamma (SPEC 1c); it equals B1's " +
			"closed forms (GraphValue): with e = 2 p_e - 1 and S = sum_{t<T} gamma^t, dense V = e (1 - 2 slip) S, sparse " +
			"V = e (1 - 2 slip) gamma^(T-1), whatever the noise and the observation blocks",
	})
}

// buildGraph returns graph's MDP (graphMDP) and its two state-independent
// policies.
func buildGraph(p domains.Params) (*tabular.MDP, *tabular.Policy, *tabular.Policy, error) {
	h := p.Int("horizon")
	m := graphMDP(h, p["slip"], p.Bool("sparse"), p["reward_noise"])
	return m, constantPolicy(m.States, p["p_b"]), constantPolicy(m.States, p["p_e"]), nil
}

// graphMDP returns the Graph of BENCHMARKS B1 with horizon h >= 2:
// states 0..2h-2 (COBS's absorbing state 2h-1 is never acted in: the
// episode ends instead), one kernel for every step since the state
// carries the layer. From state 0 or a row state of layer l < h-1
// (states 2l-1 and 2l), action 0 leads to the odd state 2l+1 and action 1
// to the even state 2l+2 with probability 1 - slip, to the other with
// slip; dense rewards are paid on entering (tabular.Kernel.Enter: +1 odd,
// -1 even). From layer h-1 (states 2h-3, 2h-2) every action ends the
// episode with +1 from the odd state and -1 from the even one. noise > 0
// adds one N(0, noise^2) draw to every step's reward, before its
// transition is drawn.
func graphMDP(h int, slip float64, sparse bool, noise float64) *tabular.MDP {
	ns, na := 2*h-1, 2
	k := &tabular.Kernel{P: make([][]float64, ns*na), Mean: make([]float64, ns*na)}
	for s := range ns {
		layer := (s + 1) / 2
		for a := range na {
			i := s*na + a
			row := make([]float64, ns+1)
			k.P[i] = row
			if layer == h-1 {
				row[ns] = 1
				k.Mean[i] = rowSign(s)
				continue
			}
			aim, other := 2*layer+1, 2*layer+2
			if a == 1 {
				aim, other = other, aim
			}
			row[aim] += 1 - slip
			row[other] += slip
		}
	}
	if !sparse {
		k.Enter = make([]float64, ns+1)
		for s := 1; s < ns; s++ {
			k.Enter[s] = rowSign(s)
		}
	}
	if noise > 0 {
		mean := k.Mean
		k.Draw = func(s, a int, rng *rand.Rand) float64 { return mean[s*na+a] + noise*rng.NormFloat64() }
	}
	return &tabular.MDP{States: ns, Actions: na, Horizon: h, Start: unit(ns, 0), At: func(int) *tabular.Kernel { return k }}
}

// rowSign is +1 for a state of the odd row, -1 for one of the even row.
func rowSign(s int) float64 {
	if s%2 == 1 {
		return 1
	}
	return -1
}

// graphObservations returns graph's observation map: nil (the state
// itself) when obs_blocks is 0, else blockObservations.
func graphObservations(p domains.Params) ([]int, error) {
	k := p.Int("obs_blocks")
	if k == 0 {
		return nil, nil
	}
	return blockObservations(p.Int("horizon"), k)
}

// blockObservations returns the Graph-POMDP's observation of each latent
// state 0..2h-2 with k blocks (BENCHMARKS B1): state 0 is observed as
// 0, and latent states 1..2h-2, split into k contiguous blocks of the
// sizes BlockSizes(2h-2, k), as the index of their block (so state 0 and
// the first block share observation 0, as in COBS).
func blockObservations(h, k int) ([]int, error) {
	n := 2*h - 2
	if k < 1 || k > n {
		return nil, fmt.Errorf("obs_blocks = %d, want 1 to 2T - 2 = %d (the latent states 1..%d it splits into blocks)", k, n, n)
	}
	obs := make([]int, n+1)
	s := 1
	for block, size := range BlockSizes(n, k) {
		for range size {
			obs[s] = block
			s++
		}
	}
	return obs, nil
}

// BlockSizes returns the sizes of the k contiguous blocks numpy's
// array_split cuts n items into (1 <= k <= n): with n = q k + r, 0 <= r
// < k, the first r blocks hold q + 1 items and the others q.
func BlockSizes(n, k int) []int {
	q, r := n/k, n%k
	sizes := make([]int, k)
	for b := range sizes {
		sizes[b] = q
		if b < r {
			sizes[b]++
		}
	}
	return sizes
}

// GraphValue returns V(pi_e) of graph (BENCHMARKS B1) with horizon h,
// pi_e(a=0) = pe, the given slip and gamma: with e = 2 pe - 1, every
// reward (an entering one or the last, which repeats the last row's) has
// mean e (1 - 2 slip), since the row entered is odd with probability
// pe (1 - slip) + (1 - pe) slip; dense V = e (1 - 2 slip) sum_{t<h}
// gamma^t, sparse V = e (1 - 2 slip) gamma^(h-1). Noise and observation
// blocks do not change it.
func GraphValue(h int, pe, slip, gamma float64, sparse bool) float64 {
	mean := (2*pe - 1) * (1 - 2*slip)
	if sparse {
		return mean * math.Pow(gamma, float64(h-1))
	}
	sum, g := 0.0, 1.0
	for range h {
		sum += g
		g *= gamma
	}
	return mean * sum
}

// constantPolicy returns the policy taking action 0 with probability p
// and action 1 with 1 - p in each of ns states.
func constantPolicy(ns int, p float64) *tabular.Policy {
	pi := &tabular.Policy{Actions: 2, Pi: make([]float64, 2*ns)}
	for s := range ns {
		pi.Pi[2*s], pi.Pi[2*s+1] = p, 1-p
	}
	return pi
}

// unit returns the distribution over n outcomes putting all its mass on j.
func unit(n, j int) []float64 {
	d := make([]float64, n)
	d[j] = 1
	return d
}
