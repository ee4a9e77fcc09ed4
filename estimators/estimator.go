package estimators

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ope-lab/longhorizon/trajectory"
)

// Estimator turns a batch of trajectories into one estimate of V(pi_e).
type Estimator interface {
	// Name is the estimator's CLI and CSV key, e.g. "pdis".
	Name() string
	// Estimate returns the estimate from the batch b.
	Estimate(b *trajectory.Batch) (float64, error)
}

// ErrNotRepresentable reports an estimate (or, for INCRIS, an intermediate
// covariance) that does not fit in a float64.
var ErrNotRepresentable = errors.New("not representable as a float64")

// ErrTooFew reports a batch with fewer trajectories than an estimator needs.
var ErrTooFew = errors.New("too few trajectories")

// Class says what kind of average an estimator is. Closed forms of a
// domain's estimator statistics are stated per class (package domains).
type Class string

// The classes.
const (
	// Unweighted: a mean over trajectories of importance-weighted returns;
	// unbiased.
	Unweighted Class = "unweighted"
	// SelfNormalized: importance-weighted returns divided by the sum of the
	// weights (over trajectories, or per step).
	SelfNormalized Class = "self-normalized"
	// Adaptive: chooses from the data which weights to keep.
	Adaptive Class = "adaptive"
	// ModelBased: uses a model of the returns (SPEC 1d): the model alone
	// (dm) or as a control variate for importance sampling (dr, wdr,
	// magic, reg). Its statistics depend on the model, so no closed form
	// of a domain speaks of it.
	ModelBased Class = "model-based"
	// Behavior: the behaviour data's own return, no importance weight
	// (naive): it estimates V(pi_b), not V(pi_e), so no closed form of a
	// domain (all of importance-weighted averages) speaks of it.
	Behavior Class = "behavior"
	// Truncated: importance-weighted rewards whose weights keep a fixed
	// window of the most recent ratios (window-K, window-sn-K): biased
	// wherever a dropped ratio matters, so no closed form of a domain
	// speaks of it.
	Truncated Class = "truncated"
)

// Data is a set of inputs beyond rewards and action ratios that an
// estimator can use.
type Data uint

// The data an estimator can use.
const (
	// SplitPoints: the ends of parts before a stationary option ends
	// (paper, Theorem 4); Batch.Split.
	SplitPoints Data = 1 << iota
	// Options: option-level ratios and which options changed (Theorem 3);
	// Batch.OptionRatio and Batch.Changed.
	Options
	// Model: the model columns q_hat and v_hat of SPEC 1d; Batch.QHat and
	// Batch.VHat.
	Model
	// ExactMoments: the exact moments of the kept products B_k r_t of the
	// data's source, per step t and k (Batch.Moments): a simulated domain
	// that knows them supplies them (domains.Spec.Moments); logged data
	// never has them.
	ExactMoments
	// IDs: the observation and action ids of every step (SPEC 1f);
	// Batch.Obs and Batch.Action. Options data never has them.
	IDs
	// Probs: pi_b and pi_e of the logged action at every step (SPEC 1f);
	// Batch.PiB and Batch.PiE.
	Probs
)

// String names the data, e.g. "split points, options".
func (d Data) String() string {
	var parts []string
	if d&SplitPoints != 0 {
		parts = append(parts, "split points")
	}
	if d&Options != 0 {
		parts = append(parts, "options")
	}
	if d&Model != 0 {
		parts = append(parts, "model columns (q_hat, v_hat)")
	}
	if d&ExactMoments != 0 {
		parts = append(parts, "exact moments of the kept products")
	}
	if d&IDs != 0 {
		parts = append(parts, "observation and action ids")
	}
	if d&Probs != 0 {
		parts = append(parts, "action probabilities (pi_b, pi_e)")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Diagnostic describes a vector an estimator reports beside each estimate
// (an estimator that lists diagnostics implements Reporter).
type Diagnostic struct {
	// Name is the key of the diagnostic: the run writes its mean over
	// trials to <Name>.csv, with the column mean_<Name>.
	Name string
	// Index names what the vector is indexed by, as a CSV column: "t"
	// (the 1-based step).
	Index string
	// IndexLabel and Label are axis labels for a figure of the mean.
	IndexLabel, Label string
	// Doc says what one value means.
	Doc string
}

// ModelFitter is implemented by the estimators whose registry entry says
// FitsModel: UseModel sets the kind (package models' registry, a learned
// one; "" is `fitted`) of the model the estimator fits itself. The
// harness and `runexp estimate` call it with the series' model before
// the first estimate.
type ModelFitter interface {
	UseModel(kind string)
}

// Reporter is implemented by estimators whose registry entry lists
// diagnostics.
type Reporter interface {
	// AppendDiagnostic appends diagnostic d (an index into the entry's
	// Diagnostics) of the last Estimate call to dst and returns the
	// extended slice.
	AppendDiagnostic(dst []float64, d int) []float64
}

// Finite returns x, or an error naming the estimator and wrapping
// ErrNotRepresentable when x is Inf or NaN: the last step of every
// estimate (an estimate is never Inf or NaN).
func Finite(name string, x float64) (float64, error) {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, fmt.Errorf("%s: estimate %w", name, ErrNotRepresentable)
	}
	return x, nil
}
