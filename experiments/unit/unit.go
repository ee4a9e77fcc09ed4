package unit

// Result is what one unit (one trial of one series) produces: every
// estimator's estimate at every n of the grid, the diagnostics of
// estimators that report them and, for a series with bounds, the lower
// bounds.
type Result struct {
	// Series and Trial index the plan's series and the trial (0-based).
	Series, Trial int
	// Estimates[e][j] is estimator e (series order) at n = N[j].
	Estimates [][]float64
	// Diagnostics[e][d][j] is diagnostic d (in the order of estimator e's
	// registry entry) at n = N[j], indexed by its index minus 1 (k* by
	// step t-1); Diagnostics[e] is empty for estimators without any.
	Diagnostics [][][][]float64
	// Bounds[e][b][j] is the lower bound b (in the order of the series'
	// Bounds) of estimator e at n = N[j] (SPEC 1e), from the data of the
	// estimate Estimates[e][j]; Bounds[e][b] is nil where estimator e does
	// not support bound b (config.Supports), and Bounds is nil for a
	// series without bounds.
	Bounds [][][]float64
	// ESS[j] and MinStepESS[j] are the Kish effective sample sizes of the
	// importance weights of the data of the estimates at n = N[j]
	// (estimators.WeightStats: of the final weights, and the smallest of
	// the per-step ones), which every estimator of the series shares.
	ESS, MinStepESS []float64
}
