package evaluate

import (
	"errors"
	"fmt"

	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Model is where a request's model columns come from (SPEC 1d): a batch
// transform that gives a data set of n trajectories its columns q_hat and
// v_hat before a method needing a model reads it. The methods of a request
// that need a model share one Apply per data set.
type Model interface {
	// Apply gives b (undiscounted; gamma is the dynamic program's
	// discount) its model columns, b.QHat and b.VHat, reusing the
	// transform's memory: they stay valid until the next call.
	Apply(b *trajectory.Batch, gamma float64) error
	// Bytes bounds what Apply allocates for a data set of steps steps,
	// the columns included.
	Bytes(steps float64) float64
	// Fresh returns a Model of the same kind with its own memory, for
	// another goroutine (a bootstrap worker refits it on its replicates).
	Fresh() Model
}

// ModelOf returns the Model of registry kind k (package models) over sp:
// Columns for a kind the data carries (the exact model a domain records,
// logged data's q_hat and v_hat), Fitted for a learned one.
func ModelOf(k models.Kind, sp models.Space) Model {
	if !k.Learned() {
		return Columns{}
	}
	return &Fitted{Kind: k, Space: sp}
}

// Columns is the Model of data that carries its columns already: the
// exact model a domain records as it collects, or the q_hat and v_hat
// columns of logged data. Apply only checks that they are there.
type Columns struct{}

// ErrNoModel reports data without the model columns a method needs.
var ErrNoModel = errors.New("the data has no model columns (q_hat, v_hat)")

// Apply returns ErrNoModel when b has no model columns.
func (Columns) Apply(b *trajectory.Batch, _ float64) error {
	if b.N() > 0 && b.Steps() > 0 && !b.HasModel() {
		return ErrNoModel
	}
	return nil
}

// Bytes is 0: the columns are part of the batch.
func (Columns) Bytes(float64) float64 { return 0 }

// Fresh returns Columns: it keeps nothing.
func (Columns) Fresh() Model { return Columns{} }

// Fitted is the Model of a learned kind (models.Kind.Learned): the kind's
// learner fitted on each data set, from its observation and action ids
// over Space, its columns written into the same data set. It keeps the
// learner's workspace and the columns between calls.
type Fitted struct {
	Kind  models.Kind
	Space models.Space
	// Policies, when not nil (the request's, set by New), fits a kind
	// that refits (models.Kind.Refits) through the share: the data is
	// counted once for every policy of the share's owner.
	Policies *models.PolicyShare
	learner  models.Learner
	q, v     []float64 // the columns, kept between calls
}

// Apply fits the model on b and writes its columns into b.
func (f *Fitted) Apply(b *trajectory.Batch, gamma float64) error {
	if !f.Kind.Learned() {
		return fmt.Errorf("model %q: a kind without a learner cannot be fitted", f.Kind.Name)
	}
	b.QHat, b.VHat = f.q[:0], f.v[:0]
	var err error
	if f.Policies != nil && f.Kind.Refits {
		err = f.Policies.Fit(f.Kind, b, f.Space, gamma)
	} else {
		if f.learner == nil {
			f.learner = f.Kind.New()
		}
		err = f.learner.FitTo(b, b, f.Space, gamma)
	}
	if err != nil {
		return fmt.Errorf("fitting the model %s: %w", f.Kind.Name, err)
	}
	f.q, f.v = b.QHat, b.VHat
	return nil
}

// Bytes is the kind's bound (models.Kind.Bytes) at Space's sizes.
func (f *Fitted) Bytes(steps float64) float64 {
	sp := f.Space
	return f.Kind.Bytes(steps, float64(sp.Obs), float64(sp.Actions), float64(sp.Horizon))
}

// Fresh returns a cold Fitted of the same kind over the same space.
func (f *Fitted) Fresh() Model { return &Fitted{Kind: f.Kind, Space: f.Space} }

// LearnedModels lists the registry's learned kinds (models.Kind.Learned):
// those a model can be fitted with from observation and action ids.
func LearnedModels() []string {
	var out []string
	for _, k := range models.Kinds() {
		if k.Learned() {
			out = append(out, k.Name)
		}
	}
	return out
}
