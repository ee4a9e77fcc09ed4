// Package taxi is the NoisyTaxi domain of Experiments 1 and 2 (SPEC 2.3)
// with everything known exactly about it. Importing it registers the
// domain kind "noisytaxi" (domains.Register, from init): the partially
// observable 5x5 Taxi of envs/noisytaxi under epsilon-greedy options
// policies of option length m (policies.TaxiRollout).
//
// Contract:
//   - The true value V(pi_e) is exact: finite-horizon dynamic programming
//     over (hidden state, option state, steps left), the observation
//     noise averaged per hidden state (ExactValue), with a deterministic
//     Monte Carlo cross-check (MonteCarlo: seeded by a fixed constant and
//     the chunk index, so the same whatever the workers) recorded in
//     meta.json. Its Spec asks for the truth cache (CacheTruth; package
//     domains/truthcache); the numbers are those of the committed results
//     bit for bit.
//   - With option_length 1 the domain is a domains.ModelDomain: its exact
//     model is Q, the action values of the primitive evaluation policy
//     from the same recursion in the same floating-point operations,
//     handed to the rollout as a policies.TaxiModel. It records the
//     policies' probabilities (domains.ProbRecorder) and, with options,
//     the option structure (domains.OptionsRecorder). Recording draws no
//     random number.
//   - Rewards stay undiscounted in the batch; gamma (SPEC 1c) changes the
//     truth, the cross-check and the exact model only.
//
// The package imports domains, envs/noisytaxi, policies, models,
// trajectory and internal helpers: no config, estimator or plotting code.
package taxi
