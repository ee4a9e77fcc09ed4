package chainmdp

import (
	"fmt"
	"math"
)

// OptionsParams define an options chain.
type OptionsParams struct {
	H, J int
	// PB and PE are the probabilities mu_b and mu_e of the a1-option.
	PB, PE float64
	// Changed is c, the number of final top-chain segments in which the
	// a1-option's underlying policy differs; -1 means all m = H/J.
	Changed int
	// InnerPB and InnerPE are the probabilities of a1 of the changed
	// a1-option under behavior and evaluation.
	InnerPB, InnerPE float64
}

// Decider makes the behavior policy's random choices: Decide returns true
// with probability p (0 < p < 1), choosing the a1 branch (the a1-option,
// or action a1). It is only called for choices that are not certain.
type Decider interface {
	Decide(p float64) bool
}

// Recorder receives the steps of an episode (trajectory.Batch is one).
type Recorder interface {
	AddOption(r, rho, optionRatio float64, changed bool)
}

// OptionsChain is this package's chain MDP driven by J-step options (the
// corollaries of Theorem 3). It shows how options shrink the horizon that
// importance sampling pays for.
//
// Options. Whenever no option runs (at steps 1, J+1, 2J+1, ...; H is a
// multiple of J, so an episode is m = H/J options), the policy picks the
// a1-option with probability mu(a1-option) and the a2-option otherwise,
// in the top and in the bottom chain alike. The a2-option plays a2 for J
// steps. The a1-option plays a1 for J steps, except in the last c segments
// of the top chain (states x_i with i > (m - c) J, "changed states"),
// where its underlying policy picks a1 with probability InnerPB under
// behavior and InnerPE under evaluation. Changed = c counts those
// segments: 0 (no underlying policy changes, Corollary 1), 1 (one option
// o* = the a1-option started in x_{H-J+1}, run at most once per episode,
// Corollary 2), up to m (every a1-option started in the top chain is
// changed). A changed option is recorded with changed = true on all its J
// steps; its per-step action ratio is InnerPE/InnerPB for a1 and
// (1-InnerPE)/(1-InnerPB) for a2 in a changed state, 1 elsewhere (after a
// fall into the bottom chain the option plays a1 under both policies).
// Steps of unchanged options have action ratio 1. The option-level ratio
// is mu_e/mu_b of the chosen option on its first step and 1 on the others.
//
// Closed forms (options-PDIS, Theorem 3 with SPEC's per-decision reading).
// The only reward is 1 for a1 in x_H. It is reached exactly on the path
// where all m options are a1-options and, in the c changed segments, all
// cJ actions are a1. On that path the options-PDIS weight of step H is
//
//	W = (PE/PB)^m (InnerPE/InnerPB)^{cJ},
//
// and every other step's weighted reward is 0, so one trajectory's
// options-PDIS term is X = W with probability P = PB^m InnerPB^{cJ} and 0
// otherwise. Hence
//
//	E[X]   = W P = PE^m InnerPE^{cJ} = V(mu_e)                  (unbiased)
//	E[X^2] = W^2 P = (PE^2/PB)^m (InnerPE^2/InnerPB)^{cJ}
//	n Var(options-PDIS) = E[X^2] - E[X]^2.
//
// Corollary 1 (c = 0, PB = 1/2, PE = p_e): n Var = (2 p_e^2)^{H/J} -
// p_e^{2H/J} = p_e^{2H/J} (2^{H/J} - 1): Theorem 1's chain with horizon
// H/J, since option-level weights see one decision per option.
//
// Corollary 2 (PB = PE = 1: equal option probabilities, so no option-level
// weight; c = 1, InnerPB = 1/2, InnerPE = 1): n Var = 2^J - 1, the same for
// every H. With c = m the whole top chain is changed and n Var = 2^H - 1
// (Theorem 1 again), the contrast.
type OptionsChain struct {
	P   OptionsParams
	m   int // options per episode, H/J
	c   int // changed segments, resolved
	env Env
}

