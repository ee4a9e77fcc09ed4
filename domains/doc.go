// Package domains is the registry of the harness's domains: an environment
// with a behavior and an evaluation policy, ready to draw trajectories
// (Domain.Collect), together with everything known exactly about it: the
// evaluation policy's true value V(pi_e) and how it was obtained (Truth),
// and, where derived, closed forms of estimators' statistics (Moments).
// It holds the registry (Register, Lookup, Names, New), Spec, the
// interfaces a domain may implement (ModelDomain, ProbRecorder,
// OptionsRecorder), the paper's chain MDP, options chain and sub-episode
// MDP, and TabularSpec, the adapter that makes a domain kind of a
// finite-horizon tabular MDP (envs/tabular) with an exact truth.
//
// Contract:
//   - A Spec declares a domain kind: its parameters (name, kind, default,
//     range, meaning, and whether the default is an interpretation of the
//     paper, SPEC's "(interp.)"), how to build it and its truth. Help texts
//     and docs/reference.md are generated from these declarations.
//   - Domain kinds register themselves from init functions: this
//     package's own, and those of the packages under domains/ that hold
//     one family each (domains/taxi: the NoisyTaxi; domains/suite: the
//     tabular suite, through RegisterTabular). Names lists what the
//     program imports; experiments/config imports every such package, so
//     the harness sees them all. A name registered twice panics.
//   - Collect draws trajectories under the behavior policy into a
//     trajectory.Batch, with ratios against the evaluation policy, from the
//     given random stream only; it does not allocate once the batch has
//     grown (GrowColumns, GrowProbs and GrowOptionProbs make room for what
//     it records). Rollouts live in package policies, one loop per policy
//     family (tabular domains sample with envs/tabular's allocation-free
//     samplers): Collect calls that loop once, with a recorder struct
//     saying what to record (policies.PairRecord, policies.TaxiRecord;
//     zero after no Record or RecordProbs), so recording never changes
//     the draws.
//   - Each domain kind keeps its truth beside it: true values are closed
//     forms or exact dynamic programs (each Spec's TruthDoc says which),
//     and the exact models that ModelDomain records are handed to the
//     rollouts as policies.PairModel or policies.TaxiModel. Expensive
//     truths (Spec.CacheTruth) are cached on disk by package
//     domains/truthcache, which the harness calls; this package never
//     reads or writes a file.
//   - Closed forms speak of classes of estimators (ClassUnweighted,
//     ClassSelfNormalized, as package estimators classifies its entries),
//     never of estimator names.
//
// The package imports envs, policies, trajectory and models only: building
// a domain pulls in no config, estimator or plotting code.
package domains
