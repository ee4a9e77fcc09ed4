package domains

import (
	"fmt"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/envs/noisytaxi"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

func init() {
	Register(&Spec{
		Name: "noisytaxi",
		Doc:  "NoisyTaxi of Experiments 1 and 2 (SPEC 2.3): epsilon-greedy options policies with option length m over a partially observable 5x5 Taxi",
		Params: []ParamSpec{
			{Name: "eps_b", Kind: Float, Default: 0.3, Min: 0, Max: 1, Doc: "behavior policy's epsilon"},
			{Name: "eps_e", Kind: Float, Default: 0.05, Min: 0, Max: 1, Doc: "evaluation policy's epsilon"},
			{Name: "option_length", Kind: Int, Default: 1, Min: 1, Max: 200, Doc: "m, primitive steps per option (1: primitive epsilon-greedy policy)"},
			{Name: "cap", Kind: Int, Default: 200, Min: 1, Max: 100000, Interp: true, Doc: "episode cap in primitive steps; the value is that of the capped episode"},
			{Name: "position_noise", Kind: Float, Default: 0.075, Min: 0, Max: 0.5, Doc: "probability of seeing the taxi's row (column) one lower, and likewise one higher, clamped into the grid"},
			{Name: "switch_prob", Kind: Float, Default: 0.15, Min: 0, Max: 1, Doc: "probability that the passenger's location, before pickup, is seen as a uniform draw from R, G, Y, B"},
			{Name: "dest_may_equal_passenger", Kind: Bool, Default: 1, Interp: true, Doc: "destination uniform over R, G, Y, B independently of the passenger (false: over the other three)"},
			{Name: "mc_episodes", Kind: Int, Default: 1000000, Min: 0, Max: 1 << 40, Doc: "episodes of the Monte Carlo cross-check of the exact true value (0: none)"},
		},
		New:        newTaxi,
		Truth:      taxiTruth,
		CacheTruth: true,
		TruthDoc: "exact finite-horizon dynamic programming over (hidden state, option state, steps left), with a deterministic Monte Carlo " +
			"cross-check of mc_episodes episodes recorded in meta.json; cached on disk, keyed by every parameter",
		Splits: "the step of the first successful pickup (sound for option_length 1; with options it may fall inside an option)",
	})
}

func taxiParams(p Params) noisytaxi.Params {
	return noisytaxi.Params{Cap: p.Int("cap"), PositionNoise: p["position_noise"], SwitchProb: p["switch_prob"],
		DestMayEqualPassenger: p.Bool("dest_may_equal_passenger")}
}

type taxiDomain struct {
	env     *noisytaxi.Env
	rollout *policies.TaxiRollout
}

func newTaxi(p Params) (Domain, error) {
	env, err := noisytaxi.New(taxiParams(p))
	if err != nil {
		return nil, err
	}
	ro, err := policies.NewTaxiRollout(p.Int("option_length"), p["eps_b"], p["eps_e"])
	if err != nil {
		return nil, err
	}
	return &taxiDomain{env: env, rollout: ro}, nil
}

// Collect draws n episodes under the behavior policy, recording the
// primitive ratio (m = 1) or the option ratios (m >= 2) and the split point
// after the first successful pickup.
func (d *taxiDomain) Collect(b *trajectory.Batch, n int, rng *rand.Rand) {
	b.Grow(n, n*24)
	for range n {
		d.rollout.Episode(d.env, rng, b)
	}
}

// taxiMCSeed roots the Monte Carlo cross-check's streams; the check is a
// fixed computation, independent of the run's seed, so it can be cached.
const taxiMCSeed = 20171204

// taxiTruth computes V(pi_e) exactly by dynamic programming and records
// the Monte Carlo cross-check and episode statistics under behavior and
// evaluation.
func taxiTruth(p Params, progress func(float64)) (Truth, error) {
	tp := taxiParams(p)
	m := p.Int("option_length")
	eval, err := policies.TaxiExactValue(tp, p["eps_e"], m)
	if err != nil {
		return Truth{}, err
	}
	beh, err := policies.TaxiExactValue(tp, p["eps_b"], m)
	if err != nil {
		return Truth{}, err
	}
	t := Truth{
		Value:  eval.Value,
		Method: "exact: finite-horizon dynamic programming over (hidden state, option state, steps left), observation noise averaged per hidden state (SPEC 2.3)",
		Extra: map[string]float64{
			"exact_value":          eval.Value,
			"eval_mean_length":     eval.MeanLength,
			"eval_cap_prob":        eval.CapProb,
			"behavior_exact_value": beh.Value,
			"behavior_mean_length": beh.MeanLength,
			"behavior_cap_prob":    beh.CapProb,
		},
	}
	if eps := p.Int("mc_episodes"); eps > 0 {
		for i, who := range []struct {
			name string
			eps  float64
		}{{"eval", p["eps_e"]}, {"behavior", p["eps_b"]}} {
			mc, err := policies.TaxiMonteCarlo(tp, who.eps, m, eps, taxiMCSeed+uint64(i), 0)
			if err != nil {
				return Truth{}, err
			}
			t.Extra[who.name+"_mc_value"] = mc.Mean
			t.Extra[who.name+"_mc_se"] = mc.SE
			t.Extra[who.name+"_mc_mean_length"] = mc.MeanLength
			t.Extra[who.name+"_mc_cap_prob"] = mc.CapProb
			if progress != nil {
				progress(float64(i+1) / 2)
			}
		}
		t.Extra["mc_episodes"] = float64(eps)
		t.Method += fmt.Sprintf("; Monte Carlo cross-check with %d episodes", eps)
	}
	return t, nil
}
