package config

import (
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/experiments/claims"
	"github.com/ope-lab/longhorizon/experiments/quantity"
	"github.com/ope-lab/longhorizon/experiments/selection"
)

// logYDefault and logYNever list the panel quantities drawn on a log y
// axis by default and those never drawn on one (quantity.Table).
var logYDefault, logYNever = quantity.LogDefault()

// baselineYs lists the panel quantities that need a baseline.
var baselineYs = quantity.NamesOf(quantity.Baseline)

// weightRefYs lists the panel quantities that draw a weight reference,
// weightRefDocs what each draws.
var weightRefYs, weightRefDocs = quantity.WeightRefNames(), func() string {
	var out []string
	for _, q := range quantity.Table() {
		if q.WeightRef != nil {
			out = append(out, "for "+q.Name+" "+q.WeightRefLabel+", "+q.WeightRefDoc)
		}
	}
	return strings.Join(out, "; ")
}()

// claimRatios and claimCurves name the claim quantities of source Ratio
// and Curve (claims.Table), for the claims' keys.
var claimRatios, claimCurves = orList(claims.NamesOf(claims.Ratio)), orList(claims.NamesOf(claims.Curve))

// Key documents one key of a config file: docs/reference.md and `runexp
// help config` are generated from Keys, and a test keeps it equal to the
// keys Parse accepts.
type Key struct {
	// Path is the key's place, e.g. "series[].params" or
	// "plot.panels[].x".
	Path    string
	Default string
	Doc     string
}

// Keys lists every key of a config file: a fresh copy.
func Keys() []Key { return slices.Clone(keys) }

