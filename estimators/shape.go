package estimators

import "github.com/ope-lab/longhorizon/trajectory"

// Shape is the size of the data that an estimator's workspace bound
// (Info.Bytes) is stated in: what the workspace really depends on, so
// that a bound holds on any data of the shape and is not loose on the
// data a harness draws. Sizes are float64, so that a shape far beyond
// memory is computed, and refused, without overflow.
type Shape struct {
	// N is the number of trajectories, Steps their total number of steps
	// (at most N H, often far below: most episodes of NoisyTaxi end long
	// before its cap), H the longest trajectory.
	N, Steps, H float64
	// Obs and Actions are the numbers of observation and action ids when
	// known (every id below them: a domain's Space, the largest id of
	// logged data plus one); 0 when unknown, and then a bound assumes the
	// worst (a new id at every step). Only data with ids has them.
	Obs, Actions float64
	// Points is the number of points of a grid estimated in one pass
	// (GridEstimator: a harness's n grid on nested data); 0 or 1 for one
	// estimate.
	Points float64
	// Changed says that the data are options data with changed options:
	// the per-step factors are materialised (8 bytes a step, View).
	Changed bool
	// IDs says that the data carry observation and action ids and the
	// action probabilities (what mis, drl and adaptive's version 3 read).
	IDs bool
	// Model is the kind of the model an estimator that fits its own
	// fits (Info.FitsModel); "" is `fitted`.
	Model string
}

// ShapeOf returns the shape of b as one estimate reads it: its sizes, the
// largest observation and action ids plus one (when it carries ids),
// whether some step lies in a changed option, and whether it carries ids
// and probabilities.
func ShapeOf(b *trajectory.Batch) Shape {
	s := Shape{N: float64(b.N()), Steps: float64(b.Steps()), H: float64(b.Horizon()), Points: 1}
	for _, c := range b.Changed {
		if c {
			s.Changed = true
			break
		}
	}
	if b.HasIDs() {
		top, act := int32(-1), int32(-1)
		for j, o := range b.Obs {
			top, act = max(top, o), max(act, b.Action[j])
		}
		s.Obs, s.Actions = float64(top)+1, float64(act)+1
		s.IDs = b.HasProbs()
	}
	return s
}

// FactorBytes is the per-step factors that every estimator materialises
// on options data with changed options (View: 8 bytes a step); 0
// otherwise.
func (s Shape) FactorBytes() float64 {
	if s.Changed {
		return 8 * s.Steps
	}
	return 0
}

// GridPoints is Points, at least 1.
func (s Shape) GridPoints() float64 { return max(s.Points, 1) }
