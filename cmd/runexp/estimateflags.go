package main

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/evaluate"
	"github.com/ope-lab/longhorizon/models"
)

// loggedFlags are the settings of an estimate on logged data as a user
// writes them (`runexp estimate`'s flags), before they are checked. Its
// messages name the flags.
type loggedFlags struct {
	Estimators   string // comma-separated keys; "" for the defaults
	Bounds       string // comma-separated bound keys; "" for none
	ReturnRange  string // "LO,HI"; "" for none
	Interval     string // intervalPercentile or intervalBCa
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

// job checks f and returns the estimate it asks for, without its data
// (setData gives it once the file is read), and notes on flags that have
// no effect. Errors are the user's: they name the flag.
func (f *loggedFlags) job() (j *estimateJob, names []string, notes []string, err error) {
	switch {
	case f.Replicates < 0:
		return nil, nil, nil, fmt.Errorf("-bootstrap %d, want >= 0", f.Replicates)
	case !(f.Confidence > 0 && f.Confidence < 1):
		return nil, nil, nil, fmt.Errorf("-confidence %v, want a number in (0, 1)", f.Confidence)
	case f.Workers < 1:
		return nil, nil, nil, fmt.Errorf("-workers %d, want >= 1", f.Workers)
	case !(f.Gamma > 0 && f.Gamma <= 1):
		return nil, nil, nil, fmt.Errorf("-gamma %v, want a discount factor in (0, 1]", f.Gamma)
	case f.Horizon < 0 || (f.Horizon == 0 && f.Explicit != nil && f.Explicit("horizon")):
		return nil, nil, nil, fmt.Errorf("-horizon %d, want > 0", f.Horizon)
	}
	kind, err := models.Get(f.Model)
	if err != nil || !kind.Learned() {
		return nil, nil, nil, fmt.Errorf("-model %q, want one of %s (runexp help models)", f.Model, strings.Join(evaluate.LearnedModels(), ", "))
	}
	if names, err = parseEstimators(f.Estimators); err != nil {
		return nil, nil, nil, err
	}
	j = &estimateJob{Logged: evaluate.Logged{Request: evaluate.Request{Gamma: f.Gamma, Delta: f.Delta, Workers: f.Workers, Model: evaluate.Columns{}}},
		maxMemory: f.MaxMemory, horizon: f.Horizon, kind: kind}
	if j.Bounds, err = parseBounds(f.Bounds); err != nil {
		return nil, nil, nil, err
	}
	if !(f.Delta > 0 && f.Delta < 1) {
		return nil, nil, nil, fmt.Errorf("-delta %v, want a number in (0, 1)", f.Delta)
	}
	if f.ReturnRange != "" {
		if j.Lo, j.Hi, err = parseReturnRange(f.ReturnRange); err != nil {
			return nil, nil, nil, err
		}
	}
	for _, k := range evaluate.NeedingRange(j.Bounds) {
		if f.ReturnRange == "" {
			return nil, nil, nil, fmt.Errorf("-bounds %s: the %s bound needs -return-range LO,HI, a range holding every episode's return (see runexp help estimate)", k, k)
		}
	}
	if f.Interval != intervalPercentile && f.Interval != intervalBCa {
		return nil, nil, nil, fmt.Errorf("-interval %q, want %s or %s", f.Interval, intervalPercentile, intervalBCa)
	}
	for _, name := range []string{"delta", "return-range"} {
		if j.Bounds == nil && f.Explicit(name) {
			notes = append(notes, fmt.Sprintf("-%s is for the lower bounds, and no -bounds were asked for", name))
		}
	}
	if j.Bounds != nil && f.ReturnRange != "" && len(evaluate.NeedingRange(j.Bounds)) == 0 {
		notes = append(notes, fmt.Sprintf("-return-range is used only by the bounds that need one (%s), and none was asked for", strings.Join(evaluate.NeedingRange(confidence.Names()), ", ")))
	}
	if f.Interval == intervalBCa && f.Replicates == 0 {
		notes = append(notes, "-interval bca has no effect with -bootstrap 0")
	}
	if f.Replicates > 0 {
		j.Intervals = &evaluate.Intervals{Replicates: f.Replicates, Confidence: f.Confidence, Seed: f.Seed, BCa: f.Interval == intervalBCa, Workers: f.Workers}
		j.intervalNamed = f.Explicit("interval")
	}
	return j, names, notes, nil
}

// The bootstrap intervals loggedFlags.Interval chooses between.
const (
	intervalPercentile = "percentile"
	intervalBCa        = "bca"
)

// parseBounds reads -bounds: nil when empty of any key (no bounds), each
// key of confidence.Names once.
func parseBounds(list string) ([]string, error) {
	return parseKeys(list, "bound", "-bounds", confidence.Names(), func(k string) bool {
		_, ok := confidence.Lookup(k)
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
