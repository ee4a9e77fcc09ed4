package experiments

import (
	"fmt"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/envs/subepisode"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

func init() {
	RegisterDomain(&DomainSpec{
		Name: "subepisode",
		Doc:  "Experiment 3's MDP of 50 nearly independent 2-step sub-episodes (SPEC 2.2); pi_b uniform, pi_e picks a1 with probability p_e",
		Params: []ParamSpec{
			{Name: "p_e", Kind: Float, Default: 0.75, Min: 0, Max: 1, Interp: true, Doc: "evaluation policy's probability of a1 in every state (paper: only \"higher probability\")"},
			{Name: "p_b", Kind: Float, Default: 0.5, Min: 0, Max: 1, Doc: "behavior policy's probability of a1 (paper: random, 0.5)"},
			{Name: "subepisodes", Kind: Int, Default: 50, Min: 1, Max: 1 << 16, Doc: "number of 2-step sub-episodes (H = 2 x subepisodes)"},
			{Name: "eps_step", Kind: Float, Default: 0.01, Min: -1e6, Max: 1e6, Doc: "growth of eps at each entry into s2 (0 makes sub-episodes independent)"},
			{Name: "eps_before_reward", Kind: Bool, Default: 1, Interp: true, Doc: "eps grows on entering s2 before the s2 reward is paid"},
		},
		New: newSubepisodeDomain,
		Truth: func(p Params, _ func(float64)) (Truth, error) {
			sp := subepisodeParams(p)
			return Truth{Value: sp.Value(p["p_e"]),
				Method: "closed form: S(1-2p) + p eps_step (c S + p S(S-1)/2); 50 - 99.5p + 12.25p^2 at SPEC 2.2's defaults"}, nil
		},
		Splits: "the end of every sub-episode",
	})
}

func subepisodeParams(p Params) subepisode.Params {
	return subepisode.Params{Subepisodes: p.Int("subepisodes"), EpsStep: p["eps_step"], EpsBeforeReward: p.Bool("eps_before_reward")}
}

type subepisodeDomain struct {
	env    *subepisode.Env
	pb, pe *policies.Stationary
}

func newSubepisodeDomain(p Params) (Domain, error) {
	env, err := subepisode.New(subepisodeParams(p))
	if err != nil {
		return nil, err
	}
	if err := coverage(p["p_b"], p["p_e"]); err != nil {
		return nil, err
	}
	pb, err := policies.TwoAction(p["p_b"])
	if err != nil {
		return nil, fmt.Errorf("p_b: %w", err)
	}
	pe, err := policies.TwoAction(p["p_e"])
	if err != nil {
		return nil, fmt.Errorf("p_e: %w", err)
	}
	return &subepisodeDomain{env: env, pb: pb, pe: pe}, nil
}

// Collect draws n episodes under pi_b, marking the end of each sub-episode
// as a split point (SPEC 1: partitioned-pdis in subepisode).
func (d *subepisodeDomain) Collect(b *trajectory.Batch, n int, rng *rand.Rand) {
	b.Grow(n, n*d.env.P.Horizon())
	ratio := [2]float64{d.pe.Prob(0) / d.pb.Prob(0), d.pe.Prob(1) / d.pb.Prob(1)}
	for range n {
		d.env.Reset()
		for {
			a := d.pb.Sample(rng)
			r, subEnd, done := d.env.Step(a)
			b.Add(r, ratio[a])
			if done {
				break
			}
			if subEnd {
				b.MarkSplit()
			}
		}
		b.End()
	}
}
