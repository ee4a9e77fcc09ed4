// Package marginal holds the marginalized estimators of V(pi_e) of SPEC
// 1f (and issue 30's ih), which read the observation and action ids of every step
// (ErrNoIDs without them):
//   - mis: tabular, time-indexed marginalized importance sampling (Xie, Ma
//     & Wang 2019), a GridEstimator whose one pass serves every prefix;
//   - drl: double reinforcement learning (Kallus & Uehara 2020),
//     cross-fitted on two folds with the `fitted` model of the other fold
//     (models.CrossFit) and mis's state distribution ratios, reading pi_e
//     from the rows (ErrNoProbs without them);
//   - ih: the tabular infinite-horizon estimator (Liu, Li, Tang & Zhou
//     2018): each step weighted by the least-squares ratio of the two
//     policies' stationary distributions over observations, from the ids
//     and the ratios (docs/estimators-ih.md).
//
// Each registers itself with package estimators from init, and follows
// its contract (see there); a warm estimator allocates nothing.
package marginal
