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

import (
	"fmt"
	"math"
)

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

// Value returns V(pi_e) for the evaluation policy that picks A1 with
// probability pe in every state: pe^H (SPEC 2.1).
func Value(h int, pe float64) float64 { return math.Pow(pe, float64(h)) }

// PDISVariance returns Var(PDIS) over n trajectories for a uniform behavior
// policy and pe = 1 or less: pe^{2H} (2^H - 1) / n (SPEC 2.1, the proof of
// Theorem 1 with pi_e(a1) = pe; the weighted return is (2 pe)^H with
// probability 2^-H and 0 otherwise).
func PDISVariance(h int, pe float64, n int) float64 {
	return math.Pow(pe, 2*float64(h)) * (math.Pow(2, float64(h)) - 1) / float64(n)
}

// WISMean returns E[WIS] over n trajectories for pe = 1: the probability
// that at least one all-A1 trajectory is in the data, 1 - (1 - 2^-H)^n
// (proof of Theorem 2).
func WISMean(h, n int) float64 {
	return -math.Expm1(float64(n) * math.Log1p(-math.Pow(2, -float64(h))))
}
