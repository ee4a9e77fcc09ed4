package domains

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/envs/chainmdp"
	"github.com/ope-lab/longhorizon/models"
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
			gammaParamSpec,
		},
		New:      newChain,
		MaxSteps: func(p Params) int { return p.Int("horizon") },
		Truth: func(p Params, _ func(float64)) (Truth, error) {
			g, err := p.Gamma()
			if err != nil {
				return Truth{}, err
			}
			h := p.Int("horizon")
			tr := Truth{Value: ChainValue(h, p["p_e"]), Method: "closed form: p_e^H (SPEC 2.1)"}
			if g != 1 {
				tr = Truth{Value: ChainValueGamma(h, p["p_e"], g), Method: "closed form: gamma^(H-1) p_e^H (SPEC 1c, 2.1)"}
			}
			// E_b[W_H^2]: recorded when it is a float64 (JSON has no Inf)
			if w2 := ChainWeightMoment(h, p["p_e"], p["p_b"]); !math.IsInf(w2, 0) && !math.IsNaN(w2) {
				tr.Extra = map[string]float64{"is_weight_second_moment": w2}
			}
			return tr, nil
		},
		TruthDoc: "closed form p_e^H (SPEC 2.1); gamma^(H-1) p_e^H under discounting (SPEC 1c). meta.json also records is_weight_second_moment, " +
			"E_b[W_H^2] = m^H with m = p_e^2/p_b + (1 - p_e)^2/(1 - p_b) (every step has a ratio; omitted beyond the float64 range or where pi_b misses an action pi_e takes)",
		Splits:     "none",
		ClosedForm: chainClosedForm,
		ClosedFormDoc: "unweighted estimators (is, pdis, ...): unbiased, n Var = (p_e^2/p_b)^H - p_e^{2H}, Theorem 1's p_e^{2H} (2^H - 1) at p_b = 1/2; " +
			"self-normalized (wis, cwpdis) with p_e = 1: E = 1 - (1 - p_b^H)^n, Theorem 2's bias -(1 - 2^-H)^n at p_b = 1/2; " +
			"under gamma (SPEC 1c) every estimate scales by gamma^(H-1): means and biases by gamma^(H-1), variances by gamma^(2(H-1))",
		Models: func(Params) error { return nil },
	})
}

// gammaParamSpec declares the discount factor of a domain (SPEC 1c). The
// domain's rewards stay undiscounted in the batch (the harness discounts
// them with trajectory.Discounted); gamma changes the true value, the
// closed forms and the exact model.
var gammaParamSpec = ParamSpec{Name: "gamma", Kind: Float, Default: 1, Min: 0, Max: 1,
	Doc: "discount factor: the reward of 1-based step t counts gamma^(t-1) (SPEC 1c; 1 = the paper's undiscounted setting)"}

// ChainValue returns V(pi_e) of the chain MDP for the evaluation policy
// that picks a1 with probability pe in every state: pe^H (SPEC 2.1).
func ChainValue(h int, pe float64) float64 { return math.Pow(pe, float64(h)) }

// ChainWeightMoment returns E_b[W_H^2] on the chain MDP, m^H with
// m = sum_a pi_e(a)^2/pi_b(a) = pe^2/pb + (1-pe)^2/(1-pb): every state
// draws a1 with the same probabilities, so the H ratios are independent.
// An action pi_e never takes adds 0 (0^2/0 := 0); one that pi_b never
// takes while pi_e does gives +Inf.
func ChainWeightMoment(h int, pe, pb float64) float64 {
	m := 0.0
	for _, a := range [][2]float64{{pe, pb}, {1 - pe, 1 - pb}} {
		if a[0] > 0 {
			m += a[0] * a[0] / a[1]
		}
	}
	return math.Pow(m, float64(h))
}

