// Package evaluate is the evaluation layer: the one answer, for both
// producers of batches (a simulated unit of `runexp run`, a user's log read
// by `runexp estimate`), to "these estimators, on this batch, at these n,
// under this gamma, with these bounds and intervals: what are the numbers,
// and how much memory will it take?"
//
// Every estimator sits behind one interface, Method, whatever its kind:
//   - a registry formula (Registry): reads the batch under gamma (SPEC 1c),
//     at every n of the grid in one pass where it can;
//   - an estimator needing a model (SPEC 1d: its registry entry Needs
//     estimators.Model): the same Method, whose data at each n first goes
//     through the request's Model, a batch transform that adds the model
//     columns: a learned kind of package models' registry fitted on those
//     n trajectories (ModelOf, Fitted), or the batch's own (Columns);
//   - an external process (package external): it reads the batch as
//     collected, with gamma.
//
// What a method can do beyond its estimate is an optional interface, read
// by the driver, never a branch on a name (gonum's Method and Needser are
// the model): a Termer has per-trajectory terms (the t bound of SPEC 1e),
// a ScaledReturner scaled returns (HCOPE), a Resampler can be rerun on
// bootstrap replicates with its own memory.
//
// An Evaluator is built from a Request once per series (it keeps its
// workspaces), states its memory need before anything is allocated
// (Evaluator.Need, NeedOf: each part names the setting that sizes it),
// and fills a Result: per method the values and diagnostics at every n,
// and the lower bounds of SPEC 1e computed on exactly the data of each
// estimate. Bootstrap reruns a request on resampled trajectories
// (percentile or BCa intervals, package estimators/confidence's
// arithmetic), a learned model refitted on every replicate; Logged is a
// request on one batch of logged data with its intervals.
//
// The package computes; it parses no flag and prints nothing (runexp's
// commands do). Adding a kind of estimator or of model is one more Method
// or model kind, never a branch here or in a caller. It reads the
// estimators' and the models' registries and knows nothing of configs,
// domains, files or plots.
package evaluate
