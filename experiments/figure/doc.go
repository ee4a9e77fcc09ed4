// Package figure draws the figures of a run: with the leaderboard's
// critical-difference diagrams (experiments/leaderboard), the only code of
// the repository that imports gonum/plot.
//
// Contract:
//
//   - Input is only a resultsdir.Figure, plain data: MSE points
//     (resultsdir.Row), optionally a diagnostic side panel (the mean of an
//     estimator's diagnostic, e.g. INCRIS's k*, against its index), or a
//     grid of panels (resultsdir.Panel) of simulated points with standard
//     errors and closed-form lines. The package imports neither report nor
//     the computation behind a figure, and never reads result files itself
//     (report.ReadFigure does).
//   - [Draw] renders one Figure to base+".png" (150 dpi) and base+".svg".
//     The main panel shows MSE against n on log-log axes, one line with
//     markers per (series, estimator) pair, each with a light ±1 standard
//     error band; reference lines listed in Figure.Dashed are dashed. A
//     line under the title says what the bands are ("bands: ±1 standard
//     error of the MSE over 128 trials"). With Figure.Diagnostic.Rows a
//     second panel to the right shows the diagnostic's mean against its
//     index, one line per (series, estimator) and n, its line saying
//     that the lines are means without bands; both legends then go under
//     their panels, in columns.
//   - A log y axis starts at or below the power of ten under its lowest
//     point, so every decade the points reach has a label; labels are
//     plain numbers within [1e-3, 1e4], else every label is a power of
//     ten drawn with a superscript exponent.
//   - Points that cannot be drawn on a log axis (MSE zero, negative, NaN or
//     infinite; n not positive) are skipped, never passed to gonum/plot. The
//     lower edge of a standard error band is clamped to MSE/100 so it stays
//     positive. Draw returns an error rather than panicking, including when
//     no MSE point is plottable or no finite diagnostic point has an n in
//     Diagnostic.N.
//   - Files are written whole (internal/atomicfile): an interrupted run never
//     leaves a half-written figure and no temporary file survives Draw.
//   - A Figure with Panels is instead a grid of panels (columns =
//     ceil(sqrt(k)), 2 x 2 for four) under its title and note: per panel
//     line one colour and marker, simulated points with +/- SE error bars,
//     and the closed form as a solid line (a thin line joins the points when
//     there is none), on log or linear axes, the legend to the right. Points
//     a log axis cannot show are skipped; error bars are cut at the axis
//     range, without a cap where cut; a closed form shows at most two
//     decades beyond the points. A panel with a y_min (a log y axis only)
//     starts its y axis there and draws every finite value below it (point,
//     error bar end, line vertex, including values a log axis could not
//     otherwise show) at y_min, and then only says "values below <y_min>
//     drawn at the axis" under its title; the data are not changed. A
//     panel's reference lines (resultsdir.RefLine: V(pi_e) under lower
//     bounds, 1 - delta under coverages) are dark grey dashed horizontal lines
//     across it, named in its legend and inside its y range; a panel with
//     a fixed range (YLo < YHi, linear axes: a coverage's [0, 1]) shows
//     that range, padded, whatever its points. A point of value +Inf (an
//     MSE ratio over a best MSE of 0) is never left out: it is drawn on
//     the top edge of the y axis, which gets headroom above the finite
//     values, without an error bar, and the panel says "+Inf drawn at the
//     top of the axis" under its title. Draw returns an error naming the
//     panel if a panel has no drawable point.
//   - [WriteEstimates] draws runexp estimate's -plot figure (Estimates):
//     one row per estimator, its estimate as a dot and its interval as a
//     horizontal bar, the true value as a dashed line when known, and a
//     line under the title saying what the intervals are.
//   - Output depends only on the Figure: the same data give the same bytes,
//     which golden-image tests check.
package figure