// keys is what Keys returns.
var keys = []Key{
	{"name", "the file's base name", "names the run and its output directory results/<name>; letters, digits and - _ . (no path separators)"},
	{"experiment", `""`, "the experiment column of curve.csv"},
	{"title", "name", "the figure's title"},
	{"seed", "1", "roots every random stream (SPEC 3); an unsigned 64-bit integer"},
	{"trials", "128", "trials T per series and n (SPEC 3)"},
	{"data", "nested", "(interp.) nested: a trial draws max(n) trajectories once and estimates at each n from the first n; independent: fresh data for every n"},
	{"n", "required", "strictly increasing data-set sizes"},
	{"delta", "0.05 (with bounds)", "the lower bounds hold with probability 1 - delta (SPEC 1e); a number in (0, 1), only with series[].bounds"},
	{"series[].name", "required", "the series' name: letters, digits, - _ . (no / , or quotes); a sweep appends its values, e.g. taxi[eps_b=0.3,option_length=2]"},
	{"series[].domain", "required", "a domain of `runexp help domains`"},
	{"series[].params", "the domain's defaults", "domain parameters; a list sweeps: the series expands into the cartesian product of its lists"},
	{"series[].zip", "none", "swept parameters (lists of one length) that advance together instead of spanning a product, e.g. [subepisodes, eps_step] to keep eps_step x subepisodes fixed: the i-th series takes the i-th value of each, and is named by the first (sub[subepisodes=50])"},
	{"series[].candidates", "none", "off-policy selection (`runexp select`): the parameter, given as a list of at least 2 values and the only swept one, whose values are the series' candidate evaluation policies; every candidate of a trial sees the same behaviour trajectories (the series shares one random stream per trial), and a parameter that changes the behaviour data (the dynamics or pi_b: checked on a pilot draw of every candidate) is refused"},
	{"series[].estimators", "required", "estimators of `runexp help estimators`, or external estimators {name, command, timeout} (docs/external.md): name, a safe name that is no built-in key; command, the program and its arguments, run in the config file's directory (relative paths are relative to it; a program that does not exist or is not executable is refused before the run), started once per worker and kept running, answering one JSON line per trial; timeout, a Go duration bounding each answer (default 5m); an external estimator needs data: nested and primitive data, and has no diagnostics, bounds, closed form or model. Every estimator of a series sees the same data"},
	{"series[].model", "fitted (when an estimator needs a model)", "the kind of the model whose columns q_hat, v_hat the estimators that need them read (SPEC 1d): one of the kinds `runexp help models` lists (package models' registry: learned ones fitted on each data set from its observation and action ids, and exact, the domain's true q of pi_e, a reference line); only for domains with primitive policies. An estimator that fits a model itself (adaptive's cross-fitted WDR) fits the series' kind when it is a learned one, else fitted; a series whose only model reader is such an estimator may name a learned kind"},
	{"series[].bounds", "none", "lower bounds of SPEC 1e (t, hcope; see `runexp help estimators`) computed at every n, on the data of each estimate, for every estimator of the series that has them; each bound must be one of some estimator of the series. The run then writes bounds.csv"},
	{"series[].return_range", "required by hcope, else refused", "[g_lo, g_hi], finite with g_lo < g_hi: a range holding every (discounted) return of the series, for the bounds that need it (hcope); a return outside it fails the run"},
	{"selection.replicates", "2000", "off-policy selection (`runexp select`): bootstrap replicates over trials of every metric's interval and every claim's, in [1, 100000]"},
	{"selection.claims[].name", "required", "a short name"},
	{"selection.claims[].text", `""`, "the prediction in words"},
	{"selection.claims[].metric", "required", "one of " + strings.Join(selection.MetricNames(), ", ") + " (`runexp help select`)"},
	{"selection.claims[].subject", "required", "series/estimator: a series with candidates (its name as written) and one of its estimators"},
	{"selection.claims[].versus", "none", "series/estimator on the same series: the claim is then on the paired difference subject - versus, with relation"},
	{"selection.claims[].relation", "required with versus", "above or below: the difference's interval must lie wholly above (below) 0 for the claim to hold, wholly on the other side for it to fail"},
	{"selection.claims[].min", "none", "without versus: the claim holds when the interval of the mean lies at or above min, fails when wholly below; give min or max"},
	{"selection.claims[].max", "none", "without versus: the claim holds when the interval of the mean lies at or below max, fails when wholly above"},
	{"selection.claims[].n", "the grid's last n", "the n of the grid the claim is checked at"},
	{"trials_file", "true", "false leaves trials.csv out (a run of 10^4 trials writes 10^6 lines); claims are then refused"},
	{"claims[].name", "required", "a short name"},
	{"claims[].text", `""`, "the paper's words"},
	{"claims[].subject", "required", "the curve series/estimator the claim is about"},
	{"claims[].versus", "required for " + claimRatios, "the curves it is compared with (a claim on " + claimRatios + " only)"},
	{"claims[].max_ratio", "required for " + claimRatios, "a claim on " + claimRatios + " holds at n when its value, MSE(subject) / min MSE(versus) for mse, is <= max_ratio (to 1e-9 relative; 0/0 counts as 1)"},
	{"claims[].quantity", claims.Default, "what the claim is about, one of " + strings.Join(claims.Names(), ", ") + " (`runexp help claim-quantities`: what each is, the rows it reads, the keys it takes and how its verdict is reached)"},
	{"claims[].bound", "required for a bound quantity", "the bound of subject (one of its series' bounds) a bound quantity (" + strings.Join(claims.NamesOf(claims.Bounds), ", ") + ") is about; refused for the others"},
	{"claims[].min", "none", "a claim on a bound quantity holds at n when its value >= min (exactly); e.g. quantity: vacuous, min: 0.5. A claim on " + claimCurves + " states value >= min"},
	{"claims[].max", "none", "a claim on a bound quantity holds at n when its value <= max (exactly); e.g. quantity: bound_gap, max: 0.1; give min or max, not both. A claim on " + claimCurves + " states value <= max and may give both: min <= value <= max, with min <= max; e.g. quantity: bias, min: -0.01, max: 0.01"},
	{"claims[].at", "all", "all or some n of the range"},
	{"claims[].n_min", "the grid's first n", "the range of n checked"},
	{"claims[].n_max", "the grid's last n", "the range of n checked"},
	{"plot.labels", "estimator (series: estimator with several series)", "legend labels of series/estimator curves; with panels a key may name a base series and a label may hold {param} placeholders"},
	{"plot.dashed", "none", "curves (series/estimator or an estimator key) drawn dashed, as references"},
	{"plot.diagnostic.name", "none", "adds a side panel: the mean of a diagnostic (e.g. kstar of every INCRIS variant; see `runexp help estimators`) against its index"},
	{"plot.diagnostic.n", "the whole grid", "which n of the grid the diagnostic panel draws"},
	{"plot.diagnostic.estimators", "every estimator reporting it", "whose diagnostic the panel draws"},
	{"plot.diagnostic.title", "from the registry", "the diagnostic panel's title"},
	{"plot.panels[].title", `""`, "a panel's title; with panels the figure is a grid of them and the run also writes stats.csv and panels.csv"},
	{"plot.panels[].series", "all", "series (full or base names) the panel draws"},
	{"plot.panels[].estimators", "all", "estimators the panel draws"},
	{"plot.panels[].x", "n", "n; " + HorizonX + ", the series' horizon (its domain's longest trajectory: horizon for randommdp and chainmdp, 2 x subepisodes for subepisode and drift, cap for noisytaxi; whatever parameters set it), one line per base series and estimator through its selected series in increasing " + HorizonX + ", which must differ within a base; or a parameter swept in every selected series"},
	{"plot.panels[].at_n", "required with x other than n", "the n of the grid at which a panel against " + HorizonX + " or a parameter reads the rows"},
	{"plot.panels[].y", "mse", "the panel's quantity: " + strings.Join(quantity.Names(), ", ") + " (`runexp help panels`: what each is, what it needs, its standard error in panels.csv, whether it has a closed form)"},
	{"plot.panels[].log_x", "true for x = n or " + HorizonX, "log x axis"},
	{"plot.panels[].log_y", "true for " + logYDefault, "log y axis (never for " + logYNever + ")"},
	{"plot.panels[].y_min", "from the data", "log y axis only: a positive number where the y axis starts; lower values (points, error bar ends, lines) are drawn at it and noted under the panel's title, in the figure only (files and claims keep the values)"},
	{"plot.panels[].closed_form", "false", "draw the domain's closed form beside the points (and write closedform.csv)"},
	{"plot.panels[].baseline", "required with " + baselineYs + ", else refused", "y " + baselineYs + " only: the estimators (e.g. [wis, cwpdis]) whose smallest MSE, per series and n, divides every MSE of the panel; each must be an estimator of every selected series"},
	{"plot.panels[].combine", "none (a line per series and estimator)", "y " + baselineYs + " only: max draws one line per estimator, its largest ratio over the selected series at each n (the worst case over domains), labelled \"<estimator label> (worst over N series)\"; panels.csv names the series attaining it"},
	{"plot.panels[].weight_reference", "false", "y " + weightRefYs + " only: draw, dashed, per line of series (x = " + HorizonX + ": per base series), the importance-sampling scale from each series' E_b[W_H^2] (meta.json's truths: is_weight_second_moment) at n = at_n (each n with x = n): " + weightRefDocs + "; a series whose truth records none has no reference point, and the panel's note says so; panels.csv holds the reference's points as rows with an empty estimator and se"},
	{"plot.panels[].slope", "false", "write slopes.csv: per line of the panel (weight references included), the least-squares slope of log10 y on log10 x over the line's points with finite y > 0 and x > 0, with its standard error and intercept (`runexp help files`)"},
	{"plot.panels[].x_label", "x; n (trajectories) for n, " + HorizonLabel + " for " + HorizonX, "axis label"},
	{"plot.panels[].y_label", "from y", "axis label"},
	{"published.source", "required with published", "the paper the table comes from, a short name (e.g. voloshin2021): published.csv's source column"},
	{"published.seeds", "required with published", "the paper's number of data sets per experiment m: the trials split, in trial order, into trials/m replicates (trials a multiple of m, at least 40 replicates), each giving the paper's relative MSE (1/m) sum (V_hat - V)^2 / V^2 with the exact V"},
	{"published.captions", "none", "a caption per table (what its experiment is), for published.md, published.tex and the figure"},
	{"published.cells[].table", "required", "the paper's table, as it numbers it"},
	{"published.cells[].row", "required", "the row as the paper prints it (ASCII)"},
	{"published.cells[].column", "required", "the column as the paper prints it"},
	{"published.cells[].value", "required", "the published relative MSE, > 0"},
	{"published.cells[].subject", "required", "the curve series/estimator that reproduces the cell, at the grid's largest n; with published the run writes published.csv (median, 2.5% and 97.5% points of the replicates' relative MSE and the published value's percentile among them), published.md and published.tex, and its figure draws them"},
}
