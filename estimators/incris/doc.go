// Package incris holds the INCRIS family of estimators of V(pi_e): the
// estimators that choose, per step t, how many of the most recent
// importance ratios to keep (k*, reported as the diagnostic "kstar"):
//   - incris: Incremental Importance Sampling (paper, Algorithm 1, SPEC 1),
//     k* = argmin_k C_k^2 + V_k with V_k the variance of the mean;
//   - incris-printed: Algorithm 1 as printed (V_k without the 1/n);
//   - incris-ld and incris-ld-noguard (SPEC 1b): one-ratio increment tests
//     then a Lepski comparison, with and without the no-power guard;
//   - incris-oracle (issue 23): INCRIS's selection fed the exact MSE of
//     each k from the data's exact moments (trajectory.Batch.Moments);
//   - incris-sn (issue 31, docs/incris-sn.md): INCRIS's selection made on
//     self-normalised window estimates with their delta-method variance;
//   - window-K and window-sn-K (issue 31): fixed windows of the K most
//     recent ratios, plain and self-normalised per step, from which the
//     best window in hindsight is read.
//
// Each registers itself with package estimators from init, and follows
// its contract (see there); INCRIS and INCRISLD are GridEstimators whose
// grid estimates are bit-identical to Estimate on each prefix, and report
// k* at every grid point (GridReporter).
//
// The hot inner loops are in the internal package kernel: INCRIS's wide
// path adds blocks of trajectories to four (or eight) rows of co-moments
// at a time, and incris-ld's pass four lags at a time, with AVX2 and
// AVX-512 assembly where the CPU has them and pure-Go twins of the same
// operations in the same order elsewhere (-tags noasm, gccgo, other
// GOARCHes). Every path gives the same bits: the choice changes the speed,
// never an estimate.
package incris
