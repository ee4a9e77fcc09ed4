package models

// Space is a finite observation and action space with the evaluation
// policy on it, what a tabular model of SPEC 1d is over.
type Space struct {
	// Obs and Actions are the numbers of observation and action ids: a
	// batch's ids lie in [0, Obs) and [0, Actions).
	Obs, Actions int
	// PiE writes pi_e(a|o) for a = 0..Actions-1 into dst (len Actions).
	PiE func(o int, dst []float64)
	// Horizon is the number of steps an episode can last (the domain's
	// horizon, or its cap): at 1-based step t, Horizon - t + 1 steps are
	// left, step t included.
	Horizon int
}
