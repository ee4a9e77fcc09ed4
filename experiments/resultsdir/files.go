package resultsdir

import (
	"slices"
	"strings"
)

// FileDoc documents one file of a results directory: its name, when a
// run writes it and what it holds.
type FileDoc struct{ Name, When, Content string }

// Files lists every file a run may write, with when and what, for help
// texts and docs/reference.md: a fresh copy.
func Files() []FileDoc { return slices.Clone(files) }

// files is what Files returns.
var files = []FileDoc{
	{CurveFile, "always", "`" + strings.Join(curveHeader, ",") + "`: one row per series, estimator and n. Variance has denominator T (so mse = bias^2 + variance); `mse_se` is the sample sd of the T squared errors over sqrt(T); `ess` and `min_step_ess` are the means over the T trials of the Kish effective sample size (sum w)^2 / sum w^2 of the data's importance weights at n: of the full-trajectory weights, and the smallest over steps t of those of the weights up to t (the same on every estimator's row of a series and n, since all weight by the same ratios; n when the weights are equal, near 1 when one dominates). Floats in shortest round-trip form."},
	{TrialsFile, "unless trials_file: false", "`" + strings.Join(trialsHeader, ",") + "`: every unit's estimate, one row per series, estimator, n and trial in that order (the data behind curve.csv and the claims' bootstrap; floats in shortest round-trip form)"},
	{SeriesFile, "always", "one row per series: `" + strings.Join(seriesHeader, ",") + "` and every domain parameter of the run's series as a column `" + ParamColumn + "<parameter>` (e.g. `" + ParamColumn + "horizon`; prefixed so that no parameter, such as drift's `base`, repeats a fixed column), empty for a series whose domain has no such parameter; joined with curve.csv on `series` it is a tidy table of a sweep"},
	{"<diagnostic>.csv", "when an estimator reports a diagnostic", "`series,estimator,n,<index>,mean_<diagnostic>`: the mean over trials (those whose vector reaches the index) of a diagnostic, e.g. `kstar.csv` with INCRIS's k* per step t"},
	{BoundsFile, "when a series has bounds", "`" + strings.Join(boundsHeader, ",") + "`: one row per series, estimator, bound (of the series, that the estimator has) and n: the mean lower bound over the trials with its standard error (sd, denominator T - 1, over sqrt(T)); coverage, the fraction of trials whose bound is <= true_value, with its binomial standard error sqrt(c (1 - c) / T); vacuous, the fraction whose bound is <= g_lo (the series' return_range; empty for a series without one)"},
	{ClaimsFile + ", " + ClaimsMD, "when the config states claims", claimsFilesDoc},
	{StatsFile, "with plot.panels", "`" + strings.Join(statsHeader, ",") + "`: standard errors of the bias and the variance of every curve row"},
	{PanelsFile, "with plot.panels", "`" + strings.Join(panelsHeader, ",") + "`: every plotted point, with its closed form and deviation z in standard errors; the points of a weight reference (plot.panels[].weight_reference) are rows with an empty estimator, the reference's label, and empty se, closed_form and z, after the panel's points"},
	{SlopesFile, "with plot.panels that set slope: true", "`" + strings.Join(slopesHeader, ",") + "`: per such panel and line, in the figure's order (a panel's weight references, with an empty estimator, last), the ordinary least-squares fit log10 y = intercept + slope log10 x over the line's points with x > 0 and finite y > 0 (`points` of them), whatever the axes' scales; `slope_se` is the OLS standard error sqrt(SSR / (points - 2) / Sxx), SSR the residual sum of squares and Sxx the sum of squared deviations of log10 x. `series` is what the line runs through: the series (x = n), the base series (x = H), the base series with its other swept values (x a parameter), empty for a line over several series (combine: max). `x`, `y`, `at_n` are the panel's (at_n empty with x = n). slope and intercept are empty with fewer than 2 points or a single x, slope_se with fewer than 3 (no residual degree of freedom). Floats in shortest round-trip form"},
	{ClosedFile, "with plot.panels that draw closed forms", "`" + strings.Join(closedHeader, ",") + "`: the closed-form lines as drawn, so that `runexp plot` needs no domain code"},
	{PublishedFile, "with published", "`" + strings.Join(publishedHeader, ",") + "`: one row per published cell, in the config's order: the published relative MSE, and the median, 2.5% and 97.5% points (lo, hi; type-7 quantiles, +Inf where a replicate's estimate was not finite) of the relative MSE over the run's replicates of the paper's experiment, and the percentile of the published value among them (ties counted half)"},
	{PublishedMD + ", " + PublishedTeX, "with published", "the same, per table beside the paper's layout (blocks of rows sharing columns), in markdown (each cell: published vs median [lo, hi] (percentile), **outside** where the published value leaves the band) and as booktabs LaTeX tables (a row as published, under it ours; a dagger where outside)"},
	{MetaFile, "always", "the resolved config (every default filled in), seed, Go version, true values and how each was obtained; nothing that changes when the run is repeated (no clock time, git revision or worker count), so a rerun rewrites the same bytes"},
	{"<name>.png, <name>.svg", "always", "the figure: MSE against n on log-log axes with ±1 standard-error bands (or the config's panels; with published, one panel per published table: each cell's band of our replicates, their median and the published value)"},
}
