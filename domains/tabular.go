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
// of tabular domains (the suite, domains/suite; the field's benchmarks,
// domains/benchmarks) declares one per domain kind and registers it from
// init.
type TabularSpec struct {
	Name, Doc string
	// Params are the domain's own parameters; RegisterTabular adds
	// `gamma` (gammaParamSpec, or Gamma) and `instance`
	// (instanceParamSpec, unless NoInstance).
	Params []ParamSpec
	// Build returns the MDP and the two policies for resolved parameters
	// (the domain's own, gamma and instance): a deterministic function of
	// them. Its MDP and policies are validated by the caller.
	Build func(p Params) (m *tabular.MDP, behavior, evaluation *tabular.Policy, err error)
	// TruthDoc says how the true value is obtained, for help texts.
	TruthDoc string

	// Gamma, when its Name is set, replaces the adapter's gamma
	// parameter (gammaParamSpec, default 1): a domain whose source
	// discounts by default declares its default and why. Its Name must
	// be "gamma" (Spec panics otherwise: a programming error).
	Gamma ParamSpec
	// NoInstance leaves out the instance parameter: the domain is one
	// fixed MDP of its parameters, not a random instance.
	NoInstance bool
	// Observe, when not nil, makes the domain a POMDP: it returns the
	// observation id of every latent state (len States) for resolved
	// parameters, or nil for the state itself. The estimators then see
	// only observations: the ids recorded, the Space (Obs = the largest
	// id + 1, each id below it the observation of some state) and pi_e
	// on it. The two policies must act on the observation alone (equal
	// probabilities in states that share one; the adapter checks).
	// Dynamics, rewards, the truth and the exact model use the latent
	// state (tabularDomain.Record).
	Observe func(p Params) ([]int, error)
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
// registers it): parameters ts.Params, gamma (ts.Gamma when set) and
// instance (unless ts.NoInstance); New builds and
// validates the MDP and refuses a behavior that never takes an action the
// evaluation policy takes; MaxSteps is the horizon; the truth is the exact
// V(pi_e) under gamma (tabular.MDP.Value); the domain supplies model
// columns (primitive data) and has no split points.
func (ts TabularSpec) Spec() *Spec {
	gamma := gammaParamSpec
	if ts.Gamma.Name != "" {
		if ts.Gamma.Name != "gamma" {
			panic(fmt.Sprintf("domains: %s: TabularSpec.Gamma named %q, want gamma", ts.Name, ts.Gamma.Name))
		}
		gamma = ts.Gamma
	}
	params := append(slices.Clip(ts.Params), gamma)
	if !ts.NoInstance {
		params = append(params, instanceParamSpec)
	}
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

// tabularBuilt is a tabular domain's MDP and policies, validated, and
// its observations: obs[s] the id of state s (the identity without
// Observe), rep[o] the first state observed as o.
type tabularBuilt struct {
	m          *tabular.MDP
	behavior   *tabular.Policy
	evaluation *tabular.Policy
	gamma      float64
	obs        []int32
	rep        []int
}

// build calls ts.Build and checks what it returns: a valid MDP, two
// policies of it, coverage (pi_b(a|s) > 0 wherever pi_e(a|s) > 0), and
// the observations (observations).
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
	obs, rep, err := ts.observations(p, m, b, e)
	if err != nil {
		return nil, fmt.Errorf("%s: observations: %w", ts.Name, err)
	}
	return &tabularBuilt{m: m, behavior: b, evaluation: e, gamma: gamma, obs: obs, rep: rep}, nil
}

// observations returns the observation id of every state and the first
// state of every observation: the identity without ts.Observe (or when it
// returns nil), else its ids, checked: one per state, in [0, States),
// every id up to the largest observed, and both policies equal in states
// that share an observation (the estimators see pi(.|o) only).
func (ts TabularSpec) observations(p Params, m *tabular.MDP, pols ...*tabular.Policy) (obs []int32, rep []int, err error) {
	var ids []int
	if ts.Observe != nil {
		if ids, err = ts.Observe(p); err != nil {
			return nil, nil, err
		}
	}
	if ids == nil {
		obs, rep = make([]int32, m.States), make([]int, m.States)
		for s := range obs {
			obs[s], rep[s] = int32(s), s
		}
		return obs, rep, nil
	}
	if len(ids) != m.States {
		return nil, nil, fmt.Errorf("%d ids, want one per state (%d)", len(ids), m.States)
	}
	obs = make([]int32, m.States)
	for s, o := range ids {
		if o < 0 || o >= m.States {
			return nil, nil, fmt.Errorf("state %d: id %d, want one in [0, %d) (states)", s, o, m.States)
		}
		obs[s] = int32(o)
		for len(rep) <= o {
			rep = append(rep, -1)
		}
		if rep[o] < 0 {
			rep[o] = s
		}
	}
	na := m.Actions
	for o, s := range rep {
		if s < 0 {
			return nil, nil, fmt.Errorf("id %d is no state's observation, though %d is", o, len(rep)-1)
		}
	}
	for s, o := range ids {
		r := rep[o]
		for k, pi := range pols {
			if !slices.Equal(pi.Pi[s*na:(s+1)*na], pi.Pi[r*na:(r+1)*na]) {
				return nil, nil, fmt.Errorf("the %s policy differs between states %d and %d, which share observation %d: a policy of the observation acts the same in both",
					[]string{"behavior", "evaluation"}[k], r, s, o)
			}
		}
	}
	return obs, rep, nil
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
// policies. It is a ModelDomain: the observation id is the state's
// (TabularSpec.Observe; the state itself by default).
type tabularDomain struct {
	m        *tabular.MDP
	obs      []int32 // observation id of each state
	rep      []int   // the first state of each observation id
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
	d := &tabularDomain{m: b.m, obs: b.obs, rep: b.rep, env: env, behavior: tabular.NewPolicySampler(b.behavior),
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
// carries the observation and action ids and/or the exact model columns. Per
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
	if !d.probs && !d.exact {
		d.collectStretch(b, n, rng)
		return
	}
	for range n {
		d.env.Reset(rng)
		for t := 0; ; t++ {
			s := d.env.State()
			a := d.behavior.Sample(s, rng)
			r, done := d.env.Step(a, rng)
			i := s*na + a
			b.Add(r, d.ratio[i])
			if d.ids {
				b.AddIDs(d.obs[s], int32(a))
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

// collectStretch is Collect without the probability and model columns:
// the same draws, the steps gathered in a stretch and added to b a
// stretch at a time (trajectory.Stretch).
func (d *tabularDomain) collectStretch(b *trajectory.Batch, n int, rng *rand.Rand) {
	var st trajectory.Stretch
	na := d.m.Actions
	for range n {
		d.env.Reset(rng)
		for {
			s := d.env.State()
			a := d.behavior.Sample(s, rng)
			r, done := d.env.Step(a, rng)
			if st.Full() {
				st.Flush(b, d.ids)
			}
			obs := int32(0)
			if d.ids {
				obs = d.obs[s]
			}
			st.Add(r, d.ratio[s*na+a], obs, int32(a))
			if done {
				break
			}
		}
		st.Flush(b, d.ids)
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

// Space returns the observation ids (the MDP's states without
// TabularSpec.Observe), its actions, pi_e on observations and the horizon.
func (d *tabularDomain) Space() models.Space {
	na := d.m.Actions
	return models.Space{Obs: len(d.rep), Actions: na, Horizon: d.m.Horizon,
		PiE: func(o int, dst []float64) { s := d.rep[o]; copy(dst, d.piE[s*na:(s+1)*na]) }}
}

// Record sets what the following Collect calls record besides rewards and
// ratios (domains.ModelDomain). The exact model is pi_e's Q tables under
// gamma (tabular.MDP.QTables, SPEC 1c, 1d): q_hat_t = Q_t(s_t, a_t) and
// v_hat_t = sum_a pi_e(a|s_t) Q_t(s_t, a), computed once, on the first
// Record that asks for it (tabularExactBytes of memory).
//
// Under an observation map (TabularSpec.Observe) s_t is the latent state,
// which the recorded ids do not reveal: q_hat_t is E[G_t | s_t, a_t] under
// pi_e (G_t the discounted return from step t on), the true conditional
// expectation of the return, and since the latent process is Markov also
// its expectation given the whole history up to (s_t, a_t); v_hat_t uses
// pi_e(.|o_t), which equals pi_e(.|s_t). So the exact model stays what
// makes DR's correction terms mean zero step by step, a reference line
// that no model learned from observation ids can reach where aliased
// states differ in value (models fitted from the ids see only o_t).
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
