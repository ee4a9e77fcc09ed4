package domains

import (
	"math"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/envs/subepisode"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

func init() {
	Register(&Spec{
		Name: "subepisode",
		Doc:  "Experiment 3's MDP of 50 nearly independent 2-step sub-episodes (SPEC 2.2); pi_b picks a1 with probability p_b (uniform: 0.5), pi_e with probability p_e",
		Params: []ParamSpec{
			{Name: "p_e", Kind: Float, Default: 0.75, Min: 0, Max: 1, Interp: true, Doc: "evaluation policy's probability of a1 in every state (paper: only \"higher probability\")"},
			{Name: "p_b", Kind: Float, Default: 0.5, Min: 0, Max: 1, Doc: "behavior policy's probability of a1 (paper: random, 0.5)"},
			{Name: "subepisodes", Kind: Int, Default: 50, Min: 1, Max: 1 << 16, Doc: "number of 2-step sub-episodes (H = 2 x subepisodes)"},
			{Name: "eps_step", Kind: Float, Default: 0.01, Min: -1e6, Max: 1e6, Doc: "growth of eps at each entry into s2 (0 makes sub-episodes independent)"},
			{Name: "eps_before_reward", Kind: Bool, Default: 1, Interp: true, Doc: "eps grows on entering s2 before the s2 reward is paid"},
			{Name: "differ_s1_only", Kind: Bool, Default: 0, Late: true, Doc: "pi_e differs from pi_b in S1 only: pi_e = pi_b in S2 and S3, whose actions change nothing, so every ratio there is exactly 1 and V(pi_e) is unchanged " +
				"(beyond the paper; false = SPEC 2.2: pi_e picks a1 with probability p_e in every state)"},
			gammaParamSpec,
		},
		New:      newSubepisode,
		MaxSteps: func(p Params) int { return 2 * p.Int("subepisodes") },
		Truth: func(p Params, _ func(float64)) (Truth, error) {
			g, err := p.Gamma()
			if err != nil {
				return Truth{}, err
			}
			tr := Truth{Value: SubepisodeValueGamma(subepisodeParams(p), p["p_e"], g),
				Method: "exact dynamic program with discounting (SPEC 1c)"}
			if g == 1 {
				tr = Truth{Value: SubepisodeValue(subepisodeParams(p), p["p_e"]),
					Method: "closed form: S(1-2p) + p eps_step (c S + p S(S-1)/2); 50 - 99.5p + 12.25p^2 at SPEC 2.2's defaults"}
			}
			// E_b[W_H^2]: recorded when it is a float64 (JSON has no Inf)
			if w2 := SubepisodeWeightMoment(subepisodeMomentParams(p, g)); !math.IsInf(w2, 0) {
				tr.Extra = map[string]float64{WeightSecondMoment: w2}
			}
			return tr, nil
		},
		TruthDoc: "closed form S(1-2p) + p eps_step (c S + p S(S-1)/2) (c = 1 when eps grows before the reward), 50 - 99.5p + 12.25p^2 at SPEC 2.2's defaults; " +
			"under gamma < 1 an exact dynamic program over (step, state, entries into s2) (SPEC 1c). " +
			"differ_s1_only leaves it unchanged (actions in S2 and S3 change nothing). meta.json also records is_weight_second_moment, " +
			"E_b[W_H^2] = m2(S1)^S m2(S2)^S with m2(s) = sum_a pi_e(a|s)^2/pi_b(a) (omitted beyond the float64 range)",
		Splits:  "the end of every sub-episode",
		Models:  func(Params) error { return nil },
		Moments: subepisodeMomentsCheck,
	})
}

// subepisodeMomentParams returns what the exact moments of the domain
// with parameters p under the discount factor g depend on.
func subepisodeMomentParams(p Params, g float64) SubepisodeMomentParams {
	return SubepisodeMomentParams{Params: subepisodeParams(p), PB: p["p_b"], PE: p["p_e"], DifferS1Only: p.Bool("differ_s1_only"), Gamma: g}
}

func subepisodeParams(p Params) subepisode.Params {
	return subepisode.Params{Subepisodes: p.Int("subepisodes"), EpsStep: p["eps_step"], EpsBeforeReward: p.Bool("eps_before_reward")}
}

// SubepisodeValue returns V(pi) of the sub-episode MDP with parameters sp
// for the policy that picks A1 with probability p in every state.
// Sub-episode j (1-based) pays, in expectation,
// p(+1) + (1-p)(-1) + p(-2 + E[eps_j]) + (1-p)(+2) = 1 - 2p + p E[eps_j],
// where eps_j = EpsStep (c + number of earlier entries into S2), c = 1 if
// eps grows before the reward, else 0, so E[eps_j] = EpsStep (c + p(j-1)).
// Summing over j = 1..S:
//
//	V(p) = S(1 - 2p) + p EpsStep (c S + p S(S-1)/2).
//
// With SPEC's defaults (S = 50, EpsStep = 0.01, c = 1) this is
// 50 - 99.5 p + 12.25 p^2 (SPEC 2.2).
func SubepisodeValue(sp subepisode.Params, p float64) float64 {
	s := float64(sp.Subepisodes)
	c := 0.0
	if sp.EpsBeforeReward {
		c = 1
	}
	return s*(1-2*p) + p*sp.EpsStep*(c*s+p*s*(s-1)/2)
}

// SubepisodeValueGamma returns V(pi) of the sub-episode MDP with parameters
// sp for the policy that picks A1 with probability p in every state, the
// reward of 1-based step t counting gamma^(t-1) (SPEC 1c): the exact
// dynamic program of subepisodeDP. At gamma = 1 it equals SubepisodeValue
// up to rounding.
func SubepisodeValueGamma(sp subepisode.Params, p, gamma float64) float64 {
	return newSubepisodeDP(sp, p, gamma).value()
}

// subepisodeDP is the exact dynamic program of the sub-episode MDP (SPEC
// 2.2, envs/subepisode) for the policy that picks A1 with probability pe
// in every state, under the discount factor gamma = g (SPEC 1c).
//
// The hidden state at 1-based step t is (t, state, k), k the number of
// entries into S2 so far (the current one included when the state is S2):
// eps = EpsStep k once the entries are counted. Sub-episode j (0-based)
// takes steps t = 2j+1 (in S1) and 2j+2 (in S2 or S3). With
// c = 1 when eps grows before the S2 reward is paid (else 0), S2 with k
// entries pays r2(k) = -2 + EpsStep (k - 1 + c), S3 pays 2, and
//
//	q(2j+1, S1, k, A1) = 1 + g [r2(k+1) + g V(j+1, k+1)]
//	q(2j+1, S1, k, A2) = -1 + g [2 + g V(j+1, k)]
//	v(2j+1, S1, k)     = pe q(., A1) + (1 - pe) q(., A2) = V(j, k)
//	q(2j+2, S2, k, .)  = r2(k) + g V(j+1, k)
//	q(2j+2, S3, k, .)  = 2 + g V(j+1, k)
//
// with V(S, k) = 0 after the last sub-episode. Every reward is affine in
// k, so by induction V(j, k) = A_j + B_j k exactly, and the program keeps
// the table of V over k at each j as its two coefficients (O(S) memory,
// rather than a table of O(S^2) entries):
//
//	B_j = pe g EpsStep + g^2 B_{j+1}
//	A_j = pe (1 + g (-2 + EpsStep c + g (A_{j+1} + B_{j+1})))
//	      + (1 - pe) (-1 + g (2 + g A_{j+1})),
//
// A_S = B_S = 0: the coefficients of k and of 1 in the S1 line above. The
// value is V(0, 0) = A_0. (At g = 1 this sums to SubepisodeValue.)
type subepisodeDP struct {
	pe, g, epsStep, c float64
	// a[j], b[j] for j = 0..S: V(j, k) = a[j] + b[j] k.
	a, b []float64
}

func newSubepisodeDP(sp subepisode.Params, pe, gamma float64) *subepisodeDP {
	s := sp.Subepisodes
	d := &subepisodeDP{pe: pe, g: gamma, epsStep: sp.EpsStep, a: make([]float64, s+1), b: make([]float64, s+1)}
	if sp.EpsBeforeReward {
		d.c = 1
	}
	g, e := gamma, sp.EpsStep
	for j := s - 1; j >= 0; j-- {
		a1, b1 := d.a[j+1], d.b[j+1]
		d.b[j] = pe*g*e + g*g*b1
		d.a[j] = pe*(1+g*(-2+e*d.c+g*(a1+b1))) + (1-pe)*(-1+g*(2+g*a1))
	}
	return d
}

// value returns V(pi_e) = V(0, 0).
func (d *subepisodeDP) value() float64 { return d.a[0] }

// v1 returns V(j, k), the value at the start of sub-episode j (0-based)
// in S1 after k entries into S2.
func (d *subepisodeDP) v1(j, k int) float64 { return d.a[j] + d.b[j]*float64(k) }

// qv returns q(t, state, k, a) and v(t, state, k) of the hidden state
// (1-based step t, state, k entries into S2 so far) and action a.
func (d *subepisodeDP) qv(t, state, k, a int) (q, v float64) {
	j := (t - 1) / 2
	g := d.g
	switch state {
	case subepisode.S1:
		qa1 := 1 + g*(d.r2(k+1)+g*d.v1(j+1, k+1))
		qa2 := -1 + g*(2+g*d.v1(j+1, k))
		q = qa2
		if a == subepisode.A1 {
			q = qa1
		}
		return q, d.pe*qa1 + (1-d.pe)*qa2
	case subepisode.S2:
		q = d.r2(k) + g*d.v1(j+1, k)
	default:
		q = 2 + g*d.v1(j+1, k)
	}
	return q, q
}

// r2 returns the reward in S2 after k entries into S2 (the current one
// included).
func (d *subepisodeDP) r2(k int) float64 { return -2 + d.epsStep*(float64(k)-1+d.c) }

// subepisodeDomain is the sub-episode MDP with its two stationary
// policies. It is a ModelDomain: the observation id is the state (S1, S2,
// S3 = 0, 1, 2); eps and the step stay hidden, so a tabular model fitted
// on the ids is misspecified, on purpose (SPEC 1d).
type subepisodeDomain struct {
	env   *subepisode.Env
	pair  *policies.Pair
	rec   policies.PairRecord // what Collect records (Record, RecordProbs)
	model subepisodeModel
	// differ: pi_e = pi_b in S2 and S3 (differ_s1_only): Collect sets the
	// ratio of every step there to 1 (and records pi_e as pi_b).
	differ bool
	// moments are the exact moments of the kept products, built on first
	// use (set on every batch Collect fills: a pointer).
	moments *trajectory.StepMoments
}

// subepisodeModel is the exact model of the sub-episode MDP (a
// policies.PairModel).
type subepisodeModel struct {
	sp        subepisode.Params
	pe, gamma float64
	dp        *subepisodeDP // built by Record when exact is first asked for
	k         int           // entries into S2 so far in the running episode
}

func newSubepisode(p Params) (Domain, error) {
	gamma, err := p.Gamma()
	if err != nil {
		return nil, err
	}
	env, err := subepisode.New(subepisodeParams(p))
	if err != nil {
		return nil, err
	}
	pair, err := twoActionPair(p["p_b"], p["p_e"])
	if err != nil {
		return nil, err
	}
	return &subepisodeDomain{env: env, pair: pair, model: subepisodeModel{sp: env.P, pe: p["p_e"], gamma: gamma},
		differ: p.Bool("differ_s1_only"), moments: SubepisodeMoments(subepisodeMomentParams(p, gamma))}, nil
}

// Collect draws n episodes under pi_b, marking the end of each sub-episode
// as a split point (SPEC 1: partitioned-pdis in subepisode). After Record,
// every step also carries the ids and/or the exact model columns.
// Recording draws no random number: the trajectories are the same either
// way. With differ_s1_only the ratio of every step in S2 and S3 is then
// set to 1 (the same draws, so the same trajectories). b.Moments is set to
// the domain's exact moments (built only if an estimator reads them).
func (d *subepisodeDomain) Collect(b *trajectory.Batch, n int, rng *rand.Rand) {
	first := b.N()
	collectPair(b, d.pair, d.env, n, n*d.env.P.Horizon(), rng, d.rec)
	if d.differ {
		sameInS2S3(b, first)
	}
	b.Moments = d.moments
}

// sameInS2S3 makes pi_e = pi_b in S2 and S3 on the trajectories of b from
// first on: every sub-episode is two steps, S1 then S2 or S3, so the
// steps at even 1-based t are the ones in S2 or S3; their ratio becomes
// exactly 1, and pi_e's recorded probability pi_b's.
func sameInS2S3(b *trajectory.Batch, first int) {
	probs := b.HasProbs()
	for i := first; i < b.N(); i++ {
		for s := b.Offsets[i] + 1; s < b.Offsets[i+1]; s += 2 {
			b.Ratio[s], b.OptionRatio[s] = 1, 1
			if probs {
				b.PiE[s] = b.PiB[s]
			}
		}
	}
}

// RecordProbs sets whether the following Collect calls record pi_b and
// pi_e of every action (domains.ProbRecorder): p_b or 1 - p_b, and p_e or
// 1 - p_e, the numbers whose quotient is the step's ratio.
func (d *subepisodeDomain) RecordProbs(on bool) error {
	d.rec.Probs = on
	return nil
}

// Space returns the three state ids, the two actions (a1 = 0, a2 = 1),
// pi_e (with differ_s1_only, pi_b's probabilities in S2 and S3) and the
// horizon 2 x subepisodes.
func (d *subepisodeDomain) Space() models.Space {
	sp := models.Space{Obs: 3, Actions: 2, PiE: twoActionPiE(d.model.pe), Horizon: d.env.P.Horizon()}
	if d.differ {
		pe, pb := d.model.pe, d.pair.Behavior.Prob(subepisode.A1)
		sp.PiE = func(o int, dst []float64) {
			p := pe
			if o != subepisode.S1 {
				p = pb
			}
			dst[0], dst[1] = p, 1-p
		}
	}
	return sp
}

// Record sets what the following Collect calls record besides rewards and
// ratios (domains.ModelDomain); the exact q of pi_e comes from
// subepisodeDP under the domain's gamma, given the hidden state (step,
// state, entries into S2).
func (d *subepisodeDomain) Record(ids, exact bool) {
	d.rec.IDs, d.rec.Model = ids, nil
	if exact {
		if d.model.dp == nil {
			d.model.dp = newSubepisodeDP(d.model.sp, d.model.pe, d.model.gamma)
		}
		d.rec.Model = &d.model
	}
}

// StepValues returns q_hat and v_hat of step t, taken in state obs with
// action a, and counts the entry into S2 that A1 in S1 makes.
func (r *subepisodeModel) StepValues(t, obs, a int) (q, v float64) {
	if t == 1 {
		r.k = 0
	}
	q, v = r.dp.qv(t, obs, r.k, a)
	if obs == subepisode.S1 && a == subepisode.A1 {
		r.k++
	}
	return q, v
}
