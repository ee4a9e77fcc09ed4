package evaluate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/membudget"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Interval asks for bootstrap intervals over trajectories: Replicates
// resamples with replacement, at level Confidence, each replicate from
// its own stream of Seed (estimators.Bootstrap); with BCa, bias-corrected
// and accelerated intervals (estimators.BootstrapBCa).
type Interval struct {
	Replicates int
	Confidence float64
	Seed       uint64
	BCa        bool
	// Named records the method's name in the report (it was asked for).
	Named bool
}

// Logged is a request on one batch of logged data (`runexp estimate`):
// the Request at the batch's own n, with intervals, a memory budget and
// the data's name for messages.
type Logged struct {
	Request
	// Have is the data the batch has beyond rewards and ratios.
	Have estimators.Data
	// Interval, when not nil, asks for bootstrap intervals.
	Interval *Interval
	// MaxMemory is the budget in bytes the evaluation may plan to use.
	MaxMemory float64
	// Where names the data in messages (a file, or standard input).
	Where string
	// IDs, when not nil, are the data's observation and action ids (SPEC
	// 1f): on data without the model columns, Check gives the request the
	// model fitted over them (Have should then hold estimators.Model).
	IDs *LoggedIDs
	// ModelName is the kind of the model fitted from the obs and action
	// columns (-model): a learned kind of package models' registry; ""
	// for models.Default.
	ModelName string
	// Horizon is the fitted model's H (-horizon; 0: the longest
	// trajectory); a trajectory longer than a positive Horizon is bad
	// input.
	Horizon int
}

// Check says what is wrong with l on b before anything is computed: a
// method the data cannot serve, too few trajectories for a method, a
// bound or the BCa jackknife, a bound no method has, or a need above
// the memory budget (errors marked as bad input, naming l.Where). Notes
// are what the user should know: a method equal to a simpler one for
// lack of data, a jackknife that costs more than the bootstrap.
func (l *Logged) Check(b *trajectory.Batch) (notes []string, err error) {
	if notes, err = l.fitModel(b); err != nil {
		return notes, err
	}
	n := b.N()
	caps := make([]Caps, len(l.Methods))
	for j, m := range l.Methods {
		c := m.Caps()
		caps[j] = c
		if why := DataProblem(c, l.Have, l.Where); why != "" {
			return notes, inputerr.Errorf("%s", why)
		}
		if n < c.MinN {
			return notes, inputerr.Errorf("%s: %s needs at least %d episodes, the data has %d", l.Where, c.Name, c.MinN, n)
		}
		if missing := c.Uses &^ l.Have; missing != 0 {
			notes = append(notes, fmt.Sprintf("the data has no %s, so %s equals %s", missing, c.Name, c.Without))
		}
	}
	if p := CheckBounds(caps, l.Bounds, n); p != nil {
		switch p.Kind {
		case Unsupported:
			return notes, inputerr.Errorf("-bounds %s: no estimator computed (%s) has the %s bound; it is computed for %s (-estimators)",
				p.Bound, strings.Join(namesOf(caps), ", "), p.Bound, strings.Join(p.Supporters, ", "))
		case TooFew:
			return notes, inputerr.Errorf("%s: the %s bound (-bounds) needs at least %d episodes, the data has %d", l.Where, p.Bound, p.MinN, n)
		default:
			return notes, inputerr.Errorf("-bounds: bound %q is unknown or repeated", p.Bound)
		}
	}
	if iv := l.Interval; iv != nil && iv.BCa {
		// estimators.BootstrapBCa: the delete-one jackknife runs each
		// estimator on n - 1 episodes
		for _, c := range caps {
			if n < max(c.MinN, 1)+1 {
				return notes, inputerr.Errorf("%s: -interval bca: the jackknife of %s needs at least %d episodes, the data has %d", l.Where, c.Name, max(c.MinN, 1)+1, n)
			}
		}
		if n > iv.Replicates {
			notes = append(notes, fmt.Sprintf("-interval bca runs %d jackknife estimates per estimator (one per episode) beside the %d bootstrap replicates", n, iv.Replicates))
		}
	}
	if need := l.Need(b); need.Bytes > l.MaxMemory {
		big := need.Largest()
		return notes, inputerr.Errorf("%s: the estimates need about %s of memory for the data's n = %d, H = %d, above the budget of %s (-max-memory): %s takes %s",
			l.Where, membudget.Format(need.Bytes), n, b.Horizon(), membudget.Format(l.MaxMemory), big.What, membudget.Format(big.Bytes))
	}
	return notes, nil
}

