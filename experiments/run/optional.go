package run

import (
	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments/config"
)

// recordable is the data of SPEC 1f a domain records on request: the
// observation and action ids and the action probabilities.
const recordable = estimators.IDs | estimators.Probs

// optionalData returns the data of SPEC 1f (ids, probabilities) that the
// series' estimators use without needing it (estimators.Info.Uses beyond
// Info.Needs: without it they equal Info.Without) and that domain d,
// built for the series, can supply: ids where DomainColumns says it has
// them (a domains.ModelDomain on primitive data), probabilities where it
// is a domains.ProbRecorder. It is read from
// the registry entries alone, never from a name. An estimator's optional
// data is recorded as a whole or not at all: data it can only use
// together (adaptive's version 3 reads ids and pi_e) is not recorded in
// part. What the estimators need (config.Series.Needs) is not included:
// the config check refuses domains that cannot supply it. It changes
// nothing in d.
func optionalData(rs *config.Series, d domains.Domain) estimators.Data {
	needs := rs.Needs()
	var out estimators.Data
	for _, name := range rs.Estimators {
		info, ok := rs.Info(name)
		if !ok {
			continue
		}
		if want := info.Uses &^ needs & recordable; want != 0 && canRecord(rs, d, want) == want {
			out |= want
		}
	}
	return out
}

// canRecord returns the part of want (recordable data) that domain d of
// series rs can record.
func canRecord(rs *config.Series, d domains.Domain, want estimators.Data) estimators.Data {
	var can estimators.Data
	if want&estimators.IDs != 0 && DomainColumns(rs, d).IDs {
		can |= estimators.IDs
	}
	if want&estimators.Probs != 0 {
		if _, ok := d.(domains.ProbRecorder); ok {
			can |= estimators.Probs
		}
	}
	return can
}

// recordedUpTo bounds, without building the domain, the data of SPEC 1f
// that series rs's domain records: what its estimators need, and what
// they use without needing it where the domain kind can supply ids
// (domains.Spec.Models accepts the series' parameters, the config's test
// for ids), the probabilities then too.
func recordedUpTo(rs *config.Series) estimators.Data {
	rec := rs.Needs() & recordable
	spec := rs.Spec()
	if spec == nil || spec.Models == nil || spec.Models(rs.Params) != nil {
		return rec
	}
	for _, name := range rs.Estimators {
		if info, ok := rs.Info(name); ok {
			rec |= info.Uses & recordable
		}
	}
	return rec
}
