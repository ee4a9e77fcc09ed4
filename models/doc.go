// Package models supplies the model columns q_hat and v_hat of SPEC 1d
// that the model-based and doubly robust estimators (dm, dr, wdr, magic,
// reg) read: a tabular maximum-likelihood model over (observation, action),
// fitted on the data set it serves and evaluated by finite-horizon dynamic
// programming (Fitter, the `fitted` model), or the same indexed by the
// step t, evaluated by backward induction over t (TimeFitter, the
// `fitted-t` model: right on domains Markov in (t, observation)). FQE and
// TraceLearner are the Q-function learners of the field's benchmarks
// (`fqe`, `retrace`, `q-pi-lambda`, `tree-backup`), with `fitted`'s
// conventions; docs/models.md defines them and what their tests show.
//
// A Space describes what a tabular model is over: observation and action
// ids, the evaluation policy pi_e(a|o) and the horizon the dynamic program
// runs to. Domains with primitive policies supply one; the package knows
// nothing of environments or estimators, only of trajectory.Batch.
//
// Fitter.Fit reads undiscounted rewards and writes each step's values
// discounted to that step; the factor gamma^(t-1) that discounts them to
// the episode's start is applied afterwards, with the rewards', by
// trajectory.Discounted (SPEC 1c). FitBytes (TimeFitBytes) bounds the memory of a fit
// from the batch's steps and the ids' ranges, CrossFitBytes that of a
// cross-fitting, so that a caller can refuse one before it starts.
//
// A trajectory's last step is counted as "episode ended" whether the
// episode ended or was cut at the horizon: on a domain whose episodes are
// cut, the time-homogeneous model sees an ending where there was none, at
// visits whose outcome no later value reads (no steps are left after
// them) but which still weigh in P(.|o, a) at every other step.
package models
