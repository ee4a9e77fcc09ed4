// Package marginal holds the marginalized estimators of V(pi_e) of SPEC
// 1f (and issue 30's ih), which read the observation and action ids of every step
// (ErrNoIDs without them):
//   - mis: tabular, time-indexed marginalized importance sampling (Xie, Ma
//     & Wang 2019), a GridEstimator whose one pass serves every prefix;
//   - drl: finite-horizon double reinforcement learning (Kallus & Uehara
//     2020; docs/drl.md), cross-fitted on two folds with the series'
//     learned model of the other fold (models.CrossFit) and the marginal
//     state ratio of pi_e's distribution propagated through that model to
//     the fold's visit frequencies, times rho, reading pi_e from the rows
//     (ErrNoProbs without them);
//   - drl-mis: SPEC 1f's drl, the same with mis's unnormalised state
//     distribution ratios;
//   - ih: the tabular infinite-horizon estimator (Liu, Li, Tang & Zhou
//     2018): each step weighted by the least-squares ratio of the two
//     policies' stationary distributions over observations, from the ids
//     and the ratios (docs/estimators-ih.md).
//
// Each registers itself with package estimators from init, and follows
// its contract (see there); a warm estimator allocates nothing.
package marginal
