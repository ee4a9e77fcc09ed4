// Package marginal holds the marginalized estimators of V(pi_e) of SPEC
// 1f, which read the observation and action ids of every step
// (ErrNoIDs without them):
//   - mis: tabular, time-indexed marginalized importance sampling (Xie, Ma
//     & Wang 2019), a GridEstimator whose one pass serves every prefix;
//   - drl: double reinforcement learning (Kallus & Uehara 2020),
//     cross-fitted on two folds with the `fitted` model of the other fold
//     (models.CrossFit) and mis's state distribution ratios, reading pi_e
//     from the rows (ErrNoProbs without them).
//
// Each registers itself with package estimators from init, and follows
// its contract (see there); a warm estimator allocates nothing.
package marginal
