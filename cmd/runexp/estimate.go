package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// stdin is what DATA "-" reads; tests replace it.
var stdin io.Reader = os.Stdin

// defaultEstimators are estimated when -estimators is not given;
// partitioned-pdis is added when the data has a split column.
var defaultEstimators = []string{"is", "pdis", "wis", "cwpdis", "incris"}

// incrisMaxBytes bounds the triangular sums INCRIS keeps (3 float64 per
// (t, k) cell, H(H+3)/2 cells): a longer horizon is refused up front
// rather than exhausting memory.
const incrisMaxBytes = 8 << 30

const estimateHelp = `Usage: runexp estimate [flags] DATA

Estimates the value of an evaluation policy from episodes logged under a
behavior policy, with percentile bootstrap confidence intervals over
episodes. DATA is a CSV file with a header row, a JSON Lines file (name
ending in .jsonl, or -format jsonl: one object per step, same field names,
numbers as JSON numbers), or - for standard input (CSV unless -format jsonl).

One record per primitive step; an episode's records are contiguous and its
steps in order. Columns, in any order:
  episode         required  episode id: any non-empty string (JSONL: string or number)
  step            required  step within the episode: 0, 1, 2, ... with no gap
  reward          required  the step's reward
  pi_b            required  probability of the logged action under behavior, in (0, 1]
  pi_e            required  probability of the logged action under evaluation, in [0, 1]
  split           optional  0/1: 1 on the last step of a part; partitioned-pdis
                            restarts its weights after it. A split column adds
                            partitioned-pdis to the default estimators.
  option_start    options   0/1: 1 on an option's first step (so on every step 0)
  mu_b, mu_e      options   probability of the running option under behavior, in
                            (0, 1], and evaluation, in [0, 1]; required on
                            option_start rows; on later rows of the option empty
                            (JSONL: null or absent) or equal to the start row's
  option_changed  optional  0/1 on option_start rows (later rows: empty or equal):
                            the option's own policy differs between behavior and
                            evaluation, so the action ratios inside it count; default 0
option_start, mu_b and mu_e come together; options-pdis uses them (estimated
only when named in -estimators). Flags also accept true/false. Unknown
columns are an error unless -allow-extra. Episodes shorter than the longest
are padded with reward 0 and ratio 1 (SPEC section 1).

Output: per estimator the estimate, the interval [ci_low, ci_high] and the
effective sample size ess = (sum W)^2 / sum W^2 of the final weights, W the
product over each whole episode of the per-step factors every estimator
weights by: pi_e/pi_b, or with option columns mu_e/mu_b on option_start rows
(times pi_e/pi_b inside changed options). The interval is the percentile bootstrap over episodes (resampled
with replacement, each replicate from its own random stream derived from
-seed and the replicate number: the same seed gives the same intervals
whatever -workers). Each replicate copies the data and runs every
estimator, so on millions of steps use a few hundred replicates or none.
-bootstrap 0 turns it off: the table shows "-" and -json leaves out
"bootstrap", ci_low and ci_high. -json prints one object:
  {"episodes": N, "steps": M, "horizon": H,
   "bootstrap": {"replicates": B, "confidence": C, "seed": S},
   "estimates": {"is": {"value": V, "ci_low": L, "ci_high": U, "ess": E}, ...}}
(an estimate that failed has "error" instead of "value").

Exit status: 0 done; 2 bad flags, a DATA file that cannot be opened, or bad
data (the message names the line and column; nothing is written to standard
output); 1 an estimate failed (not representable as a float64: "failed" in
its row, the others printed) or reading failed midway.

Estimators: %s

Flags:
`

