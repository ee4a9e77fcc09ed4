package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/evaluate"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/membudget"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// estimateJob is one `runexp estimate`: the evaluation layer's request on
// the logged data (evaluate.Logged) and what the command knows besides,
// for its checks and messages, which name its flags.
type estimateJob struct {
	evaluate.Logged
	// have is the data the file has beyond rewards and ratios; where
	// names it in messages (the file, or standard input).
	have  estimators.Data
	where string
	// ids are the data's observation and action ids (SPEC 1f), nil
	// without the obs and action columns.
	ids *evaluate.LoggedIDs
	// kind is -model, horizon -horizon (0: the longest episode).
	kind    models.Kind
	horizon int
	// essWarn is -ess-warn: the fraction of the episodes below which an
	// effective sample size is warned about (0: never).
	essWarn float64
	// maxMemory is -max-memory in bytes.
	maxMemory float64
	// intervalNamed says that -interval was given (the JSON then names
	// the method of the intervals).
	intervalNamed bool
}

// setData gives j the data it runs on: what the data has beyond rewards
// and ratios, its name for messages, and the methods: names (known keys),
// or the registry's defaults that the data supports when names is nil.
func (j *estimateJob) setData(have estimators.Data, where string, names []string) {
	j.have, j.where = have, where
	if names == nil {
		names = evaluate.Defaults(have)
	}
	j.Methods = j.Methods[:0]
	for _, n := range names {
		m, _ := evaluate.RegistryModel(n, j.kind.Name) // parseEstimators knows n; adaptive fits -model's kind
		j.Methods = append(j.Methods, m)
	}
}

// setIDs gives j the pi_e table over the observation and action ids of
// the policy p it estimates (none without the id columns): the data's, or
// -policy-table's.
func (j *estimateJob) setIDs(p policyView) {
	j.ids = nil
	if ids := p.ids; ids != nil {
		j.ids = &evaluate.LoggedIDs{Obs: ids.Obs, Actions: ids.Actions, PiE: ids.PiE}
		if p.table != nil {
			j.ids.PiE = p.table.PiE
		}
	}
}

// setModel gives j its model on b, before anything is computed: with ids
// and without the model columns, the model of kind -model fitted over the
// ids with horizon -horizon (evaluate.LoggedModel, SPEC 1f); otherwise
// the columns of the data. An episode longer than -horizon is bad input.
func (j *estimateJob) setModel(b *trajectory.Batch) (notes []string, err error) {
	if j.horizon > 0 {
		for i := range b.N() {
			if b.Len(i) > j.horizon {
				return nil, inputerr.Errorf("%s: episode %d (0-based, in file order: data records %d to %d) has %d steps, more than -horizon %d",
					j.where, i, b.Offsets[i]+1, b.Offsets[i+1], b.Len(i), j.horizon)
			}
		}
	}
	var fitted bool
	j.Model, fitted = evaluate.LoggedModel(b, j.ids, j.kind, j.horizon)
	if !fitted {
		why := "the data has q_hat and v_hat, or no obs and action"
		if j.horizon > 0 {
			notes = append(notes, "-horizon is the horizon of the model fitted from the obs and action columns, and none is fitted ("+why+")")
		}
		if j.kind.Name != models.Default {
			notes = append(notes, fmt.Sprintf("-model %s chooses the model fitted from the obs and action columns, and none is fitted (%s)", j.kind.Name, why))
		}
	}
	return notes, nil
}

