package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/ope-lab/longhorizon/experiments"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/logdata"
)

var exportCommand = command{
	name: "export", args: "[flags] -out DIR CONFIG.yaml",
	summary: "write every (series, trial) data set of a config as logged-data files",
	about: `Writes the data set of every (series, trial) unit of the config exactly as
'runexp run' draws it (the unit's random stream, the domain's n_max
trajectories) in the logged-data format (runexp help data):
DIR/<series>/trial-<k>.csv (or .jsonl) for k < T, episodes "0", "1", ...
in draw order, with columns episode, step, reward, pi_b, pi_e (their
quotient is the harness's ratio bit for bit), split where the domain marks
split points, and q_hat, v_hat where the series uses the exact model
(model: exact). DIR/manifest.json holds the config's name, seed, n grid and
trials, and per series its domain, parameters, gamma, true value (and how
it was obtained), columns and files. 'runexp estimate -gamma G' on a trial
file gives, at n = n_max, the harness's estimates for that trial. The same
config gives the same bytes. Nothing is written unless everything is:
files are staged in DIR and moved into place at the end. Options data
(optionschain, noisytaxi with option_length >= 2) and data: independent
are refused. See docs/export.md.`,
	flags: func(fs *flag.FlagSet) func(*flag.FlagSet, io.Writer, io.Writer) error {
		trials := fs.Int("trials", 0, "export trials 0..T-1 of every series (0: the config's trials)")
		format := fs.String("format", "csv", "file format: csv or jsonl")
		out := fs.String("out", "", "output directory (required)")
		quiet := fs.Bool("quiet", false, "no progress on standard error (a true value taking longer than a few seconds still reports)")
		return func(fs *flag.FlagSet, stdout, stderr io.Writer) error {
			if fs.NArg() != 1 {
				fs.Usage()
				return usageError(stderr, "export", "want exactly one CONFIG.yaml")
			}
			if *out == "" {
				return usageError(stderr, "export", "-out: an output directory is required")
			}
			if *trials < 0 {
				return usageError(stderr, "export", "-trials %d, want >= 1 (or 0 for the config's)", *trials)
			}
			f, err := logdata.ParseFormat(*format)
			if err != nil {
				return usageError(stderr, "export", "-format %q, want csv or jsonl", *format)
			}
			plan, err := config.Load(fs.Arg(0))
			if err != nil {
				return err
			}
			if *trials > plan.Trials {
				return usageError(stderr, "export", "-trials %d, want at most the config's %d", *trials, plan.Trials)
			}
			h := harnessOptions(stderr, plan.Name, *quiet)
			start := time.Now()
			man, err := experiments.Export(plan, *out, experiments.ExportOptions{Trials: *trials, Format: f,
				TruthCache: h.TruthCache, TruthProgress: h.TruthProgress, Log: h.Log})
			if err != nil {
				return err
			}
			files := 0
			for _, s := range man.Series {
				files += len(s.Files)
			}
			fmt.Fprintf(stdout, "wrote %s (%d series, %d files, %s)\n", *out, len(man.Series), files, time.Since(start).Round(time.Millisecond))
			return nil
		}
	},
}
