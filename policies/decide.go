package policies

import "math/rand/v2"

// Decider makes a behavior policy's random binary choices: Decide returns
// true with probability p (0 < p < 1). Drawing from a random stream
// (StreamDecider) samples an episode; a Decider that tries every sequence
// of choices in turn visits every episode (the closed-form tests of
// package domains enumerate the options chain's episodes that way).
type Decider interface {
	Decide(p float64) bool
}

// StreamDecider decides with one Float64 draw from Rand per choice:
// true when the draw is below p.
type StreamDecider struct{ Rand *rand.Rand }

// Decide returns Rand.Float64() < p.
func (d StreamDecider) Decide(p float64) bool { return d.Rand.Float64() < p }
