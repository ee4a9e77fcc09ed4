package evaluate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// LoggedIDs are the observation and action ids of logged data with the
// obs and action columns (SPEC 1f; logdata.IDs): Obs and Actions distinct
// ids, and pi_e(a|o) of every (o, a) pair the data holds, which PiE
// writes into dst (len Actions), 0 for the pairs never seen.
type LoggedIDs struct {
	Obs, Actions int
	PiE          func(o int, dst []float64)
}

// Space returns the space of the fitted model over the ids with horizon
// h (SPEC 1f): the data's observations, and its actions plus one more,
// never in the data, that takes the mass of pi_e(.|o) on the actions not
// seen at o (1 - the sum over those seen, or 0). models.Fitter wants
// pi_e(.|o) to be a distribution; the extra action is never visited, so
// its q is 0 and v(o) = sum over the actions a seen at o of
// pi_e(a|o) q(o, a), as SPEC 1f says (its term, 0, added last, changes
// no bit).
func (ids *LoggedIDs) Space(h int) models.Space {
	na := ids.Actions
	return models.Space{Obs: ids.Obs, Actions: na + 1, Horizon: h, PiE: func(o int, dst []float64) {
		ids.PiE(o, dst[:na])
		s := 0.0
		for _, w := range dst[:na] {
			s += w
		}
		dst[na] = max(0, 1-s)
	}}
}

// idsText names the data a model is fitted from, for messages.
const idsText = "the id columns obs and action (from which a model is fitted)"

// fitModel gives l its model on b, before anything is computed: with ids
// and without the model columns, the fitted model of SPEC 1f over the ids
// with horizon l.Horizon (the longest trajectory when 0); otherwise the
// columns of the data. A trajectory longer than l.Horizon is bad input.
func (l *Logged) fitModel(b *trajectory.Batch) (notes []string, err error) {
	l.Model = Columns{}
	if l.Horizon > 0 {
		for i := range b.N() {
			if b.Len(i) > l.Horizon {
				return nil, inputerr.Errorf("%s: episode %d (0-based, in file order: data records %d to %d) has %d steps, more than -horizon %d",
					l.Where, i, b.Offsets[i]+1, b.Offsets[i+1], b.Len(i), l.Horizon)
			}
		}
	}
	if l.IDs == nil || b.HasModel() {
		if l.Horizon > 0 {
			notes = append(notes, "-horizon is the horizon of the model fitted from the obs and action columns, and none is fitted (the data has q_hat and v_hat, or no obs and action)")
		}
		if l.ModelName != "" && l.ModelName != models.Default {
			notes = append(notes, fmt.Sprintf("-model %s chooses the model fitted from the obs and action columns, and none is fitted (the data has q_hat and v_hat, or no obs and action)", l.ModelName))
		}
		return notes, nil
	}
	h := l.Horizon
	if h == 0 {
		h = b.Horizon()
	}
	name := l.ModelName
	if name == "" {
		name = models.Default
	}
	kind, err := models.Get(name)
	if err != nil {
		return notes, err
	}
	l.Model = ModelOf(kind, l.IDs.Space(max(h, 1)))
	if iv := l.Interval; iv != nil && iv.BCa && iv.Replicates > 0 {
		if m := l.modeledNames(); len(m) > 0 {
			return notes, inputerr.Errorf("-interval bca: the model of %s is fitted from the data and refitted on every bootstrap replicate, which the BCa jackknife does not do; use -interval percentile (the default) or -bootstrap 0", strings.Join(m, ", "))
		}
	}
	return notes, nil
}

// modeledNames lists the methods of l that read the data through the model.
func (l *Logged) modeledNames() []string {
	var out []string
	for _, m := range l.Methods {
		if c := m.Caps(); c.Needs&estimators.Model != 0 {
			out = append(out, c.Name)
		}
	}
	return out
}

// fittedIntervals is the bootstrap of l.Interval when l's model is fitted
// from the data: the methods that do not use the model as estimators.
// Bootstrap; those that do on the same replicates (replicate r resamples
// n indices by IntN(n) from estimators.ReplicateStream(seed, r)), with the
// model refitted on every replicate before they run, so that the model's
// own estimation error is in their intervals. The percentile rule is
// estimators.Bootstrap's.
func (l *Logged) fittedIntervals(b *trajectory.Batch, caps []Caps, fit *Fitted, view *trajectory.Batch) ([]estimators.Interval, error) {
	var plain, modeled []string
	for _, c := range caps {
		if c.Needs&estimators.Model != 0 {
			modeled = append(modeled, c.Name)
		} else {
			plain = append(plain, c.Name)
		}
	}
	iv := l.Interval
	out := make([]estimators.Interval, 0, len(caps))
	var ivs []estimators.Interval
	if len(plain) > 0 {
		var err error
		if ivs, err = estimators.Bootstrap(view, plain, iv.Replicates, iv.Confidence, iv.Seed, max(l.Workers, 1)); err != nil {
			return nil, err
		}
	}
	refit, err := refitBootstrap(b, modeled, fit, l.gamma(), iv, max(l.Workers, 1))
	if err != nil {
		return nil, err
	}
	for _, c := range caps {
		k := slices.Index(plain, c.Name)
		if k >= 0 {
			out = append(out, ivs[k])
		} else {
			out = append(out, refit[slices.Index(modeled, c.Name)])
		}
	}
	return out, nil
}

// refitBootstrap returns the percentile intervals of the estimators names
// over iv.Replicates resamples of b (undiscounted), each refitted with a
// model of like's kind and space and discounted with gamma before they run
// (estimators.BootstrapPrepared).
func refitBootstrap(b *trajectory.Batch, names []string, like *Fitted, gamma float64, iv *Interval, workers int) ([]estimators.Interval, error) {
	refit := func() func(*trajectory.Batch) (*trajectory.Batch, error) {
		fit := like.Fresh()
		var disc trajectory.Discounted
		return func(rb *trajectory.Batch) (*trajectory.Batch, error) {
			rb.QHat, rb.VHat = rb.QHat[:0], rb.VHat[:0]
			if err := fit.Apply(rb, gamma); err != nil {
				return nil, err
			}
			return disc.Of(rb, gamma), nil
		}
	}
	return estimators.BootstrapPrepared(b, names, iv.Replicates, iv.Confidence, iv.Seed, workers, refit)
}
