package estimators

import (
	"cmp"
	"fmt"
	"slices"
)

// Info is an estimator's registry entry: what it computes and what the rest
// of the toolkit needs to know to use it. No other package decides anything
// by an estimator's name; it reads these fields. Each family registers its
// entries from an init function (Register): this package the plain
// importance-sampling family, estimators/incris, estimators/modelbased and
// estimators/marginal theirs (package evaluate imports every family).
type Info struct {
	// Name is the CLI, config and CSV key.
	Name string
	// Rank places the entry in the order of help texts and of `runexp
	// estimate`'s default estimators (All, Defaults): the paper's first,
	// then SPEC's beyond-the-paper ones, whatever order the families'
	// init functions run in. Ranks are unique; the entries here use
	// multiples of 10, so that a new one can go between two.
	Rank int
	// Formula is the estimate in SPEC's notation; Source names its
	// equation in the paper or its SPEC section.
	Formula, Source string
	// MinN is the smallest number of trajectories the estimator accepts.
	MinN int
	Class
	// Uses is the data beyond rewards and ratios that makes a difference
	// to the estimate; without it the estimator equals Without.
	Uses    Data
	Without string
	// Needs is the data the estimator cannot run without: asking for it
	// on data that lacks it is bad input, and a harness config must
	// provide it (Model: a model, and primitive data).
	Needs Data
	// FitsModel says that the estimator fits a model of its own from the
	// data's ids (adaptive's cross-fitted WDR) and implements ModelFitter:
	// a series' model (series[].model, `runexp estimate -model`) of a
	// learned kind names the kind it fits; otherwise it fits `fitted`.
	FitsModel bool
	// Default says that `runexp estimate` computes it when no estimators
	// are named (and the data has what it Uses).
	Default bool
	// Diagnostics are the vectors it reports beside each estimate.
	Diagnostics []Diagnostic
	// Bounds are the lower bounds of SPEC 1e it has (confidence.T: its
	// estimator is a Termer; confidence.HCOPE: a ScaledReturner).
	Bounds []string
	// Bytes bounds, in bytes, the workspace the estimator allocates on
	// data of Shape s (its first estimate, or grid of s.Points, on a fresh
	// estimator), the batch itself not counted; nil for an estimator that
	// allocates nothing that grows with the data. It is stated in what
	// the workspace really depends on (the steps, the ranges of the ids,
	// options data with changed options), so that it holds on any data of
	// the shape and is not loose on the data the harness draws. BytesDoc
	// is its formula, for help texts. Read them through Memory and
	// MemoryDoc; tests check every entry's bound against what its
	// estimator allocates, on data built to reach it and on the domains'
	// data.
	Bytes    func(s Shape) float64
	BytesDoc string
	// New returns a fresh estimator.
	New func() Estimator
}

// Memory returns an upper bound, in bytes, of the workspace the estimator
// allocates on data of shape s, the batch itself not counted. An entry
// without a bound allocates nothing that grows with the data (tests check
// every entry's bound against what it allocates).
func (i Info) Memory(s Shape) float64 {
	if i.Bytes == nil {
		return 0
	}
	return i.Bytes(s)
}

// MemoryDoc writes Memory's formula, for help texts.
func (i Info) MemoryDoc() string {
	if i.BytesDoc == "" {
		return "none that grows with the data"
	}
	return i.BytesDoc
}

// registry lists every registered estimator by Rank: the order of help
// texts. Register fills it, from the families' init functions.
var registry []Info

// Register adds estimator i to the registry. It panics when the name is
// empty or taken, the rank taken, New missing, or a bound given without
// its formula: programming errors, found when the family's package loads.
func Register(i Info) {
	switch {
	case i.Name == "":
		panic("estimators: Register: an entry without a name")
	case slices.ContainsFunc(registry, func(o Info) bool { return o.Name == i.Name }):
		panic("estimators: Register: estimator " + i.Name + " registered twice")
	case slices.ContainsFunc(registry, func(o Info) bool { return o.Rank == i.Rank }):
		panic(fmt.Sprintf("estimators: Register: estimator %s: rank %d taken", i.Name, i.Rank))
	case i.New == nil:
		panic("estimators: Register: estimator " + i.Name + " without New")
	case (i.Bytes == nil) != (i.BytesDoc == ""):
		panic("estimators: Register: estimator " + i.Name + ": Bytes and BytesDoc go together")
	case i.FitsModel && !isModelFitter(i.New()):
		panic("estimators: Register: estimator " + i.Name + ": FitsModel, but it is no ModelFitter")
	}
	registry = append(registry, i)
	slices.SortFunc(registry, func(a, b Info) int { return cmp.Compare(a.Rank, b.Rank) })
}

func isModelFitter(e Estimator) bool { _, ok := e.(ModelFitter); return ok }

// New returns a fresh estimator by key. Its error lists the known keys.
func New(name string) (Estimator, error) {
	info, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown estimator %q (known: %v)", name, Names())
	}
	return info.New(), nil
}

// Lookup returns the registry entry of estimator name.
func Lookup(name string) (Info, bool) {
	for _, i := range registry {
		if i.Name == name {
			return i, true
		}
	}
	return Info{}, false
}

// All returns every registry entry, in the order of help texts (by Rank).
func All() []Info { return slices.Clone(registry) }

// Names returns every estimator key, sorted.
func Names() []string {
	names := make([]string, len(registry))
	for j, i := range registry {
		names[j] = i.Name
	}
	slices.Sort(names)
	return names
}

// Defaults returns the estimators `runexp estimate` computes when none are
// named, for data that has have: those marked Default whose Uses and
// Needs it has, by Rank (issue 32: on data with a model, or with the ids
// a model is fitted from, the model-based and marginal estimators).
func Defaults(have Data) []string {
	var out []string
	for _, i := range registry {
		if i.Default && (i.Uses|i.Needs)&^have == 0 {
			out = append(out, i.Name)
		}
	}
	return out
}
