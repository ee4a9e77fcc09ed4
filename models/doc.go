// Package models supplies the model columns q_hat and v_hat of SPEC 1d
// that the model-based and doubly robust estimators (dm, dr, wdr, magic)
// read: a tabular maximum-likelihood model over (observation, action),
// fitted on the data set it serves and evaluated by finite-horizon dynamic
// programming (Fitter).
//
// A Space describes what a tabular model is over: observation and action
// ids, the evaluation policy pi_e(a|o) and the horizon the dynamic program
// runs to. Domains with primitive policies supply one; the package knows
// nothing of environments or estimators, only of trajectory.Batch.
package models
