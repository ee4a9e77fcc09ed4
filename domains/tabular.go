package domains

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/ope-lab/longhorizon/envs/tabular"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TabularSpec declares a domain kind over a finite-horizon tabular MDP
// (package envs/tabular, issue 16): RegisterTabular turns it into a Spec
// whose true value is exact, whose domain supplies the model columns
// (observation id = state) and the policies' probabilities, and whose
// Collect samples with envs/tabular's allocation-free samplers. A package
// of tabular domains (the suite, domains/suite) declares one per domain
// kind and registers it from init.
type TabularSpec struct {
	Name, Doc string
	// Params are the domain's own parameters; RegisterTabular adds
	// `gamma` (gammaParamSpec) and `instance` (instanceParamSpec).
	Params []ParamSpec
	// Build returns the MDP and the two policies for resolved parameters
	// (the domain's own, gamma and instance): a deterministic function of
	// them. Its MDP and policies are validated by the caller.
	Build func(p Params) (m *tabular.MDP, behavior, evaluation *tabular.Policy, err error)
	// TruthDoc says how the true value is obtained, for help texts.
	TruthDoc string
}

// instanceParamSpec declares the seed of a tabular domain's random
// instance, which Build may draw the MDP and policies from (the suite's
// domains do).
var instanceParamSpec = ParamSpec{Name: "instance", Kind: Int, Default: 1, Min: 1, Max: 1 << 30,
	Doc: "seed of the random instance: different instances draw different MDPs from the same parameters"}

// tabularTruthMethod is Truth.Method of every tabular domain.
const tabularTruthMethod = "exact dynamic program over (step, state)"

// RegisterTabular registers ts as a domain kind (ts.Spec); registering a
// name twice panics, as Register does.
func RegisterTabular(ts TabularSpec) { Register(ts.Spec()) }

// Spec returns the domain kind of ts, unregistered (RegisterTabular
// registers it): parameters ts.Params, gamma and instance; New builds and
// validates the MDP and refuses a behavior that never takes an action the
// evaluation policy takes; MaxSteps is the horizon; the truth is the exact
// V(pi_e) under gamma (tabular.MDP.Value); the domain supplies model
// columns (primitive data) and has no split points.
func (ts TabularSpec) Spec() *Spec {
	params := append(slices.Clip(ts.Params), gammaParamSpec, instanceParamSpec)
	return &Spec{
		Name:   ts.Name,
		Doc:    ts.Doc,
		Params: params,
		New:    func(p Params) (Domain, error) { return ts.newDomain(p) },
		MaxSteps: func(p Params) int {
			b, err := ts.build(p)
			if err != nil {
				return 1 // New refuses these parameters
			}
			return b.m.Horizon
		},
		Truth:    ts.truth,
		TruthDoc: ts.TruthDoc,
		Splits:   "none",
		Models:   func(Params) error { return nil },
		ExactModelBytes: func(p Params) float64 {
			b, err := ts.build(p)
			if err != nil {
				return 0
			}
			return tabularExactBytes(b.m)
		},
	}
}

// tabularExactBytes is the memory of a tabular domain's exact model: the Q
// tables of pi_e and the values V_t(s), H x S more float64s.
func tabularExactBytes(m *tabular.MDP) float64 {
	return tabular.QBytes(m.States, m.Actions, m.Horizon) + 8*float64(m.Horizon)*float64(m.States)
}

// tabularBuilt is a tabular domain's MDP and policies, validated.
type tabularBuilt struct {
	m          *tabular.MDP
	behavior   *tabular.Policy
	evaluation *tabular.Policy
	gamma      float64
}

// build calls ts.Build and checks what it returns: a valid MDP, two
// policies of it, and coverage (pi_b(a|s) > 0 wherever pi_e(a|s) > 0).
func (ts TabularSpec) build(p Params) (*tabularBuilt, error) {
	gamma, err := p.Gamma()
	if err != nil {
		return nil, err
	}
	m, b, e, err := ts.Build(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ts.Name, err)
	}
	if m == nil {
		return nil, fmt.Errorf("%s: no MDP built", ts.Name)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", ts.Name, err)
	}
	if err := m.CheckPolicy(b); err != nil {
		return nil, fmt.Errorf("%s: behavior: %w", ts.Name, err)
	}
	if err := m.CheckPolicy(e); err != nil {
		return nil, fmt.Errorf("%s: evaluation: %w", ts.Name, err)
	}
	for i, pe := range e.Pi {
		if pe > 0 && b.Pi[i] == 0 {
			return nil, fmt.Errorf("%s: coverage: the behavior policy never takes action %d in state %d, which the evaluation policy takes with probability %v: importance sampling cannot estimate V(pi_e)",
				ts.Name, i%m.Actions, i/m.Actions, pe)
		}
	}
	return &tabularBuilt{m: m, behavior: b, evaluation: e, gamma: gamma}, nil
}

