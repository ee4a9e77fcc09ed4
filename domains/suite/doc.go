// Package suite is the tabular suite of issue 16: six domain kinds over
// finite-horizon tabular MDPs (envs/tabular), each built to stress one
// weakness of off-policy estimators. Importing it registers them from
// init through the tabular adapter (domains.RegisterTabular): randommdp
// (dense random MDPs), fewstates (policies that differ in a few states),
// gridworld (episode lengths that depend on the policy), sparse (rare,
// heavy-tailed rewards), credit (long-range credit assignment) and drift
// (rewards drifting with the step).
//
// Contract:
//   - Each domain's Build is a deterministic function of its parameters:
//     the random MDP and policies of an instance are drawn from their own
//     PCG stream, seeded by the `instance` parameter and a constant of the
//     domain (instanceRand), in a documented order, so the same parameters
//     give the same MDP, truth and data bit for bit.
//   - The adapter does the rest: validation and coverage, exact truth by
//     dynamic programming under gamma, exact model columns, allocation-free
//     sampling. The suite holds no truth code of its own.
//
// The package imports domains and envs/tabular only.
package suite
