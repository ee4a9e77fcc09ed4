// Package estimators is the core of the off-policy estimators of V(pi_e)
// from a trajectory.Batch drawn under a behavior policy: the Estimator
// interface and its registry (Info, Register, New, Lookup, All, Names,
// Defaults), what an entry says (Class, Data, Diagnostic and Reporter),
// the nested-grid protocol of SPEC 3 (GridEstimator, EstimateGrid), the
// per-trajectory terms the bounds of SPEC 1e read (Termer,
// ScaledReturner), the effective sample size (ESS), and the paper's plain
// importance-sampling family: ordinary and per-decision importance
// sampling (IS, PDIS), their weighted forms (WIS, CWPDIS), the options-based
// PDIS (Theorem 3) and partitioned PDIS (Theorem 4), exactly as SPEC
// section 1 defines them.
//
// The other families live in packages of one job each and register their
// entries from an init function: estimators/incris (INCRIS, paper
// Algorithm 1, as printed, SPEC 1b's incris-ld and issue 23's oracle),
// estimators/modelbased (SPEC 1d's dm, dr, wdr and magic, issue 24's reg,
// and adaptive, docs/adaptive.md) and estimators/marginal (SPEC 1f's mis
// and drl, from the observation and action ids). A program that names
// estimators imports the families it needs; package evaluate imports all
// three, so everything above it sees every estimator. Info.Rank, not the
// order the families load in, orders help texts and the defaults.
//
// Contract (every estimator of every family):
//   - Every estimator weights by the batch's per-step importance factors
//     (trajectory.Batch.Factors): the action ratio of a primitive step; on
//     options data the option ratio on an option's first step, 1 on its
//     later steps, times the action ratio inside options whose underlying
//     policy changed. So on options data IS, WIS, CWPDIS and INCRIS work
//     with option-level weights, and pdis and options-pdis are one
//     computation.
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
//     returns an error wrapping ErrNotRepresentable (Finite), never Inf or
//     NaN; too few trajectories, one wrapping ErrTooFew.
//   - A GridEstimator's estimates at the grid's prefixes are bit-identical
//     to Estimate on each prefix, errors included (named by GridError).
//   - An Estimator reuses its workspace between calls and is not safe for
//     concurrent use: give each goroutine its own (New is cheap). The
//     workspace it allocates is within its entry's Memory bound at the
//     data's Shape, and, on the data the harness's domains draw, at least
//     half of it wherever the bound reaches 256 KiB.
//   - The registry entry is complete: formula, source, class, the data it
//     needs and uses, its diagnostics and bounds, its memory bound (tests
//     in this package check every family's entries).
//
// Lower bounds and intervals (SPEC 1e): the bounds an estimator has are
// on its registry entry (Info.Bounds); package evaluate computes them from
// its terms (Termer for the t bound, ScaledReturner for HCOPE) with
// estimators/confidence's arithmetic, and bootstrap intervals over any
// estimator.
//
// The package knows nothing of environments, configs or plots.
package estimators
