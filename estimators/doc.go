// Package estimators computes off-policy estimates of V(pi_e) from a
// trajectory.Batch drawn under a behavior policy: ordinary and per-decision
// importance sampling (IS, PDIS), their weighted forms (WIS, CWPDIS), the
// paper's options-based PDIS (Theorem 3), partitioned PDIS (Theorem 4) and
// Incremental Importance Sampling (INCRIS, Algorithm 1), exactly as
// SPEC section 1 defines them; beyond the paper, incris-ld (SPEC 1b) and
// the model-based and doubly robust estimators dm, dr, wdr and magic (SPEC
// 1d) and reg (dr's control variate with a variance-optimal coefficient,
// issue 24), which read the model columns q_hat and v_hat of the batch (dm
// uses the model alone, no weights), mis and drl (SPEC 1f, from the
// observation and action ids), and adaptive (docs/adaptive.md): version
// 3, on primitive data with ids, a MAGIC-style blend of CWPDIS,
// cross-fitted WDR, their REG point and WIS whose bias terms are measured
// against cross-fitted DR; otherwise version 2, a blend of windowed CWPDIS
// estimates anchored on CWPDIS.
//
// Contract:
//   - Every estimator weights by the batch's per-step importance factors
//     (trajectory.Batch.Factors): the action ratio of a primitive step; on
//     options data the option ratio on an option's first step, 1 on its
//     later steps, times the action ratio inside options whose underlying
//     policy changed. So on options data IS, WIS, CWPDIS and INCRIS work with
//     option-level weights, and pdis and options-pdis are one computation.
//   - Undiscounted formulas: a discount factor is applied to the batch
//     before estimation (trajectory.Discounted, SPEC 1c), so every formula
//     holds unchanged for the discounted rewards and model columns.
//   - A trajectory shorter than the batch's horizon is padded with steps of
//     reward 0, ratio 1 and q_hat = v_hat = 0, literally: per-step
//     normalisers (CWPDIS) and covariances (INCRIS) run over all n
//     trajectories, those already ended included.
//   - 0/0 is 0: a weighted estimator whose weights are all zero returns 0.
//   - Importance weights never silently overflow or underflow. Products are
//     computed in float64 while they stay normal; when one would not, the
//     weighted and unweighted sums are recomputed with a per-column binary
//     scale (mantissa and exponent), which leaves self-normalised estimates
//     exact. An estimate that is itself not representable as a float64
//     returns an error wrapping ErrNotRepresentable, never Inf or NaN.
//   - An Estimator reuses its workspace between calls and is not safe for
//     concurrent use: give each goroutine its own (New is cheap).
//
// Lower bounds and intervals (SPEC 1e): LowerBound computes the `t` bound
// for is, pdis and dr and the `hcope` bound for is (the bounds an
// estimator has are on its registry entry, Info.Bounds); Bootstrap gives
// percentile intervals and BootstrapBCa bias-corrected and accelerated
// ones.
//
// The package knows nothing of environments, configs or plots.
package estimators
