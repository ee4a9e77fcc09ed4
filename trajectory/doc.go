// Package trajectory holds Batch, the one data type every estimator reads:
// n trajectories of varying length, stored flat (one slice per per-step field
// plus episode offsets) so that estimators stream memory and a Batch can be
// reused between trials without allocating.
//
// Per step a Batch carries the reward and what importance weights need:
//   - Ratio: the primitive ratio pi_e(a|o)/pi_b(a|o) of the logged action
//     (for options-based policies: of the action given the running option);
//   - OptionRatio: mu_e(o|s)/mu_b(o|s) on the first step of an option, 1 on
//     its later steps. A primitive step is a one-step option whose option
//     ratio is its action ratio (Add sets it so), which makes PDIS the special
//     case of options-PDIS (paper, Theorem 3);
//   - Changed: whether the running option's underlying policy differs between
//     behavior and evaluation (Theorem 3's \bar{O});
//   - Split: true on the last step of a part, where partitioned PDIS restarts
//     its weights (paper, Theorem 4; SPEC section 1);
//   - optionally, the model columns QHat and VHat of the doubly robust
//     estimators (SPEC 1d), and the observation and action ids Obs and
//     Action that a tabular model is fitted from.
//
// Discounted views a batch under a discount factor (SPEC 1c).
//
// A trajectory shorter than the batch's horizon is read as padded with steps
// of reward 0 and ratio 1 (SPEC, notation).
//
// The package knows nothing of environments, policies or estimators: a
// simulator and a log-file reader are both just producers of a Batch.
package trajectory
