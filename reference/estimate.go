package reference

import (
	"fmt"
	"strings"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/evaluate"
	"github.com/ope-lab/longhorizon/logdata"
)

// EstimateAbout is the long help of estimate; it lists the data columns
// from logdata.Schema and the defaults from the estimators registry.
func EstimateAbout() string {
	return `Estimates the value of an evaluation policy from episodes logged under a
behavior policy, with percentile bootstrap confidence intervals over
episodes. DATA is a CSV file with a header row, a JSON Lines file (name
ending in .jsonl or .ndjson: one object per step, same field names, numbers
as JSON numbers), a JSON file (.json: an array of such objects, or an
object of arrays, one per column), a Parquet file (.parquet or .pq: flat
columns), or - for standard input (CSV unless -format); -format csv, jsonl,
json or parquet overrides the name. -columns OUR=THEIRS,... reads other
names (episode=trajectory_id,pi_b=pscore); SCOPE-RL's names (trajectory_id,
timestep, state, action, reward, done, terminal, pscore,
evaluation_policy_pscore) are read without it when the file has no episode
column; -columns preset=obp reads an OBP bandit feedback (one round, one
episode), preset=d3rlpy d3rlpy's arrays (episodes end at terminals or
timeouts). docs/estimate/formats.md and docs/estimate/columns.md.

Columns (runexp help data for the whole format):
` + columnsText() + `
Without -estimators it computes the registry's default estimators that the
data supports (` + defaultsDoc() + `).

-gamma G, in (0, 1] (default 1, the paper's setting), discounts: the
reward of 1-based step t counts as G^(t-1) r_t, and q_hat and v_hat are
scaled the same way, before every estimate and every bootstrap replicate
(SPEC 1c); q_hat and v_hat must then be returns discounted with G to their
own step. The output says the G it used unless G is 1.

` + modelDoc() + `

Output: per estimator the estimate, the interval [ci_low, ci_high] and the
effective sample size ess = (sum W)^2 / sum W^2 of the final weights, W the
product over each whole episode of the per-step factors every estimator
weights by: pi_e/pi_b, or with option columns mu_e/mu_b on option_start
rows (times pi_e/pi_b inside changed options). The interval is the
percentile bootstrap over episodes (resampled with replacement, each
replicate from its own random stream derived from -seed and the replicate
number: the same seed gives the same intervals whatever -workers). Each
replicate copies the data and runs every estimator, so on millions of steps
use a few hundred replicates or none. -bootstrap 0 turns it off: the table
shows "-" and -json leaves out "bootstrap", ci_low and ci_high.

Several candidate policies: columns pi_e:NAME, one per candidate (instead
of pi_e), are estimated each with the same estimators and intervals; the
table gets a policy column, -json a "policies" object, and -truth
NAME=V,... (or a CSV policy,value) adds each estimator's Spearman's rank
correlation and regret@1, regret@3 over the candidates. -csv FILE writes
rows policy,estimator,estimate,ci_low,ci_high,ess; -policy-table FILE gives
pi_e(a|o) of every action to the model fitted from obs and action.
docs/estimate/policies.md.
-interval bca gives BCa intervals instead (bias-corrected and accelerated,
Efron 1987: the percentiles shifted by the replicates' median bias and by
the acceleration, from the delete-one jackknife, which costs n more
estimates per estimator, n the number of episodes).

` + boundsDoc() + `

-json prints one object:
  {"episodes": N, "steps": M, "horizon": H,
   "bootstrap": {"replicates": B, "confidence": C, "seed": S},
   "estimates": {"is": {"value": V, "ci_low": L, "ci_high": U, "ess": E}, ...}}
(an estimate that failed has "error" instead of "value"; with -gamma G
other than 1, "gamma": G follows "horizon"; with -interval, "interval":
"percentile" or "bca" follows "seed"; with -bounds, "delta": D follows
"bootstrap", then "return_range": [LO, HI] if a bound used it, and each
estimator that has a bound asked for gets "lower": {"t": L, ...} after
ci_high, or "lower_errors": {"t": "why", ...} for a bound that failed).

Exit status: 0 done; 2 bad input, with a message naming it and nothing
on standard output: bad flags or -estimators (-gamma outside (0, 1], an
estimator needing data DATA does not have), a DATA file that does not
exist or is a directory, bad data (the message names the file, line and
column: a value the format does not read, a line over 1 MiB, more steps than
-max-steps), too few episodes for an estimator or a bound, a bound that no
estimator computed has, a bound needing -return-range without it, a return
outside -return-range (the message names the episode), or estimates and
bootstrap whose memory (every estimator's workspace from the registry, per
worker a resampled copy of the data, B x estimators replicates, with BCa n
x estimators jackknife estimates) would exceed -max-memory; 1 an estimate or
a bound failed (not representable as a float64: "failed" in its row, the
others printed), or the machine failed: DATA could not be opened for lack
of permission or reading it failed midway (an I/O error).

Estimators (runexp help estimators): ` + strings.Join(estimators.Names(), ", ")
}

