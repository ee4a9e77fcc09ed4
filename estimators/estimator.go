package estimators

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/ope-lab/longhorizon/trajectory"
)

// Estimator turns a batch of trajectories into one estimate of V(pi_e).
type Estimator interface {
	// Name is the estimator's CLI and CSV key, e.g. "pdis".
	Name() string
	// Estimate returns the estimate from the batch b.
	Estimate(b *trajectory.Batch) (float64, error)
}

// KStarReporter is implemented by estimators that choose, for the reward at
// each step t, how many of the most recent ratios to keep (INCRIS). KStar
// returns the choices of the last Estimate call, indexed by t-1; the slice
// is reused by the next call.
type KStarReporter interface {
	KStar() []int
}

// ErrNotRepresentable reports an estimate (or, for INCRIS, an intermediate
// covariance) that does not fit in a float64.
var ErrNotRepresentable = errors.New("not representable as a float64")

// ErrTooFew reports a batch with fewer trajectories than an estimator needs.
var ErrTooFew = errors.New("too few trajectories")

// Info describes an estimator for help texts and config validation.
type Info struct {
	Name string
	// MinN is the smallest number of trajectories the estimator accepts.
	MinN int
	Doc  string
	new  func() Estimator
}

var registry = map[string]Info{
	"is":               {Name: "is", MinN: 1, Doc: "ordinary importance sampling: (1/n) sum_i W_H G", new: func() Estimator { return newIS() }},
	"pdis":             {Name: "pdis", MinN: 1, Doc: "per-decision importance sampling: (1/n) sum_i sum_t W_t r_t", new: func() Estimator { return newPDIS("pdis", primitiveFactors, false) }},
	"wis":              {Name: "wis", MinN: 1, Doc: "weighted importance sampling: sum_i W_H G / sum_i W_H", new: func() Estimator { return newWIS() }},
	"cwpdis":           {Name: "cwpdis", MinN: 1, Doc: "consistent weighted PDIS: sum_t [sum_i W_t r_t / sum_i W_t]", new: func() Estimator { return newCWPDIS() }},
	"incris":           {Name: "incris", MinN: 2, Doc: "Incremental Importance Sampling (Algorithm 1, V_k = s^2/n as the consistency proof needs)", new: func() Estimator { return NewINCRIS(false) }},
	"incris-printed":   {Name: "incris-printed", MinN: 2, Doc: "INCRIS as printed: V_k = s^2(B_k r_t) without the 1/n", new: func() Estimator { return NewINCRIS(true) }},
	"options-pdis":     {Name: "options-pdis", MinN: 1, Doc: "options-based PDIS (Theorem 3): option-level weights, per-decision ratios inside changed options (every estimator weights by these factors, so it equals pdis)", new: func() Estimator { return newPDIS("options-pdis", primitiveFactors, false) }},
	"partitioned-pdis": {Name: "partitioned-pdis", MinN: 1, Doc: "partitioned PDIS (Theorem 4): weights restart at 1 after each split point", new: func() Estimator { return newPDIS("partitioned-pdis", primitiveFactors, true) }},

	// SPEC 1b, beyond the paper.
	"incris-ld":         {Name: "incris-ld", MinN: 2, Doc: "INCRIS with one-ratio-at-a-time increment tests, a no-power guard and a Lepski check (SPEC 1b, experimental)", new: func() Estimator { return NewINCRISLD(true) }},
	"incris-ld-noguard": {Name: "incris-ld-noguard", MinN: 2, Doc: "incris-ld without the no-power guard, rule 1(b) (SPEC 1b, for comparison)", new: func() Estimator { return NewINCRISLD(false) }},
}

// New returns a fresh estimator by key. Its error lists the known keys.
func New(name string) (Estimator, error) {
	info, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown estimator %q (known: %v)", name, Names())
	}
	return info.new(), nil
}

// Lookup returns the description of estimator name.
func Lookup(name string) (Info, bool) {
	info, ok := registry[name]
	return info, ok
}

// Names returns every estimator key, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// finite returns x, or an error naming the estimator when x is Inf or NaN.
func finite(name string, x float64) (float64, error) {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, fmt.Errorf("%s: estimate %w", name, ErrNotRepresentable)
	}
	return x, nil
}

// ratio returns num/den with 0/0 := 0 (SPEC section 1).
func ratio(num, den float64) float64 {
	if den == 0 {
		return 0
	}
	return num / den
}
