// Package modelbased holds the model-based and doubly robust estimators of
// V(pi_e), which read the model columns q_hat and v_hat of a batch (SPEC
// 1d; ErrNoModel without them) or fit a model themselves:
//   - dm, the direct method: the model alone, no weights;
//   - dr (Jiang & Li 2016), with its per-trajectory terms for the t bound
//     (a Termer);
//   - wdr (Thomas & Brunskill 2016), with per-step normalised weights;
//   - magic (Thomas & Brunskill 2016, Algorithm 1), a blend of the
//     off-policy j-step returns by an exact simplex solver (reporting its
//     weights, "magic_x");
//   - reg (issue 24): dr's control variate with a variance-optimal
//     coefficient ("reg_beta");
//   - adaptive (docs/adaptive.md): MAGIC's blend anchored on CWPDIS;
//     version 3 on primitive data with ids and pi_e, with drl's
//     cross-fitted model (models.CrossFit, `fitted` on each fold),
//     version 2 (importance sampling alone) otherwise.
//
// Each registers itself with package estimators from init, and follows
// its contract (see there); adaptive's anchor and WIS are the estimators
// cwpdis and wis bit for bit. The model columns are taken as already
// discounted (trajectory.Discounted, SPEC 1c).
package modelbased