// boundsDoc says what -bounds, -delta and -return-range do, with each
// bound's documentation and the estimators that have it, from the
// registries (estimators.LookupBound, estimators.Info.Bounds).
func boundsDoc() string {
	var b strings.Builder
	b.WriteString(`-bounds LIST adds one-sided lower bounds on the value at confidence
1 - delta (-delta D, default 0.05; SPEC 1e), computed on the data
(discounted with -gamma) for each estimator whose registry entry has the
bound (the others show "-"; if no estimator computed has it, exit 2):
`)
	for _, k := range confidence.Names() {
		bi, _ := confidence.Lookup(k)
		entry := fmt.Sprintf("  %s: %s For: %s; at least %d episodes", k, strings.TrimSpace(bi.Doc), strings.Join(evaluate.EstimatorsWith(k), ", "), bi.MinN)
		if bi.NeedsRange {
			entry += "; needs -return-range"
		}
		b.WriteString(wrap(entry+".", 76) + "\n")
	}
	b.WriteString(`-return-range LO,HI (two decimal numbers, LO < HI) is a range holding
every episode's possible return (discounted with -gamma): derive it from
what the rewards can be, not from the data (at worst H times the smallest
and the largest reward, or 0 where an episode can end early). A return
outside it is bad input (exit 2, naming the episode by its 0-based index
in file order and its data records). The table shows one column per
bound: "t lower 95%" at delta = 0.05.`)
	return b.String()
}

// wrap fills line at spaces to width columns, indenting continuation
// lines two spaces more than line's own indentation.
func wrap(line string, width int) string {
	lead := len(line) - len(strings.TrimLeft(line, " "))
	var out strings.Builder
	out.WriteString(line[:lead])
	col := lead
	for j, word := range strings.Fields(line) {
		switch {
		case j == 0:
		case col+1+len(word) > width:
			out.WriteString("\n" + strings.Repeat(" ", lead+2))
			col = lead + 2
		default:
			out.WriteByte(' ')
			col++
		}
		out.WriteString(word)
		col += len(word)
	}
	return out.String()
}

// defaultsDoc lists the registry's default estimators and the data each
// needs or uses, from the registry entries.
func defaultsDoc() string {
	all := estimators.SplitPoints | estimators.Options | estimators.Model
	var names []string
	var needModel bool
	for _, n := range estimators.Defaults(all) {
		inf, _ := estimators.Lookup(n)
		names = append(names, n)
		needModel = needModel || inf.Needs&estimators.Model != 0
	}
	s := strings.Join(names, ", ") + "; those using\nsplit points only with a split column"
	if needModel {
		s += ", those needing the model\nonly with q_hat and v_hat"
	}
	return s
}

// modelDoc says what the model columns are for and which estimators need
// them, from the registry entries.
func modelDoc() string {
	var need []string
	for _, inf := range estimators.All() {
		if inf.Needs&estimators.Model != 0 {
			need = append(need, inf.Name)
		}
	}
	s := `The model columns q_hat and v_hat (both, on every row, or neither) are a
model's estimates of the return from each step on (SPEC 1d). Asking
(-estimators) for an estimator that needs them, on data without them or
with the option columns (they need one action ratio per step), is bad
input (exit 2).`
	if len(need) > 0 {
		s += " Estimators that need them: " + strings.Join(need, ", ") + "."
	}
	return s
}

// columnsText is the data columns as an aligned text table.
func columnsText() string {
	var b strings.Builder
	for _, c := range logdata.Schema() {
		fmt.Fprintf(&b, "  %-15s %-9s %s\n", c.Name, c.Presence, c.Doc)
	}
	return b.String()
}

// NeedsRangeText lists the bounds that need -return-range, from the
// registry, as ": hcope" ("" when none does).
func NeedsRangeText() string {
	ks := evaluate.NeedingRange(confidence.Names())
	if len(ks) == 0 {
		return ""
	}
	return ": " + strings.Join(ks, ", ")
}
