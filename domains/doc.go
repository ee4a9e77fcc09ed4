// Package domains is the registry of the harness's domains: an environment
// with a behavior and an evaluation policy, ready to draw trajectories
// (Domain.Collect), together with everything known exactly about it: the
// evaluation policy's true value V(pi_e) and how it was obtained (Truth),
// and, where derived, closed forms of estimators' statistics (Moments).
//
// Contract:
//   - A Spec declares a domain kind: its parameters (name, kind, default,
//     range, meaning, and whether the default is an interpretation of the
//     paper, SPEC's "(interp.)"), how to build it and its truth. Help texts
//     and docs/reference.md are generated from these declarations.
//   - Collect draws trajectories under the behavior policy into a
//     trajectory.Batch, with ratios against the evaluation policy, from the
//     given random stream only; it does not allocate once the batch has
//     grown. Rollouts live in package policies, one loop per policy family
//     (the tabular suite domains sample with envs/tabular's
//     allocation-free samplers in tabularDomain.Collect): Collect calls
//     that loop once, with a recorder struct saying what to record
//     (policies.PairRecord, policies.TaxiRecord; zero after no Record or
//     RecordProbs), so recording never changes the draws.
//   - Each domain kind keeps its truth beside it: true values are closed
//     forms or exact dynamic programs (each Spec's TruthDoc says which;
//     the taxi's exact DP, Monte Carlo cross-check and exact q values in
//     package domains/taxi), and the exact models that ModelDomain
//     records are handed to the rollouts as policies.PairModel or
//     policies.TaxiModel. Expensive truths (Spec.CacheTruth) are cached on
//     disk by package domains/truthcache, which the harness calls; this
//     package never reads or writes a file.
//   - Closed forms speak of classes of estimators (ClassUnweighted,
//     ClassSelfNormalized, as package estimators classifies its entries),
//     never of estimator names.
//
// The package imports envs, policies, trajectory, models and internal
// helpers only: building a domain pulls in no config, estimator or
// plotting code.
package domains
