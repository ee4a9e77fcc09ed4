// Package weights holds the importance-weight arithmetic every estimator
// family shares (SPEC 1's contract on weights): the view of a batch with
// its per-step factors as ratios (View), products that never silently
// overflow or underflow (LeftNormal, the test that sends a computation to
// its scaled form; Scaled, a product as mantissa and binary exponent), and
// the per-step and final weighted sums of IS, PDIS, WIS and CWPDIS (Sums),
// with a per-column binary scale when the plain products leave the normal
// float64 range, which leaves self-normalised estimates exact.
//
// Contract: every computation here has one fixed order of operations, so
// an estimator built on it gives the same bits on every build and
// GOARCH; adaptive's anchor and WIS are those estimators bit for bit
// because both read the same Sums. 0/0 is 0 (Ratio).
package weights
