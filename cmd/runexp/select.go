package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"time"

	"github.com/ope-lab/longhorizon/experiments"
	"github.com/ope-lab/longhorizon/internal/membudget"
	"github.com/ope-lab/longhorizon/reference"
)

var selectCommand = command{
	name: "select", args: "[flags] CONFIG.yaml", minArgs: 1, maxArgs: 1, want: "exactly one CONFIG.yaml",
	summary: "off-policy selection: rank candidate policies per estimator (Spearman, regret, coverage)",
	about:   reference.SelectAbout,
	flags: func(fs *flag.FlagSet) func(*flag.FlagSet, io.Reader, io.Writer, io.Writer) error {
		workers := fs.Int("workers", runtime.NumCPU(), "goroutines running (series, trial) units; results do not depend on it")
		trials := fs.Int("trials", 0, "override the config's trials (0: keep the config's)")
		seed := fs.String("seed", "", "override the config's seed (an unsigned 64-bit integer)")
		out := fs.String("out", "", "output directory (default results/<config name>)")
		quiet := fs.Bool("quiet", false, "no progress on standard error")
		var maxMemory membudget.Flag
		fs.Var(&maxMemory, "max-memory", maxMemoryUsage)
		return func(fs *flag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) error {
			switch {
			case *workers < 1:
				return usageError(stderr, "select", "-workers %d, want >= 1", *workers)
			case *trials < 0:
				return usageError(stderr, "select", "-trials %d, want >= 2 (or 0 to keep the config's)", *trials)
			}
			plan, dir, err := loadPlan(stderr, "select", fs.Arg(0), *trials, *seed, *out)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			opt := harnessOptions(stderr, plan.Name, *quiet)
			opt.Workers, opt.MaxMemory = *workers, maxMemory.Bytes()
			res, err := experiments.Select(ctx, plan, dir, opt)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %s (%d units, %s)\n", dir, res.Units, res.Wall.Round(time.Millisecond))
			for _, v := range res.Result.Verdict {
				fmt.Fprintf(stdout, "claim %q: %s (%.3g [%.3g, %.3g])\n", v.Name, v.Verdict, v.Value, v.Lo, v.Hi)
			}
			return nil
		}
	},
}
