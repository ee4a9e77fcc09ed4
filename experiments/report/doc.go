// Package report turns the unit results of a run (unit.Result, computed
// by package run) into everything a results directory holds: it
// aggregates, builds the panels and checks the claims, and hands the
// rows to package resultsdir, which owns the files' formats.
//
// Contract:
//   - Aggregation follows SPEC 3: per series, estimator and n, over the
//     trials in trial order, the mean estimate, bias, variance (denominator
//     T), MSE and its standard error; results may come in any order, so
//     the bytes never depend on workers or shards.
//   - Diagnostics are generic: every diagnostic an estimator's registry
//     entry lists is averaged over trials into <name>.csv.
//   - Lower bounds (SPEC 1e), when a series has any, are summarised over
//     trials into bounds.csv (resultsdir.BoundRow: mean bound, coverage of
//     the true value, vacuous fraction); a run without bounds writes no
//     such file, and its other files are as before bounds existed.
//   - Panels of MSE ratios (config y mse_ratio) are computed from the
//     curve rows alone: MSE over the smallest MSE of the baseline, per
//     series and n (0/0 := 1, x/0 := +Inf), or its maximum over series
//     per estimator (combine max); their points have SE 0.
//   - Claims (SPEC 4) are checked at every n of their range, each through
//     its quantity's entry of claims.Table (the rows it reads, its value,
//     its point test); a claim whose range holds no grid point does not
//     hold. The verdicts of claims on a Ratio or Curve quantity (mse,
//     bias, rel_rmse) come from claims.Bootstrap over the trials, seeded
//     by the run's seed and the claim's name, so they never depend on
//     workers or shards; a claim on a bound quantity keeps its point
//     verdict.
//   - Report.Files renders every data file of a run in memory, all or
//     none; Report.Write writes them, each whole; the figure (package
//     figure) is drawn from Report.Figure.
//   - A results directory is self-contained: ReadFigure rebuilds the
//     figure from its files alone (closed-form lines are stored in
//     closedform.csv, lower bounds in bounds.csv), and ClaimsMarkdown
//     summarises claims from claims.csv and meta.json (and bounds.csv for
//     claims on bounds), every file read by resultsdir and checked row by
//     row against meta.json.
//
// The package never imports a plotting library.
package report