// Need is the memory of l on b beyond b itself: NeedOf at b's size, and
// with intervals, per bootstrap worker a resampled copy of b (with its
// model columns), its index and the workspaces again, the replicates'
// estimates, and with BCa the jackknife's n estimates per method and the
// estimates on b itself (the workspaces once more); the jackknife's n
// tasks share the workers with the replicates.
func (l *Logged) Need(b *trajectory.Batch) Need {
	caps := make([]Caps, len(l.Methods))
	for j, m := range l.Methods {
		caps[j] = m.Caps()
	}
	n, steps, h := float64(b.N()), float64(b.Steps()), float64(b.Horizon())
	need := NeedOf(l.Request, caps, n, steps, h)
	iv := l.Interval
	if iv == nil || iv.Replicates == 0 {
		return need
	}
	var work float64
	for _, c := range caps {
		work += c.memory(n, h)
	}
	tasks := iv.Replicates
	if iv.BCa {
		tasks += b.N()
	}
	w := float64(min(max(l.Workers, 1), tasks))
	perCopy := trajectory.Size(n, steps)
	if b.HasModel() {
		perCopy += 2 * 16 * steps
	}
	if fit, ok := l.Model.(*Fitted); ok && len(l.modeledNames()) > 0 {
		perCopy += 2 * 4 * steps // the ids
		work += fit.Bytes(steps) // each worker refits the model
	}
	need.add(fmt.Sprintf("%.0f bootstrap workers' resampled copies of the data with workspaces (-workers)", w), w*(perCopy+8*n+work))
	need.add(fmt.Sprintf("%d replicates x %d estimators (-bootstrap)", iv.Replicates, len(caps)), 8*float64(iv.Replicates)*float64(len(caps)))
	if iv.BCa {
		need.add(fmt.Sprintf("the BCa jackknife's %d episodes x %d estimators (-interval bca)", b.N(), len(caps)), 8*n*float64(len(caps))+work)
	}
	return need
}

// Run computes l on b, after Check: the lower bounds first (a return
// outside the range is bad input, found in one pass before the rest), the
// estimates, the intervals. A method or bound that fails is in the
// report with its error; the report's Err says how many did.
func (l *Logged) Run(b *trajectory.Batch) (*Report, error) {
	req := l.Request
	req.KeepGoing = true
	ev, err := New(req)
	if err != nil {
		return nil, err
	}
	grid := []int{b.N()}
	res := ev.NewResult(1)
	if err := ev.Evaluate(b, grid, &res); err != nil {
		var re *RangeError
		if errors.As(err, &re) {
			var disc trajectory.Discounted
			return nil, inputerr.Errorf("%s: %s", l.Where, outOfRangeText(disc.Of(b, req.gamma()), req.gamma(), l.Bounds, re))
		}
		return nil, err
	}
	rep := &Report{Episodes: b.N(), Steps: b.Steps(), Horizon: b.Horizon(), ess: estimators.ESS(b),
		caps: ev.Caps(), res: &res, kinds: l.Bounds, delta: l.Delta}
	if g := req.gamma(); g != 1 {
		rep.Gamma = &g
	}
	if len(l.Bounds) > 0 {
		rep.Delta = &rep.delta
		if len(NeedingRange(l.Bounds)) > 0 {
			rep.ReturnRange = &[2]float64{l.Lo, l.Hi}
		}
	}
	if iv := l.Interval; iv != nil && iv.Replicates > 0 {
		if rep.ivs, err = l.intervals(b, ev.Caps()); err != nil {
			return nil, err
		}
		rep.Bootstrap = &bootstrapJSON{Replicates: iv.Replicates, Confidence: iv.Confidence, Seed: iv.Seed}
		if iv.Named {
			rep.Bootstrap.Interval = "percentile"
			if iv.BCa {
				rep.Bootstrap.Interval = "bca"
			}
		}
		rep.bca = iv.BCa
	}
	rep.fill()
	return rep, nil
}

// intervals runs the bootstrap of l.Interval on b under gamma (SPEC 1c:
// resampling whole episodes keeps each step's index within its episode,
// so resampling the discounted data is discounting each replicate).
func (l *Logged) intervals(b *trajectory.Batch, caps []Caps) ([]estimators.Interval, error) {
	names := make([]string, len(caps))
	for j, c := range caps {
		if !c.Resamplable {
			return nil, fmt.Errorf("evaluate: %s cannot be rerun on bootstrap replicates", c.Name)
		}
		names[j] = c.Name
	}
	var disc trajectory.Discounted
	view := disc.Of(b, l.gamma())
	if fit, ok := l.Model.(*Fitted); ok {
		return l.fittedIntervals(b, caps, fit, view)
	}
	iv := l.Interval
	boot := estimators.Bootstrap
	if iv.BCa {
		boot = estimators.BootstrapBCa
	}
	return boot(view, names, iv.Replicates, iv.Confidence, iv.Seed, max(l.Workers, 1))
}

// outOfRangeText says which episode of b (under gamma) has a return
// outside the range of the bounds, after the RangeError re. Logged data
// keeps no episode ids, so the episode is named by its 0-based index in
// file order and its data records (one a step, 1-based, the header not
// counted).
func outOfRangeText(b *trajectory.Batch, gamma float64, bounds []string, re *RangeError) string {
	what := "return"
	if gamma != 1 {
		what = fmt.Sprintf("return discounted with gamma = %v", gamma)
	}
	for i := range b.N() {
		g := 0.0
		for _, r := range b.Reward[b.Offsets[i]:b.Offsets[i+1]] {
			g += r
		}
		if !(g >= re.Lo && g <= re.Hi) {
			return fmt.Sprintf("episode %d (0-based, in file order: data records %d to %d) has %s %v, outside -return-range [%v, %v], which the %s bound needs to hold every return",
				i, b.Offsets[i]+1, b.Offsets[i+1], what, g, re.Lo, re.Hi, strings.Join(NeedingRange(bounds), " and "))
		}
	}
	// the bound saw a return outside the range that this sum, in another
	// order, does not: its own words
	return fmt.Sprintf("-return-range [%v, %v]: %v", re.Lo, re.Hi, re.Err)
}

func namesOf(caps []Caps) []string {
	out := make([]string, len(caps))
	for j, c := range caps {
		out[j] = c.Name
	}
	return out
}
