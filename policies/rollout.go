package policies

import (
	"fmt"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/trajectory"
)

// Env is an environment driven by state-independent (stationary) policies:
// the chain and sub-episode MDPs.
type Env interface {
	// Reset starts a new episode.
	Reset()
	// Step takes action a and returns the reward and whether the episode
	// ended.
	Step(a int) (reward float64, done bool)
}

// Pair is a behavior and an evaluation policy over the same actions, as one
// series of an experiment uses them: the behavior policy draws the actions,
// and each step records the ratio pi_e(a)/pi_b(a) of the action drawn.
type Pair struct {
	Behavior, Evaluation *Stationary
	ratio                []float64 // pi_e(a)/pi_b(a) per action (0 where pi_b(a) = 0: never drawn)
}

// NewPair returns the pair (b, e). Both must have the same actions, and b
// must give positive probability to every action e may take: otherwise
// importance sampling cannot estimate V(pi_e).
func NewPair(b, e *Stationary) (*Pair, error) {
	if b.Actions() != e.Actions() {
		return nil, fmt.Errorf("policies: behavior has %d actions, evaluation %d", b.Actions(), e.Actions())
	}
	p := &Pair{Behavior: b, Evaluation: e, ratio: make([]float64, b.Actions())}
	for a := range p.ratio {
		pb, pe := b.Prob(a), e.Prob(a)
		if pb == 0 {
			if pe > 0 {
				return nil, fmt.Errorf("policies: behavior never takes action %d, which evaluation takes with probability %v: importance sampling cannot estimate V(pi_e)", a, pe)
			}
			continue
		}
		p.ratio[a] = pe / pb
	}
	return p, nil
}

// Ratio returns pi_e(a)/pi_b(a).
func (p *Pair) Ratio(a int) float64 { return p.ratio[a] }

// Probs returns pi_b(a) and pi_e(a), the probabilities whose quotient is
// Ratio(a), bit for bit, wherever pi_b(a) > 0 (the ratio is computed as
// pe / pb from the same two numbers).
func (p *Pair) Probs(a int) (pb, pe float64) {
	return p.Behavior.Prob(a), p.Evaluation.Prob(a)
}

// splitter is implemented by an Env that marks split points (SPEC 1,
// partitioned PDIS): SubEndFlag returns the flag its Step sets when the
// step just taken ended a part. Reading the flag costs no call per step.
type splitter interface{ SubEndFlag() *bool }

// Collect appends n episodes of env under the behavior policy to b, each
// step with its reward and ratio (Batch.Add). When env reports the ends of
// sub-episodes (a SubEndFlag method), every end but the episode's last is
// marked as a split point. Per step it draws one Float64 from rng (the
// behavior's action), nothing else. It does not allocate once b has grown.
func (p *Pair) Collect(env Env, b *trajectory.Batch, n int, rng *rand.Rand) {
	var subEnd *bool
	if sp, ok := env.(splitter); ok {
		subEnd = sp.SubEndFlag()
	}
	for range n {
		env.Reset()
		for {
			a := p.Behavior.Sample(rng)
			r, done := env.Step(a)
			b.Add(r, p.ratio[a])
			if done {
				break
			}
			if subEnd != nil && *subEnd {
				b.MarkSplit()
			}
		}
		b.End()
	}
}

// Observable is an Env whose states have integer ids: what a tabular model
// of SPEC 1d is fitted over.
type Observable interface {
	Env
	// ObsID returns the id of the current observation, the one the next
	// action is taken in.
	ObsID() int
}

// StepHook hears every step CollectWith adds to a batch, to record more
// per step (observation and action ids, model columns).
type StepHook interface {
	// AfterStep is called right after step t (1-based, within its
	// episode) was added to b, with obs the observation id the action was
	// taken in (ObsID before the step) and a the action.
	AfterStep(b *trajectory.Batch, t, obs, a int)
}

// CollectWith is Collect calling hook.AfterStep after every step's Add
// (and before its split mark): the same random draws, so the same
// trajectories, rewards, ratios and splits as Collect on the same stream.
// With a nil hook it is Collect. It does not allocate once b has grown,
// if hook does not.
func (p *Pair) CollectWith(env Observable, b *trajectory.Batch, n int, rng *rand.Rand, hook StepHook) {
	if hook == nil {
		p.Collect(env, b, n, rng)
		return
	}
	var subEnd *bool
	if sp, ok := env.(splitter); ok {
		subEnd = sp.SubEndFlag()
	}
	for range n {
		env.Reset()
		for t := 1; ; t++ {
			obs := env.ObsID()
			a := p.Behavior.Sample(rng)
			r, done := env.Step(a)
			b.Add(r, p.ratio[a])
			hook.AfterStep(b, t, obs, a)
			if done {
				break
			}
			if subEnd != nil && *subEnd {
				b.MarkSplit()
			}
		}
		b.End()
	}
}
