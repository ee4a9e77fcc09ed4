package policies

import (
	"fmt"

	"github.com/ope-lab/longhorizon/envs/chainmdp"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ChainOptions are the behavior and evaluation options policies of the
// options chain (the corollaries of Theorem 3): the chain MDP of
// envs/chainmdp driven by J-step options.
//
// Whenever no option runs (at steps 1, J+1, 2J+1, ...; H is a multiple of
// J, so an episode is m = H/J options), a policy picks the a1-option with
// probability mu(a1-option) (PB under behavior, PE under evaluation) and
// the a2-option otherwise, in the top and in the bottom chain alike. The
// a2-option plays a2 for J steps. The a1-option plays a1 for J steps,
// except in the last c segments of the top chain (states x_i with
// i > (m - c) J, "changed states"), where its underlying policy picks a1
// with probability InnerPB under behavior and InnerPE under evaluation.
// Changed = c counts those segments: 0 (no underlying policy changes,
// Corollary 1), 1 (one option o* = the a1-option started in x_{H-J+1},
// run at most once per episode, Corollary 2), up to m (every a1-option
// started in the top chain is changed); -1 means m.
//
// Recorded ratios: a changed option is recorded with changed = true on
// all its J steps; its per-step action ratio is InnerPE/InnerPB for a1 and
// (1-InnerPE)/(1-InnerPB) for a2 in a changed state, 1 elsewhere (after a
// fall into the bottom chain the option plays a1 under both policies).
// Steps of unchanged options have action ratio 1. The option-level ratio
// is mu_e/mu_b of the chosen option on its first step and 1 on the others.
type ChainOptions struct {
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

// Validate checks o: H a multiple of J, probabilities in [0, 1],
// 0 <= Changed <= H/J (or -1), and every choice the evaluation policy can
// make possible under behavior on the rewarded path (PB > 0 if PE > 0,
// InnerPB > 0 if InnerPE > 0).
func (o ChainOptions) Validate() error {
	if o.J < 1 || o.H < 1 {
		return fmt.Errorf("policies: horizon %d and option length %d, want both >= 1", o.H, o.J)
	}
	if o.H%o.J != 0 {
		return fmt.Errorf("policies: horizon %d is not a multiple of the option length %d", o.H, o.J)
	}
	for _, q := range []struct {
		name string
		v    float64
	}{{"mu_b", o.PB}, {"mu_e", o.PE}, {"inner p_b", o.InnerPB}, {"inner p_e", o.InnerPE}} {
		if !(q.v >= 0 && q.v <= 1) {
			return fmt.Errorf("policies: %s = %v, want a probability in [0, 1]", q.name, q.v)
		}
	}
	m := o.H / o.J
	if c := o.Changed; c < -1 || c > m {
		return fmt.Errorf("policies: %d changed options, want 0..%d (H/J) or -1 (all)", o.Changed, m)
	}
	if o.PE > 0 && o.PB == 0 {
		return fmt.Errorf("policies: mu_e(a1-option) = %v but mu_b = 0: no support", o.PE)
	}
	if o.ChangedSegments() > 0 && o.InnerPE > 0 && o.InnerPB == 0 {
		return fmt.Errorf("policies: inner p_e = %v but inner p_b = 0: no support", o.InnerPE)
	}
	return nil
}

// Options returns m = H/J, the number of options per episode.
func (o ChainOptions) Options() int { return o.H / o.J }

// ChangedSegments returns c, the number of changed segments (-1 resolved
// to m).
func (o ChainOptions) ChangedSegments() int {
	if o.Changed == -1 {
		return o.Options()
	}
	return o.Changed
}

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

// twoRatio is the ratio of a two-action choice: pe/pb for the first branch,
// (1-pe)/(1-pb) for the second.
func twoRatio(pe, pb float64, first bool) float64 {
	if first {
		return pe / pb
	}
	return (1 - pe) / (1 - pb)
}

// Episode runs one episode of env (of horizon o.H) under the behavior
// policy, making its random choices with d (only those not certain) and
// recording every step, then End, with rec (a *trajectory.Batch is called
// directly, any other Recorder through its interface). o must be valid.
func (o ChainOptions) Episode(env *chainmdp.Env, d Decider, rec trajectory.Recorder) {
	if out := sinkOf(rec); out.b != nil {
		chainEpisode[[0]struct{}](o, env, d, out)
	} else {
		chainEpisode[[modeRecorder]struct{}](o, env, d, out)
	}
}

// twoProbs returns the probabilities under behavior and evaluation of a
// two-way choice: pb and pe for the first branch, 1-pb and 1-pe for the
// second. They are the operands of twoRatio, so that pe'/pb' is
// twoRatio(pe, pb, first) bit for bit.
func twoProbs(pe, pb float64, first bool) (probB, probE float64) {
	if first {
		return pb, pe
	}
	return 1 - pb, 1 - pe
}

// EpisodeRecord is Episode recording into the batch b and, with probs,
// after each step's AddOption, the probabilities the logged-data format's
// option columns hold: by b.AddProbs, pi_b and pi_e of the action given
// the running option (InnerPB or 1-InnerPB and InnerPE or 1-InnerPE for a
// changed option's choice in a changed state, 1 and 1 for every action an
// option plays for sure), and by b.AddOptionProbs, whether the step
// starts an option and mu_b and mu_e of the running option (PB or 1-PB
// and PE or 1-PE). The quotients are the recorded ratios bit for bit:
// pi_e/pi_b is the step's action ratio and mu_e/mu_b the option ratio of
// its first step, computed from the same operands. It is Episode's loop,
// so it makes the same choices with d in the same order and produces the
// same episode with the same records; only the extra columns differ.
// Without probs it is Episode into b. It does not allocate once b's
// columns have grown.
func (o ChainOptions) EpisodeRecord(env *chainmdp.Env, d Decider, b *trajectory.Batch, probs bool) {
	if probs {
		chainEpisode[[modeExtras]struct{}](o, env, d, sink{b: b})
	} else {
		chainEpisode[[0]struct{}](o, env, d, sink{b: b})
	}
}

// chainEpisode is the options chain's rollout, the only one: Episode
// writing to out (out.rec in mode modeRecorder, else the batch out.b) and,
// in mode modeExtras, the probabilities of EpisodeRecord.
func chainEpisode[M loopMode](o ChainOptions, env *chainmdp.Env, d Decider, out sink) {
	var mode M
	probs, toRecorder := len(mode)&modeExtras != 0, len(mode)&modeRecorder != 0
	env.Reset()
	m := o.Options()
	firstChanged := m - o.ChangedSegments() // 0-based index of the first changed segment
	for k := 0; k < m; k++ {
		a1opt := choose(d, o.PB)
		optRatio := twoRatio(o.PE, o.PB, a1opt)
		changed := a1opt && env.Top() && k >= firstChanged
		for j := 0; j < o.J; j++ {
			a, rho := chainmdp.A1, 1.0
			// inner: a changed option's choice in a changed state; choice:
			// whether it was a1
			inner, choice := false, false
			switch {
			case !a1opt:
				a = chainmdp.A2
			case changed && env.Top():
				inner, choice = true, choose(d, o.InnerPB)
				rho = twoRatio(o.InnerPE, o.InnerPB, choice)
				if !choice {
					a = chainmdp.A2
				}
			}
			r, _ := env.Step(a)
			or := 1.0
			if j == 0 {
				or = optRatio
			}
			if toRecorder {
				out.rec.AddOption(r, rho, or, changed)
			} else {
				out.b.AddOption(r, rho, or, changed)
			}
			if probs {
				pb, pe := 1.0, 1.0
				if inner {
					pb, pe = twoProbs(o.InnerPE, o.InnerPB, choice)
				}
				muB, muE := twoProbs(o.PE, o.PB, a1opt)
				out.b.AddProbs(pb, pe)
				out.b.AddOptionProbs(j == 0, muB, muE)
			}
		}
	}
	if toRecorder {
		out.rec.End()
	} else {
		out.b.End()
	}
}
