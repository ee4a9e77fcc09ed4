// Command runexp runs the off-policy evaluation experiments of Guo, Thomas
// and Brunskill (NIPS 2017) from YAML configs, redraws their figures, and
// estimates from logged data.
//
//	runexp run [-workers N] [-trials T] [-seed S] [-out DIR] [-shard i/N] [-resume] [-quiet] CONFIG.yaml
//	runexp merge [-out DIR] DIR_OR_SHARD_FILE...
//	runexp plot DIR
//	runexp claims DIR...
//	runexp leaderboard [-out PREFIX] DIR...
//	runexp select [-workers N] [-trials T] [-seed S] [-out DIR] [-quiet] CONFIG.yaml
//	runexp estimate [flags] DATA
//	runexp export [-trials T] [-format csv|jsonl] -out DIR CONFIG.yaml
//	runexp help [COMMAND | estimators | domains | config | panels | data | files | reference]
//
// It parses flags and prints; the work is in packages experiments,
// estimators and logdata. docs/reference.md is `runexp help reference`.
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
	"time"

	"github.com/ope-lab/longhorizon/domains/truthcache"
	"github.com/ope-lab/longhorizon/experiments"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/report"
	"github.com/ope-lab/longhorizon/experiments/run"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/membudget"
	"github.com/ope-lab/longhorizon/internal/progress"
	"github.com/ope-lab/longhorizon/reference"
)

// revision is the git revision, set by the Makefile with -ldflags -X.
var revision = "unknown"

// command is one subcommand: its synopsis, its flags (a fresh set, also
// read by the generated reference) and what it does.
type command struct {
	name, args, summary string
	// about is the long help, printed above the flags.
	about string
	flags func(fs *flag.FlagSet) func(fs *flag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) error
}

// commands lists the subcommands in the order of the usage text.
var commands = []command{runCommand, mergeCommand, plotCommand, claimsCommand, leaderboardCommand, selectCommand, estimateCommand, exportCommand}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// usage is the text of runexp without arguments.
func usage() string {
	var b strings.Builder
	b.WriteString("runexp: long-horizon off-policy evaluation experiments (Guo, Thomas, Brunskill 2017)\n\nUsage:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-44s %s\n", "runexp "+c.name+" "+c.args, c.summary)
	}
	fmt.Fprintf(&b, "  %-44s %s\n", "runexp help [COMMAND | TOPIC]", "show help: a command's flags, or a topic")
	fmt.Fprintf(&b, "\nTopics (generated from the registries): %s.\n\n%s", strings.Join(reference.TopicNames(), ", "), reference.ExitStatus)
	return b.String()
}

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks a bad invocation: exit status 2.
var errUsage = errors.New("usage")

// errInterrupted marks a run stopped by ^C after checkpointing: exit 130.
var errInterrupted = errors.New("interrupted")

// Main runs the command with args, reading the process's standard input
// where a command reads one (runexp estimate -), and returns the exit
// status.
func Main(args []string, stdout, stderr io.Writer) int {
	return MainIO(args, os.Stdin, stdout, stderr)
}

// MainIO is Main with standard input stdin.
func MainIO(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	var err error
	switch name := args[0]; name {
	case "help", "-h", "-help", "--help":
		err = cmdHelp(args[1:], stdout, stderr)
	default:
		c, ok := lookupCommand(name)
		if !ok {
			fmt.Fprintf(stderr, "runexp: unknown command %q\n\n%s", name, usage())
			return 2
		}
		err = runCommandLine(c, args[1:], stdin, stdout, stderr)
	}
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, errInterrupted):
		return 130
	case inputerr.Is(err):
		fmt.Fprintf(stderr, "runexp: %v\n", err)
		return 2
	default:
		fmt.Fprintf(stderr, "runexp: %v\n", err)
		return 1
	}
}

