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

// Fitted is the `fitted` Model of SPEC 1d: a tabular maximum-likelihood
// model over Space fitted on each data set (models.Fitter), from its
// observation and action ids. It keeps its workspace and columns between
// calls.
type Fitted struct {
	Space models.Space
	fit   models.Fitter
	cols  modelColumns
}

// Apply fits the model on b and writes its columns into b.
func (f *Fitted) Apply(b *trajectory.Batch, gamma float64) error {
	return f.cols.fill(b, "the model", func() error { return f.fit.Fit(b, f.Space, gamma) })
}

// modelColumns keeps a fitted Model's columns between calls: fill hands
// their memory to b, runs fit (which appends b.QHat and b.VHat), and keeps
// what fit grew. what names the model in errors.
type modelColumns struct{ q, v []float64 }

func (c *modelColumns) fill(b *trajectory.Batch, what string, fit func() error) error {
	b.QHat, b.VHat = c.q[:0], c.v[:0]
	if err := fit(); err != nil {
		return fmt.Errorf("fitting %s: %w", what, err)
	}
	c.q, c.v = b.QHat, b.VHat
	return nil
}

// Bytes is the columns (doubled for append's slack) and the fit's
// workspace (models.FitBytes).
func (f *Fitted) Bytes(steps float64) float64 {
	sp := f.Space
	return 16*steps + models.FitBytes(steps, float64(sp.Obs), float64(sp.Actions), float64(sp.Horizon))
}

// Fitted models of logged data: the Models fitted from the data's
// observation and action ids over a Space, which `runexp estimate -model`
// chooses by name and its bootstrap refits on every replicate.
const (
	// ModelFitted names Fitted (SPEC 1d, 1f), the default.
	ModelFitted = "fitted"
	// ModelFittedT names TimeFitted, the time-indexed model.
	ModelFittedT = "fitted-t"
)

// spaced is a Model fitted from the data over a Space (Fitted,
// TimeFitted); fresh returns a new one of the same kind over the same
// space, for a bootstrap worker's refits.
type spaced interface {
	Model
	fresh() spaced
}

func (f *Fitted) fresh() spaced     { return &Fitted{Space: f.Space} }
func (f *TimeFitted) fresh() spaced { return &TimeFitted{Space: f.Space} }

// fittedOf returns the Model named name (ModelFitted, ModelFittedT) over
// sp.
func fittedOf(name string, sp models.Space) spaced {
	if name == ModelFittedT {
		return &TimeFitted{Space: sp}
	}
	return &Fitted{Space: sp}
}

// TimeFitted is the `fitted-t` Model: Fitted's tabular maximum-likelihood
// model indexed by the step t (models.TimeFitter), right on domains
// Markov in (t, observation). It keeps its workspace and columns between
// calls.
type TimeFitted struct {
	Space models.Space
	fit   models.TimeFitter
	cols  modelColumns
}

// Apply fits the time-indexed model on b and writes its columns into b.
func (f *TimeFitted) Apply(b *trajectory.Batch, gamma float64) error {
	return f.cols.fill(b, "the time-indexed model", func() error { return f.fit.Fit(b, f.Space, gamma) })
}

// Bytes is the columns (doubled for append's slack) and the fit's
// workspace (models.TimeFitBytes).
func (f *TimeFitted) Bytes(steps float64) float64 {
	sp := f.Space
	return 16*steps + models.TimeFitBytes(steps, float64(sp.Obs), float64(sp.Actions), float64(sp.Horizon))
}