// NewOptions returns the options chain with parameters p, checked: H a
// multiple of J, probabilities in [0, 1], 0 <= Changed <= H/J (or -1),
// and every choice the evaluation policy can make possible under behavior
// on the rewarded path (PB > 0 if PE > 0, InnerPB > 0 if InnerPE > 0).
func NewOptions(p OptionsParams) (*OptionsChain, error) {
	if p.J < 1 || p.H < 1 {
		return nil, fmt.Errorf("chainmdp: horizon %d and option length %d, want both >= 1", p.H, p.J)
	}
	if p.H%p.J != 0 {
		return nil, fmt.Errorf("chainmdp: horizon %d is not a multiple of the option length %d", p.H, p.J)
	}
	for _, q := range []struct {
		name string
		v    float64
	}{{"mu_b", p.PB}, {"mu_e", p.PE}, {"inner p_b", p.InnerPB}, {"inner p_e", p.InnerPE}} {
		if !(q.v >= 0 && q.v <= 1) {
			return nil, fmt.Errorf("chainmdp: %s = %v, want a probability in [0, 1]", q.name, q.v)
		}
	}
	m := p.H / p.J
	c := p.Changed
	if c == -1 {
		c = m
	}
	if c < 0 || c > m {
		return nil, fmt.Errorf("chainmdp: %d changed options, want 0..%d (H/J) or -1 (all)", p.Changed, m)
	}
	if p.PE > 0 && p.PB == 0 {
		return nil, fmt.Errorf("chainmdp: mu_e(a1-option) = %v but mu_b = 0: no support", p.PE)
	}
	if c > 0 && p.InnerPE > 0 && p.InnerPB == 0 {
		return nil, fmt.Errorf("chainmdp: inner p_e = %v but inner p_b = 0: no support", p.InnerPE)
	}
	return &OptionsChain{P: p, m: m, c: c, env: Env{H: p.H}}, nil
}

// Options returns m = H/J, the number of options per episode.
func (o *OptionsChain) Options() int { return o.m }

// ChangedSegments returns c, the number of changed segments (resolved).
func (o *OptionsChain) ChangedSegments() int { return o.c }

// choose returns true with probability p, asking d only when p is not 0 or 1.
func choose(d Decider, p float64) bool {
	switch {
	case p >= 1:
		return true
	case p <= 0:
		return false
	}
	return d.Decide(p)
}

func ratio(pe, pb float64, a1 bool) float64 {
	if a1 {
		return pe / pb
	}
	return (1 - pe) / (1 - pb)
}

// Episode runs one episode of H steps under the behavior policy, making
// its random choices with d and recording every step with rec.
func (o *OptionsChain) Episode(d Decider, rec Recorder) {
	p := &o.P
	o.env.Reset()
	firstChanged := o.m - o.c // 0-based index of the first changed segment
	for k := 0; k < o.m; k++ {
		a1opt := choose(d, p.PB)
		optRatio := ratio(p.PE, p.PB, a1opt)
		changed := a1opt && o.env.top && k >= firstChanged
		for j := 0; j < p.J; j++ {
			a, rho := A1, 1.0
			switch {
			case !a1opt:
				a = A2
			case changed && o.env.top:
				inner := choose(d, p.InnerPB)
				rho = ratio(p.InnerPE, p.InnerPB, inner)
				if !inner {
					a = A2
				}
			}
			r, _ := o.env.Step(a)
			or := 1.0
			if j == 0 {
				or = optRatio
			}
			rec.AddOption(r, rho, or, changed)
		}
	}
}

// Value returns V(mu_e) = PE^m InnerPE^{cJ}, the probability that the
// evaluation policy reaches the reward.
func (o *OptionsChain) Value() float64 {
	p := &o.P
	return math.Pow(p.PE, float64(o.m)) * math.Pow(p.InnerPE, float64(o.c*p.J))
}

// OptionsPDISVariance returns Var(options-PDIS) over n trajectories:
// ((PE^2/PB)^m (InnerPE^2/InnerPB)^{cJ} - V^2) / n (see the derivation
// above).
func (o *OptionsChain) OptionsPDISVariance(n int) float64 {
	p := &o.P
	v := o.Value()
	if v == 0 {
		return 0 // X = 0 on every trajectory
	}
	second := math.Pow(p.PE*p.PE/p.PB, float64(o.m)) * math.Pow(p.InnerPE*p.InnerPE/p.InnerPB, float64(o.c*p.J))
	return (second - v*v) / float64(n)
}
