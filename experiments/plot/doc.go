// Package plot draws the figures of a run from its result rows.
//
// Contract:
//
//   - Input is only data from package curve: MSE points ([curve.Row]) and,
//     optionally, INCRIS k* points ([curve.KStarRow]). The package imports no
//     other package of the repository and never reads result files itself.
//   - [Draw] renders one [Figure] to base+".png" (150 dpi) and base+".svg".
//     The main panel shows MSE against n on log-log axes, one line with
//     markers per (series, estimator) pair, each with a light ±1 standard
//     error band; reference lines listed in Figure.Dashed are dashed. When
//     Figure.KStar is non-empty a second panel to the right shows mean k*
//     against the step t, one line per sample size n.
//   - Points that cannot be drawn on a log axis (MSE zero, negative, NaN or
//     infinite; n not positive) are skipped, never passed to gonum/plot. The
//     lower edge of a standard error band is clamped to MSE/100 so it stays
//     positive. Draw returns an error rather than panicking, including when
//     no MSE point is plottable or, with KStar set, no finite k* point has an
//     n in KStarN.
//   - Files are written atomically: each is written to a temporary file in
//     the destination directory (created if missing) and renamed into place,
//     so an interrupted run never leaves a half-written figure and no
//     temporary file survives Draw.
//   - Output depends only on the Figure: the same rows give the same images.
package plot
