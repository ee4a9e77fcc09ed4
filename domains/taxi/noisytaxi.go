package taxi

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/noisytaxi"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

func init() {
	domains.Register(&domains.Spec{
		Name: "noisytaxi",
		Doc:  "NoisyTaxi of Experiments 1 and 2 (SPEC 2.3): epsilon-greedy options policies with option length m over a partially observable 5x5 Taxi",
		Params: []domains.ParamSpec{
			{Name: "eps_b", Kind: domains.Float, Default: 0.3, Min: 0, Max: 1, Doc: "behavior policy's epsilon"},
			{Name: "eps_e", Kind: domains.Float, Default: 0.05, Min: 0, Max: 1, Doc: "evaluation policy's epsilon"},
			{Name: "option_length", Kind: domains.Int, Default: 1, Min: 1, Max: 200, Doc: "m, primitive steps per option (1: primitive epsilon-greedy policy)"},
			{Name: "cap", Kind: domains.Int, Default: 200, Min: 1, Max: 100000, Interp: true, Doc: "episode cap in primitive steps; the value is that of the capped episode (the exact value takes time linear in cap x option_length: about 25 s at 2000 x 200, with progress)"},
			{Name: "position_noise", Kind: domains.Float, Default: 0.075, Min: 0, Max: 0.5, Doc: "probability of seeing the taxi's row (column) one lower, and likewise one higher, clamped into the grid"},
			{Name: "switch_prob", Kind: domains.Float, Default: 0.15, Min: 0, Max: 1, Doc: "probability that the passenger's location, before pickup, is seen as a uniform draw from R, G, Y, B"},
			{Name: "dest_may_equal_passenger", Kind: domains.Bool, Default: 1, Interp: true, Doc: "destination uniform over R, G, Y, B independently of the passenger (false: over the other three)"},
			{Name: "mc_episodes", Kind: domains.Int, Default: 1000000, Min: 0, Max: taxiMaxMCEpisodes, Doc: "episodes of the Monte Carlo cross-check of the exact true value (0: none); " +
				"at most 1e8, which take about 70 s on 2 cores at the other defaults (1e6 episodes: 0.7 s), longer in proportion to the mean episode length (about 20 steps at the defaults)"},
			{Name: "gamma", Kind: domains.Float, Default: 1, Min: 0, Max: 1, Doc: "discount factor: the reward of 1-based primitive step t counts gamma^(t-1) (SPEC 1c; 1 = the paper's undiscounted setting)"},
		},
		New:        newTaxi,
		MaxSteps:   func(p domains.Params) int { return p.Int("cap") },
		Truth:      taxiTruth,
		CacheTruth: true,
		TruthDoc: "exact finite-horizon dynamic programming over (hidden state, option state, steps left), with a deterministic Monte Carlo " +
			"cross-check of mc_episodes episodes recorded in meta.json; cached on disk, keyed by every parameter; discounted by gamma (SPEC 1c)",
		Splits:          "the step of the first successful pickup (sound for option_length 1; with options it may fall inside an option)",
		ExactModelBytes: func(p domains.Params) float64 { return QBytes(float64(p.Int("cap"))) },
		Models:          taxiModels,
	})
}

// taxiModels says whether noisytaxi with parameters p supplies SPEC 1d's
// model columns: for option_length 1 only (the model-based estimators
// weight one action ratio per step).
func taxiModels(p domains.Params) error {
	if m := p.Int("option_length"); m != 1 {
		return fmt.Errorf("option_length = %d: the model-based estimators need primitive data (SPEC 1d)", m)
	}
	return nil
}

func taxiParams(p domains.Params) noisytaxi.Params {
	return noisytaxi.Params{Cap: p.Int("cap"), PositionNoise: p["position_noise"], SwitchProb: p["switch_prob"],
		DestMayEqualPassenger: p.Bool("dest_may_equal_passenger")}
}

// taxiDomain is noisytaxi with its behavior and evaluation policies. With
// option_length 1 it is a domains.ModelDomain: observation ids are
// noisytaxi.Obs.Index of the observation the behavior policy acted on, and
// the exact model is the evaluation policy's Q.
type taxiDomain struct {
	env     *noisytaxi.Env
	rollout *policies.TaxiRollout
	cap     int // episode cap, primitive steps
	epsE    float64
	gamma   float64

	// What Collect records besides rewards and ratios (Record), and the
	// exact q values, computed on the first Collect that needs them.
	ids, exact bool
	probs      bool // record pi_b and pi_e (RecordProbs)
	q          *Q
}

