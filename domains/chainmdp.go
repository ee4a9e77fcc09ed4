package domains

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/envs/chainmdp"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

func init() {
	Register(&Spec{
		Name: "chainmdp",
		Doc:  "two-chain MDP of the appendix (Theorems 1, 2; SPEC 2.1); pi_b picks a1 with probability p_b (uniform: 0.5), pi_e with probability p_e",
		Params: []ParamSpec{
			{Name: "horizon", Kind: Int, Default: 8, Min: 1, Max: 1 << 20, Doc: "H, steps per episode"},
			{Name: "p_e", Kind: Float, Default: 1, Min: 0, Max: 1, Doc: "evaluation policy's probability of a1"},
			{Name: "p_b", Kind: Float, Default: 0.5, Min: 0, Max: 1, Doc: "behavior policy's probability of a1 (SPEC: uniform, 0.5)"},
			{Name: "bottom_absorbing", Kind: Bool, Default: 0, Interp: true, Doc: "bottom chain absorbing instead of advancing y_i -> y_{i+1} (no reward or ratio depends on it)"},
		},
		New:      newChain,
		MaxSteps: func(p Params) int { return p.Int("horizon") },
		Truth: func(p Params, _ func(float64)) (Truth, error) {
			return Truth{Value: ChainValue(p.Int("horizon"), p["p_e"]), Method: "closed form: p_e^H (SPEC 2.1)"}, nil
		},
		TruthDoc:   "closed form p_e^H (SPEC 2.1)",
		Splits:     "none",
		ClosedForm: chainClosedForm,
		ClosedFormDoc: "unweighted estimators (is, pdis, ...): unbiased, n Var = (p_e^2/p_b)^H - p_e^{2H}, Theorem 1's p_e^{2H} (2^H - 1) at p_b = 1/2; " +
			"self-normalized (wis, cwpdis) with p_e = 1: E = 1 - (1 - p_b^H)^n, Theorem 2's bias -(1 - 2^-H)^n at p_b = 1/2",
	})
}

// ChainValue returns V(pi_e) of the chain MDP for the evaluation policy
// that picks a1 with probability pe in every state: pe^H (SPEC 2.1).
func ChainValue(h int, pe float64) float64 { return math.Pow(pe, float64(h)) }

// chainClosedForm returns the chain's exact estimator statistics (SPEC 2.1;
// the appendix's proofs of Theorems 1 and 2, for any p_b):
//
//   - unweighted estimators (is, pdis, options-pdis, partitioned-pdis): the
//     only reward is 1 for a1 in x_H, reached only by H a1 actions, so each
//     reduces to (1/n) sum_i X_i with X = (p_e/p_b)^H with probability
//     p_b^H, else 0 (IS = PDIS here; no options, no split points).
//     Unbiased: E = p_e^H; n Var = (p_e^2/p_b)^H - p_e^{2H}, which for
//     p_b = 1/2 is Theorem 1's p_e^{2H} (2^H - 1).
//   - self-normalized estimators (wis, cwpdis) with p_e = 1: a trajectory
//     with an a2 has weight 0, so the estimate is 1 if an all-a1 trajectory
//     is in the data, else 0 (0/0 := 0; CWPDIS's only rewarded step is H,
//     so it equals WIS). With q = 1 - (1 - p_b^H)^n: E = q,
//     bias = -(1 - p_b^H)^n (Theorem 2), Var = q (1 - q).
func chainClosedForm(p Params, class string, n int) (Moments, bool) {
	h, pe, pb := float64(p.Int("horizon")), p["p_e"], p["p_b"]
	if n < 1 || (pe > 0 && pb == 0) {
		return unknownMoments, false
	}
	v := math.Pow(pe, h)
	switch class {
	case ClassUnweighted:
		second := 0.0
		if pe > 0 {
			second = math.Pow(pe*pe/pb, h)
		}
		return Moments{Mean: v, Bias: 0, Variance: (second - v*v) / float64(n)}, true
	case ClassSelfNormalized:
		if pe != 1 {
			return unknownMoments, false
		}
		miss := math.Exp(float64(n) * math.Log1p(-math.Pow(pb, h))) // (1 - p_b^H)^n
		q := 1 - miss
		// 0 - miss, not -miss: a bias of 0 is written "0", never "-0".
		return Moments{Mean: q, Bias: 0 - miss, Variance: q * miss}, true
	}
	return unknownMoments, false
}

type chainDomain struct {
	env  *chainmdp.Env
	pair *policies.Pair
}

func newChain(p Params) (Domain, error) {
	env, err := chainmdp.New(p.Int("horizon"), p.Bool("bottom_absorbing"))
	if err != nil {
		return nil, err
	}
	pair, err := twoActionPair(p["p_b"], p["p_e"])
	if err != nil {
		return nil, err
	}
	return &chainDomain{env: env, pair: pair}, nil
}

func (d *chainDomain) Collect(b *trajectory.Batch, n int, rng *rand.Rand) {
	b.Grow(n, n*d.env.H)
	d.pair.Collect(d.env, b, n, rng)
}

// twoActionPair returns the behavior and evaluation policies over two
// actions that pick a1 with probabilities pb and pe, refusing a behavior
// that never takes an action the evaluation policy takes.
func twoActionPair(pb, pe float64) (*policies.Pair, error) {
	if (pb == 0 && pe > 0) || (pb == 1 && pe < 1) {
		return nil, fmt.Errorf("p_b = %v never takes an action that p_e = %v takes: importance sampling cannot estimate V(pi_e)", pb, pe)
	}
	b, err := policies.TwoAction(pb)
	if err != nil {
		return nil, fmt.Errorf("p_b: %w", err)
	}
	e, err := policies.TwoAction(pe)
	if err != nil {
		return nil, fmt.Errorf("p_e: %w", err)
	}
	return policies.NewPair(b, e)
}