// newFlagSet returns c's flag set, printing c's help on -h, and the
// function that runs c once it is parsed.
func newFlagSet(c command, stderr io.Writer) (*flag.FlagSet, func(*flag.FlagSet, io.Reader, io.Writer, io.Writer) error) {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	do := c.flags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: runexp %s %s\n\n%s\n", c.name, c.args, strings.TrimSpace(c.about))
		if hasFlags(fs) {
			fmt.Fprintf(stderr, "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs, do
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// runCommandLine parses args into c's flags and runs c. A help request
// passes flag.ErrHelp through (exit 0); any other flag error, which the
// flag package has already printed with the usage, is a usage error.
func runCommandLine(c command, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, do := newFlagSet(c, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return do(fs, stdin, stdout, stderr)
}

// usageError prints a bad invocation of command name and returns errUsage.
func usageError(stderr io.Writer, name, format string, a ...any) error {
	fmt.Fprintf(stderr, "runexp %s: "+format+"\n", append([]any{name}, a...)...)
	return errUsage
}

var runCommand = command{
	name: "run", args: "[flags] CONFIG.yaml",
	summary: "run a config: curve.csv, claims, meta.json and the figure",
	about:   reference.RunAbout,
	flags: func(fs *flag.FlagSet) func(*flag.FlagSet, io.Reader, io.Writer, io.Writer) error {
		workers := fs.Int("workers", runtime.NumCPU(), "goroutines running (series, trial) units; results do not depend on it")
		trials := fs.Int("trials", 0, "override the config's trials (0: keep the config's)")
		seed := fs.String("seed", "", "override the config's seed (an unsigned 64-bit integer)")
		out := fs.String("out", "", "output directory (default results/<config name>)")
		shardFlag := fs.String("shard", "", "run only shard i/N of the units (0 <= i < N) and write DIR/shard-i-of-N.jsonl for 'runexp merge'")
		resume := fs.Bool("resume", false, "continue from the checkpoint in the output directory, skipping finished units")
		quiet := fs.Bool("quiet", false, "no progress on standard error (a true value taking longer than a few seconds still reports)")
		var maxMemory membudget.Flag
		fs.Var(&maxMemory, "max-memory", maxMemoryUsage)
		return func(fs *flag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) error {
			if fs.NArg() != 1 {
				fs.Usage()
				return usageError(stderr, "run", "want exactly one CONFIG.yaml")
			}
			if *workers < 1 {
				return usageError(stderr, "run", "-workers %d, want >= 1", *workers)
			}
			if *trials < 0 {
				return usageError(stderr, "run", "-trials %d, want >= 1 (or 0 to keep the config's)", *trials)
			}
			var shard run.Shard
			if *shardFlag != "" {
				var err error
				if shard, err = run.ParseShard(*shardFlag); err != nil {
					return usageError(stderr, "run", "-shard: %v", err)
				}
			}
			plan, err := config.Load(fs.Arg(0))
			if err != nil {
				return err
			}
			if err := plan.Override(*trials, *seed); err != nil {
				return usageError(stderr, "run", "%v", err)
			}
			dir := *out
			if dir == "" {
				dir = filepath.Join("results", plan.Name)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			opt := harnessOptions(stderr, plan.Name, *quiet)
			opt.Workers, opt.Shard, opt.Resume, opt.MaxMemory = *workers, shard, *resume, maxMemory.Bytes()
			opt.Holder = "runexp run " + fs.Arg(0)
			if shard.Count > 1 {
				opt.Holder += " -shard " + shard.String()
			}
			res, err := experiments.Run(ctx, plan, dir, opt)
			if errors.Is(err, context.Canceled) {
				fmt.Fprintf(stderr, "runexp: interrupted; finished units are in %s: rerun with -resume to continue\n", run.CheckpointPath(dir, shard))
				return errInterrupted
			}
			if err != nil {
				return err
			}
			if res.Report == nil {
				fmt.Fprintf(stdout, "wrote %s (%d units of shard %s); combine shards with 'runexp merge %s'\n", res.Checkpoint, res.Units, shard, dir)
				return nil
			}
			printResult(stdout, dir, res)
			return nil
		}
	},
}

// maxMemoryUsage is the help of every -max-memory flag.
var maxMemoryUsage = fmt.Sprintf("memory budget: refuse work estimated to need more, before it starts (e.g. 4GiB, 512MiB, 80%%; default %.0f%% of physical memory)",
	100*membudget.DefaultFraction)

// quietTruthAfter is how long a true value may take before -quiet runs
// report its progress anyway: a silent wait of minutes looks like a hang.
const quietTruthAfter = 5 * time.Second

// harnessOptions are the options every harness command shares: progress
// on stderr (a bar on a terminal, lines otherwise, none when quiet), the
// user's truth cache and the revision.
func harnessOptions(stderr io.Writer, name string, quiet bool) experiments.Options {
	opt := experiments.Options{Revision: revision, TruthCache: truthcache.Default(),
		Log: func(msg string) { fmt.Fprintln(stderr, "runexp: "+msg) }}
	start := time.Now()
	opt.TruthProgress = func(series string, frac float64) {
		if !quiet || time.Since(start) > quietTruthAfter {
			fmt.Fprintf(stderr, "true value of %s: %.0f%%\n", series, 100*frac)
		}
	}
	if !quiet {
		opt.Progress = progress.New(stderr, name)
	}
	return opt
}

func printResult(stdout io.Writer, dir string, res *experiments.Result) {
	fmt.Fprintf(stdout, "wrote %s (%d rows, %s)\n", dir, len(res.Report.Rows), res.Wall.Round(time.Millisecond))
	for _, c := range res.Report.Claims {
		status := "does NOT hold"
		if c.Holds {
			status = "holds"
		}
		fmt.Fprintf(stdout, "claim %q: %s (point estimate: %s)\n", c.Claim.Name, c.Verdict, status)
	}
}

var mergeCommand = command{
	name: "merge", args: "[-out DIR] DIR_OR_SHARD_FILE...",
	summary: "combine the shards of a run (run -shard i/N) into its outputs",
	about:   reference.MergeAbout,
	flags: func(fs *flag.FlagSet) func(*flag.FlagSet, io.Reader, io.Writer, io.Writer) error {
		out := fs.String("out", "", "output directory (default: the directory of the first shard file)")
		quiet := fs.Bool("quiet", false, "no progress on standard error")
		return func(fs *flag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) error {
			if fs.NArg() == 0 {
				fs.Usage()
				return errUsage
			}
			files, err := experiments.ShardFiles(fs.Args())
			if err != nil {
				return err
			}
			dir := *out
			if dir == "" {
				dir = filepath.Dir(files[0])
			}
			opt := harnessOptions(stderr, "merge", *quiet)
			opt.Holder = "runexp merge " + strings.Join(fs.Args(), " ")
			res, err := experiments.Merge(files, dir, opt)
			if err != nil {
				return err
			}
			printResult(stdout, dir, res)
			return nil
		}
	},
}

var plotCommand = command{
	name: "plot", args: "DIR",
	summary: "redraw the figure of a finished run from its files",
	about:   reference.PlotAbout,
	flags: func(fs *flag.FlagSet) func(*flag.FlagSet, io.Reader, io.Writer, io.Writer) error {
		return func(fs *flag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) error {
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
	},
}

var claimsCommand = command{
	name: "claims", args: "DIR...",
	summary: "summarise the claims of finished runs as a markdown table",
	about:   reference.ClaimsAbout,
	flags: func(fs *flag.FlagSet) func(*flag.FlagSet, io.Reader, io.Writer, io.Writer) error {
		return func(fs *flag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) error {
			if fs.NArg() == 0 {
				fs.Usage()
				return errUsage
			}
			md, err := report.ClaimsMarkdown(fs.Args())
			if err != nil {
				return err
			}
			_, err = io.WriteString(stdout, md)
			return err
		}
	},
}
