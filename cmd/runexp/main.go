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
	"github.com/ope-lab/longhorizon/internal/suggest"
	"github.com/ope-lab/longhorizon/reference"
)

// command is one subcommand: its synopsis, its flags (a fresh set, also
// read by the generated reference) and what it does.
type command struct {
	name, args, summary string
	// minArgs and maxArgs bound its positional arguments (maxArgs -1: no
	// bound); want says what they are, for the error when they do not fit
	// ("exactly one CONFIG.yaml").
	minArgs, maxArgs int
	want             string
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
			var names []string
			for _, c := range commands {
				names = append(names, c.name)
			}
			fmt.Fprintf(stderr, "runexp: unknown command %q (%srunexp help lists the commands)\n", name, didYouMean(name, names))
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

// newFlagSet returns c's flag set and the function that runs c once it
// is parsed. Its Usage prints c's help (runexp help COMMAND, -h).
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

// runCommandLine parses args into c's flags, before and after the
// positional arguments alike, and runs c. A help request prints c's help
// and passes flag.ErrHelp through (exit 0); a bad flag or a wrong number
// of arguments is one line on stderr and a usage error (exit 2): a page
// of help would bury the line that says what is wrong.
func runCommandLine(c command, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, do := newFlagSet(c, stderr)
	usage := fs.Usage
	fs.SetOutput(io.Discard) // the flag package's message is printed below, once
	fs.Usage = func() {}
	err := parseInterspersed(fs, args)
	fs.SetOutput(stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage()
		return err
	case err != nil:
		return usageError(stderr, c.name, "%v (%srunexp help %s lists the flags)", err, flagSuggestion(fs, err), c.name)
	case fs.NArg() < c.minArgs || c.maxArgs >= 0 && fs.NArg() > c.maxArgs:
		where := ""
		if hasFlags(fs) {
			where = "; flags may come before or after the arguments"
		}
		return usageError(stderr, c.name, "want %s, got %s (usage: runexp %s %s%s)",
			c.want, count(fs.NArg(), "argument"), c.name, c.args, where)
	}
	return do(fs, stdin, stdout, stderr)
}

// parseInterspersed parses args into fs, accepting flags after positional
// arguments (runexp run cfg.yaml -trials 64), which the flag package
// alone stops at. Everything after "--" is positional, and so is "-"
// (standard input). Afterwards fs.Args() holds the positional arguments
// in order.
func parseInterspersed(fs *flag.FlagSet, args []string) error {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...) // "--" ends the flags
			break
		}
		for len(rest) > 0 && (rest[0] == "-" || !strings.HasPrefix(rest[0], "-")) {
			pos, rest = append(pos, rest[0]), rest[1:]
		}
		if len(rest) == 0 {
			break
		}
		args = rest
	}
	// a parse of "--" alone sets no flag and leaves pos as fs.Args()
	return fs.Parse(append([]string{"--"}, pos...))
}

// didYouMean is "did you mean NAME? " for the name of known closest to
// word (suggest.Closest), else "".
func didYouMean(word string, known []string) string {
	if k, ok := suggest.Closest(word, known); ok {
		return "did you mean " + k + "? "
	}
	return ""
}

// flagSuggestion is "did you mean -NAME? " for an undefined flag close
// to one of fs's, else "".
func flagSuggestion(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	var known []string
	fs.VisitAll(func(f *flag.Flag) { known = append(known, "-"+f.Name) })
	return didYouMean("-"+strings.TrimPrefix(name, "-"), known)
}

// usageError prints a bad invocation of command name and returns errUsage.
func usageError(stderr io.Writer, name, format string, a ...any) error {
	fmt.Fprintf(stderr, "runexp %s: "+format+"\n", append([]any{name}, a...)...)
	return errUsage
}

// loadPlan loads the config at path for run and select: -trials and
// -seed applied, and the output directory (-out, or results/<name>).
func loadPlan(stderr io.Writer, cmd, path string, trials int, seed, out string) (*config.Plan, string, error) {
	plan, err := config.Load(path)
	if err != nil {
		return nil, "", err
	}
	if err := plan.Override(trials, seed); err != nil {
		return nil, "", usageError(stderr, cmd, "%v", err)
	}
	if out == "" {
		out = filepath.Join("results", plan.Name)
	}
	return plan, out, nil
}

var runCommand = command{
	name: "run", args: "[flags] CONFIG.yaml", minArgs: 1, maxArgs: 1, want: "exactly one CONFIG.yaml",
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
			plan, dir, err := loadPlan(stderr, "run", fs.Arg(0), *trials, *seed, *out)
			if err != nil {
				return err
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
// user's truth cache.
func harnessOptions(stderr io.Writer, name string, quiet bool) experiments.Options {
	opt := experiments.Options{TruthCache: truthcache.Default(),
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
	name: "merge", args: "[-out DIR] DIR_OR_SHARD_FILE...", minArgs: 1, maxArgs: -1, want: "one or more results directories or shard files",
	summary: "combine the shards of a run (run -shard i/N) into its outputs",
	about:   reference.MergeAbout,
	flags: func(fs *flag.FlagSet) func(*flag.FlagSet, io.Reader, io.Writer, io.Writer) error {
		out := fs.String("out", "", "output directory (default: the directory of the first shard file)")
		quiet := fs.Bool("quiet", false, "no progress on standard error")
		return func(fs *flag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) error {
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
	name: "plot", args: "DIR", minArgs: 1, maxArgs: 1, want: "exactly one results directory",
	summary: "redraw the figure of a finished run from its files",
	about:   reference.PlotAbout,
	flags: func(fs *flag.FlagSet) func(*flag.FlagSet, io.Reader, io.Writer, io.Writer) error {
		return func(fs *flag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) error {
			if err := experiments.Redraw(fs.Arg(0)); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "redrew %s\n", fs.Arg(0))
			return nil
		}
	},
}

var claimsCommand = command{
	name: "claims", args: "DIR...", minArgs: 1, maxArgs: -1, want: "one or more results directories",
	summary: "summarise the claims of finished runs as a markdown table",
	about:   reference.ClaimsAbout,
	flags: func(fs *flag.FlagSet) func(*flag.FlagSet, io.Reader, io.Writer, io.Writer) error {
		return func(fs *flag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) error {
			md, err := report.ClaimsMarkdown(fs.Args())
			if err != nil {
				return err
			}
			_, err = io.WriteString(stdout, md)
			return err
		}
	},
}
