package evaluate

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/models"
)

// LoggedFlags are the settings of an estimate on logged data as a user
// writes them (`runexp estimate`'s flags), before they are checked. Its
// messages name the flags.
type LoggedFlags struct {
	Estimators   string // comma-separated keys; "" for the defaults
	Bounds       string // comma-separated bound keys; "" for none
	ReturnRange  string // "LO,HI"; "" for none
	Interval     string // IntervalPercentile or IntervalBCa
	Replicates   int
	Confidence   float64
	Seed         uint64
	Gamma, Delta float64
	// Horizon is -horizon: the horizon of the model fitted from the obs
	// and action columns (0: the longest trajectory).
	Horizon int
	// Model is -model: the kind of the model fitted from the obs and
	// action columns, a learned kind of package models' registry.
	Model     string
	Workers   int
	MaxMemory float64
	// Explicit reports whether a flag was given (by its name without the
	// dash), for notes about flags that have no effect.
	Explicit func(name string) bool
}

// Logged checks f and returns the request it asks for, without its
// methods (Methods sets them once the data's columns are known), and notes
// on flags that have no effect. Errors are the user's: they name the flag.
func (f *LoggedFlags) Logged() (l Logged, names []string, notes []string, err error) {
	switch {
	case f.Replicates < 0:
		return l, nil, nil, fmt.Errorf("-bootstrap %d, want >= 0", f.Replicates)
	case !(f.Confidence > 0 && f.Confidence < 1):
		return l, nil, nil, fmt.Errorf("-confidence %v, want a number in (0, 1)", f.Confidence)
	case f.Workers < 1:
		return l, nil, nil, fmt.Errorf("-workers %d, want >= 1", f.Workers)
	case !(f.Gamma > 0 && f.Gamma <= 1):
		return l, nil, nil, fmt.Errorf("-gamma %v, want a discount factor in (0, 1]", f.Gamma)
	case f.Horizon < 0 || (f.Horizon == 0 && f.Explicit != nil && f.Explicit("horizon")):
		return l, nil, nil, fmt.Errorf("-horizon %d, want > 0", f.Horizon)
	}
	if f.Model != "" {
		if k, ok := models.Lookup(f.Model); !ok || !k.Learned() {
			return l, nil, nil, fmt.Errorf("-model %q, want one of %s (runexp help models)", f.Model, strings.Join(LearnedModels(), ", "))
		}
	}
	if names, err = parseEstimators(f.Estimators); err != nil {
		return l, nil, nil, err
	}
	l = Logged{Request: Request{Gamma: f.Gamma, Delta: f.Delta, Workers: f.Workers, Model: Columns{}}, MaxMemory: f.MaxMemory, Horizon: f.Horizon, ModelName: f.Model}
	if l.Bounds, err = parseBounds(f.Bounds); err != nil {
		return l, nil, nil, err
	}
	if !(f.Delta > 0 && f.Delta < 1) {
		return l, nil, nil, fmt.Errorf("-delta %v, want a number in (0, 1)", f.Delta)
	}
	if f.ReturnRange != "" {
		if l.Lo, l.Hi, err = parseReturnRange(f.ReturnRange); err != nil {
			return l, nil, nil, err
		}
	}
	for _, k := range NeedingRange(l.Bounds) {
		if f.ReturnRange == "" {
			return l, nil, nil, fmt.Errorf("-bounds %s: the %s bound needs -return-range LO,HI, a range holding every episode's return (see runexp help estimate)", k, k)
		}
	}
	if f.Interval != IntervalPercentile && f.Interval != IntervalBCa {
		return l, nil, nil, fmt.Errorf("-interval %q, want %s or %s", f.Interval, IntervalPercentile, IntervalBCa)
	}
	for _, name := range []string{"delta", "return-range"} {
		if l.Bounds == nil && f.Explicit(name) {
			notes = append(notes, fmt.Sprintf("-%s is for the lower bounds, and no -bounds were asked for", name))
		}
	}
	if l.Bounds != nil && f.ReturnRange != "" && len(NeedingRange(l.Bounds)) == 0 {
		notes = append(notes, fmt.Sprintf("-return-range is used only by the bounds that need one (%s), and none was asked for", strings.Join(NeedingRange(estimators.BoundNames()), ", ")))
	}
	if f.Interval == IntervalBCa && f.Replicates == 0 {
		notes = append(notes, "-interval bca has no effect with -bootstrap 0")
	}
	if f.Replicates > 0 {
		l.Interval = &Interval{Replicates: f.Replicates, Confidence: f.Confidence, Seed: f.Seed, BCa: f.Interval == IntervalBCa, Named: f.Explicit("interval")}
	}
	return l, names, notes, nil
}

