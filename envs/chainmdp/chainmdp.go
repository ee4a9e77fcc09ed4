// Package chainmdp is the two-chain MDP of the paper's appendix (proofs of
// Theorems 1 and 2; SPEC 2.1), on which PDIS's variance and WIS's bias grow
// as 2^H.
//
// States x_1..x_{H+1} (top chain) and y_1..y_H (bottom chain); the episode
// starts in x_1 and lasts exactly H steps. In the top chain A1 moves x_i to
// x_{i+1} and A2 moves x_i to y_i. In the bottom chain any action moves
// y_i to y_{i+1} (SPEC's interpretation; with Absorbing set the agent stays
// in y_i instead — no reward or ratio depends on it). The reward is 1 for
// A1 in x_H and 0 everywhere else.
package chainmdp

import "fmt"

// Actions.
const (
	A1 = 0
	A2 = 1
)

// Env is the chain MDP with horizon H.
type Env struct {
	H int
	// Absorbing makes the bottom chain absorbing (y_i stays y_i).
	Absorbing bool

	top  bool
	pos  int // 1-based chain index
	step int
}

// New returns the chain of horizon h >= 1.
func New(h int, absorbing bool) (*Env, error) {
	if h < 1 {
		return nil, fmt.Errorf("chainmdp: horizon %d, want >= 1", h)
	}
	return &Env{H: h, Absorbing: absorbing}, nil
}

// Reset puts the agent in x_1.
func (e *Env) Reset() { e.top, e.pos, e.step = true, 1, 0 }

// State returns whether the agent is in the top chain and its 1-based index.
func (e *Env) State() (top bool, index int) { return e.top, e.pos }

// Top reports whether the agent is in the top chain.
func (e *Env) Top() bool { return e.top }

// States returns the number of state ids, 2H+1: x_1..x_{H+1} and
// y_1..y_H.
func (e *Env) States() int { return 2*e.H + 1 }

// ObsID returns the id of the current state, in [0, States()): x_i is
// i-1 (0..H) and y_i is H+i (H+1..2H).
func (e *Env) ObsID() int {
	if e.top {
		return e.pos - 1
	}
	return e.H + e.pos
}

// Step takes action a and returns the reward and whether the episode ended.
func (e *Env) Step(a int) (reward float64, done bool) {
	e.step++
	if e.top {
		if a == A1 {
			if e.pos == e.H {
				reward = 1
			}
			e.pos++
		} else {
			e.top = false
		}
	} else if !e.Absorbing {
		e.pos++
	}
	return reward, e.step >= e.H
}
