package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/membudget"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// stdin is what DATA "-" reads; tests replace it.
var stdin io.Reader = os.Stdin

// estimateNeed bounds the memory of the estimates, the lower bounds and
// the bootstrap on batch b, beyond b itself: the discounted view of b when
// gamma < 1 (its rewards, and model columns if any: 8 or 24 bytes a step);
// every estimator's workspace (its registry entry's Memory at the data's n
// and H); per (estimator, bound) pair computed (pairs of them) two
// per-episode vectors (the terms and a sorted copy); per bootstrap worker
// a resampled copy of b (with its model columns, 16 bytes a step more,
// doubled for append's slack as trajectory.Size does), its index and the
// workspaces again; and the reps x estimators replicate estimates. With
// bca (BCa intervals, estimators.BootstrapBCa) also the n x estimators
// delete-one jackknife estimates and the estimates on b itself (the
// workspaces once more), and the jackknife's n tasks share the workers
// with the reps replicates.
func estimateNeed(b *trajectory.Batch, names []string, reps, workers int, gamma float64, bca bool, pairs int) (need float64, largest string, largestBytes float64) {
	n, h := b.N(), b.Horizon()
	var work float64
	if gamma != 1 {
		perStep := 8.0
		if b.HasModel() {
			perStep += 16
		}
		need += perStep * float64(b.Steps())
	}
	for _, name := range names {
		info, _ := estimators.Lookup(name)
		m := info.Memory(n, h)
		work += m
		if m > largestBytes {
			largest, largestBytes = fmt.Sprintf("%s's workspace (%s)", name, info.MemoryDoc()), m
		}
	}
	need += work
	if pairs > 0 {
		lb := 16 * float64(n) * float64(pairs)
		need += lb
		if lb > largestBytes {
			largest, largestBytes = fmt.Sprintf("%d lower bounds' per-episode terms (-bounds)", pairs), lb
		}
	}
	if reps > 0 {
		tasks := reps
		if bca {
			tasks += n // estimators.BootstrapBCa: replicates and jackknife share the workers
		}
		w := float64(min(workers, tasks))
		perCopy := trajectory.Size(float64(n), float64(b.Steps()))
		if b.HasModel() {
			perCopy += 2 * 16 * float64(b.Steps())
		}
		copies := w * (perCopy + 8*float64(n) + work)
		results := 8 * float64(reps) * float64(len(names))
		need += copies + results
		if copies > largestBytes {
			largest, largestBytes = fmt.Sprintf("%.0f bootstrap workers' resampled copies of the data with workspaces (-workers)", w), copies
		}
		if results > largestBytes {
			largest, largestBytes = fmt.Sprintf("%d replicates x %d estimators (-bootstrap)", reps, len(names)), results
		}
		if bca {
			// the jackknife's estimates, and the estimates on b itself
			jack := 8*float64(n)*float64(len(names)) + work
			need += jack
			if jack > largestBytes {
				largest, largestBytes = fmt.Sprintf("the BCa jackknife's %d episodes x %d estimators (-interval bca)", n, len(names)), jack
			}
		}
	}
	return need, largest, largestBytes
}

var estimateCommand = command{
	name: "estimate", args: "[flags] DATA",
	summary: "off-policy estimates with bootstrap intervals from logged episodes (CSV/JSONL)",
	about:   estimateAbout(),
	flags:   estimateFlags,
}