// ChainValueGamma returns V(pi_e) of the chain MDP under the discount
// factor gamma: gamma^(H-1) pe^H, the only reward being on step H (SPEC
// 1c). At gamma = 1 it is ChainValue, bit for bit.
func ChainValueGamma(h int, pe, gamma float64) float64 {
	return ChainValue(h, pe) * math.Pow(gamma, float64(h-1))
}

// chainClosedForm returns the chain's exact estimator statistics (SPEC 2.1;
// the appendix's proofs of Theorems 1 and 2, for any p_b), under the
// discount factor gamma (SPEC 1c):
//
//   - unweighted estimators (is, pdis, options-pdis, partitioned-pdis): the
//     only reward is 1 for a1 in x_H, reached only by H a1 actions, so each
//     reduces to (1/n) sum_i X_i with X = g (p_e/p_b)^H with probability
//     p_b^H, else 0, where g = gamma^(H-1) discounts step H (IS = PDIS
//     here; no options, no split points). Unbiased: E = g p_e^H;
//     n Var = g^2 ((p_e^2/p_b)^H - p_e^{2H}), which for p_b = 1/2 and
//     gamma = 1 is Theorem 1's p_e^{2H} (2^H - 1).
//   - self-normalized estimators (wis, cwpdis) with p_e = 1: a trajectory
//     with an a2 has weight 0, so the estimate is g if an all-a1 trajectory
//     is in the data, else 0 (0/0 := 0; CWPDIS's only rewarded step is H,
//     so it equals WIS). With q = 1 - (1 - p_b^H)^n: E = g q,
//     bias = g q - g = -g (1 - p_b^H)^n (Theorem 2 at g = 1),
//     Var = g^2 q (1 - q).
//
// At gamma = 1, g = 1 and every product with it is exact: the statistics
// are bit for bit those of the undiscounted formulas.
func chainClosedForm(p Params, class string, n int) (Moments, bool) {
	h, pe, pb := float64(p.Int("horizon")), p["p_e"], p["p_b"]
	gamma, err := p.Gamma()
	if n < 1 || (pe > 0 && pb == 0) || err != nil {
		return unknownMoments, false
	}
	g := math.Pow(gamma, h-1)
	v := math.Pow(pe, h)
	switch class {
	case ClassUnweighted:
		second := 0.0
		if pe > 0 {
			second = math.Pow(pe*pe/pb, h)
		}
		return Moments{Mean: v * g, Bias: 0, Variance: (second - v*v) / float64(n) * g * g}, true
	case ClassSelfNormalized:
		if pe != 1 {
			return unknownMoments, false
		}
		miss := math.Exp(float64(n) * math.Log1p(-math.Pow(pb, h))) // (1 - p_b^H)^n
		q := 1 - miss
		// 0 - miss, not -miss: a bias of 0 is written "0", never "-0".
		return Moments{Mean: q * g, Bias: 0 - miss*g, Variance: q * miss * g * g}, true
	}
	return unknownMoments, false
}

// chainDomain is the chain MDP with its two stationary policies. It is a
// ModelDomain: the observation id is the state (chainmdp.Env.ObsID).
type chainDomain struct {
	env   *chainmdp.Env
	pair  *policies.Pair
	rec   policies.PairRecord // what Collect records (Record, RecordProbs)
	model chainModel
}

// chainModel is the exact model of the chain (a policies.PairModel).
type chainModel struct {
	h         int
	pe, gamma float64
	// qA1[i-1] and vTop[i-1] are q(x_i, a1) and v(x_i) for i = 1..H,
	// filled by Record when exact is first asked for.
	qA1, vTop []float64
}

func newChain(p Params) (Domain, error) {
	gamma, err := p.Gamma()
	if err != nil {
		return nil, err
	}
	env, err := chainmdp.New(p.Int("horizon"), p.Bool("bottom_absorbing"))
	if err != nil {
		return nil, err
	}
	pair, err := twoActionPair(p["p_b"], p["p_e"])
	if err != nil {
		return nil, err
	}
	return &chainDomain{env: env, pair: pair, model: chainModel{h: env.H, pe: p["p_e"], gamma: gamma}}, nil
}

