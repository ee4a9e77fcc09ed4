// Command runexp runs the off-policy evaluation experiments of Guo, Thomas
// and Brunskill (NIPS 2017) from YAML configs and redraws their figures.
//
//	runexp run [-workers N] [-trials T] [-seed S] [-out DIR] [-quiet] CONFIG.yaml
//	runexp plot DIR
//
// It holds flags and subcommands only; the work is in package experiments.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments"
)

// revision is the git revision, set by the Makefile with -ldflags -X.
var revision = "unknown"

const usage = `runexp: long-horizon off-policy evaluation experiments (Guo, Thomas, Brunskill 2017)

Usage:
  runexp run [flags] CONFIG.yaml   run a config, write curve.csv, meta.json and the figure
  runexp plot DIR                  redraw the figure of a finished run from its curve.csv
  runexp help [COMMAND]            show help

Run 'runexp help run' for the flags of run.
`

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks a bad invocation: exit status 2.
var errUsage = errors.New("usage")

// Main runs the command with args and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(args[1:], stdout, stderr)
	case "plot":
		err = cmdPlot(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			return Main([]string{args[1], "-h"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "runexp: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	default:
		fmt.Fprintf(stderr, "runexp: %v\n", err)
		return 1
	}
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	workers := fs.Int("workers", runtime.NumCPU(), "goroutines running (series, trial) units; results do not depend on it")
	trials := fs.Int("trials", 0, "override the config's trials (0: keep the config's)")
	seed := fs.String("seed", "", "override the config's seed (an unsigned 64-bit integer)")
	out := fs.String("out", "", "output directory (default results/<config name>)")
	quiet := fs.Bool("quiet", false, "no progress lines on standard error")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: runexp run [flags] CONFIG.yaml

Runs every (series, trial) unit of the config on a pool of goroutines and
writes to the output directory: curve.csv (columns %s),
kstar.csv (mean k* INCRIS chose per step), claims.csv and claims.md (the
config's claims checked), meta.json (resolved config, seed, Go version,
git revision, wall time, true values) and the figure as <name>.png/.svg.
The same config and seed give byte-identical CSV files whatever -workers.

Estimators: %s
Domains: %s

Flags:
`, "experiment,series,estimator,n,trials,true_value,mean_estimate,bias,variance,mse,mse_se",
			strings.Join(estimators.Names(), ", "), strings.Join(experiments.DomainNames(), ", "))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "runexp run: want exactly one CONFIG.yaml")
		fs.Usage()
		return errUsage
	}
	if *workers < 1 {
		fmt.Fprintf(stderr, "runexp run: -workers %d, want >= 1\n", *workers)
		return errUsage
	}
	if *trials < 0 {
		fmt.Fprintf(stderr, "runexp run: -trials %d, want >= 1 (or 0 to keep the config's)\n", *trials)
		return errUsage
	}
	cfg, err := experiments.LoadConfig(fs.Arg(0))
	if err != nil {
		return err
	}
	if *trials > 0 {
		cfg.Trials = *trials
	}
	if *seed != "" {
		var s uint64
		if _, err := fmt.Sscan(*seed, &s); err != nil {
			fmt.Fprintf(stderr, "runexp run: -seed %q is not an unsigned 64-bit integer\n", *seed)
			return errUsage
		}
		cfg.Seed = s
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("results", cfg.Name)
	}
	opt := experiments.Options{Workers: *workers}
	if !*quiet {
		opt.Progress = stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := experiments.Run(ctx, cfg, opt)
	if err != nil {
		return err
	}
	if err := rep.Write(dir, *workers, revision); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d rows, %s)\n", dir, len(rep.Rows), rep.Wall.Round(1e6))
	for _, c := range rep.Claims {
		status := "does NOT hold"
		if c.Holds {
			status = "holds"
		}
		fmt.Fprintf(stdout, "claim %q: %s\n", c.Claim.Name, status)
	}
	return nil
}

func cmdPlot(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: runexp plot DIR

Redraws the figure (<name>.png and <name>.svg) of a finished run from the
curve.csv, kstar.csv and meta.json in DIR, without rerunning anything.
`)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	if err := experiments.Redraw(fs.Arg(0)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "redrew %s\n", fs.Arg(0))
	return nil
}
