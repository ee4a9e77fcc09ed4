// Command runexp runs the off-policy evaluation experiments of Guo, Thomas
// and Brunskill (NIPS 2017) from YAML configs and redraws their figures.
//
//	runexp run [-workers N] [-trials T] [-seed S] [-out DIR] [-quiet] CONFIG.yaml
//	runexp run -shard i/N [-resume] ... CONFIG.yaml; runexp merge DIR...
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
	"strconv"
	"strings"
	"time"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments"
)

// revision is the git revision, set by the Makefile with -ldflags -X.
var revision = "unknown"

const usage = `runexp: long-horizon off-policy evaluation experiments (Guo, Thomas, Brunskill 2017)

Usage:
  runexp run [flags] CONFIG.yaml   run a config, write curve.csv, meta.json and the figure
  runexp merge DIR...              combine the shards of a run (run -shard i/N) into its outputs
  runexp plot DIR                  redraw the figure of a finished run from its curve.csv
  runexp claims DIR...             summarise the claims of finished runs as a markdown table
  runexp estimate [flags] DATA     off-policy estimates with bootstrap intervals from logged episodes (CSV/JSONL)
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
	case "estimate":
		err = cmdEstimate(args[1:], stdout, stderr)
	case "merge":
		err = cmdMerge(args[1:], stdout, stderr)
	case "claims":
		err = cmdClaims(args[1:], stdout, stderr)
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
	case errors.Is(err, errInterrupted):
		return 130
	default:
		fmt.Fprintf(stderr, "runexp: %v\n", err)
		return 1
	}
}

// parseFlags parses args into fs. A help request passes flag.ErrHelp
// through (exit 0); any other flag error, which the flag package has
// already printed with the usage, is a usage error (exit 2).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	workers := fs.Int("workers", runtime.NumCPU(), "goroutines running (series, trial) units; results do not depend on it")
	trials := fs.Int("trials", 0, "override the config's trials (0: keep the config's)")
	seed := fs.String("seed", "", "override the config's seed (an unsigned 64-bit integer)")
	out := fs.String("out", "", "output directory (default results/<config name>)")
	shardFlag := fs.String("shard", "", "run only shard i/N of the units (0 <= i < N) and write DIR/shard-i-of-N.jsonl for 'runexp merge'")
	resume := fs.Bool("resume", false, "continue from the checkpoint in the output directory, skipping finished units")
	quiet := fs.Bool("quiet", false, "no progress on standard error")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: runexp run [flags] CONFIG.yaml

Runs every (series, trial) unit of the config on a pool of goroutines and
writes to the output directory: curve.csv (columns %s),
kstar.csv (mean k* INCRIS chose per step), claims.csv and claims.md (the
config's claims checked), meta.json (resolved config, seed, Go version,
git revision, wall time, true values) and the figure as <name>.png/.svg.
The same config and seed give byte-identical CSV files whatever -workers.

Finished units are appended to DIR/checkpoint.jsonl as they complete (the
file is removed when the run's outputs are written); after a kill or ^C,
rerun with -resume to lose and redo nothing. With -shard i/N only unit k
with k mod N = i runs (units in config order, series-major then trial),
into DIR/shard-i-of-N.jsonl; 'runexp merge' combines the shards into the
same bytes as an unsharded run.

Estimators: %s
Domains: %s

Flags:
`, "experiment,series,estimator,n,trials,true_value,mean_estimate,bias,variance,mse,mse_se",
			strings.Join(estimators.Names(), ", "), strings.Join(experiments.DomainNames(), ", "))
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
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
	var shard experiments.Shard
	if *shardFlag != "" {
		var err error
		if shard, err = experiments.ParseShard(*shardFlag); err != nil {
			fmt.Fprintf(stderr, "runexp run: -shard: %v\n", err)
			return errUsage
		}
	}
	cfg, err := experiments.LoadConfig(fs.Arg(0))
	if err != nil {
		return err
	}
	if *trials > 0 {
		cfg.Trials = *trials
	}
	if *seed != "" {
		s, err := strconv.ParseUint(*seed, 10, 64)
		if err != nil {
			fmt.Fprintf(stderr, "runexp run: -seed %q is not an unsigned 64-bit integer\n", *seed)
			return errUsage
		}
		cfg.Seed = s
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("results", cfg.Name)
	}
	return runUnits(cfg, dir, shard, *resume, *workers, *quiet, stdout, stderr)
}