func newTaxi(p domains.Params) (domains.Domain, error) {
	gamma, err := p.Gamma()
	if err != nil {
		return nil, err
	}
	env, err := noisytaxi.New(taxiParams(p))
	if err != nil {
		return nil, err
	}
	ro, err := policies.NewTaxiRollout(p.Int("option_length"), p["eps_b"], p["eps_e"])
	if err != nil {
		return nil, err
	}
	return &taxiDomain{env: env, rollout: ro, cap: p.Int("cap"), epsE: p["eps_e"], gamma: gamma}, nil
}

// Collect draws n episodes under the behavior policy, recording the
// primitive ratio (m = 1) or the option ratios (m >= 2) and the split point
// after the first successful pickup; after RecordProbs, also the
// probabilities, and after Record, for m = 1, the ids and/or the exact
// model columns (policies.TaxiRollout.EpisodeRecord, the taxi's one
// rollout). Rewards are undiscounted whatever gamma is (the harness
// discounts them, SPEC 1c). Recording draws no random number: the
// episodes, rewards, ratios and splits are the same with or without it.
func (d *taxiDomain) Collect(b *trajectory.Batch, n int, rng *rand.Rand) {
	// about 24 steps an episode at the defaults, never more than the cap
	steps := n * min(24, d.cap)
	b.Grow(n, steps)
	rec := policies.TaxiRecord{Probs: d.probs}
	if d.probs {
		domains.GrowProbs(b, steps)
		if d.rollout.M() != 1 {
			domains.GrowOptionProbs(b, steps)
		}
	}
	if d.rollout.M() == 1 { // options data has no ids or model columns
		rec.IDs = d.ids
		domains.GrowColumns(b, steps, d.ids, d.exact)
		if d.exact {
			if d.q == nil {
				q, err := NewQ(d.env.Params(), d.epsE, d.gamma)
				if err != nil {
					// newTaxi validated every input of NewQ
					panic(fmt.Sprintf("domains: noisytaxi: the exact model: %v", err))
				}
				d.q = q
			}
			rec.Model = d.q
		}
	}
	for range n {
		d.rollout.EpisodeRecord(d.env, rng, b, rec)
	}
}

// RecordProbs sets whether the following Collect calls record pi_b and
// pi_e of every primitive action (domains.ProbRecorder): with
// option_length 1, 1 - eps + eps/6 for a*(o), eps/6 for any other action;
// with option_length >= 2 (options data, domains.OptionsRecorder), the
// probabilities of the action given the running option (1 inside the
// optimal option, 1/6 inside the random one, under both policies) and
// mu_b, mu_e of the running option (1 - eps for the optimal option, eps
// for the random one) with its first step marked
// (policies.TaxiRecord.Probs).
func (d *taxiDomain) RecordProbs(on bool) error {
	d.probs = on
	return nil
}

// OptionColumns reports that the data are options data with option_length
// >= 2, and that no option's underlying policy changes (SPEC 2.3).
func (d *taxiDomain) OptionColumns() (options, changed bool) {
	return d.rollout.M() != 1, false
}

// Space returns the observation ids (noisytaxi.Obs.Index: seen cell, seen
// passenger location or in-taxi, destination; noisytaxi.NumObs = 500 of
// them), the six actions, pi_e of option length 1 on them, pi_e(a|o) =
// (1 - eps_e) [a = a*(o)] + eps_e/6 (policies.TaxiPrimitiveProb), and the
// cap as the horizon.
func (d *taxiDomain) Space() models.Space {
	eps := d.epsE
	return models.Space{
		Obs:     noisytaxi.NumObs,
		Actions: noisytaxi.NumActions,
		PiE: func(o int, dst []float64) {
			obs := noisytaxi.ObsAt(o)
			for a := range dst {
				dst[a] = policies.TaxiPrimitiveProb(eps, noisytaxi.Action(a), obs)
			}
		},
		Horizon: d.cap,
	}
}

