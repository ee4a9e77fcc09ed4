package policies

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Stationary is a policy that draws actions from the same distribution in
// every state: the uniform behavior policies of the chain and sub-episode
// MDPs, and their evaluation policies that pick a1 with probability p_e.
type Stationary struct {
	probs []float64
	cum   []float64
	// twoPositive: two actions, both of positive probability
	twoPositive bool
}

// NewStationary returns the policy with action probabilities probs, which
// must be non-negative and sum to 1 (within 1e-12).
func NewStationary(probs ...float64) (*Stationary, error) {
	if len(probs) == 0 {
		return nil, fmt.Errorf("policies: no action probabilities")
	}
	sum := 0.0
	cum := make([]float64, len(probs))
	for a, p := range probs {
		if !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("policies: probability of action %d is %v, want a number in [0, 1]", a, p)
		}
		sum += p
		cum[a] = sum
	}
	if math.Abs(sum-1) > 1e-12 {
		return nil, fmt.Errorf("policies: action probabilities sum to %v, want 1", sum)
	}
	cum[len(cum)-1] = 1
	two := len(probs) == 2 && probs[0] > 0 && probs[1] > 0
	return &Stationary{probs: append([]float64(nil), probs...), cum: cum, twoPositive: two}, nil
}

// TwoAction returns the policy over two actions that picks a1 (action 0)
// with probability p1.
func TwoAction(p1 float64) (*Stationary, error) {
	if !(p1 >= 0 && p1 <= 1) {
		return nil, fmt.Errorf("policies: probability of a1 is %v, want a number in [0, 1]", p1)
	}
	return NewStationary(p1, 1-p1)
}

// Prob returns the probability of action a.
func (s *Stationary) Prob(a int) float64 { return s.probs[a] }

// Actions returns the number of actions.
func (s *Stationary) Actions() int { return len(s.probs) }

// Pick returns the action whose cumulative probability interval holds u,
// a uniform draw in [0, 1). Actions of probability 0 are never picked.
func (s *Stationary) Pick(u float64) int {
	if s.twoPositive { // the chain and sub-episode MDPs: same result, branch-free
		a := 0
		if u >= s.cum[0] {
			a = 1
		}
		return a
	}
	for a, c := range s.cum {
		if u < c && s.probs[a] > 0 {
			return a
		}
	}
	// u in the last interval, or rounding left it just above cum[last-1]
	for a := len(s.probs) - 1; a >= 0; a-- {
		if s.probs[a] > 0 {
			return a
		}
	}
	return len(s.probs) - 1
}

// Sample draws an action using rng.
func (s *Stationary) Sample(rng *rand.Rand) int { return s.Pick(rng.Float64()) }