// SetData gives l the data it runs on: what the data has beyond rewards
// and ratios, its name for messages, and the methods: names (known keys),
// or the registry's defaults that the data supports when names is nil.
func (l *Logged) SetData(have estimators.Data, where string, names []string) {
	l.Have, l.Where = have, where
	if names == nil {
		names = Defaults(have)
	}
	l.Methods = l.Methods[:0]
	for _, n := range names {
		m, _ := Registry(n) // parseEstimators knows n
		l.Methods = append(l.Methods, m)
	}
}

// The bootstrap intervals LoggedFlags.Interval chooses between.
const (
	IntervalPercentile = "percentile"
	IntervalBCa        = "bca"
)

// parseBounds reads -bounds: nil when empty of any key (no bounds), each
// key of estimators.BoundNames once.
func parseBounds(list string) ([]string, error) {
	return parseKeys(list, "bound", "-bounds", estimators.BoundNames(), func(k string) bool {
		_, ok := estimators.LookupBound(k)
		return ok
	})
}

// parseKeys reads a comma-separated list of registry keys given as flag:
// nil when empty of any key, each known key once, in the order given; an
// unknown one (a what) is an error listing the known ones.
func parseKeys(list, what, flag string, known []string, ok func(string) bool) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	var keys []string
	for _, k := range strings.Split(list, ",") {
		k = strings.TrimSpace(k)
		if k == "" || slices.Contains(keys, k) {
			continue
		}
		if !ok(k) {
			return nil, fmt.Errorf("unknown %s %q in %s (known: %s)", what, k, flag, strings.Join(known, ", "))
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s is empty (known: %s)", flag, strings.Join(known, ", "))
	}
	return keys, nil
}

// decimal is a number in decimal or exponent notation, as the data
// columns are read (logdata): no hexadecimal, underscores, NaN or
// infinities.
var decimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// parseReturnRange reads -return-range LO,HI: two finite decimal numbers
// with LO < HI whose difference is finite (the bounds scale by HI - LO).
func parseReturnRange(s string) (lo, hi float64, err error) {
	bad := func(why string) error {
		return fmt.Errorf("-return-range %q: %s; want LO,HI, two finite decimal numbers with LO < HI", s, why)
	}
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return 0, 0, bad(fmt.Sprintf("%d comma-separated fields", len(parts)))
	}
	var v [2]float64
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if !decimal.MatchString(p) {
			return 0, 0, bad(fmt.Sprintf("%q is not a decimal number", p))
		}
		x, err := strconv.ParseFloat(p, 64)
		if err != nil && math.IsInf(x, 0) {
			return 0, 0, bad(fmt.Sprintf("%q is out of the float64 range", p))
		}
		v[i] = x // an underflow reads as the nearest value, as in the data
	}
	if !(v[0] < v[1]) {
		return 0, 0, bad(fmt.Sprintf("LO = %v is not below HI = %v", v[0], v[1]))
	}
	if math.IsInf(v[1]-v[0], 0) {
		return 0, 0, bad("HI - LO is beyond the float64 range")
	}
	return v[0], v[1], nil
}

// parseEstimators reads -estimators: nil when empty of any name (the
// defaults), each known key once.
func parseEstimators(list string) ([]string, error) {
	return parseKeys(list, "estimator", "-estimators", estimators.Names(), func(k string) bool {
		_, ok := estimators.Lookup(k)
		return ok
	})
}
