package run

import (
	"fmt"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/evaluate"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/models"
)

// recording is what a series' domain records on every step beside rewards
// and ratios (SPEC 1f): observation and action ids, the exact model's
// columns, the action probabilities.
type recording struct {
	ids, exact, probs bool
}

// setup is what series rs asks of its domain and of the evaluation layer,
// decided in one place (setupOf) from the validated series alone: its
// estimators' registry entries, its model's kind, its bounds, gamma, and
// what its domain can supply (config.Series.Supply, read when the config
// was validated). The worker, the memory need, the trial files of
// external estimators and runexp export all read it; none decides any of
// it again.
type setup struct {
	// rec is what the domain records.
	rec recording
	// kind is the model's registry entry, when an estimator needs the
	// model (modeled).
	kind    models.Kind
	modeled bool
	// req is the request without its methods and model, which a worker
	// makes (they keep workspaces): gamma, bounds, delta, range.
	req evaluate.Request
	// caps are the capabilities of the series' registry estimators (an
	// external estimator's memory is its own process's).
	caps []evaluate.Caps
	// files are the columns of the series' data sets written as logged
	// data (external estimators, runexp export), where hasFiles.
	files    logdata.Columns
	hasFiles bool
}

// setupOf decides series rs's setup under plan p (its delta). What the
// domain records is the union of what the estimators need (ids for a
// learned model or an estimator reading them, the exact model's columns,
// the probabilities), what they use without needing it where the domain
// can supply it (optionalData: recorded as a whole or not at all), and
// for external estimators all that the logged-data format holds.
func setupOf(p *config.Plan, rs *config.Series) setup {
	sup := rs.Supply()
	st := setup{req: evaluate.Request{Gamma: rs.Gamma(), Bounds: rs.Bounds, Delta: p.Delta}}
	st.req.Lo, st.req.Hi, _ = rs.Range()
	for _, name := range rs.Estimators {
		if rs.ExternalOf(name) == nil {
			info, _ := estimators.Lookup(name)
			st.caps = append(st.caps, evaluate.CapsFor(info, rs.Model))
		}
	}
	needs := rs.Needs()
	want := needs | optionalData(rs, sup)
	st.kind, st.modeled = rs.ModelKind()
	st.modeled = st.modeled && needs&estimators.Model != 0
	st.hasFiles = rs.HasExternal()
	st.rec = recording{
		ids:   want&estimators.IDs != 0 || st.modeled && st.kind.Needs&models.IDs != 0 || st.hasFiles && sup.IDs,
		exact: st.modeled && st.kind.Needs&models.ExactQ != 0,
		probs: want&estimators.Probs != 0 || st.hasFiles,
	}
	st.files = logdata.Columns{Split: splits(rs.Spec()), Model: st.rec.exact, IDs: sup.IDs,
		Options: sup.Options, Changed: sup.Changed}
	return st
}

// forFiles returns st for data sets written as logged data (runexp
// export): recording all that the format holds.
func (st setup) forFiles(sup domains.Supply) setup {
	st.hasFiles = true
	st.rec.ids = st.rec.ids || sup.IDs
	st.rec.probs = true
	return st
}

// splits reports whether domains of spec mark split points.
func splits(spec *domains.Spec) bool { return spec.Splits != "" && spec.Splits != "none" }

// apply tells domain d, built for series rs, what to record. The config
// check has refused a domain that cannot supply what the series needs;
// an error here is a plan that skipped it.
func (st *setup) apply(rs *config.Series, d domains.Domain) error {
	if st.rec.ids || st.rec.exact {
		md, ok := d.(domains.ModelDomain)
		if !ok {
			return fmt.Errorf("series %s: domain %s supplies no model and no ids", rs.Name, rs.Domain)
		}
		md.Record(st.rec.ids, st.rec.exact)
	}
	if st.rec.probs {
		pr, ok := d.(domains.ProbRecorder)
		if !ok {
			return inputerr.Errorf("series %s: domain %s records no action probabilities: its data sets cannot be written as logged data", rs.Name, rs.Domain)
		}
		if err := pr.RecordProbs(true); err != nil {
			return inputerr.Errorf("series %s: %v", rs.Name, err)
		}
	}
	return nil
}

// model returns the request's Model for a domain with space sp: the
// columns the domain records (the exact model) or the learned kind
// fitted on each data set, in a worker's memory *fitted (kept across
// series of the same kind, so that moving between them reallocates
// nothing); nil when no estimator needs one.
func (st *setup) model(sp func() models.Space, fitted *evaluate.Fitted) evaluate.Model {
	if !st.modeled {
		return nil
	}
	if !st.kind.Learned() {
		return evaluate.Columns{}
	}
	if fitted.Kind.Name != st.kind.Name {
		*fitted = evaluate.Fitted{Kind: st.kind}
	}
	fitted.Space = sp()
	return fitted
}

// recordable is the data of SPEC 1f a domain records on request: the
// observation and action ids and the action probabilities.
const recordable = estimators.IDs | estimators.Probs

// optionalData returns the data of SPEC 1f (ids, probabilities) that the
// series' estimators use without needing it (estimators.Info.Uses beyond
// Info.Needs: without it they equal Info.Without) and that the series'
// domain can supply (sup). It is read from the registry entries alone,
// never from a name. An estimator's optional data is recorded as a whole
// or not at all: data it can only use together (adaptive's version 3
// reads ids and pi_e) is not recorded in part. What the estimators need
// (config.Series.Needs) is not included: the config check refuses domains
// that cannot supply it.
func optionalData(rs *config.Series, sup domains.Supply) estimators.Data {
	needs := rs.Needs()
	var can estimators.Data
	if sup.IDs {
		can |= estimators.IDs
	}
	if sup.Probs {
		can |= estimators.Probs
	}
	var out estimators.Data
	for _, name := range rs.Estimators {
		info, ok := rs.Info(name)
		if !ok {
			continue
		}
		if want := info.Uses &^ needs & recordable; want != 0 && can&want == want {
			out |= want
		}
	}
	return out
}
