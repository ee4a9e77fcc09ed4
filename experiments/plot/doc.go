// Package plot draws the figures of a run from its result rows.
//
// Contract:
//
//   - Input is only data from package curve: MSE points ([curve.Row]) and,
//     optionally, INCRIS k* points ([curve.KStarRow]); or panels of plain
//     points ([Panel]). The package imports no other package of the
//     repository and never reads result files itself.
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
//   - A Figure with Panels is instead a grid of panels (columns =
//     ceil(sqrt(k)), 2 x 2 for four) under its title and note. Each [Panel]
//     is a view its caller computed (experiments builds them from curve
//     rows, stats and closed forms): per [PanelLine] one colour and marker,
//     simulated points with +/- SE error bars, and the closed form as a
//     solid line (a thin line joins the points when there is none), on log
//     or linear axes, the legend to the right. Points a log axis cannot show
//     are skipped; error bars are cut at the axis range, without a cap where
//     cut; a closed form shows at most two decades beyond the points. Draw
//     returns an error naming the panel if a panel has no drawable point.
//   - Output depends only on the Figure: the same rows give the same images.
package plot
