package experiments

import (
	"fmt"
	"math"
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
		Splits:     "none",
		ClosedForm: chainClosedForm,
	})
}

// chainClosedForm returns the chain's exact estimator statistics (SPEC 2.1;
// the appendix's proofs of Theorems 1 and 2, for any p_b):
//
//   - is, pdis, options-pdis, partitioned-pdis: the only reward is 1 for a1
//     in x_H, reached only by H a1 actions, so every one of them reduces to
//     (1/n) sum_i X_i with X = (p_e/p_b)^H with probability p_b^H, else 0
//     (IS = PDIS here; no options, no split points). Unbiased:
//     E = p_e^H; n Var = (p_e^2/p_b)^H - p_e^{2H}, which for p_b = 1/2 is
//     Theorem 1's p_e^{2H} (2^H - 1).
//   - wis, cwpdis with p_e = 1: a trajectory with an a2 has weight 0, so the
//     estimate is 1 if an all-a1 trajectory is in the data, else 0 (0/0 :=
//     0; CWPDIS's only rewarded step is H, so it equals WIS). With
//     q = 1 - (1 - p_b^H)^n: E = q, bias = -(1 - p_b^H)^n (Theorem 2),
//     Var = q (1 - q).
func chainClosedForm(p Params, estimator string, n int) (map[string]float64, bool) {
	h, pe, pb := float64(p.Int("horizon")), p["p_e"], p["p_b"]
	if n < 1 || (pe > 0 && pb == 0) {
		return nil, false
	}
	v := math.Pow(pe, h)
	switch estimator {
	case "is", "pdis", "options-pdis", "partitioned-pdis":
		second := 0.0
		if pe > 0 {
			second = math.Pow(pe*pe/pb, h)
		}
		return map[string]float64{"mean_estimate": v, "bias": 0, "variance": (second - v*v) / float64(n)}, true
	case "wis", "cwpdis":
		if pe != 1 {
			return nil, false
		}
		miss := math.Exp(float64(n) * math.Log1p(-math.Pow(pb, h))) // (1 - p_b^H)^n
		q := 1 - miss
		// 0 - miss, not -miss: a bias of 0 is written "0", never "-0".
		return map[string]float64{"mean_estimate": q, "bias": 0 - miss, "variance": q * miss}, true
	}
	return nil, false
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

// coverage checks that the behavior policy takes every action the
// evaluation policy may take (two actions, a1 with probabilities pb and
// pe): otherwise importance sampling cannot see what pi_e does.
func coverage(pb, pe float64) error {
	if (pb == 0 && pe > 0) || (pb == 1 && pe < 1) {
		return fmt.Errorf("p_b = %v never takes an action that p_e = %v takes: importance sampling cannot estimate V(pi_e)", pb, pe)
	}
	return nil
}