// errInterrupted marks a run stopped by ^C after checkpointing: exit 130.
var errInterrupted = errors.New("interrupted")

func runUnits(cfg *experiments.Resolved, dir string, shard experiments.Shard, resume bool, workers int, quiet bool, stdout, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ckptPath := filepath.Join(dir, "checkpoint.jsonl")
	if shard.Count > 1 {
		ckptPath = filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d.jsonl", shard.Index, shard.Count))
	}
	if _, err := os.Stat(ckptPath); resume && os.IsNotExist(err) {
		fmt.Fprintf(stderr, "no checkpoint at %s: starting from the first unit\n", ckptPath)
		resume = false
	}
	ckpt, done, err := experiments.OpenCheckpoint(ckptPath, cfg, shard, resume)
	if err != nil {
		return err
	}
	finished := map[experiments.Unit]bool{}
	for _, u := range done {
		finished[experiments.Unit{Series: u.Series, Trial: u.Trial}] = true
	}
	var todo []experiments.Unit
	for _, u := range cfg.ShardUnits(shard) {
		if !finished[u] {
			todo = append(todo, u)
		}
	}
	if resume {
		fmt.Fprintf(stderr, "resuming %s: %d units already done, %d to run\n", ckptPath, len(done), len(todo))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	opt := experiments.Options{Workers: workers, Progress: newProgress(stderr, cfg.Name, quiet), OnResult: ckpt.Append}
	results, err := experiments.RunUnits(ctx, cfg, todo, opt)
	if err != nil {
		ckpt.Close()
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "runexp: interrupted; finished units are in %s: rerun with -resume to continue\n", ckptPath)
			return errInterrupted
		}
		return err
	}
	if shard.Count > 1 {
		fmt.Fprintf(stdout, "wrote %s (%d units of shard %s); combine shards with 'runexp merge %s'\n", ckptPath, len(done)+len(results), shard, dir)
		return ckpt.Close()
	}
	rep, err := experiments.Finish(cfg, append(done, results...), truthProgress(stderr, quiet))
	if err != nil {
		ckpt.Close()
		return err
	}
	rep.Wall = time.Since(start)
	if err := rep.Write(dir, workers, revision); err != nil {
		ckpt.Close()
		return err
	}
	if err := ckpt.Remove(); err != nil {
		return err
	}
	report(stdout, dir, rep)
	return nil
}

func report(stdout io.Writer, dir string, rep *experiments.Report) {
	fmt.Fprintf(stdout, "wrote %s (%d rows, %s)\n", dir, len(rep.Rows), rep.Wall.Round(time.Millisecond))
	for _, c := range rep.Claims {
		status := "does NOT hold"
		if c.Holds {
			status = "holds"
		}
		fmt.Fprintf(stdout, "claim %q: %s\n", c.Claim.Name, status)
	}
}

func cmdMerge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "output directory (default: the directory of the first shard file)")
	quiet := fs.Bool("quiet", false, "no progress on standard error")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: runexp merge [-out DIR] DIR_OR_SHARD_FILE...

Combines the shard files (shard-i-of-N.jsonl) written by 'runexp run -shard'
into the outputs of the whole run: curve.csv, kstar.csv, claims, meta.json
and the figure, byte for byte the CSV an unsharded run writes. A directory
argument stands for all shard-*.jsonl files in it. Shards of different
configs or seeds, duplicated units and missing units are errors.
`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	var files []string
	for _, a := range fs.Args() {
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			m, _ := filepath.Glob(filepath.Join(a, "shard-*-of-*.jsonl"))
			if len(m) == 0 {
				return fmt.Errorf("merge: no shard-*-of-*.jsonl files in %s", a)
			}
			files = append(files, m...)
		} else {
			files = append(files, a)
		}
	}
	start := time.Now()
	cfg, results, err := experiments.Merge(files)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = filepath.Dir(files[0])
	}
	rep, err := experiments.Finish(cfg, results, truthProgress(stderr, *quiet))
	if err != nil {
		return err
	}
	rep.Wall = time.Since(start)
	if err := rep.Write(dir, 0, revision); err != nil {
		return err
	}
	report(stdout, dir, rep)
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
	if err := parseFlags(fs, args); err != nil {
		return err
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

func cmdClaims(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("claims", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: runexp claims DIR...

Prints one markdown table of the claims checked by finished runs (from
their claims.csv and meta.json): the README's claims section.
`)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	md, err := experiments.ClaimsMarkdown(fs.Args())
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, md)
	return err
}
