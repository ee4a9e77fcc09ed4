package domains

import (
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/envs/subepisode"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

func init() {
	Register(&Spec{
		Name: "subepisode",
		Doc:  "Experiment 3's MDP of 50 nearly independent 2-step sub-episodes (SPEC 2.2); pi_b picks a1 with probability p_b (uniform: 0.5), pi_e with probability p_e",
		Params: []ParamSpec{
			{Name: "p_e", Kind: Float, Default: 0.75, Min: 0, Max: 1, Interp: true, Doc: "evaluation policy's probability of a1 in every state (paper: only \"higher probability\")"},
			{Name: "p_b", Kind: Float, Default: 0.5, Min: 0, Max: 1, Doc: "behavior policy's probability of a1 (paper: random, 0.5)"},
			{Name: "subepisodes", Kind: Int, Default: 50, Min: 1, Max: 1 << 16, Doc: "number of 2-step sub-episodes (H = 2 x subepisodes)"},
			{Name: "eps_step", Kind: Float, Default: 0.01, Min: -1e6, Max: 1e6, Doc: "growth of eps at each entry into s2 (0 makes sub-episodes independent)"},
			{Name: "eps_before_reward", Kind: Bool, Default: 1, Interp: true, Doc: "eps grows on entering s2 before the s2 reward is paid"},
		},
		New:      newSubepisode,
		MaxSteps: func(p Params) int { return 2 * p.Int("subepisodes") },
		Truth: func(p Params, _ func(float64)) (Truth, error) {
			return Truth{Value: SubepisodeValue(subepisodeParams(p), p["p_e"]),
				Method: "closed form: S(1-2p) + p eps_step (c S + p S(S-1)/2); 50 - 99.5p + 12.25p^2 at SPEC 2.2's defaults"}, nil
		},
		TruthDoc: "closed form S(1-2p) + p eps_step (c S + p S(S-1)/2) (c = 1 when eps grows before the reward), 50 - 99.5p + 12.25p^2 at SPEC 2.2's defaults",
		Splits:   "the end of every sub-episode",
	})
}

func subepisodeParams(p Params) subepisode.Params {
	return subepisode.Params{Subepisodes: p.Int("subepisodes"), EpsStep: p["eps_step"], EpsBeforeReward: p.Bool("eps_before_reward")}
}

// SubepisodeValue returns V(pi) of the sub-episode MDP with parameters sp
// for the policy that picks A1 with probability p in every state.
// Sub-episode j (1-based) pays, in expectation,
// p(+1) + (1-p)(-1) + p(-2 + E[eps_j]) + (1-p)(+2) = 1 - 2p + p E[eps_j],
// where eps_j = EpsStep (c + number of earlier entries into S2), c = 1 if
// eps grows before the reward, else 0, so E[eps_j] = EpsStep (c + p(j-1)).
// Summing over j = 1..S:
//
//	V(p) = S(1 - 2p) + p EpsStep (c S + p S(S-1)/2).
//
// With SPEC's defaults (S = 50, EpsStep = 0.01, c = 1) this is
// 50 - 99.5 p + 12.25 p^2 (SPEC 2.2).
func SubepisodeValue(sp subepisode.Params, p float64) float64 {
	s := float64(sp.Subepisodes)
	c := 0.0
	if sp.EpsBeforeReward {
		c = 1
	}
	return s*(1-2*p) + p*sp.EpsStep*(c*s+p*s*(s-1)/2)
}

type subepisodeDomain struct {
	env  *subepisode.Env
	pair *policies.Pair
}

func newSubepisode(p Params) (Domain, error) {
	env, err := subepisode.New(subepisodeParams(p))
	if err != nil {
		return nil, err
	}
	pair, err := twoActionPair(p["p_b"], p["p_e"])
	if err != nil {
		return nil, err
	}
	return &subepisodeDomain{env: env, pair: pair}, nil
}

// Collect draws n episodes under pi_b, marking the end of each sub-episode
// as a split point (SPEC 1: partitioned-pdis in subepisode).
func (d *subepisodeDomain) Collect(b *trajectory.Batch, n int, rng *rand.Rand) {
	b.Grow(n, n*d.env.P.Horizon())
	d.pair.Collect(d.env, b, n, rng)
}
