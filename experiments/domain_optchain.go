package experiments

import (
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/envs/chainmdp"
	"github.com/ope-lab/longhorizon/trajectory"
)

// The options chain (Corollaries 1 and 2 of Theorem 3): the chain MDP of
// SPEC 2.1 driven by J-step options. envs/chainmdp/options.go defines it
// and derives its closed forms.
func init() {
	RegisterDomain(&DomainSpec{
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
		},
		New: func(p Params) (Domain, error) {
			o, err := chainmdp.NewOptions(optionsParams(p))
			if err != nil {
				return nil, err
			}
			return &optChainDomain{env: o}, nil
		},
		Truth: func(p Params, _ func(float64)) (Truth, error) {
			o, err := chainmdp.NewOptions(optionsParams(p))
			if err != nil {
				return Truth{}, err
			}
			return Truth{Value: o.Value(), Method: "closed form: p_e^{H/J} inner_p_e^{cJ} (envs/chainmdp/options.go)"}, nil
		},
		Splits:     "none",
		ClosedForm: optChainClosedForm,
	})
}

func optionsParams(p Params) chainmdp.OptionsParams {
	return chainmdp.OptionsParams{H: p.Int("horizon"), J: p.Int("option_length"), PB: p["p_b"], PE: p["p_e"],
		Changed: p.Int("changed"), InnerPB: p["inner_p_b"], InnerPE: p["inner_p_e"]}
}

// optChainClosedForm: options-PDIS is unbiased with
// n Var = (p_e^2/p_b)^{H/J} (inner_p_e^2/inner_p_b)^{cJ} - V^2
// (envs/chainmdp/options.go); Corollary 1 is c = 0, Corollary 2 c = 1.
func optChainClosedForm(p Params, estimator string, n int) (map[string]float64, bool) {
	if estimator != "options-pdis" || n < 1 {
		return nil, false
	}
	o, err := chainmdp.NewOptions(optionsParams(p))
	if err != nil {
		return nil, false
	}
	return map[string]float64{"mean_estimate": o.Value(), "bias": 0, "variance": o.OptionsPDISVariance(n)}, true
}

type optChainDomain struct {
	env *chainmdp.OptionsChain
	dec rngDecider
}

// rngDecider makes the behavior policy's choices from a random stream.
type rngDecider struct{ rng *rand.Rand }

func (d *rngDecider) Decide(p float64) bool { return d.rng.Float64() < p }

func (d *optChainDomain) Collect(b *trajectory.Batch, n int, rng *rand.Rand) {
	b.Grow(n, n*d.env.P.H)
	d.dec.rng = rng
	for range n {
		d.env.Episode(&d.dec, b)
		b.End()
	}
	d.dec.rng = nil
}
