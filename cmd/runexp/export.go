package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/ope-lab/longhorizon/experiments"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/reference"
)

var exportCommand = command{
	name: "export", args: "[flags] -out DIR CONFIG.yaml", minArgs: 1, maxArgs: 1, want: "exactly one CONFIG.yaml",
	summary: "write every (series, trial) data set of a config as logged-data files",
	about:   reference.ExportAbout,
	flags: func(fs *flag.FlagSet) func(*flag.FlagSet, io.Reader, io.Writer, io.Writer) error {
		trials := fs.Int("trials", 0, "export trials 0..T-1 of every series (0: the config's trials)")
		format := fs.String("format", "csv", "file format: csv or jsonl")
		out := fs.String("out", "", "output directory (required)")
		quiet := fs.Bool("quiet", false, "no progress on standard error (a true value taking longer than a few seconds still reports)")
		return func(fs *flag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) error {
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
