package domains

import (
	"math"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/envs/chainmdp"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

// The options chain (Corollaries 1 and 2 of Theorem 3): the chain MDP of
// SPEC 2.1 driven by the J-step options policies of policies.ChainOptions.
func init() {
	Register(&Spec{
		Name: "optionschain",
		Doc: "chain MDP with J-step options (Corollaries 1, 2): behavior and evaluation pick the a1-option (J x a1) or the a2-option (J x a2) " +
			"whenever no option runs; the a1-option's underlying policy may differ in the last `changed` segments of the top chain",
		Params: []ParamSpec{
			{Name: "horizon", Kind: Int, Default: 6, Min: 1, Max: 1 << 20, Doc: "H, steps per episode; a multiple of option_length"},
			{Name: "option_length", Kind: Int, Default: 2, Min: 1, Max: 1 << 20, Doc: "J, steps per option"},
			{Name: "p_e", Kind: Float, Default: 1, Min: 0, Max: 1, Doc: "mu_e(a1-option): evaluation's probability of the a1-option"},
			{Name: "p_b", Kind: Float, Default: 0.5, Min: 0, Max: 1, Doc: "mu_b(a1-option): behavior's probability of the a1-option"},
			{Name: "changed", Kind: Int, Default: 0, Min: -1, Max: 1 << 20,
				Doc: "c: the a1-option's underlying policy differs in the last c J-step segments of the top chain (0: none, Corollary 1; 1: one option o*, Corollary 2; -1: all)"},
			{Name: "inner_p_e", Kind: Float, Default: 1, Min: 0, Max: 1, Doc: "evaluation's probability of a1 inside a changed a1-option"},
			{Name: "inner_p_b", Kind: Float, Default: 0.5, Min: 0, Max: 1, Doc: "behavior's probability of a1 inside a changed a1-option"},
			gammaParamSpec,
		},
		MaxSteps: func(p Params) int { return p.Int("horizon") },
		New: func(p Params) (Domain, error) {
			if _, err := p.Gamma(); err != nil {
				return nil, err
			}
			o := chainOptions(p)
			if err := o.Validate(); err != nil {
				return nil, err
			}
			env, err := chainmdp.New(o.H, false)
			if err != nil {
				return nil, err
			}
			return &optChainDomain{env: env, opts: o}, nil
		},
		Truth: func(p Params, _ func(float64)) (Truth, error) {
			g, err := p.Gamma()
			if err != nil {
				return Truth{}, err
			}
			o := chainOptions(p)
			if err := o.Validate(); err != nil {
				return Truth{}, err
			}
			if g == 1 {
				return Truth{Value: OptionsChainValue(o), Method: "closed form: p_e^{H/J} inner_p_e^{cJ} (domains/optionschain.go)"}, nil
			}
			return Truth{Value: OptionsChainValueGamma(o, g), Method: "closed form: gamma^(H-1) p_e^{H/J} inner_p_e^{cJ} (SPEC 1c; domains/optionschain.go)"}, nil
		},
		TruthDoc:   "closed form p_e^{H/J} inner_p_e^{cJ}; times gamma^(H-1) under discounting (SPEC 1c: the only reward is on step H)",
		Splits:     "none",
		ClosedForm: optChainClosedForm,
		ClosedFormDoc: "unweighted estimators (options-pdis, ...): unbiased, n Var = (p_e^2/p_b)^{H/J} (inner_p_e^2/inner_p_b)^{cJ} - V^2; " +
			"Corollary 1 (c = 0, p_b = 1/2): p_e^{2H/J} (2^{H/J} - 1); Corollary 2 (p_b = p_e = 1, c = 1, inner_p_b = 1/2, inner_p_e = 1): 2^J - 1 for every H; " +
			"under gamma (SPEC 1c) means scale by gamma^(H-1), variances by gamma^(2(H-1))",
	})
}

func chainOptions(p Params) policies.ChainOptions {
	return policies.ChainOptions{H: p.Int("horizon"), J: p.Int("option_length"), PB: p["p_b"], PE: p["p_e"],
		Changed: p.Int("changed"), InnerPB: p["inner_p_b"], InnerPE: p["inner_p_e"]}
}

// Closed forms of the options chain (options-PDIS, Theorem 3 with SPEC's
// per-decision reading). The only reward is 1 for a1 in x_H. It is reached
// exactly on the path where all m = H/J options are a1-options and, in the
// c changed segments, all cJ actions are a1. On that path the weight of
// step H is
//
//	W = (PE/PB)^m (InnerPE/InnerPB)^{cJ},
//
// and every other step's weighted reward is 0, so one trajectory's term of
// any unweighted estimator is X = W with probability P = PB^m InnerPB^{cJ}
// and 0 otherwise. Hence
//
//	E[X]   = W P = PE^m InnerPE^{cJ} = V(mu_e)                  (unbiased)
//	E[X^2] = W^2 P = (PE^2/PB)^m (InnerPE^2/InnerPB)^{cJ}
//	n Var = E[X^2] - E[X]^2.
//
// Corollary 1 (c = 0, PB = 1/2, PE = p_e): n Var = (2 p_e^2)^{H/J} -
// p_e^{2H/J} = p_e^{2H/J} (2^{H/J} - 1): Theorem 1's chain with horizon
// H/J, since option-level weights see one decision per option.
//
// Corollary 2 (PB = PE = 1: equal option probabilities, so no option-level
// weight; c = 1, InnerPB = 1/2, InnerPE = 1): n Var = 2^J - 1, the same for
// every H. With c = m the whole top chain is changed and n Var = 2^H - 1
// (Theorem 1 again), the contrast.

// OptionsChainValue returns V(mu_e) = PE^m InnerPE^{cJ}, the probability
// that the evaluation policy reaches the reward.
func OptionsChainValue(o policies.ChainOptions) float64 {
	return math.Pow(o.PE, float64(o.Options())) * math.Pow(o.InnerPE, float64(o.ChangedSegments()*o.J))
}

// OptionsChainValueGamma returns V(mu_e) under the discount factor gamma
// (SPEC 1c): the only reward is on step H, so it is gamma^(H-1)
// OptionsChainValue(o) (t counts primitive steps, SPEC 1c). At gamma = 1
// it is OptionsChainValue, bit for bit.
func OptionsChainValueGamma(o policies.ChainOptions, gamma float64) float64 {
	return OptionsChainValue(o) * math.Pow(gamma, float64(o.H-1))
}

// OptionsChainVariance returns the variance over data sets of n
// trajectories of an unweighted estimator (options-PDIS):
// ((PE^2/PB)^m (InnerPE^2/InnerPB)^{cJ} - V^2) / n.
func OptionsChainVariance(o policies.ChainOptions, n int) float64 {
	v := OptionsChainValue(o)
	if v == 0 {
		return 0 // X = 0 on every trajectory
	}
	second := math.Pow(o.PE*o.PE/o.PB, float64(o.Options())) * math.Pow(o.InnerPE*o.InnerPE/o.InnerPB, float64(o.ChangedSegments()*o.J))
	return (second - v*v) / float64(n)
}

// optChainClosedForm returns the closed forms above under the discount
// factor gamma (SPEC 1c): the only reward is on step H, so every
// unweighted estimate is g = gamma^(H-1) times its undiscounted value: the
// mean scales by g, the variance by g^2 (at gamma = 1, g = 1 and the
// products are exact).
func optChainClosedForm(p Params, class string, n int) (Moments, bool) {
	o := chainOptions(p)
	gamma, err := p.Gamma()
	if class != ClassUnweighted || n < 1 || o.Validate() != nil || err != nil {
		return unknownMoments, false
	}
	g := math.Pow(gamma, float64(o.H-1))
	return Moments{Mean: OptionsChainValue(o) * g, Bias: 0, Variance: OptionsChainVariance(o, n) * g * g}, true
}

// optChainDomain is the options chain with its two options policies. It
// is an OptionsRecorder.
type optChainDomain struct {
	env   *chainmdp.Env
	opts  policies.ChainOptions
	probs bool // record the probabilities (RecordProbs)
}

// Collect draws n episodes under the behavior options policy
// (policies.ChainOptions.EpisodeRecord); after RecordProbs(true) it
// records the probabilities as well. Recording draws no random number: the
// episodes, rewards and ratios are the same either way.
func (d *optChainDomain) Collect(b *trajectory.Batch, n int, rng *rand.Rand) {
	b.Grow(n, n*d.opts.H)
	if d.probs {
		GrowProbs(b, n*d.opts.H)
		GrowOptionProbs(b, n*d.opts.H)
	}
	dec := policies.StreamDecider{Rand: rng}
	for range n {
		d.opts.EpisodeRecord(d.env, dec, b, d.probs)
	}
}

// RecordProbs sets whether the following Collect calls record the
// probabilities of OptionsRecorder (policies.ChainOptions.EpisodeRecord):
// pi_b and pi_e of every action given the running option, and mu_b, mu_e
// of the running option with its first step marked.
func (d *optChainDomain) RecordProbs(on bool) error {
	d.probs = on
	return nil
}

// OptionColumns reports that the options chain's data are options data,
// with changed options when the a1-option's underlying policy differs in
// at least one segment (parameter changed not 0).
func (d *optChainDomain) OptionColumns() (options, changed bool) {
	return true, d.opts.ChangedSegments() > 0
}
