package suite

import (
	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/tabular"
)

func init() {
	domains.RegisterTabular(domains.TabularSpec{
		Name: "drift",
		Doc: "suite (issue 16): a slowly drifting non-stationarity, like the sub-episode eps: SPEC 2.2's MDP of " +
			"2-step sub-episodes (s1: a1 -> s2 paying +1, a2 -> s3 paying -1; s2 pays base + drift t at 1-based step t, " +
			"s3 pays +2; back to s1), whose s2 reward drifts with the step rather than with the entries into s2. " +
			"The sub-episodes are exactly independent given the step, so old ratios carry no information about later " +
			"rewards, while the drift makes the later sub-episodes worth more: estimators that keep few ratios should " +
			"gain, and must not mistake the drift for dependence. At the defaults every step has a ratio and E_b[W^2] = " +
			"1.25^100 (about 5e9) for the full weight, so IS and WIS are hopeless even at n = 10^4, while a sub-episode's " +
			"own two ratios (1.25^2) are easy: the gain of keeping few ratios is large. " +
			"jitter > 0 perturbs the four fixed rewards by the instance; at jitter = 0 every instance is the same MDP",
		Params: []domains.ParamSpec{
			{Name: "subepisodes", Kind: domains.Int, Default: 50, Min: 1, Max: 1 << 16, Doc: "number of 2-step sub-episodes (H = 2 x subepisodes)"},
			{Name: "p_e", Kind: domains.Float, Default: 0.75, Min: 0, Max: 1, Doc: "evaluation policy's probability of a1 in every state"},
			{Name: "p_b", Kind: domains.Float, Default: 0.5, Min: 0, Max: 1, Doc: "behavior policy's probability of a1 in every state"},
			{Name: "base", Kind: domains.Float, Default: -2, Min: -1e6, Max: 1e6, Doc: "mean reward in s2 before the drift (SPEC 2.2: -2)"},
			{Name: "drift", Kind: domains.Float, Default: 0.01, Min: -1e6, Max: 1e6, Doc: "growth of the s2 reward per step: s2 pays base + drift t at 1-based step t"},
			{Name: "jitter", Kind: domains.Float, Default: 0, Min: 0, Max: 1e6, Doc: "the instance shifts the rewards of (s1, a1), (s1, a2), s3 and base by uniform draws on [-jitter, jitter] (0: SPEC 2.2's rewards)"},
		},
		Build: buildDrift,
		TruthDoc: "exact dynamic program over (step, state); at gamma = 1 and jitter = 0 it equals the closed form " +
			"S(1 - 2p) + p (base + 2) S + p drift S(S + 1), S sub-episodes, p = p_e",
	})
}

// States and actions of the drift domain (as SPEC 2.2's).
const (
	driftS1 = iota
	driftS2
	driftS3
	driftStates
)

// buildDrift builds the drifting sub-episode MDP of parameters p and its
// behavior and evaluation policies: states s1, s2, s3 (0, 1, 2), actions
// a1, a2 (0, 1), start s1, horizon 2 subepisodes. s1: a1 -> s2 paying
// r11 = 1, a2 -> s3 paying r12 = -1; s2 -> s1 paying base + drift t at
// 1-based step t; s3 -> s1 paying r3 = 2, whatever the action. With
// jitter > 0 the instance adds uniform draws on [-jitter, jitter] to r11,
// r12, r3 and base, in this order. The kernels of all H steps are built
// here once and share their transition rows; only the s2 means differ.
func buildDrift(p domains.Params) (*tabular.MDP, *tabular.Policy, *tabular.Policy, error) {
	const na = 2
	h := 2 * p.Int("subepisodes")
	r11, r12, r3, base := 1.0, -1.0, 2.0, p["base"]
	if j := p["jitter"]; j > 0 {
		rng := instanceRand(p, driftStream)
		for _, r := range []*float64{&r11, &r12, &r3, &base} {
			*r += j * (2*rng.Float64() - 1)
		}
	}
	to := func(s int) []float64 {
		row := make([]float64, driftStates+1)
		row[s] = 1
		return row
	}
	rows := [][]float64{to(driftS2), to(driftS3), to(driftS1), to(driftS1), to(driftS1), to(driftS1)}
	kernels := make([]tabular.Kernel, h)
	means := make([]float64, h*driftStates*na)
	drift := p["drift"]
	for t := range kernels {
		mean := means[t*driftStates*na : (t+1)*driftStates*na]
		r2 := base + drift*float64(t+1)
		copy(mean, []float64{r11, r12, r2, r2, r3, r3})
		kernels[t] = tabular.Kernel{P: rows, Mean: mean}
	}
	start := make([]float64, driftStates)
	start[driftS1] = 1
	m := &tabular.MDP{States: driftStates, Actions: na, Horizon: h, Start: start,
		At: func(t int) *tabular.Kernel { return &kernels[t] }}
	policy := func(q float64) *tabular.Policy {
		pi := &tabular.Policy{Actions: na, Pi: make([]float64, driftStates*na)}
		for s := range driftStates {
			pi.Pi[s*na], pi.Pi[s*na+1] = q, 1-q
		}
		return pi
	}
	return m, policy(p["p_b"]), policy(p["p_e"]), nil
}
