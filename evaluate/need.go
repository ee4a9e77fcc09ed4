package evaluate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/estimators"
)

// Need is the memory an evaluation takes beyond the batch itself, by
// part, known from sizes alone before anything is allocated. Its parts
// name what sets their size, for the message of a refusal.
type Need struct {
	Bytes float64
	Parts []Part
}

// Part is one term of a Need: what it is, its bytes, and the setting
// of the request that sets its size (By), for a caller's message to name
// in its own terms (a flag, a config key).
type Part struct {
	What  string
	Bytes float64
	By    Setting
}

// Setting is a setting of a request that sets the size of a Part.
type Setting int

// The settings that size a Need.
const (
	// ByData: the data's own size (n, H).
	ByData Setting = iota
	// ByMethods: the methods asked for (their workspaces).
	ByMethods
	// ByModel: the model fitted on the data.
	ByModel
	// ByBounds: the lower bounds asked for.
	ByBounds
	// ByGamma: a discount other than 1 (the data under gamma).
	ByGamma
	// ByReplicates: the bootstrap's replicates (Intervals.Replicates).
	ByReplicates
	// ByWorkers: the bootstrap's workers (Intervals.Workers).
	ByWorkers
	// ByJackknife: BCa's jackknife (Intervals.BCa).
	ByJackknife
)

func (n *Need) add(what string, by Setting, bytes float64) {
	if bytes <= 0 {
		return
	}
	n.Parts = append(n.Parts, Part{what, bytes, by})
	n.Bytes += bytes
}

// Largest returns the largest part (the zero Part when there is none).
func (n Need) Largest() Part {
	var big Part
	for _, p := range n.Parts {
		if p.Bytes > big.Bytes {
			big = p
		}
	}
	return big
}

// Need returns the memory of e's Evaluate on data of shape s (NeedOf).
func (e *Evaluator) Need(s estimators.Shape) Need { return NeedOf(e.req, e.caps, s) }

// NeedOf returns the memory of evaluating req, whose methods have caps,
// on data of shape s (estimators.Shape: its trajectories, steps, horizon
// and ids, and the points of the grid estimated in one pass), beyond the
// batch: under a gamma other than 1 the views of the data under gamma
// (SPEC 1c: the rewards of the whole batch, 8 bytes a step, with its
// model columns when it carries them, the exact model's; and of a data
// set with its model columns when a method needs them, 24 bytes a step),
// every method's workspace (its Caps' Memory), the Model's (its Bytes),
// and for the lower bounds the evaluator's one workspace of two
// per-trajectory vectors (the values and a sorted copy), which every
// (method, bound) pair reuses.
func NeedOf(req Request, caps []Caps, s estimators.Shape) Need {
	var need Need
	modeled := slices.ContainsFunc(caps, func(c Caps) bool { return c.Needs&estimators.Model != 0 })
	if req.gamma() != 1 {
		whole, set := 8.0, 0.0
		if modeled {
			set = 24
			if _, cols := req.Model.(Columns); cols {
				whole = 24
			}
		}
		need.add("the data under gamma (rewards and model columns)", ByGamma, (whole+set)*s.Steps)
	}
	var work float64
	var names []string
	pairs := 0
	for _, c := range caps {
		m := c.memory(s)
		work += m
		if m > 0 {
			names = append(names, c.Name)
		}
		for _, b := range req.Bounds {
			if slices.Contains(c.Bounds, b) {
				pairs++
			}
		}
	}
	need.add(fmt.Sprintf("the workspaces of %s", strings.Join(names, ", ")), ByMethods, work)
	if modeled && req.Model != nil {
		need.add("the model (its columns and fit)", ByModel, req.Model.Bytes(s.Steps))
	}
	if pairs > 0 {
		need.add(fmt.Sprintf("the per-trajectory values of %d lower bounds", pairs), ByBounds, 16*s.N)
	}
	return need
}

// memory is c's workspace on data of shape s (0 without a bound).
func (c Caps) memory(s estimators.Shape) float64 {
	if c.Memory == nil {
		return 0
	}
	return c.Memory(s)
}
