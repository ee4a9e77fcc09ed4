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
	// domain cannot record them; on options data (OptionsRecorder) it also
	// records the option structure.
	RecordProbs(on bool) error
}

// OptionsRecorder is implemented by ProbRecorders whose data can be
// options data (options-pdis, SPEC 1): recording probabilities
// (RecordProbs), they record on every step, besides pi_b and pi_e of the
// action given the running option (trajectory.Batch.AddProbs), the option
// structure (trajectory.Batch.AddOptionProbs): whether the step starts an
// option, and mu_b and mu_e of the running option. These are what the
// logged-data format's option columns hold (option_start, mu_b, mu_e; the
// changed flag, already in every batch, is option_changed): read back, the
// ratios pi_e/pi_b and the option ratios mu_e/mu_b are the recorded ones
// bit for bit, and so are the per-step factors (trajectory.Batch.Factors)
// every estimator weights by.
type OptionsRecorder interface {
	ProbRecorder
	// OptionColumns reports whether the domain's data are options data
	// (whose logged-data form needs the option columns option_start,
	// mu_b and mu_e), and whether some of its options can have an
	// underlying policy that differs between behavior and evaluation
	// (the option_changed column).
	OptionColumns() (options, changed bool)
}