func cmdEstimate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("estimate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	estList := fs.String("estimators", strings.Join(defaultEstimators, ","), "comma-separated estimators; when not given, partitioned-pdis is added if the data has a split column")
	reps := fs.Int("bootstrap", 2000, "bootstrap replicates B; 0 turns the intervals off")
	confidence := fs.Float64("confidence", 0.95, "confidence level of the intervals, in (0, 1)")
	seed := fs.Uint64("seed", 1, "seed of the bootstrap's random streams")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a table")
	format := fs.String("format", "", "input format, csv or jsonl (default: jsonl for names ending in .jsonl, else csv)")
	allowExtra := fs.Bool("allow-extra", false, "ignore unknown columns instead of rejecting them")
	workers := fs.Int("workers", runtime.NumCPU(), "goroutines for the estimates and the bootstrap; results do not depend on it")
	fs.Usage = func() {
		fmt.Fprintf(stderr, estimateHelp, strings.Join(estimators.Names(), ", "))
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	usageErr := func(format string, a ...any) error {
		fmt.Fprintf(stderr, "runexp estimate: "+format+"\n", a...)
		return errUsage
	}
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
	estSet := false
	fs.Visit(func(f *flag.Flag) { estSet = estSet || f.Name == "estimators" })
	var names []string
	for _, n := range strings.Split(*estList, ",") {
		n = strings.TrimSpace(n)
		if n == "" || slices.Contains(names, n) {
			continue
		}
		if _, ok := estimators.Lookup(n); !ok {
			return usageErr("unknown estimator %q in -estimators (known: %s)", n, strings.Join(estimators.Names(), ", "))
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return usageErr("-estimators is empty (known: %s)", strings.Join(estimators.Names(), ", "))
	}

	path := fs.Arg(0)
	f := logdata.FormatOf(path)
	if *format != "" {
		var err error
		if f, err = logdata.ParseFormat(*format); err != nil {
			return usageErr("-format: %v", err)
		}
	}
	var in io.Reader
	opt := logdata.Options{AllowExtra: *allowExtra}
	if path == "-" {
		in, path = stdin, "standard input"
	} else {
		file, err := os.Open(path)
		if err != nil {
			return usageErr("%v", err)
		}
		defer file.Close()
		if st, err := file.Stat(); err == nil && st.Mode().IsRegular() {
			opt.SizeHint = st.Size()
		}
		in = file
	}
	var b trajectory.Batch
	info, err := logdata.Read(in, f, &b, opt)
	if err != nil {
		var le *logdata.Error
		if errors.As(err, &le) {
			return usageErr("%s: %v", path, err)
		}
		return fmt.Errorf("estimate: reading %s: %w", path, err)
	}
	if len(info.Extra) > 0 {
		fmt.Fprintf(stderr, "runexp estimate: note: ignoring columns %s (-allow-extra)\n", strings.Join(info.Extra, ", "))
	}
	if !estSet && info.Columns.Split {
		names = append(names, "partitioned-pdis")
	}
	for _, n := range names {
		inf, _ := estimators.Lookup(n)
		if b.N() < inf.MinN {
			return usageErr("%s: %s needs at least %d episodes, the data has %d", path, n, inf.MinN, b.N())
		}
		if h := float64(b.Horizon()); strings.HasPrefix(n, "incris") && 12*h*(h+3) > incrisMaxBytes {
			return usageErr("%s: %s needs about 12 H(H+3) bytes, %.3g GiB, for the horizon H = %d of the data; leave it out of -estimators", path, n, 12*h*(h+3)/(1<<30), b.Horizon())
		}
		switch {
		case n == "partitioned-pdis" && !info.Columns.Split:
			fmt.Fprintf(stderr, "runexp estimate: note: no split column, so partitioned-pdis equals pdis\n")
		case n == "options-pdis" && !info.Columns.Options:
			fmt.Fprintf(stderr, "runexp estimate: note: no option columns, so options-pdis (every step a one-step option) equals pdis\n")
		}
	}

	values, errs := estimateAll(&b, names, *workers)
	var ivs []estimators.Interval
	if *reps > 0 {
		if ivs, err = estimators.Bootstrap(&b, names, *reps, *confidence, *seed, *workers); err != nil {
			return fmt.Errorf("estimate: %w", err)
		}
	}
	ess := estimators.ESS(&b) // every estimator weights by the same factors
	essOf := func(string) float64 { return ess }

	var out bytes.Buffer
	if *asJSON {
		writeEstimateJSON(&out, &b, names, values, errs, ivs, essOf, *reps, *confidence, *seed)
	} else {
		writeEstimateTable(&out, &b, names, values, errs, ivs, essOf, *reps, *confidence, *seed)
	}
	if _, err := stdout.Write(out.Bytes()); err != nil {
		return err
	}
	failed := 0
	for j, n := range names {
		if errs[j] != nil {
			msg := errs[j].Error()
			if !strings.HasPrefix(msg, n+":") {
				msg = n + ": " + msg
			}
			fmt.Fprintf(stderr, "runexp estimate: %s\n", msg)
			failed++
		}
		if ivs != nil && ivs[j].Failed > 0 {
			fmt.Fprintf(stderr, "runexp estimate: note: %s failed on %d of %d bootstrap replicates (left out of its interval)\n", n, ivs[j].Failed, *reps)
		}
	}
	if failed > 0 {
		return fmt.Errorf("estimate: %d of %d estimates failed", failed, len(names))
	}
	return nil
}

// estimateAll runs each estimator once on b, on up to workers goroutines
// (estimators only read the batch).
func estimateAll(b *trajectory.Batch, names []string, workers int) ([]float64, []error) {
	values := make([]float64, len(names))
	errs := make([]error, len(names))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for j, n := range names {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			e, err := estimators.New(n)
			if err == nil {
				values[j], err = e.Estimate(b)
			}
			errs[j] = err
		})
	}
	wg.Wait()
	return values, errs
}