// Collect draws n episodes under pi_b; after Record, every step also
// carries the ids and/or the exact model columns. Recording draws no
// random number: the trajectories are the same either way.
func (d *chainDomain) Collect(b *trajectory.Batch, n int, rng *rand.Rand) {
	collectPair(b, d.pair, d.env, n, n*d.env.H, rng, d.rec)
}

// RecordProbs sets whether the following Collect calls record pi_b and
// pi_e of every action (domains.ProbRecorder): p_b or 1 - p_b, and p_e or
// 1 - p_e, the numbers whose quotient is the step's ratio.
func (d *chainDomain) RecordProbs(on bool) error {
	d.rec.Probs = on
	return nil
}

// collectPair draws n episodes of env (at most steps steps) under pair
// into b, recording what rec asks for (policies.Pair.CollectRecord, the
// stationary policies' one rollout), with the columns grown first, so
// that recording does not allocate.
func collectPair(b *trajectory.Batch, pair *policies.Pair, env policies.Observable, n, steps int, rng *rand.Rand, rec policies.PairRecord) {
	b.Grow(n, steps)
	GrowColumns(b, steps, rec.IDs, rec.Model != nil)
	if rec.Probs {
		GrowProbs(b, steps)
	}
	pair.CollectRecord(env, b, n, rng, rec)
}

// Space returns the chain's 2H+1 state ids (x_i = i-1, y_i = H+i), its two
// actions (a1 = 0, a2 = 1), pi_e and the horizon H.
func (d *chainDomain) Space() models.Space {
	return models.Space{Obs: d.env.States(), Actions: 2, PiE: twoActionPiE(d.model.pe), Horizon: d.env.H}
}

// Record sets what the following Collect calls record besides rewards and
// ratios (domains.ModelDomain). The exact q of pi_e under gamma (SPEC 1c,
// 1d), by backward induction from step H: q(x_H, a1) = 1 (the reward),
// v(x_i) = p_e q(x_i, a1) (a2 leads to the bottom chain, worth 0), and
// q(x_i, a1) = gamma v(x_{i+1}) for i < H, so
//
//	q(x_i, a1) = gamma^(H-i) p_e^(H-i),  v(x_i) = gamma^(H-i) p_e^(H-i+1),
//
// and q = v = 0 in the bottom chain and for a2. v(x_1) is the true value
// gamma^(H-1) p_e^H, computed by the same products as the truth.
func (d *chainDomain) Record(ids, exact bool) {
	d.rec.IDs, d.rec.Model = ids, nil
	if exact {
		d.rec.Model = &d.model
	}
	if exact && d.model.qA1 == nil {
		r := &d.model
		r.qA1 = make([]float64, r.h)
		r.vTop = make([]float64, r.h)
		for i := 1; i <= r.h; i++ {
			left := float64(r.h - i) // steps after step i
			g := math.Pow(r.gamma, left)
			r.qA1[i-1] = g * math.Pow(r.pe, left)
			r.vTop[i-1] = math.Pow(r.pe, left+1) * g
		}
	}
}

// StepValues returns q_hat and v_hat of a step taken in state obs with
// action a: in the top chain at step t the state is x_t (id t-1 = obs).
func (r *chainModel) StepValues(_, obs, a int) (q, v float64) {
	if obs < r.h { // x_{obs+1}; x_{H+1} (id H) and y_i (ids > H) are worth 0
		v = r.vTop[obs]
		if a == chainmdp.A1 {
			q = r.qA1[obs]
		}
	}
	return q, v
}

// twoActionPiE returns pi_e of a two-action stationary policy as
// models.Space.PiE: p_e for a1 (id 0), 1 - p_e for a2 (id 1), whatever the
// observation.
func twoActionPiE(pe float64) func(o int, dst []float64) {
	return func(_ int, dst []float64) { dst[0], dst[1] = pe, 1-pe }
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
