package evaluate

import (
	"fmt"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Method is one estimator of a request, whatever its kind: a registry
// formula, one reading model columns, an external process.
type Method interface {
	// Caps says what the evaluator needs to know about the method.
	Caps() Caps
	// Estimate sets out.Values[j], and each out.Diagnostics[d][j], to the
	// estimate from the first grid[j] trajectories of in (grid strictly
	// increasing, its last point at most in.Batch.N()). An error names the
	// smallest n at which the estimate failed, as "n = 50: <error>", except
	// on a one-point grid (the caller knows its n).
	Estimate(in Input, grid []int, out Out) error
}

// Caps are a method's capabilities: its key, the data it cannot run
// without, what it reports beside each estimate, the bounds it has and
// its workspace. They are read from the registry entry for a registry
// method; nothing else decides anything by a method's name.
type Caps struct {
	// Name is the method's key in results and messages.
	Name string
	// MinN is the smallest number of trajectories it accepts.
	MinN int
	// Needs is the data it cannot run without (estimators.Info.Needs):
	// with estimators.Model, its data at each n goes through the
	// request's Model first.
	Needs estimators.Data
	// Uses is the data that makes a difference to it, and Without what it
	// equals without that data (estimators.Info.Uses, Without).
	Uses    estimators.Data
	Without string
	// Diagnostics are the vectors it reports beside each estimate.
	Diagnostics []estimators.Diagnostic
	// Bounds are the lower bounds of SPEC 1e it has (confidence.T: the
	// method is a Termer; confidence.HCOPE: a ScaledReturner).
	Bounds []string
	// Memory bounds its workspace in bytes on data of the given shape
	// (estimators.Info.Memory; nil: nothing that grows with the data).
	Memory func(estimators.Shape) float64
	// MemoryDoc is Memory's formula, for messages.
	MemoryDoc string
}

// Resampler is implemented by methods that a bootstrap may rerun on
// resampled data (Bootstrap): Fresh returns a method computing the same
// estimator with its own memory, for another goroutine.
type Resampler interface {
	Method
	Fresh() (Method, error)
}

// Termer is implemented by methods whose estimate is the mean of i.i.d.
// per-trajectory terms, for which the Student-t lower bound of SPEC 1e
// holds (confidence.T).
type Termer interface {
	Method
	// Terms appends the per-trajectory terms of the estimate from in to
	// dst[:0] and returns the extended slice.
	Terms(in Input, dst []float64) ([]float64, error)
}

// ScaledReturner is implemented by methods that the HCOPE bound of SPEC
// 1e covers (confidence.HCOPE): ordinary importance sampling.
type ScaledReturner interface {
	Method
	// ScaledReturns appends X_i = W^i_H (G_i - lo) / (hi - lo) of every
	// trajectory of in to dst[:0]; a return outside [lo, hi] is an error
	// wrapping estimators.ErrOutOfRange.
	ScaledReturns(in Input, lo, hi float64, dst []float64) ([]float64, error)
}

// Input is the data a method reads at one call.
type Input struct {
	// Batch is the data under gamma (SPEC 1c): rewards, and the model
	// columns where the method needs a model, discounted. Every registry
	// formula reads it unchanged.
	Batch *trajectory.Batch
	// Raw is the same trajectories as collected or read, before
	// discounting, and Gamma the discount, for a method that discounts
	// itself (an external program is sent the raw data and gamma).
	Raw   *trajectory.Batch
	Gamma float64
}

// Out is where a method writes its estimates: Values[j] at grid point j,
// and Diagnostics[d][j] the vector of diagnostic d there (reusing its
// memory), for the diagnostics of its Caps.
type Out struct {
	Values      []float64
	Diagnostics [][][]float64
}

// registryMethod is an estimator of the registry behind Method: it reads
// in.Batch, at every grid point in one pass where the estimator can
// (estimators.EstimateGrid), and keeps the estimator, whose workspace
// every call reuses.
type registryMethod struct {
	est   estimators.Estimator
	caps  Caps
	model string // the kind an estimator that fits its own model fits
}

// Registry returns the registry's estimator name as a Method. Its error
// lists the known keys.
func Registry(name string) (Method, error) { return RegistryModel(name, "") }

// RegistryModel returns the registry's estimator name as a Method that,
// if its entry says FitsModel, fits a model of kind model itself (a
// learned kind of package models' registry: the series' model, or
// `runexp estimate -model`; "" or a kind that is not learned, such as
// `exact`, leaves it at `fitted`), its memory bound counted for that
// kind. Its error lists the known keys.
func RegistryModel(name, model string) (Method, error) {
	est, err := estimators.New(name)
	if err != nil {
		return nil, err
	}
	info, _ := estimators.Lookup(name)
	m := &registryMethod{est: est, caps: CapsFor(info, model)}
	if fitsKind(info, model) {
		m.model = model
		est.(estimators.ModelFitter).UseModel(model)
	}
	return m, nil
}

// fitsKind reports whether the estimator of info fits a model of kind
// model itself: its entry says FitsModel and model is a learned kind.
func fitsKind(info estimators.Info, model string) bool {
	k, ok := models.Lookup(model)
	return info.FitsModel && ok && k.Learned()
}

// CapsFor returns the capabilities of a registry entry whose estimator,
// if it fits a model itself (FitsModel), fits one of kind model (as
// RegistryModel): its memory bound at that kind.
func CapsFor(info estimators.Info, model string) Caps {
	c := CapsOf(info)
	if mem := c.Memory; mem != nil && fitsKind(info, model) {
		c.Memory = func(s estimators.Shape) float64 { s.Model = model; return mem(s) }
	}
	return c
}

// CapsOf returns the capabilities of a registry entry.
func CapsOf(info estimators.Info) Caps {
	c := Caps{Name: info.Name, MinN: info.MinN, Needs: info.Needs, Uses: info.Uses, Without: info.Without,
		Diagnostics: info.Diagnostics, Bounds: info.Bounds, MemoryDoc: info.MemoryDoc()}
	c.Memory = info.Memory
	return c
}

func (m *registryMethod) Caps() Caps { return m.caps }

// Estimate runs the estimator on the whole batch when the grid is just
// its n (data drawn afresh at each n, logged data: the error then names
// no n), else over the grid in one pass where it can.
func (m *registryMethod) Estimate(in Input, grid []int, out Out) error {
	if len(grid) != 1 || grid[0] != in.Batch.N() {
		return estimators.EstimateGrid(m.est, in.Batch, grid, out.Values, out.Diagnostics)
	}
	v, err := m.est.Estimate(in.Batch)
	if err != nil {
		return err
	}
	out.Values[0] = v
	if r, ok := m.est.(estimators.Reporter); ok {
		for d := range out.Diagnostics {
			out.Diagnostics[d][0] = r.AppendDiagnostic(out.Diagnostics[d][0][:0], d)
		}
	}
	return nil
}

// Fresh returns a new instance of the same registry estimator.
func (m *registryMethod) Fresh() (Method, error) { return RegistryModel(m.caps.Name, m.model) }

// Terms returns the estimator's per-trajectory terms (estimators.Termer),
// for the estimators whose entry lists the t bound.
func (m *registryMethod) Terms(in Input, dst []float64) ([]float64, error) {
	te, ok := m.est.(estimators.Termer)
	if !ok {
		return dst[:0], fmt.Errorf("%s has no per-trajectory terms", m.caps.Name)
	}
	return te.Terms(in.Batch, dst)
}

// ScaledReturns returns the estimator's scaled returns
// (estimators.ScaledReturner), for the estimators whose entry lists the
// hcope bound.
func (m *registryMethod) ScaledReturns(in Input, lo, hi float64, dst []float64) ([]float64, error) {
	se, ok := m.est.(estimators.ScaledReturner)
	if !ok {
		return dst[:0], fmt.Errorf("%s has no scaled returns", m.caps.Name)
	}
	return se.ScaledReturns(in.Batch, lo, hi, dst)
}
