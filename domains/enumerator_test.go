package domains

import "testing"

// enumerator is a policies.Decider that visits every sequence of behavior
// choices in turn (depth first, "true" first). An episode is a deterministic function
// of its choices, so running it once per sequence visits every trajectory
// exactly once, with probability Prob: the exact expectations behind the
// closed forms can be summed rather than sampled.
//
//	var e enumerator
//	for {
//		opts.Episode(env, &e, rec)
//		p := e.Prob()
//		// ... add p times the trajectory's estimate ...
//		if !e.Next() {
//			break
//		}
//	}
type enumerator struct {
	choices []bool
	probs   []float64
	i       int
}

// Decide returns the current sequence's next choice, recording that it had
// probability p of being true.
func (e *enumerator) Decide(p float64) bool {
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
func (e *enumerator) Prob() float64 {
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
func (e *enumerator) Next() bool {
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

// TestEnumeratorVisitsEveryPath: three choices of probabilities 0.5, 0.3,
// 0.9 give 8 paths whose probabilities sum to 1.
func TestEnumeratorVisitsEveryPath(t *testing.T) {
	var e enumerator
	paths, total := 0, 0.0
	for {
		e.Decide(0.5)
		e.Decide(0.3)
		e.Decide(0.9)
		paths++
		total += e.Prob()
		if !e.Next() {
			break
		}
	}
	if paths != 8 || total < 1-1e-12 || total > 1+1e-12 {
		t.Errorf("%d paths, total probability %v; want 8, 1", paths, total)
	}
}