func writeEstimateTable(w io.Writer, b *trajectory.Batch, names []string, values []float64, errs []error, ivs []estimators.Interval, essOf func(string) float64, reps int, confidence float64, seed uint64) {
	fmt.Fprintf(w, "%d episodes, %d steps, horizon %d\n", b.N(), b.Steps(), b.Horizon())
	if ivs != nil {
		fmt.Fprintf(w, "%g%% percentile bootstrap intervals over episodes (B = %d, seed %d)\n", 100*confidence, reps, seed)
	} else {
		fmt.Fprintf(w, "no intervals (-bootstrap 0)\n")
	}
	fmt.Fprintln(w)
	rows := [][]string{{"estimator", "estimate", "ci_low", "ci_high", "ess"}}
	for j, n := range names {
		lo, hi := "-", "-"
		if ivs != nil && ivs[j].Failed < reps {
			lo, hi = fmt.Sprintf("%.6g", ivs[j].Low), fmt.Sprintf("%.6g", ivs[j].High)
		}
		v := fmt.Sprintf("%.6g", values[j])
		if errs[j] != nil {
			v = "failed"
		}
		rows = append(rows, []string{n, v, lo, hi, fmt.Sprintf("%.1f", essOf(n))})
	}
	writeAligned(w, rows)
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
			switch {
			case c == 0:
				fmt.Fprintf(&line, "%-*s", width[c], s)
			default:
				fmt.Fprintf(&line, "  %*s", width[c], s)
			}
		}
		fmt.Fprintln(w, line.String())
	}
}

type estimateJSON struct {
	Value  *float64 `json:"value,omitempty"`
	Error  string   `json:"error,omitempty"`
	CILow  *float64 `json:"ci_low,omitempty"`
	CIHigh *float64 `json:"ci_high,omitempty"`
	ESS    float64  `json:"ess"`
	// FailedReplicates counts bootstrap replicates left out (estimate failed).
	FailedReplicates int `json:"failed_replicates,omitempty"`
}

func writeEstimateJSON(w io.Writer, b *trajectory.Batch, names []string, values []float64, errs []error, ivs []estimators.Interval, essOf func(string) float64, reps int, confidence float64, seed uint64) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, `{"episodes":%d,"steps":%d,"horizon":%d,`, b.N(), b.Steps(), b.Horizon())
	if ivs != nil {
		bs, _ := json.Marshal(struct {
			Replicates int     `json:"replicates"`
			Confidence float64 `json:"confidence"`
			Seed       uint64  `json:"seed"`
		}{reps, confidence, seed})
		fmt.Fprintf(&buf, `"bootstrap":%s,`, bs)
	}
	buf.WriteString(`"estimates":{`)
	for j, n := range names {
		e := estimateJSON{ESS: essOf(n)}
		if errs[j] != nil {
			e.Error = errs[j].Error()
		} else {
			e.Value = &values[j]
		}
		if ivs != nil && ivs[j].Failed < reps {
			e.CILow, e.CIHigh = &ivs[j].Low, &ivs[j].High
			e.FailedReplicates = ivs[j].Failed
		}
		if j > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(n)
		v, _ := json.Marshal(e)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteString("}}")
	var ind bytes.Buffer
	json.Indent(&ind, buf.Bytes(), "", "  ")
	ind.WriteByte('\n')
	w.Write(ind.Bytes())
}
