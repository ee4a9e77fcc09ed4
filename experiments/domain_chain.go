package experiments

import (
	"fmt"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/envs/chainmdp"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

func init() {
	RegisterDomain(&DomainSpec{
		Name: "chainmdp",
		Doc:  "two-chain MDP of the appendix (Theorems 1, 2; SPEC 2.1); pi_b uniform, pi_e picks a1 with probability p_e",
		Params: []ParamSpec{
			{Name: "horizon", Kind: Int, Default: 8, Min: 1, Max: 1 << 20, Doc: "H, steps per episode"},
			{Name: "p_e", Kind: Float, Default: 1, Min: 0, Max: 1, Doc: "evaluation policy's probability of a1"},
			{Name: "p_b", Kind: Float, Default: 0.5, Min: 0, Max: 1, Doc: "behavior policy's probability of a1 (SPEC: uniform, 0.5)"},
			{Name: "bottom_absorbing", Kind: Bool, Default: 0, Interp: true, Doc: "bottom chain absorbing instead of advancing y_i -> y_{i+1} (no reward or ratio depends on it)"},
		},
		New: newChainDomain,
		Truth: func(p Params, _ func(float64)) (Truth, error) {
			return Truth{Value: chainmdp.Value(p.Int("horizon"), p["p_e"]), Method: "closed form: p_e^H (SPEC 2.1)"}, nil
		},
		Splits: "none",
	})
}

type chainDomain struct {
	env    *chainmdp.Env
	pb, pe *policies.Stationary
}

func newChainDomain(p Params) (Domain, error) {
	env, err := chainmdp.New(p.Int("horizon"), p.Bool("bottom_absorbing"))
	if err != nil {
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
	return &chainDomain{env: env, pb: pb, pe: pe}, nil
}

func (d *chainDomain) Collect(b *trajectory.Batch, n int, rng *rand.Rand) {
	b.Grow(n, n*d.env.H)
	for range n {
		d.env.Reset()
		for done := false; !done; {
			a := d.pb.Sample(rng)
			var r float64
			r, done = d.env.Step(a)
			b.Add(r, d.pe.Prob(a)/d.pb.Prob(a))
		}
		b.End()
	}
}
