package evaluate

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
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

// Logged is a request on one batch of logged data (`runexp estimate`):
// the Request at the batch's own n, every method's failure kept in the
// result (KeepGoing), with bootstrap intervals when Intervals is set.
type Logged struct {
	Request
	// Intervals, when not nil, asks for bootstrap intervals over the
	// episodes (Bootstrap).
	Intervals *Intervals
}

// LoggedResult is what Logged.Run computed: the one-point Result (values,
// diagnostics, bounds and failures), the intervals (nil without), and
// the statistics of the importance weights (estimators.WeightStatsOf:
// every method weights by the same factors).
type LoggedResult struct {
	Result
	Caps      []Caps
	Intervals []confidence.Interval
	Weights   estimators.WeightStats
}

// Run computes l on b: the lower bounds first (a return outside the
// range is bad input, a *RangeError found in one pass before the rest),
// the estimates, then the intervals. A method or bound that fails is in
// the result with its error.
func (l *Logged) Run(b *trajectory.Batch) (*LoggedResult, error) {
	req := l.Request
	req.KeepGoing = true
	ev, err := New(req)
	if err != nil {
		return nil, err
	}
	out := &LoggedResult{Result: ev.NewResult(1), Caps: ev.Caps(), Weights: estimators.WeightStatsOf(b)}
	if err := ev.Evaluate(b, []int{b.N()}, &out.Result); err != nil {
		return nil, err
	}
	if iv := l.Intervals; iv != nil && iv.Replicates > 0 {
		theta := make([]float64, len(out.Values))
		for m, v := range out.Values {
			theta[m] = v[0]
			if out.Errs[m] != nil {
				theta[m] = math.NaN()
			}
		}
		if out.Intervals, err = Bootstrap(req, b, theta, *iv); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Need is the memory of l on b beyond b itself: NeedOf at b's shape
// (estimators.ShapeOf: its sizes, the ranges of its ids, its changed
// options), and with intervals, per bootstrap worker a resampled copy of
// b (with every column it carries: copyBytes), its index, the
// methods' workspaces and the model's fit again, the replicates'
// estimates, and with BCa the jackknife's n estimates per method; the
// jackknife's n tasks share the workers with the replicates.
func (l *Logged) Need(b *trajectory.Batch) Need {
	caps := make([]Caps, len(l.Methods))
	for j, m := range l.Methods {
		caps[j] = m.Caps()
	}
	sh := estimators.ShapeOf(b)
	n, steps := sh.N, sh.Steps
	need := NeedOf(l.Request, caps, sh)
	iv := l.Intervals
	if iv == nil || iv.Replicates == 0 {
		return need
	}
	var work float64
	for _, c := range caps {
		work += c.memory(sh)
	}
	tasks := iv.Replicates
	if iv.BCa {
		tasks += b.N()
	}
	w := float64(min(max(iv.Workers, 1), tasks))
	perCopy := copyBytes(b)
	if l.Model != nil && modeled(caps) {
		work += l.Model.Bytes(steps) // each worker refits the model
	}
	need.add(fmt.Sprintf("%.0f bootstrap workers' resampled copies of the data with workspaces", w), ByWorkers, w*(perCopy+8*n+work))
	need.add(fmt.Sprintf("%d replicates x %d estimators", iv.Replicates, len(caps)), ByReplicates, 8*float64(iv.Replicates)*float64(len(caps)))
	if iv.BCa {
		need.add(fmt.Sprintf("the BCa jackknife's %d episodes x %d estimators", b.N(), len(caps)), ByJackknife, 8*n*float64(len(caps)))
	}
	return need
}

// copyBytes bounds a resampled copy of b (trajectory.Batch.Resample):
// trajectory.Size, and the columns b carries beside rewards and ratios
// (the model's, the ids, the probabilities, the option structure), each
// doubled for append's slack, as Size counts it.
func copyBytes(b *trajectory.Batch) float64 {
	steps := float64(b.Steps())
	per := 0.0
	if b.HasModel() {
		per += 16
	}
	if b.HasIDs() {
		per += 8
	}
	if b.HasProbs() {
		per += 16
	}
	if b.HasOptionProbs() {
		per += 17
	}
	return trajectory.Size(float64(b.N()), steps) + 2*per*steps
}

// modeled reports whether some method of caps reads the data through the
// model.
func modeled(caps []Caps) bool {
	for _, c := range caps {
		if c.Needs&estimators.Model != 0 {
			return true
		}
	}
	return false
}

// LoggedModel returns the Model of logged data b: with observation and
// action ids (ids not nil) and without the model columns, the model of
// kind k fitted from the ids over the space of horizon h (SPEC 1f; the
// longest trajectory when h is 0); otherwise the data's own columns
// (Columns). fitted says which.
func LoggedModel(b *trajectory.Batch, ids *LoggedIDs, k models.Kind, h int) (m Model, fitted bool) {
	if ids == nil || b.HasModel() || !k.Learned() {
		return Columns{}, false
	}
	if h == 0 {
		h = b.Horizon()
	}
	return ModelOf(k, ids.Space(max(h, 1))), true
}
