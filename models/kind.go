package models

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/trajectory"
)

// Learner fits a model of one kind and writes its columns: the Q-function
// learner of a Kind. A Learner keeps its workspace between calls and is
// not safe for concurrent use (Kind.New makes one per goroutine).
type Learner interface {
	// FitTo fits the model on train, whose rewards are undiscounted, with
	// gamma in (0, 1] the discount of its dynamic program, and writes for
	// every step of apply (which may be train) the model's q_hat and v_hat
	// into apply.QHat and apply.VHat, reusing their memory: the expected
	// return from that step on, discounted to that step (SPEC 1d; the
	// factor gamma^(t-1) is trajectory.Discounted's). Both batches carry
	// observation and action ids over sp. A fit on one fold read on the
	// other is cross-fitting (SPEC 1f's drl).
	FitTo(train, apply *trajectory.Batch, sp Space, gamma float64) error
}

// Input is the data a model kind is made from, beyond rewards and ratios.
type Input uint

// The inputs of a model kind.
const (
	// IDs: the observation and action ids of every step, over a Space
	// (SPEC 1f): a learned model.
	IDs Input = 1 << iota
	// ExactQ: the true q of pi_e, which a simulated domain computes by
	// its exact dynamic program and records as it collects (logged data:
	// its q_hat and v_hat columns). No learner.
	ExactQ
)

// String names the inputs, for help texts.
func (in Input) String() string {
	var parts []string
	if in&IDs != 0 {
		parts = append(parts, "observation and action ids")
	}
	if in&ExactQ != 0 {
		parts = append(parts, "the domain's exact q of pi_e")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Kind is a model kind's registry entry: what `series[].model` and
// `runexp estimate -model` name, and all that the rest of the toolkit
// needs to know of it. No other package decides anything by a kind's
// name; it reads these fields.
type Kind struct {
	// Name is the config and CLI key.
	Name string
	// Doc says what the model is (its formula, or SPEC section), what it
	// does at pairs the data never visits and at the horizon, for help
	// texts.
	Doc string
	// Source names its paper or SPEC section.
	Source string
	// Needs is the data the model is made from: IDs for a learner,
	// ExactQ for the domain's exact model.
	Needs Input
	// Bytes bounds, in bytes, what a cold learner allocates to fit a
	// data set of steps steps over a space of obs observations, actions
	// actions and the given horizon, the q_hat and v_hat columns included
	// once (a caller that keeps them between fits, as evaluate.Fitted
	// does, needs no more), as a function of what it really depends on:
	// the steps, and the observations and pairs that occur, at most
	// min(obs, steps) and that times actions (float64 sizes, so that a
	// size far beyond memory is refused without overflow); nil for a kind
	// without a learner. BytesDoc is its formula. A test checks it
	// against a cold learner's allocations, on data built to reach it
	// and on the domains' data (not loose by more than 2).
	Bytes    func(steps, obs, actions, horizon float64) float64
	BytesDoc string
	// New returns a cold learner (nil for ExactQ, whose columns the data
	// carries).
	New func() Learner
	// Refits says that its learner is a Refitter: its fit reads pi_e in
	// its dynamic program alone, so that the model of the same data under
	// another evaluation policy reuses what it counted (PolicyShare). A
	// test checks it against the learner, and Refit against a fresh fit.
	Refits bool
	// TimeIndexed says that its model is indexed by the step t (q_t, P_t:
	// Markov in (t, observation)), so that a state distribution propagated
	// through it is d_t, step by step (drl's marginal ratio, docs/drl.md).
	TimeIndexed bool
}

// Learned reports whether the kind is fitted from the data by a learner
// (Kind.New), rather than read from columns the data carries.
func (k Kind) Learned() bool { return k.New != nil }

// Default is the model a series or `runexp estimate` uses when it names
// none (SPEC 1d's `fitted`).
const Default = "fitted"

// kinds is the registry, filled by each kind's file in init.
var kinds []Kind

// Register adds kind k to the registry. It panics when the name is empty
// or taken, or a learner has no memory bound: programming errors, found
// when the package loads.
func Register(k Kind) {
	switch {
	case k.Name == "":
		panic("models: Register: a kind without a name")
	case slices.ContainsFunc(kinds, func(o Kind) bool { return o.Name == k.Name }):
		panic("models: Register: kind " + k.Name + " registered twice")
	case k.New != nil && k.Bytes == nil:
		panic("models: Register: learner " + k.Name + " without a memory bound")
	}
	kinds = append(kinds, k)
	slices.SortFunc(kinds, func(a, b Kind) int { return strings.Compare(a.Name, b.Name) })
}

// Lookup returns the registry entry of kind name.
func Lookup(name string) (Kind, bool) {
	for _, k := range kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Get returns the registry entry of kind name, or an error listing the
// known kinds.
func Get(name string) (Kind, error) {
	if k, ok := Lookup(name); ok {
		return k, nil
	}
	return Kind{}, fmt.Errorf("unknown model %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Kinds returns every registry entry, sorted by name (a copy).
func Kinds() []Kind { return slices.Clone(kinds) }

// Names returns every kind's key, sorted.
func Names() []string {
	out := make([]string, len(kinds))
	for j, k := range kinds {
		out[j] = k.Name
	}
	return out
}