// truth returns the exact V(pi_e) under gamma, with two facts in Extra:
// behavior_value, V(pi_b) under gamma (what an estimator that drops every
// ratio estimates), and is_weight_second_moment, E_b[W_H^2]
// (tabular.MDP.WeightMoment), ordinary importance sampling's variance
// scale: its relative standard error is about sqrt(E_b[W_H^2] / n).
func (ts TabularSpec) truth(p Params, _ func(float64)) (Truth, error) {
	b, err := ts.build(p)
	if err != nil {
		return Truth{}, err
	}
	return Truth{
		Value:  b.m.Value(b.evaluation, b.gamma),
		Method: tabularTruthMethod,
		Extra: map[string]float64{
			"behavior_value":   b.m.Value(b.behavior, b.gamma),
			WeightSecondMoment: b.m.WeightMoment(b.behavior, b.evaluation),
		},
	}, nil
}

// tabularDomain is a tabular MDP with its behavior and evaluation
// policies. It is a ModelDomain: the observation id is the state.
type tabularDomain struct {
	m        *tabular.MDP
	env      *tabular.Sampler
	behavior *tabular.PolicySampler
	piE      []float64 // pi_e(a|s) at s*Actions+a
	piB      []float64 // pi_b(a|s) at s*Actions+a
	ratio    []float64 // pi_e(a|s)/pi_b(a|s) at s*Actions+a (0 where pi_b is 0: never drawn)
	gamma    float64

	// What Collect records besides rewards and ratios (Record), and the
	// exact model, computed by the first Record that asks for it: q[t] the
	// Q table of 0-based step t, v[t*States+s] = sum_a pi_e(a|s) q[t][s*Actions+a].
	ids, exact bool
	probs      bool // record pi_b and pi_e (RecordProbs)
	q          [][]float64
	v          []float64
}

func (ts TabularSpec) newDomain(p Params) (*tabularDomain, error) {
	b, err := ts.build(p)
	if err != nil {
		return nil, err
	}
	env, err := tabular.NewSampler(b.m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ts.Name, err)
	}
	d := &tabularDomain{m: b.m, env: env, behavior: tabular.NewPolicySampler(b.behavior),
		piE: b.evaluation.Pi, piB: b.behavior.Pi, ratio: make([]float64, len(b.behavior.Pi)), gamma: b.gamma}
	for i, pb := range b.behavior.Pi {
		if pb > 0 {
			d.ratio[i] = b.evaluation.Pi[i] / pb
		}
	}
	return d, nil
}

// Collect draws n episodes under pi_b, each step with its reward and the
// ratio pi_e(a|s)/pi_b(a|s) (Batch.Add); after Record, every step also
// carries the state and action ids and/or the exact model columns. Per
// episode it draws the start state (one Float64), and per step the action
// (one Float64), the reward's own draws and the transition (one Float64);
// recording draws nothing. It does not allocate once b has grown (it grows
// b by n episodes of the horizon's length first).
func (d *tabularDomain) Collect(b *trajectory.Batch, n int, rng *rand.Rand) {
	steps := n * d.m.Horizon
	b.Grow(n, steps)
	GrowColumns(b, steps, d.ids, d.exact)
	if d.probs {
		GrowProbs(b, steps)
	}
	na, ns := d.m.Actions, d.m.States
	for range n {
		d.env.Reset(rng)
		for t := 0; ; t++ {
			s := d.env.State()
			a := d.behavior.Sample(s, rng)
			r, done := d.env.Step(a, rng)
			i := s*na + a
			b.Add(r, d.ratio[i])
			if d.ids {
				b.AddIDs(int32(s), int32(a))
			}
			if d.probs {
				b.AddProbs(d.piB[i], d.piE[i])
			}
			if d.exact {
				b.AddModel(d.q[t][i], d.v[t*ns+s])
			}
			if done {
				break
			}
		}
		b.End()
	}
}

// RecordProbs sets whether the following Collect calls record pi_b(a|s)
// and pi_e(a|s) of every step (domains.ProbRecorder): the entries of the
// two policies' tables whose quotient is the step's ratio.
func (d *tabularDomain) RecordProbs(on bool) error {
	d.probs = on
	return nil
}

// Space returns the MDP's states as observation ids, its actions, pi_e and
// the horizon.
func (d *tabularDomain) Space() models.Space {
	na := d.m.Actions
	return models.Space{Obs: d.m.States, Actions: na, Horizon: d.m.Horizon,
		PiE: func(o int, dst []float64) { copy(dst, d.piE[o*na:(o+1)*na]) }}
}

// Record sets what the following Collect calls record besides rewards and
// ratios (domains.ModelDomain). The exact model is pi_e's Q tables under
// gamma (tabular.MDP.QTables, SPEC 1c, 1d): q_hat_t = Q_t(s_t, a_t) and
// v_hat_t = sum_a pi_e(a|s_t) Q_t(s_t, a), computed once, on the first
// Record that asks for it (tabularExactBytes of memory).
func (d *tabularDomain) Record(ids, exact bool) {
	d.ids, d.exact = ids, exact
	if !exact || d.q != nil {
		return
	}
	m, na := d.m, d.m.Actions
	d.q = m.QTables(&tabular.Policy{Actions: na, Pi: d.piE}, d.gamma)
	d.v = make([]float64, m.Horizon*m.States)
	for t, qt := range d.q {
		for s := range m.States {
			v := 0.0
			for a := range na {
				v += d.piE[s*na+a] * qt[s*na+a]
			}
			d.v[t*m.States+s] = v
		}
	}
}
