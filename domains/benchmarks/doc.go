// Package benchmarks is the field's standard tabular benchmarks (issue
// 30): COBS's Graph and Graph-POMDP (Voloshin, Le, Jiang & Yue, "Empirical
// Study of Off-Policy Policy Evaluation for Reinforcement Learning",
// NeurIPS 2021 Datasets & Benchmarks, Appendix C) and Thomas & Brunskill's
// ModelWin and ModelFail ("Data-Efficient Off-Policy Policy Evaluation for
// Reinforcement Learning", ICML 2016), defined as BENCHMARKS B1 and B2
// state them. Importing it registers `graph`, `modelwin` and `modelfail`
// from init through the tabular adapter (domains.RegisterTabular).
//
// Contract:
//   - Each domain is one fixed MDP of its parameters (no `instance`): Build
//     is a deterministic function of them, and the adapter adds the exact
//     truth by dynamic programming under gamma, exact model columns,
//     probabilities and allocation-free sampling. The closed forms of B1
//     and B2 (GraphValue, ModelWinValue, ModelFailValue) are checked
//     against that dynamic program and against simulation by the tests.
//   - Graph-POMDP (obs_blocks >= 1) and ModelFail are POMDPs
//     (domains.TabularSpec.Observe): the recorded ids, and so every model
//     learned from them, see the observation only; dynamics, rewards, the
//     truth and the exact model use the latent state.
//   - Every episode lasts exactly its horizon, and every step's action,
//     the last included, has its ratio in the importance weights.
//
// The package imports domains and envs/tabular only.
package benchmarks
