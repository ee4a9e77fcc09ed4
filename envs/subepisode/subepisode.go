// Package subepisode is the MDP of the paper's Experiment 3 (SPEC 2.2): a
// long episode made of short sub-episodes that are nearly, but not quite,
// independent.
//
// States S1, S2, S3; actions A1, A2. In S1, A1 moves to S2 with reward +1
// and A2 moves to S3 with reward -1. In S2 any action pays -2 + eps, in S3
// any action pays +2, and the agent returns to S1, until the last
// sub-episode ends. eps starts at 0 and grows by EpsStep each time the
// agent enters S2; by SPEC's interpretation the growth comes before the S2
// reward is paid (EpsBeforeReward), so the first visit pays -2 + EpsStep.
package subepisode

import "fmt"

// States and actions.
const (
	S1 = 0
	S2 = 1
	S3 = 2

	A1 = 0
	A2 = 1
)

// Params are the domain's parameters.
type Params struct {
	Subepisodes     int     // number of 2-step sub-episodes (paper: 50)
	EpsStep         float64 // growth of eps per entry into S2 (paper: 0.01)
	EpsBeforeReward bool    // grow eps before the S2 reward is paid (SPEC: true)
}

// DefaultParams returns the paper's domain with SPEC's interpretations.
func DefaultParams() Params { return Params{Subepisodes: 50, EpsStep: 0.01, EpsBeforeReward: true} }

// Validate reports a parameter outside its domain.
func (p Params) Validate() error {
	if p.Subepisodes < 1 {
		return fmt.Errorf("subepisode: subepisodes = %d, want >= 1", p.Subepisodes)
	}
	return nil
}

// Horizon returns the episode length, 2 steps per sub-episode.
func (p Params) Horizon() int { return 2 * p.Subepisodes }

// Env is the sub-episode MDP.
type Env struct {
	P      Params
	state  int
	eps    float64
	done   int  // sub-episodes finished
	subEnd bool // the last step ended a sub-episode
}

// New returns the domain with parameters p.
func New(p Params) (*Env, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Env{P: p}, nil
}

// Reset starts a new episode in S1 with eps = 0.
func (e *Env) Reset() { e.state, e.eps, e.done, e.subEnd = S1, 0, 0, false }

// State returns the current state.
func (e *Env) State() int { return e.state }

// ObsID returns the id of the current state, S1, S2 or S3 (0, 1, 2): what
// the agent observes; eps and the step are hidden.
func (e *Env) ObsID() int { return e.state }

// Eps returns the current eps.
func (e *Env) Eps() float64 { return e.eps }

// Step takes action a and returns the reward and whether the episode
// ended; SubEnded then tells whether the step ended a sub-episode.
func (e *Env) Step(a int) (reward float64, done bool) {
	e.subEnd = false
	switch e.state {
	case S1:
		if a == A1 {
			e.state = S2
			if e.P.EpsBeforeReward {
				e.eps += e.P.EpsStep
			}
			return 1, false
		}
		e.state = S3
		return -1, false
	case S2:
		reward = -2 + e.eps
		if !e.P.EpsBeforeReward {
			e.eps += e.P.EpsStep
		}
	default:
		reward = 2
	}
	e.state = S1
	e.done++
	e.subEnd = true
	return reward, e.done >= e.P.Subepisodes
}

// SubEnded reports whether the last step ended a sub-episode (the agent is
// back in S1, or the episode is over): the split points of partitioned
// PDIS in this domain (SPEC 1).
func (e *Env) SubEnded() bool { return e.subEnd }

// SubEndFlag returns the flag behind SubEnded, which every Step sets: a
// rollout reads it without a call per step.
func (e *Env) SubEndFlag() *bool { return &e.subEnd }
