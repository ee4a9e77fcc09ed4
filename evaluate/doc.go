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
//     columns (fitted on those n trajectories, or read from the batch);
//   - an external process (package experiments/run implements Method for
//     it): it reads the batch as collected, with gamma.
//
// An Evaluator is built from a Request once per series (it keeps its
// workspaces), states its memory need before anything is allocated
// (Evaluator.Need), checks that a batch has what its methods need
// (Evaluator.CheckData), and fills a Result: per method the values and
// diagnostics at every n, and the lower bounds of SPEC 1e computed on
// exactly the data of each estimate. Logged data adds bootstrap or BCa
// intervals (Single, whose Report is what `runexp estimate` prints).
//
// Adding a kind of estimator (observations and actions, SPEC 1f's mis, a
// cross-fitted model) is one more Method or Model implementation, never a
// branch here or in a caller. The package reads the estimators' registry
// and knows nothing of configs, domains, files or plots.
package evaluate
