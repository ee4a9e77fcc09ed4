package evaluate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/models"
)

// Request is what to compute on a batch.
type Request struct {
	// Methods are the estimators, in the order of the results.
	Methods []Method
	// Gamma is the discount factor in (0, 1] (SPEC 1c); 0 means 1.
	Gamma float64
	// Model gives the methods that need a model their columns (SPEC 1d);
	// it must be set when one does.
	Model Model
	// Bounds are the lower bounds of SPEC 1e to compute, for every method
	// that has them, at confidence 1 - Delta; Lo and Hi are the range of
	// the returns, for the bounds that need one (NeedsRange).
	Bounds []string
	Delta  float64
	Lo, Hi float64
	// KeepGoing records a method's or a bound's failure in the Result and
	// goes on with the others (logged data: print what could be
	// computed); without it the first failure is returned (a harness
	// unit). Bad input (a return outside the range) is always returned.
	KeepGoing bool
	// Workers runs the methods of one call concurrently (<= 1: one at a
	// time); the numbers do not depend on it.
	Workers int
	// Policies, when not nil, is the caller's promise that the batches of
	// its requests are views of one data set that differ only in pi_e and
	// the ratios (models.PolicyShare): the learned Model (Fitted) and the
	// methods that cross-fit one (models.PolicySharer, the CrossFitShare)
	// count the data once and refit under each request's pi_e, with the
	// numbers of fresh fits, bit for bit. A bootstrap's replicates never
	// use it.
	Policies *models.PolicyShare
}

func (r *Request) gamma() float64 {
	if r.Gamma == 0 {
		return 1
	}
	return r.Gamma
}

// BoundProblem is a problem with the bounds asked of a set of estimators:
// Kind says which, Index is the bound's position in the list, and the
// other fields give the caller what its message names.
type BoundProblem struct {
	Kind  BoundProblemKind
	Index int
	Bound string
	// Supporters are the registry's estimators that have Bound
	// (Unsupported); MinN is the bound's smallest n (TooFew).
	Supporters []string
	MinN       int
}

// BoundProblemKind names a problem with a bound.
type BoundProblemKind int

// The problems CheckBounds finds.
const (
	// UnknownBound: not in the bounds' registry.
	UnknownBound BoundProblemKind = iota + 1
	// RepeatedBound: listed twice.
	RepeatedBound
	// Unsupported: no estimator asked for has it.
	Unsupported
	// TooFew: fewer trajectories than it needs.
	TooFew
)

// CheckBounds checks bounds asked of estimators ests (their Caps) on n
// trajectories: every bound known, listed once, had by some estimator,
// with n at least its MinN. It returns the first problem, or nil. Both
// the config's series and `runexp estimate`'s flags are checked by it;
// each names its own fields.
func CheckBounds(ests []Caps, bounds []string, n int) *BoundProblem {
	for j, kind := range bounds {
		info, ok := confidence.Lookup(kind)
		switch {
		case !ok:
			return &BoundProblem{Kind: UnknownBound, Index: j, Bound: kind}
		case slices.Index(bounds, kind) < j:
			return &BoundProblem{Kind: RepeatedBound, Index: j, Bound: kind}
		case !slices.ContainsFunc(ests, func(c Caps) bool { return slices.Contains(c.Bounds, kind) }):
			return &BoundProblem{Kind: Unsupported, Index: j, Bound: kind, Supporters: EstimatorsWith(kind)}
		case n < info.MinN:
			return &BoundProblem{Kind: TooFew, Index: j, Bound: kind, MinN: info.MinN}
		}
	}
	return nil
}

// EstimatorsWith lists the registry's estimators that have bound kind, in
// registry order.
func EstimatorsWith(kind string) []string {
	var out []string
	for _, inf := range estimators.All() {
		if slices.Contains(inf.Bounds, kind) {
			out = append(out, inf.Name)
		}
	}
	return out
}

// NeedingRange returns the bounds of kinds that need the range of the
// returns (confidence.Names() for all of the registry's).
func NeedingRange(kinds []string) []string {
	var out []string
	for _, k := range kinds {
		if bi, _ := confidence.Lookup(k); bi.NeedsRange {
			out = append(out, k)
		}
	}
	return out
}

// DataProblem says why method c cannot run on data that has have, read
// from its Caps: the data it Needs is missing, or it needs the model (SPEC
// 1d: one action ratio per step) and the data is options data. It returns
// "" when it can run; where names the data (a file).
func DataProblem(c Caps, have estimators.Data, where string) string {
	if missing := c.Needs &^ have; missing != 0 {
		return fmt.Sprintf("%s needs %s, which %s does not have", c.Name, needText(missing), where)
	}
	if c.Needs&estimators.Model != 0 && have&estimators.Options != 0 {
		return fmt.Sprintf("%s needs primitive data (one action ratio per step), and %s has the option columns", c.Name, where)
	}
	return ""
}

// needText names data a method needs, for messages.
func needText(d estimators.Data) string {
	var parts []string
	if d&estimators.Model != 0 {
		parts = append(parts, "the model columns q_hat and v_hat")
	}
	if d&estimators.SplitPoints != 0 {
		parts = append(parts, "a split column")
	}
	if d&estimators.Options != 0 {
		parts = append(parts, "the option columns option_start, mu_b and mu_e")
	}
	if d&estimators.ExactMoments != 0 {
		parts = append(parts, "the exact moments of the kept products B_k r_t (supplied only by a simulated domain that knows them, subepisode in a config; logged data never has them)")
	}
	if d&estimators.IDs != 0 {
		parts = append(parts, "the id columns obs and action")
	}
	if d&estimators.Probs != 0 {
		parts = append(parts, "the probability columns pi_b and pi_e")
	}
	if rest := d &^ (estimators.Model | estimators.SplitPoints | estimators.Options | estimators.ExactMoments | estimators.IDs | estimators.Probs); rest != 0 {
		parts = append(parts, rest.String())
	}
	return strings.Join(parts, " and ")
}

// Defaults returns the registry's default estimators (estimators.Defaults)
// that can run on data that has have.
func Defaults(have estimators.Data) []string {
	var names []string
	for _, n := range estimators.Defaults(have) {
		if inf, _ := estimators.Lookup(n); DataProblem(CapsOf(inf), have, "") == "" {
			names = append(names, n)
		}
	}
	return names
}