// check says what is wrong with j on b before anything is computed: a
// method the data cannot serve, too few episodes for a method, a bound or
// the BCa jackknife, a bound no method has, or a need above the memory
// budget (errors marked as bad input, naming the file or the flag). Notes
// are what the user should know: a method equal to a simpler one for
// lack of data, a jackknife that costs more than the bootstrap.
func (j *estimateJob) check(b *trajectory.Batch) (notes []string, err error) {
	if notes, err = j.setModel(b); err != nil {
		return notes, err
	}
	n := b.N()
	caps := make([]evaluate.Caps, len(j.Methods))
	for k, m := range j.Methods {
		c := m.Caps()
		caps[k] = c
		if why := evaluate.DataProblem(c, j.have, j.where); why != "" {
			if c.Needs&estimators.Model != 0 && j.have&(estimators.Model|estimators.Options) == 0 {
				why += modelWays
			}
			return notes, inputerr.Errorf("%s", why)
		}
		if n < c.MinN {
			return notes, inputerr.Errorf("%s: %s needs at least %d episodes, the data has %d", j.where, c.Name, c.MinN, n)
		}
		if missing := c.Uses &^ j.have; missing != 0 {
			notes = append(notes, fmt.Sprintf("the data has no %s, so %s equals %s", missing, c.Name, c.Without))
		}
	}
	if p := evaluate.CheckBounds(caps, j.Bounds, n); p != nil {
		switch p.Kind {
		case evaluate.Unsupported:
			return notes, inputerr.Errorf("-bounds %s: no estimator computed (%s) has the %s bound; it is computed for %s (-estimators)",
				p.Bound, strings.Join(namesOf(caps), ", "), p.Bound, strings.Join(p.Supporters, ", "))
		case evaluate.TooFew:
			return notes, inputerr.Errorf("%s: the %s bound (-bounds) needs at least %d episodes, the data has %d", j.where, p.Bound, p.MinN, n)
		default:
			return notes, inputerr.Errorf("-bounds: bound %q is unknown or repeated", p.Bound)
		}
	}
	if iv := j.Intervals; iv != nil && iv.BCa {
		// the delete-one jackknife runs each estimator on n - 1 episodes
		for _, c := range caps {
			if n < max(c.MinN, 1)+1 {
				return notes, inputerr.Errorf("%s: -interval bca: the jackknife of %s needs at least %d episodes, the data has %d", j.where, c.Name, max(c.MinN, 1)+1, n)
			}
		}
		if n > iv.Replicates {
			notes = append(notes, fmt.Sprintf("-interval bca runs %d jackknife estimates per estimator (one per episode) beside the %d bootstrap replicates", n, iv.Replicates))
		}
	}
	if need := j.Need(b); need.Bytes > j.maxMemory {
		big := need.Largest()
		what := big.What
		if f := sizeFlags[big.By]; f != "" {
			what += " (" + f + ")"
		}
		return notes, inputerr.Errorf("%s: the estimates need about %s of memory for the data's n = %d, H = %d, above the budget of %s (-max-memory): %s takes %s",
			j.where, membudget.Format(need.Bytes), n, b.Horizon(), membudget.Format(j.maxMemory), what, membudget.Format(big.Bytes))
	}
	return notes, nil
}

// modelWays ends the refusal of a model estimator on data without a
// model: the two ways to give it one.
const modelWays = "; give it a model either way: the columns q_hat and v_hat (a model of your own), " +
	"or the id columns obs and action, from which the model of kind -model is fitted (docs/estimate/models.md)"

// sizeFlags names the flag behind each setting that sizes an estimate's
// memory (evaluate.Part.By), for the memory budget's refusal.
var sizeFlags = map[evaluate.Setting]string{
	evaluate.ByMethods:    "-estimators",
	evaluate.ByModel:      "-model, -horizon",
	evaluate.ByBounds:     "-bounds",
	evaluate.ByGamma:      "-gamma",
	evaluate.ByReplicates: "-bootstrap",
	evaluate.ByWorkers:    "-workers",
	evaluate.ByJackknife:  "-interval bca",
}

// run computes j on b (after check) and returns its report. A return
// outside -return-range is bad input naming the episode.
func (j *estimateJob) run(b *trajectory.Batch) (*estimateReport, error) {
	res, err := j.Run(b)
	if err != nil {
		var re *evaluate.RangeError
		if errors.As(err, &re) {
			gamma := j.Gamma
			if gamma == 0 {
				gamma = 1
			}
			var disc trajectory.Discounted
			return nil, inputerr.Errorf("%s: %s", j.where, outOfRangeText(disc.Of(b, gamma), gamma, j.Bounds, re))
		}
		return nil, err
	}
	return newEstimateReport(j, b, res), nil
}

// outOfRangeText says which episode of b (under gamma) has a return
// outside the range of the bounds, after the RangeError re. Logged data
// keeps no episode ids, so the episode is named by its 0-based index in
// file order and its data records (one a step, 1-based, the header not
// counted).
func outOfRangeText(b *trajectory.Batch, gamma float64, bounds []string, re *evaluate.RangeError) string {
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
				i, b.Offsets[i]+1, b.Offsets[i+1], what, g, re.Lo, re.Hi, strings.Join(evaluate.NeedingRange(bounds), " and "))
		}
	}
	// the bound saw a return outside the range that this sum, in another
	// order, does not: its own words
	return fmt.Sprintf("-return-range [%v, %v]: %v", re.Lo, re.Hi, re.Err)
}

func namesOf(caps []evaluate.Caps) []string {
	out := make([]string, len(caps))
	for j, c := range caps {
		out[j] = c.Name
	}
	return out
}
