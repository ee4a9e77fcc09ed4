package policies

import "math/rand/v2"

// Decider makes a behavior policy's random binary choices: Decide returns
// true with probability p (0 < p < 1). Drawing from a random stream
// (StreamDecider) samples an episode; an Enumerator visits every episode.
type Decider interface {
	Decide(p float64) bool
}

// StreamDecider decides with one Float64 draw from Rand per choice:
// true when the draw is below p.
type StreamDecider struct{ Rand *rand.Rand }

// Decide returns Rand.Float64() < p.
func (d StreamDecider) Decide(p float64) bool { return d.Rand.Float64() < p }

// Enumerator is a Decider that visits every sequence of behavior choices in
// turn (depth first, "true" first). An episode is a deterministic function
// of its choices, so running it once per sequence visits every trajectory
// exactly once, with probability Prob: the exact expectations behind the
// closed forms can be summed rather than sampled.
//
//	var e policies.Enumerator
//	for {
//		opts.Episode(env, &e, rec)
//		p := e.Prob()
//		// ... add p times the trajectory's estimate ...
//		if !e.Next() {
//			break
//		}
//	}
type Enumerator struct {
	choices []bool
	probs   []float64
	i       int
}

// Decide returns the current sequence's next choice, recording that it had
// probability p of being true.
func (e *Enumerator) Decide(p float64) bool {
	if e.i == len(e.choices) {
		e.choices = append(e.choices, true)
		e.probs = append(e.probs, 0)
	}
	e.probs[e.i] = p
	c := e.choices[e.i]
	e.i++
	return c
}

// Prob returns the probability of the sequence just run: the product of p
// or 1-p over its choices.
func (e *Enumerator) Prob() float64 {
	pr := 1.0
	for i, c := range e.choices[:e.i] {
		if c {
			pr *= e.probs[i]
		} else {
			pr *= 1 - e.probs[i]
		}
	}
	return pr
}

// Next moves to the next sequence; it returns false when all were visited.
func (e *Enumerator) Next() bool {
	e.choices = e.choices[:e.i]
	for len(e.choices) > 0 && !e.choices[len(e.choices)-1] {
		e.choices = e.choices[:len(e.choices)-1]
	}
	if len(e.choices) == 0 {
		return false
	}
	e.choices[len(e.choices)-1] = false
	e.probs = e.probs[:len(e.choices)]
	e.i = 0
	return true
}
