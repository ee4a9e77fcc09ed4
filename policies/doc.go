// Package policies holds the behavior and evaluation policies of the
// paper's domains. Every policy can report the probability of any action
// (what importance weights need) and sample an action from a uniform draw
// or a random stream.
//
// Policies read observations of the envs packages; they know nothing of
// estimators or experiments.
package policies
