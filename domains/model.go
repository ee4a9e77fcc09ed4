package domains

import "github.com/ope-lab/longhorizon/models"

// ModelDomain is implemented by domains whose policies are primitive and
// that can supply the model columns of SPEC 1d: observation and action ids
// for a fitted tabular model (package models), and the true q of pi_e for
// the exact model, a reference line.
type ModelDomain interface {
	Domain
	// Space returns the observation and action ids the domain records,
	// pi_e on them and the horizon (or cap) of its episodes.
	Space() models.Space
	// Record sets what the following Collect calls record on every step
	// besides rewards and ratios: with ids, the observation and action ids
	// (trajectory.Batch.AddIDs); with exact, the true q_hat and v_hat of
	// pi_e under the domain's gamma (Batch.AddModel): q_hat_t = the
	// expected discounted return from step t on, r_t included, given the
	// hidden state and action of step t; v_hat_t = sum_a pi_e(a|o_t)
	// q(state_t, a), o_t the observation pi_e acted on.
	Record(ids, exact bool)
}

// ProbRecorder is implemented by domains that can record, on every step
// they collect, the behavior's and the evaluation policy's probabilities
// of the logged action (trajectory.Batch.AddProbs): what a logged-data
// file holds in its pi_b and pi_e columns. The recorded probabilities
// reproduce the step's ratio bit for bit: float64(pi_e)/float64(pi_b) ==
// ratio. Recording draws no random number, so the trajectories, rewards
// and ratios are the same with or without it.
type ProbRecorder interface {
	Domain
	// RecordProbs sets whether the following Collect calls record the
	// probabilities. It returns an error, and records nothing, when the
	// domain's data are not primitive (options data, whose logged-data
	// form needs the option columns).
	RecordProbs(on bool) error
}