// Record sets what the following Collect calls record besides rewards and
// ratios (domains.ModelDomain): with ids, the observation and action ids; with
// exact, the true q_hat and v_hat of pi_e under gamma (Q,
// SPEC 1d): q_hat_t = r_t + the expected discounted return from step t+1
// on, given the hidden state at step t, the steps left before the cap and
// the logged action; v_hat_t = sum_a pi_e(a|o_t) q(state_t, a). The q
// values are computed on the first Collect that records them, once per
// domain: 4000 bytes per layer of values, at most cap + 1 layers (0.6 MB at
// the defaults; see Q). Call it before collecting into an
// empty batch, so that every step carries the columns. With option_length
// >= 2 (which domains.Spec.Models refuses) it changes nothing.
func (d *taxiDomain) Record(ids, exact bool) {
	d.ids, d.exact = ids, exact
}

// taxiMCSeed roots the Monte Carlo cross-check's streams; the check is a
// fixed computation, independent of the run's seed, so it can be cached.
const taxiMCSeed = 20171204

// taxiMaxMCEpisodes bounds mc_episodes so that the cross-check ends in
// minutes, not days (1 << 40 would take about 9 days): 1e8 episodes under
// each of the two policies take about 70 s on 2 cores at the defaults
// (measured: 4e6 took 6.1 s of CPU, 16 and 23 steps an episode under
// evaluation and behavior). The time is 40 to 50 ns of CPU per primitive
// step, so it grows with the episode length: about 15 minutes when every
// episode runs to the default cap of 200 (eps 1: 188 steps an episode).
const taxiMaxMCEpisodes = 1e8

// truthProgressEvery is the least time between two progress reports of
// the Monte Carlo cross-check; the end (fraction 1) is always reported.
const truthProgressEvery = 2 * time.Second

// taxiTruth computes V(pi_e) exactly by dynamic programming and records
// the Monte Carlo cross-check and episode statistics under behavior and
// evaluation, reporting the cross-check's progress every couple of
// seconds.
func taxiTruth(p domains.Params, progress func(float64)) (domains.Truth, error) {
	return taxiTruthEvery(p, progress, truthProgressEvery)
}

// throttle returns a progress function that passes a fraction on to
// progress when at least every has passed since it last did, or when the
// fraction is 1; nil when progress is nil.
func throttle(progress func(float64), every time.Duration) func(float64) {
	if progress == nil {
		return nil
	}
	var last time.Time
	return func(frac float64) {
		if now := time.Now(); frac >= 1 || now.Sub(last) >= every {
			last = now
			progress(frac)
		}
	}
}

// taxiTruthEvery is taxiTruth reporting progress at most once every every
// (and at the end).
func taxiTruthEvery(p domains.Params, progress func(float64), every time.Duration) (domains.Truth, error) {
	tp := taxiParams(p)
	m := p.Int("option_length")
	report := throttle(progress, every)
	// The exact values are the first half of the work when a Monte Carlo
	// cross-check follows, else all of it; each policy is half of a phase.
	phase := 1.0
	if p.Int("mc_episodes") > 0 {
		phase = 0.5
	}
	dpDone := func(i int) func(float64) {
		if report == nil {
			return nil
		}
		return func(f float64) { report(phase * (float64(i) + f) / 2) }
	}
	gamma, err := p.Gamma()
	if err != nil {
		return domains.Truth{}, err
	}
	eval, err := ExactValue(tp, p["eps_e"], m, gamma, dpDone(0))
	if err != nil {
		return domains.Truth{}, err
	}
	beh, err := ExactValue(tp, p["eps_b"], m, gamma, dpDone(1))
	if err != nil {
		return domains.Truth{}, err
	}
	t := domains.Truth{
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
			// the second half of the work; policy i's episodes its i-th quarter
			var chunkDone func(done int)
			if report != nil {
				chunkDone = func(done int) { report(0.5 + (float64(i)+float64(done)/float64(eps))/4) }
			}
			mc, err := MonteCarlo(tp, who.eps, m, gamma, eps, taxiMCSeed+uint64(i), 0, chunkDone)
			if err != nil {
				return domains.Truth{}, err
			}
			t.Extra[who.name+"_mc_value"] = mc.Mean
			t.Extra[who.name+"_mc_se"] = mc.SE
			t.Extra[who.name+"_mc_mean_length"] = mc.MeanLength
			t.Extra[who.name+"_mc_cap_prob"] = mc.CapProb
		}
		t.Extra["mc_episodes"] = float64(eps)
		t.Method += fmt.Sprintf("; Monte Carlo cross-check with %d episodes", eps)
	}
	if gamma != 1 {
		t.Method += fmt.Sprintf("; discounted by gamma = %v (SPEC 1c)", gamma)
	}
	return t, nil
}
