package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/external"
	"github.com/ope-lab/longhorizon/reference"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/evaluate"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/membudget"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/logdata/policytable"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

var estimateCommand = command{
	name: "estimate", args: "[flags] DATA", minArgs: 1, maxArgs: 1, want: "exactly one DATA file (or - for standard input)",
	summary: "off-policy estimates with bootstrap intervals from logged episodes (CSV, JSON Lines, JSON, Parquet)",
	about:   reference.EstimateAbout(),
	flags:   estimateFlags,
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
	if c.Model || c.IDs { // with ids, a model is fitted (SPEC 1f)
		d |= estimators.Model
	}
	if c.IDs { // and the reader keeps pi_b, pi_e of every step
		d |= estimators.IDs | estimators.Probs
	}
	return d
}

func estimateFlags(fs *flag.FlagSet) func(*flag.FlagSet, io.Reader, io.Writer, io.Writer) error {
	var lf loggedFlags
	fs.StringVar(&lf.Estimators, "estimators", "", "comma-separated estimators (default: the registry's defaults the data supports)")
	fs.IntVar(&lf.Replicates, "bootstrap", 2000, "bootstrap replicates B; 0 turns the intervals off")
	fs.Float64Var(&lf.Confidence, "confidence", 0.95, "confidence level of the intervals, in (0, 1)")
	fs.Uint64Var(&lf.Seed, "seed", 1, "seed of the bootstrap's random streams")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a table")
	format := fs.String("format", "", "input format, csv, jsonl, json or parquet (default: by the name's ending, .jsonl or .ndjson, .json, .parquet or .pq, else csv)")
	columns := fs.String("columns", "", "OUR=THEIRS,...: the data's name for each of our columns (episode=trajectory_id,pi_b=pscore), and preset=NAME for a layout of the field: "+strings.Join(logdata.PresetNames(), ", ")+" (docs/estimate/columns.md)")
	allowExtra := fs.Bool("allow-extra", false, "ignore unknown columns instead of rejecting them")
	fs.IntVar(&lf.Workers, "workers", runtime.NumCPU(), "goroutines for the estimates and the bootstrap; results do not depend on it")
	var maxMemory membudget.Flag
	fs.Var(&maxMemory, "max-memory", maxMemoryUsage)
	maxSteps := fs.Int("max-steps", logdata.DefaultMaxSteps, "most steps (records) DATA may hold; more is refused (exit 2), so endless input cannot exhaust memory")
	fs.Float64Var(&lf.Gamma, "gamma", 1, "discount factor in (0, 1]: the reward, q_hat and v_hat of 1-based step t count gamma^(t-1) (SPEC 1c)")
	fs.StringVar(&lf.Bounds, "bounds", "", "comma-separated one-sided lower bounds (SPEC 1e): "+strings.Join(confidence.Names(), ", ")+" (default none)")
	fs.StringVar(&lf.Model, "model", models.Default, "the kind of the model fitted from the obs and action columns (SPEC 1f): "+strings.Join(evaluate.LearnedModels(), ", ")+" (runexp help models)")
	fs.IntVar(&lf.Horizon, "horizon", 0, "H > 0 of the model fitted from the obs and action columns (SPEC 1f; default: the longest episode); a longer episode is bad input")
	fs.Float64Var(&lf.Delta, "delta", 0.05, "the lower bounds hold at confidence 1 - delta; delta in (0, 1)")
	fs.StringVar(&lf.ReturnRange, "return-range", "", "LO,HI: a range holding every episode's return (discounted with -gamma), for the bounds that need one"+reference.NeedsRangeText())
	essWarn := fs.Float64("ess-warn", 0.01, "warn when the effective sample size of the importance weights (Kish's, of the final weights or of the weights up to any step) is below this fraction of the episodes; 0 never warns")
	fs.StringVar(&lf.Interval, "interval", intervalPercentile, "bootstrap interval: "+intervalPercentile+" or "+intervalBCa+" (bias-corrected and accelerated)")
	var externals externalFlag
	fs.Var(&externals, "external", "NAME=COMMAND: an external estimator (docs/external.md), the program and its arguments separated by spaces, run in the current directory; repeat for more. Computed after -estimators' ones, with bootstrap intervals, no bound")
	extTimeout := fs.Duration("external-timeout", config.DefaultTimeout, "most time an external estimator may take to answer one request")
	var plot plotFlags
	plot.add(fs)
	csvPath := fs.String("csv", "", "FILE: also write the estimates as CSV rows policy,estimator,estimate,ci_low,ci_high,ess (policy pi_e for a file's one pi_e column)")
	tablePath := fs.String("policy-table", "", "FILE: pi_e(a|o) for every action of each observation (CSV: obs, action, and pi_e or pi_e:NAME columns), checked against the data's pi_e and handed to the models fitted from the obs and action columns (docs/estimate/policies.md)")
	truthFlag := fs.String("truth", "", "the policies' true values, NAME=V,... or a CSV file with the header policy,value: shown beside the estimates and drawn in -plot; with several policies, each estimator's Spearman's rank correlation and regret@1, regret@3 (docs/estimate/policies.md)")
	return func(fs *flag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) error {
		usageErr := func(format string, a ...any) error { return usageError(stderr, "estimate", format, a...) }
		note := func(text string) { fmt.Fprintf(stderr, "runexp estimate: note: %s\n", text) }
		switch {
		case *maxSteps < 1:
			return usageErr("-max-steps %d, want >= 1", *maxSteps)
		case !(*essWarn >= 0 && *essWarn <= 1):
			return usageErr("-ess-warn %v, want a fraction in [0, 1]", *essWarn)
		}
		lf.MaxMemory, lf.Explicit = maxMemory.Bytes(), explicit(fs)
		job, names, notes, err := lf.job()
		if err != nil {
			return usageErr("%v", err)
		}
		job.essWarn = *essWarn
		truth, plotNote, err := plot.check()
		if err != nil {
			return usageErr("%v", err)
		}
		if plotNote != "" {
			notes = append(notes, plotNote)
		}
		var truths []truthPair
		if *truthFlag != "" {
			if truths, err = parseTruth(*truthFlag); err != nil {
				return usageErr("%v", err)
			}
		}
		var table *policytable.PolicyTable
		if *tablePath != "" {
			if table, err = readPolicyTable(*tablePath); err != nil {
				return usageErr("%v", err)
			}
		}
		if *csvPath != "" {
			if err := checkCSVPath(*csvPath); err != nil {
				return usageErr("%v", err)
			}
		}
		specs, err := externals.specs(*extTimeout)
		if err != nil {
			return usageErr("%v", err)
		}
		path, f := fs.Arg(0), logdata.FormatOf(fs.Arg(0))
		if *format != "" {
			if f, err = logdata.ParseFormat(*format); err != nil {
				return usageErr("-format: %v", err)
			}
		}
		mapping, err := logdata.ParseMapping(*columns)
		if err != nil {
			return usageErr("-columns for %s: %v", path, err)
		}
		var b trajectory.Batch
		// an external estimator reads the data written back, with its
		// probabilities (logdata.WriteBatch)
		info, where, err := logdata.ReadFile(path, stdin, f, &b, logdata.Options{AllowExtra: *allowExtra, MaxSteps: *maxSteps, KeepProbs: len(specs) > 0, Columns: mapping, MaxPolicyBytes: lf.MaxMemory})
		if err != nil {
			return dataError(err, usageErr)
		}
		if t := truncationNote(info, &b, where, f); t != "" {
			note(t)
		}
		if len(info.Extra) > 0 {
			why := " (-allow-extra)"
			if !*allowExtra {
				why = " (-columns preset=" + mapping.Preset + " ignores them)"
			}
			note("ignoring columns " + strings.Join(info.Extra, ", ") + why)
		}
		pols := policyViews(&b, info)
		polNames := make([]string, len(pols))
		for k, p := range pols {
			polNames[k] = p.name
		}
		if table != nil {
			if err := applyPolicyTable(table, pols, info.IDs != nil, where); err != nil {
				return usageErr("%v", err)
			}
		}
		var truthValues []float64
		if truths != nil {
			if truthValues, err = matchTruths(truths, polNames, where); err != nil {
				return usageErr("%v", err)
			}
			if !math.IsNaN(truth) {
				return usageErr("-truth and -plot-truth both give the true value: give one")
			}
		}
		if len(pols) > 1 && !math.IsNaN(truth) {
			return usageErr("-plot-truth is the true value of a file's one pi_e; %s has %d policies: give -truth NAME=V,...", where, len(pols))
		}
		job.setIDs(pols[0])
		job.setData(dataOf(info.Columns), where, names)
		var exts []*external.Method
		if len(specs) > 0 {
			var procs external.Set
			defer procs.CloseAll()
			for _, x := range specs {
				pr, err := external.Start(x)
				if err != nil {
					return fmt.Errorf("estimate: -external %s: %w", x.Name, err)
				}
				if err := procs.Add(pr); err != nil {
					return err
				}
				exts = append(exts, external.NewMethod(pr, info.Columns))
				job.Methods = append(job.Methods, exts[len(exts)-1])
			}
		}
		more, err := job.check(&pols[0].b)
		for _, n := range append(notes, more...) {
			note(n)
		}
		if err != nil {
			return usageErr("%v", err)
		}
		if len(pols) > 1 {
			// the views differ only in pi_e and the ratios: the models
			// count the data once (models.PolicyShare)
			job.Policies = new(models.PolicyShare)
		}
		reps := make([]*estimateReport, len(pols))
		for k := range pols {
			if len(pols) > 1 {
				for _, x := range exts {
					x.SetLabel("policy " + pols[k].name)
				}
			}
			if k > 0 {
				// the checks hold for every policy: one shape, one data
				job.setIDs(pols[k])
				if _, err := job.setModel(&pols[k].b); err != nil {
					return usageErr("%v", err)
				}
			}
			if reps[k], err = job.run(&pols[k].b); err != nil {
				if len(pols) > 1 {
					err = fmt.Errorf("policy %s: %w", pols[k].name, err)
				}
				return dataError(err, usageErr)
			}
		}
		pr := newPoliciesReport(polNames, reps, truthValues)
		if len(pols) == 1 && truthValues != nil {
			truth = truthValues[0]
		}
		if err := writeEstimates(pr, info.Policies != nil, *asJSON, stdout); err != nil {
			return err
		}
		if *csvPath != "" {
			if err := pr.writeCSV(*csvPath); err != nil {
				return err
			}
		}
		if plot.path != "" {
			if err := pr.plot(where, truth, plot.path); err != nil {
				return fmt.Errorf("estimate: -plot: %w", err)
			}
		}
		return pr.WriteFailures(stderr, "runexp estimate: ")
	}
}

// writeEstimates prints pr as a table or JSON: a file with one pi_e
// column (not several) as it always has, without a policy column.
func writeEstimates(pr *policiesReport, several, asJSON bool, stdout io.Writer) error {
	var out bytes.Buffer
	switch {
	case several && asJSON:
		if err := pr.WriteJSON(&out); err != nil {
			return err
		}
	case several:
		pr.WriteTable(&out)
	case asJSON:
		if err := pr.reps[0].WriteJSON(&out); err != nil {
			return err
		}
	default:
		pr.reps[0].WriteTable(&out)
	}
	_, err := stdout.Write(out.Bytes())
	return err
}

// dataError is err as the command reports it: bad input as a usage error,
// anything else as a failure of the machine.
func dataError(err error, usageErr func(string, ...any) error) error {
	if inputerr.Is(err) {
		return usageErr("%v", err)
	}
	return fmt.Errorf("estimate: %w", err)
}

// explicit reports whether a flag of fs was given.
func explicit(fs *flag.FlagSet) func(string) bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return func(name string) bool { return set[name] }
}