// estimateAbout is the long help of estimate; it lists the data columns
// from logdata.Schema and the defaults from the estimators registry.
func estimateAbout() string {
	return `Estimates the value of an evaluation policy from episodes logged under a
behavior policy, with percentile bootstrap confidence intervals over
episodes. DATA is a CSV file with a header row, a JSON Lines file (name
ending in .jsonl, or -format jsonl: one object per step, same field names,
numbers as JSON numbers), or - for standard input (CSV unless -format jsonl).

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
	for _, k := range estimators.BoundNames() {
		bi, _ := estimators.LookupBound(k)
		entry := fmt.Sprintf("  %s: %s For: %s; at least %d episodes", k, strings.TrimSpace(bi.Doc), strings.Join(supporters(k, nil), ", "), bi.MinN)
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
	for _, c := range logdata.Schema {
		fmt.Fprintf(&b, "  %-15s %-9s %s\n", c.Name, c.Presence, c.Doc)
	}
	return b.String()
}

// dataOf says what a logged file holds beyond rewards and ratios, in the
// estimators' terms.
func dataOf(c logdata.Columns) estimators.Data {
	var d estimators.Data
	if c.Split {
		d |= estimators.SplitPoints
	}
	if c.Options {
		d |= estimators.Options
	}
	if c.Model {
		d |= estimators.Model
	}
	return d
}

// needText names data an estimator needs, for messages.
func needText(d estimators.Data) string {
	var parts []string
	if d&estimators.Model != 0 {
		parts = append(parts, "the model columns q_hat and v_hat")
	}
	if d&estimators.SplitPoints != 0 {
		parts = append(parts, "a split column")
	}
	if d&estimators.Options != 0 {
		parts = append(parts, "the option columns option_start, mu_b and mu_e")
	}
	if rest := d &^ (estimators.Model | estimators.SplitPoints | estimators.Options); rest != 0 {
		parts = append(parts, rest.String())
	}
	return strings.Join(parts, " and ")
}

// cannotRun says why estimator inf cannot run on data that has have, read
// from its registry entry: the data it Needs is missing, or it needs the
// model (SPEC 1d: one action ratio per step) and the data is options data.
// It returns "" when it can run; where names the data (the file).
func cannotRun(inf estimators.Info, have estimators.Data, where string) string {
	if missing := inf.Needs &^ have; missing != 0 {
		return fmt.Sprintf("%s needs %s, which %s does not have", inf.Name, needText(missing), where)
	}
	if inf.Needs&estimators.Model != 0 && have&estimators.Options != 0 {
		return fmt.Sprintf("%s needs primitive data (one action ratio per step), and %s has the option columns", inf.Name, where)
	}
	return ""
}

// defaultsFor returns the registry's default estimators (estimators.Defaults)
// that can run on data that has have.
func defaultsFor(have estimators.Data) []string {
	var names []string
	for _, n := range estimators.Defaults(have) {
		if inf, _ := estimators.Lookup(n); cannotRun(inf, have, "") == "" {
			names = append(names, n)
		}
	}
	return names
}

func estimateFlags(fs *flag.FlagSet) func(*flag.FlagSet, io.Writer, io.Writer) error {
	estList := fs.String("estimators", "", "comma-separated estimators (default: the registry's defaults the data supports)")
	reps := fs.Int("bootstrap", 2000, "bootstrap replicates B; 0 turns the intervals off")
	confidence := fs.Float64("confidence", 0.95, "confidence level of the intervals, in (0, 1)")
	seed := fs.Uint64("seed", 1, "seed of the bootstrap's random streams")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a table")
	format := fs.String("format", "", "input format, csv or jsonl (default: jsonl for names ending in .jsonl, else csv)")
	allowExtra := fs.Bool("allow-extra", false, "ignore unknown columns instead of rejecting them")
	workers := fs.Int("workers", runtime.NumCPU(), "goroutines for the estimates and the bootstrap; results do not depend on it")
	var maxMemory membudget.Flag
	fs.Var(&maxMemory, "max-memory", maxMemoryUsage)
	maxSteps := fs.Int("max-steps", logdata.DefaultMaxSteps, "most steps (records) DATA may hold; more is refused (exit 2), so endless input cannot exhaust memory")
	gamma := fs.Float64("gamma", 1, "discount factor in (0, 1]: the reward, q_hat and v_hat of 1-based step t count gamma^(t-1) (SPEC 1c)")
	boundList := fs.String("bounds", "", "comma-separated one-sided lower bounds (SPEC 1e): "+strings.Join(estimators.BoundNames(), ", ")+" (default none)")
	delta := fs.Float64("delta", 0.05, "the lower bounds hold at confidence 1 - delta; delta in (0, 1)")
	returnRange := fs.String("return-range", "", "LO,HI: a range holding every episode's return (discounted with -gamma), for the bounds that need one"+needsRangeText())
	interval := fs.String("interval", intervalPercentile, "bootstrap interval: "+intervalPercentile+" or "+intervalBCa+" (bias-corrected and accelerated)")
	return func(fs *flag.FlagSet, stdout, stderr io.Writer) error {
		usageErr := func(format string, a ...any) error { return usageError(stderr, "estimate", format, a...) }
		if fs.NArg() != 1 {
			return usageErr("want exactly one DATA file (or - for standard input); see runexp help estimate")
		}
		if *reps < 0 {
			return usageErr("-bootstrap %d, want >= 0", *reps)
		}
		if !(*confidence > 0 && *confidence < 1) {
			return usageErr("-confidence %v, want a number in (0, 1)", *confidence)
		}
		if *workers < 1 {
			return usageErr("-workers %d, want >= 1", *workers)
		}
		if *maxSteps < 1 {
			return usageErr("-max-steps %d, want >= 1", *maxSteps)
		}
		if !(*gamma > 0 && *gamma <= 1) {
			return usageErr("-gamma %v, want a discount factor in (0, 1]", *gamma)
		}
		names, err := parseEstimators(*estList)
		if err != nil {
			return usageErr("%v", err)
		}
		bo := boundOptions{delta: *delta}
		if bo.kinds, err = parseBounds(*boundList); err != nil {
			return usageErr("%v", err)
		}
		if !(*delta > 0 && *delta < 1) {
			return usageErr("-delta %v, want a number in (0, 1)", *delta)
		}
		if *returnRange != "" {
			if bo.lo, bo.hi, err = parseReturnRange(*returnRange); err != nil {
				return usageErr("%v", err)
			}
			bo.hasRange = true
		}
		for _, k := range bo.kinds {
			if bi, _ := estimators.LookupBound(k); bi.NeedsRange && !bo.hasRange {
				return usageErr("-bounds %s: the %s bound needs -return-range LO,HI, a range holding every episode's return (see runexp help estimate)", k, k)
			}
		}
		if *interval != intervalPercentile && *interval != intervalBCa {
			return usageErr("-interval %q, want %s or %s", *interval, intervalPercentile, intervalBCa)
		}
		explicit := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
		if bo.kinds == nil {
			if explicit["delta"] {
				fmt.Fprintf(stderr, "runexp estimate: note: -delta is for the lower bounds, and no -bounds were asked for\n")
			}
			if explicit["return-range"] {
				fmt.Fprintf(stderr, "runexp estimate: note: -return-range is for the lower bounds, and no -bounds were asked for\n")
			}
		}

		path := fs.Arg(0)
		f := logdata.FormatOf(path)
		if *format != "" {
			if f, err = logdata.ParseFormat(*format); err != nil {
				return usageErr("-format: %v", err)
			}
		}
		var b trajectory.Batch
		info, err := readData(path, f, &b, logdata.Options{AllowExtra: *allowExtra, MaxSteps: *maxSteps})
		switch {
		case inputerr.Is(err):
			return usageErr("%v", err)
		case err != nil:
			return fmt.Errorf("estimate: %w", err)
		}
		if len(info.Extra) > 0 {
			fmt.Fprintf(stderr, "runexp estimate: note: ignoring columns %s (-allow-extra)\n", strings.Join(info.Extra, ", "))
		}
		have := dataOf(info.Columns)
		if names == nil {
			names = defaultsFor(have)
		}
		for _, n := range names {
			inf, _ := estimators.Lookup(n)
			if why := cannotRun(inf, have, info.path); why != "" {
				return usageErr("%s", why)
			}
			if b.N() < inf.MinN {
				return usageErr("%s: %s needs at least %d episodes, the data has %d", info.path, n, inf.MinN, b.N())
			}
			if missing := inf.Uses &^ have; missing != 0 {
				fmt.Fprintf(stderr, "runexp estimate: note: the data has no %s, so %s equals %s\n", missing, n, inf.Without)
			}
		}
		if why := bo.check(names, b.N(), info.path); why != "" {
			return usageErr("%s", why)
		}
		if bo.kinds != nil && bo.hasRange && !bo.usesRange() {
			fmt.Fprintf(stderr, "runexp estimate: note: -return-range is used only by the bounds that need one (%s), and none was asked for\n", strings.Join(rangeKinds(estimators.BoundNames()), ", "))
		}

		bca := *interval == intervalBCa && *reps > 0
		if *interval == intervalBCa && *reps == 0 {
			fmt.Fprintf(stderr, "runexp estimate: note: -interval bca has no effect with -bootstrap 0\n")
		}
		if bca {
			// estimators.BootstrapBCa: the delete-one jackknife runs each
			// estimator on n - 1 episodes
			for _, n := range names {
				if inf, _ := estimators.Lookup(n); b.N() < max(inf.MinN, 1)+1 {
					return usageErr("%s: -interval bca: the jackknife of %s needs at least %d episodes, the data has %d", info.path, n, max(inf.MinN, 1)+1, b.N())
				}
			}
			if b.N() > *reps {
				fmt.Fprintf(stderr, "runexp estimate: note: -interval bca runs %d jackknife estimates per estimator (one per episode) beside the %d bootstrap replicates\n", b.N(), *reps)
			}
		}
		if need, what, bytes := estimateNeed(&b, names, *reps, *workers, *gamma, bca, bo.count(names)); need > maxMemory.Bytes() {
			return usageErr("%s: the estimates need about %s of memory for the data's n = %d, H = %d, above the budget of %s (-max-memory): %s takes %s",
				info.path, membudget.Format(need), b.N(), b.Horizon(), membudget.Format(maxMemory.Bytes()), what, membudget.Format(bytes))
		}
		// SPEC 1c: every estimator, and every bootstrap replicate, sees the
		// discounted rewards and model columns (at gamma = 1, b itself).
		// Resampling whole episodes keeps each step's index within its
		// episode, so resampling the view is discounting each replicate.
		var disc trajectory.Discounted
		view := disc.Of(&b, *gamma)
		// the bounds first: a return outside -return-range is bad input,
		// found in one pass before the estimates and the bootstrap run
		lowers, err := bo.compute(view, names)
		if err != nil {
			if errors.Is(err, estimators.ErrOutOfRange) {
				return usageErr("%s: %s", info.path, outOfRangeText(view, bo, *gamma, err))
			}
			if inputerr.Is(err) {
				return usageErr("%s: %v", info.path, err)
			}
			return fmt.Errorf("estimate: %w", err)
		}
		values, errs := estimators.EstimateEach(view, names, *workers)
		var ivs []estimators.Interval
		if *reps > 0 {
			boot := estimators.Bootstrap
			if bca {
				boot = estimators.BootstrapBCa
			}
			if ivs, err = boot(view, names, *reps, *confidence, *seed, *workers); err != nil {
				return fmt.Errorf("estimate: %w", err)
			}
		}
		res := estimateResult{Episodes: b.N(), Steps: b.Steps(), Horizon: b.Horizon(),
			ess: estimators.ESS(&b), names: names, values: values, errs: errs, ivs: ivs,
			bounds: bo, lowers: lowers}
		if *gamma != 1 {
			res.Gamma = gamma
		}
		if ivs != nil {
			res.Bootstrap = &bootstrapJSON{Replicates: *reps, Confidence: *confidence, Seed: *seed}
			if explicit["interval"] {
				res.Bootstrap.Interval = *interval
			}
			res.bca = bca
		}
		if bo.kinds != nil {
			res.Delta = delta
			if bo.usesRange() {
				res.ReturnRange = &[2]float64{bo.lo, bo.hi}
			}
		}
		res.fill()
		var out bytes.Buffer
		if *asJSON {
			data, err := json.MarshalIndent(&res, "", "  ")
			if err != nil {
				return fmt.Errorf("estimate: %w", err)
			}
			out.Write(append(data, '\n'))
		} else {
			res.writeTable(&out)
		}
		if _, err := stdout.Write(out.Bytes()); err != nil {
			return err
		}
		return res.reportFailures(stderr)
	}
}

// The bootstrap intervals -interval chooses between.
const (
	intervalPercentile = "percentile"
	intervalBCa        = "bca"
)

// boundOptions is what -bounds, -delta and -return-range ask for.
type boundOptions struct {
	kinds    []string // bound keys, in the order asked; nil: none
	delta    float64
	lo, hi   float64 // -return-range, when hasRange
	hasRange bool
}

// lowerBound is one estimator's lower bound of one kind: absent when the
// estimator's registry entry does not list the kind, else its value or the
// error that kept it from being computed.
type lowerBound struct {
	ok    bool
	value float64
	err   error
}

// parseBounds reads -bounds: nil when empty of any key (no bounds), each
// key of estimators.BoundNames once.
func parseBounds(list string) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	var kinds []string
	for _, k := range strings.Split(list, ",") {
		k = strings.TrimSpace(k)
		if k == "" || slices.Contains(kinds, k) {
			continue
		}
		if _, ok := estimators.LookupBound(k); !ok {
			return nil, fmt.Errorf("unknown bound %q in -bounds (known: %s)", k, strings.Join(estimators.BoundNames(), ", "))
		}
		kinds = append(kinds, k)
	}
	if len(kinds) == 0 {
		return nil, fmt.Errorf("-bounds is empty (known: %s)", strings.Join(estimators.BoundNames(), ", "))
	}
	return kinds, nil
}

// decimal is a number in decimal or exponent notation, as the data
// columns are read (logdata): no hexadecimal, underscores, NaN or
// infinities.
var decimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// parseReturnRange reads -return-range LO,HI: two finite decimal numbers
// with LO < HI whose difference is finite (the bounds scale by HI - LO).
func parseReturnRange(s string) (lo, hi float64, err error) {
	bad := func(why string) error {
		return fmt.Errorf("-return-range %q: %s; want LO,HI, two finite decimal numbers with LO < HI", s, why)
	}
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return 0, 0, bad(fmt.Sprintf("%d comma-separated fields", len(parts)))
	}
	var v [2]float64
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if !decimal.MatchString(p) {
			return 0, 0, bad(fmt.Sprintf("%q is not a decimal number", p))
		}
		x, err := strconv.ParseFloat(p, 64)
		if err != nil && math.IsInf(x, 0) {
			return 0, 0, bad(fmt.Sprintf("%q is out of the float64 range", p))
		}
		v[i] = x // an underflow reads as the nearest value, as in the data
	}
	if !(v[0] < v[1]) {
		return 0, 0, bad(fmt.Sprintf("LO = %v is not below HI = %v", v[0], v[1]))
	}
	if math.IsInf(v[1]-v[0], 0) {
		return 0, 0, bad("HI - LO is beyond the float64 range")
	}
	return v[0], v[1], nil
}

// needsRangeText lists the bounds that need -return-range, from the
// registry, as ": hcope" ("" when none does).
func needsRangeText() string {
	ks := rangeKinds(estimators.BoundNames())
	if len(ks) == 0 {
		return ""
	}
	return ": " + strings.Join(ks, ", ")
}

// supporters lists the estimators whose registry entry lists bound kind,
// those of names (all of the registry when names is nil).
func supporters(kind string, names []string) []string {
	var out []string
	for _, inf := range estimators.All() {
		if names != nil && !slices.Contains(names, inf.Name) {
			continue
		}
		if slices.Contains(inf.Bounds, kind) {
			out = append(out, inf.Name)
		}
	}
	return out
}

// check says why the bounds asked for cannot be computed for estimators
// names on n episodes (in where): no estimator computed has one, or there
// are fewer episodes than it needs. It returns "" when they can.
func (bo *boundOptions) check(names []string, n int, where string) string {
	for _, k := range bo.kinds {
		if len(supporters(k, names)) == 0 {
			return fmt.Sprintf("-bounds %s: no estimator computed (%s) has the %s bound; it is computed for %s (-estimators)",
				k, strings.Join(names, ", "), k, strings.Join(supporters(k, nil), ", "))
		}
		if bi, _ := estimators.LookupBound(k); n < bi.MinN {
			return fmt.Sprintf("%s: the %s bound (-bounds) needs at least %d episodes, the data has %d", where, k, bi.MinN, n)
		}
	}
	return ""
}

// usesRange reports whether a bound asked for needs -return-range.
func (bo *boundOptions) usesRange() bool { return len(rangeKinds(bo.kinds)) > 0 }

// count is the number of (estimator, bound) pairs computed.
func (bo *boundOptions) count(names []string) int {
	c := 0
	for _, k := range bo.kinds {
		c += len(supporters(k, names))
	}
	return c
}

// compute returns, for each estimator j of names and each bound kind k
// asked for, estimators.LowerBound on b (SPEC 1e) in [j][k], when the
// estimator's registry entry lists the kind. A bound that fails is kept
// with its error, except a return outside the range or bad input, which
// is returned.
func (bo *boundOptions) compute(b *trajectory.Batch, names []string) ([][]lowerBound, error) {
	if bo.kinds == nil {
		return nil, nil
	}
	out := make([][]lowerBound, len(names))
	for j, name := range names {
		inf, _ := estimators.Lookup(name)
		out[j] = make([]lowerBound, len(bo.kinds))
		for k, kind := range bo.kinds {
			if !slices.Contains(inf.Bounds, kind) {
				continue
			}
			v, err := estimators.LowerBound(name, kind, b, bo.delta, bo.lo, bo.hi)
			if err != nil && (errors.Is(err, estimators.ErrOutOfRange) || inputerr.Is(err)) {
				return nil, err
			}
			out[j][k] = lowerBound{ok: true, value: v, err: err}
		}
	}
	return out, nil
}

// outOfRangeText says which episode of b has a return outside the range
// of bo, after LowerBound's error err (errors.Is(err, ErrOutOfRange)).
// The data files' episode ids are not kept by logdata, so the episode is
// named by its 0-based index in file order and its data records (one a
// step, 1-based, the header not counted).
func outOfRangeText(b *trajectory.Batch, bo boundOptions, gamma float64, err error) string {
	what := "return"
	if gamma != 1 {
		what = fmt.Sprintf("return discounted with gamma = %v", gamma)
	}
	for i := range b.N() {
		g := 0.0
		for _, r := range b.Reward[b.Offsets[i]:b.Offsets[i+1]] {
			g += r
		}
		if !(g >= bo.lo && g <= bo.hi) {
			return fmt.Sprintf("episode %d (0-based, in file order: data records %d to %d) has %s %v, outside -return-range [%v, %v], which the %s bound needs to hold every return",
				i, b.Offsets[i]+1, b.Offsets[i+1], what, g, bo.lo, bo.hi, strings.Join(rangeKinds(bo.kinds), " and "))
		}
	}
	// the bound saw a return outside the range that this sum, in another
	// order, does not: its own words
	return fmt.Sprintf("-return-range [%v, %v]: %v", bo.lo, bo.hi, err)
}

// rangeKinds returns the bounds of kinds that need a range.
func rangeKinds(kinds []string) []string {
	var out []string
	for _, k := range kinds {
		if bi, _ := estimators.LookupBound(k); bi.NeedsRange {
			out = append(out, k)
		}
	}
	return out
}

// parseEstimators reads -estimators: nil when empty of any name (the
// defaults), each known key once.
func parseEstimators(list string) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	var names []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" || slices.Contains(names, n) {
			continue
		}
		if _, ok := estimators.Lookup(n); !ok {
			return nil, fmt.Errorf("unknown estimator %q in -estimators (known: %s)", n, strings.Join(estimators.Names(), ", "))
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("-estimators is empty (known: %s)", strings.Join(estimators.Names(), ", "))
	}
	return names, nil
}

type dataInfo struct {
	logdata.Info
	path string // the file, or "standard input"
}

// readData reads DATA (a path, or - for standard input) into b. Its errors
// name the file. Bad input is marked (inputerr): a file that does not exist
// or is a directory, and every error of the data (logdata's); a file that
// cannot be opened otherwise (permissions) or an I/O error while reading is
// a failure of the machine and stays unmarked.
func readData(path string, f logdata.Format, b *trajectory.Batch, opt logdata.Options) (dataInfo, error) {
	in := stdin
	info := dataInfo{path: "standard input"}
	if path != "-" {
		info.path = path
		file, err := os.Open(path)
		if err != nil {
			return info, inputerr.Open(err) // an *fs.PathError names the file
		}
		defer file.Close()
		if st, err := file.Stat(); err == nil {
			if st.IsDir() {
				return info, inputerr.Errorf("%s is a directory, want a CSV or JSON Lines file", path)
			}
			if st.Mode().IsRegular() {
				opt.SizeHint = st.Size()
			}
		}
		in = file
	}
	var err error
	info.Info, err = logdata.Read(in, f, b, opt)
	switch {
	case err == nil:
		return info, nil
	case inputerr.Is(err):
		return info, fmt.Errorf("%s: %w", info.path, err)
	}
	// EISDIR from a read marks a directory the Stat above missed
	return info, inputerr.Open(fmt.Errorf("reading %s: %w", info.path, err))
}

// estimateResult is what runexp estimate prints; as JSON, the documented
// object.
type estimateResult struct {
	Episodes int `json:"episodes"`
	Steps    int `json:"steps"`
	Horizon  int `json:"horizon"`
	// Gamma is the discount factor (-gamma), left out when it is 1.
	Gamma     *float64       `json:"gamma,omitempty"`
	Bootstrap *bootstrapJSON `json:"bootstrap,omitempty"`
	// Delta is the lower bounds' delta (-delta), there with -bounds.
	Delta *float64 `json:"delta,omitempty"`
	// ReturnRange is -return-range, there when a bound used it.
	ReturnRange *[2]float64      `json:"return_range,omitempty"`
	Estimates   orderedEstimates `json:"estimates"`

	ess    float64 // every estimator weights by the same factors
	names  []string
	values []float64
	errs   []error
	ivs    []estimators.Interval
	bca    bool // ivs are BCa intervals
	bounds boundOptions
	lowers [][]lowerBound // [estimator][bound kind]; nil without -bounds
}

type bootstrapJSON struct {
	Replicates int     `json:"replicates"`
	Confidence float64 `json:"confidence"`
	Seed       uint64  `json:"seed"`
	// Interval is the method of the intervals (-interval), there when it
	// was given, so that the default output stays what it was.
	Interval string `json:"interval,omitempty"`
}

type estimateJSON struct {
	Value  *float64 `json:"value,omitempty"`
	Error  string   `json:"error,omitempty"`
	CILow  *float64 `json:"ci_low,omitempty"`
	CIHigh *float64 `json:"ci_high,omitempty"`
	// Lower holds the lower bounds by key, LowerErrors the bounds that
	// failed (with -bounds, for the bounds the estimator has).
	Lower       orderedObject `json:"lower,omitempty"`
	LowerErrors orderedObject `json:"lower_errors,omitempty"`
	ESS         float64       `json:"ess"`
	// FailedReplicates counts bootstrap replicates left out (estimate failed).
	FailedReplicates int `json:"failed_replicates,omitempty"`
}

// orderedEstimates marshals as a JSON object whose keys keep the order of
// the estimators asked for.
type orderedEstimates []namedEstimate

type namedEstimate struct {
	name string
	est  estimateJSON
}

func (o orderedEstimates) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(e.name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(e.est)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// orderedObject marshals as a JSON object whose keys keep their order.
type orderedObject []keyValue

type keyValue struct {
	key   string
	value any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(kv.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kv.key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// fill sets Estimates from the estimates, errors, intervals and bounds.
func (r *estimateResult) fill() {
	r.Estimates = r.Estimates[:0]
	for j, n := range r.names {
		e := estimateJSON{ESS: r.ess}
		if r.errs[j] != nil {
			e.Error = r.errs[j].Error()
		} else {
			e.Value = &r.values[j]
		}
		if r.ivs != nil && r.ivs[j].Failed < r.Bootstrap.Replicates {
			e.CILow, e.CIHigh = &r.ivs[j].Low, &r.ivs[j].High
			e.FailedReplicates = r.ivs[j].Failed
		}
		if r.lowers != nil {
			for k, lb := range r.lowers[j] {
				switch {
				case !lb.ok:
				case lb.err != nil:
					e.LowerErrors = append(e.LowerErrors, keyValue{r.bounds.kinds[k], lb.err.Error()})
				default:
					e.Lower = append(e.Lower, keyValue{r.bounds.kinds[k], lb.value})
				}
			}
		}
		r.Estimates = append(r.Estimates, namedEstimate{n, e})
	}
}

// percent formats 100 x as a percentage: 95%, 97.5%.
func percent(x float64) string {
	return strconv.FormatFloat(100*x, 'g', 6, 64) + "%"
}

func (r *estimateResult) writeTable(w io.Writer) {
	fmt.Fprintf(w, "%d episodes, %d steps, horizon %d", r.Episodes, r.Steps, r.Horizon)
	if r.Gamma != nil {
		fmt.Fprintf(w, ", discounted with gamma = %v", *r.Gamma)
	}
	fmt.Fprintln(w)
	if r.Bootstrap != nil {
		method := "percentile"
		if r.bca {
			method = "BCa (bias-corrected and accelerated)"
		}
		fmt.Fprintf(w, "%g%% %s bootstrap intervals over episodes (B = %d, seed %d)\n", 100*r.Bootstrap.Confidence, method, r.Bootstrap.Replicates, r.Bootstrap.Seed)
	} else {
		fmt.Fprintf(w, "no intervals (-bootstrap 0)\n")
	}
	if r.lowers != nil {
		fmt.Fprintf(w, "one-sided lower bounds at 1 - delta = %s (delta = %v)", percent(1-r.bounds.delta), r.bounds.delta)
		if r.bounds.usesRange() {
			fmt.Fprintf(w, ", returns in [%v, %v]", r.bounds.lo, r.bounds.hi)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	head := []string{"estimator", "estimate", "ci_low", "ci_high", "ess"}
	for _, k := range r.bounds.kinds {
		head = append(head, k+" lower "+percent(1-r.bounds.delta))
	}
	rows := [][]string{head}
	for j, n := range r.names {
		lo, hi := "-", "-"
		if r.ivs != nil && r.ivs[j].Failed < r.Bootstrap.Replicates {
			lo, hi = fmt.Sprintf("%.6g", r.ivs[j].Low), fmt.Sprintf("%.6g", r.ivs[j].High)
		}
		v := fmt.Sprintf("%.6g", r.values[j])
		if r.errs[j] != nil {
			v = "failed"
		}
		row := []string{n, v, lo, hi, fmt.Sprintf("%.1f", r.ess)}
		for k := range r.bounds.kinds {
			switch lb := r.lowers[j][k]; {
			case !lb.ok:
				row = append(row, "-")
			case lb.err != nil:
				row = append(row, "failed")
			default:
				row = append(row, fmt.Sprintf("%.6g", lb.value))
			}
		}
		rows = append(rows, row)
	}
	writeAligned(w, rows)
}

// reportFailures writes failed estimates, bounds and bootstrap replicates
// to stderr; failed estimates and bounds make the command fail (exit 1).
func (r *estimateResult) reportFailures(stderr io.Writer) error {
	failed, failedBounds := 0, 0
	for j, n := range r.names {
		if err := r.errs[j]; err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, n+":") {
				msg = n + ": " + msg
			}
			fmt.Fprintf(stderr, "runexp estimate: %s\n", msg)
			failed++
		}
		if r.ivs != nil && r.ivs[j].Failed > 0 {
			fmt.Fprintf(stderr, "runexp estimate: note: %s failed on %d of %d bootstrap replicates (left out of its interval)\n", n, r.ivs[j].Failed, r.Bootstrap.Replicates)
		}
		if r.lowers != nil {
			for _, lb := range r.lowers[j] {
				if lb.ok && lb.err != nil {
					// LowerBound's errors name the bound and the estimator
					fmt.Fprintf(stderr, "runexp estimate: %v\n", lb.err)
					failedBounds++
				}
			}
		}
	}
	switch {
	case failed > 0 && failedBounds > 0:
		return fmt.Errorf("estimate: %d of %d estimates and %d lower bounds failed", failed, len(r.names), failedBounds)
	case failed > 0:
		return fmt.Errorf("estimate: %d of %d estimates failed", failed, len(r.names))
	case failedBounds > 0:
		return fmt.Errorf("estimate: %d lower bounds failed", failedBounds)
	}
	return nil
}

// writeAligned writes rows as columns two spaces apart, the first
// left-aligned and the others (numbers) right-aligned.
func writeAligned(w io.Writer, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for c, s := range r {
			width[c] = max(width[c], len(s))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for c, s := range r {
			if c == 0 {
				fmt.Fprintf(&line, "%-*s", width[c], s)
			} else {
				fmt.Fprintf(&line, "  %*s", width[c], s)
			}
		}
		fmt.Fprintln(w, line.String())
	}
}
