package experiments

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/ope-lab/longhorizon/domains/truthcache"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/figure"
	"github.com/ope-lab/longhorizon/experiments/report"
	"github.com/ope-lab/longhorizon/experiments/run"
	"github.com/ope-lab/longhorizon/experiments/unit"
	"github.com/ope-lab/longhorizon/internal/atomicfile"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/membudget"
	"github.com/ope-lab/longhorizon/internal/outdir"
)

// Options control how a run executes and what it records, never its
// numbers.
type Options struct {
	// Workers is the number of goroutines running units (<= 0: all CPUs).
	Workers int
	// Shard and Resume select units and continue from a checkpoint (see
	// run.ExecOptions).
	Shard  run.Shard
	Resume bool
	// MaxMemory is the memory budget in bytes a run may plan to use
	// (run.NeedOf); a run needing more is refused before it starts.
	// 0 means membudget.Default(), a fraction of physical memory.
	MaxMemory float64
	// Holder describes this process in lock files (e.g. its command
	// line), for the message another writer is refused with.
	Holder string
	// TruthCache keeps expensive true values on disk (nil: none).
	TruthCache *truthcache.Cache
	// Progress, TruthProgress and Log, when not nil, hear about units,
	// long truth computations, and what the run decided or found wrong
	// (a corrupt truth-cache entry, recomputed).
	Progress      run.Progress
	TruthProgress func(series string, frac float64)
	Log           func(string)
}

// Result is a finished Run or Merge.
type Result struct {
	// Report is the whole run's report; nil for a shard.
	Report *report.Report
	// Checkpoint is a shard's checkpoint file, for Merge.
	Checkpoint string
	// Units counts the units of this run (for a shard, its own).
	Units int
	Wall  time.Duration
}

// Run executes plan p into dir (see run.Execute). For a whole run it then
// computes the true values, writes the report's files and draws the
// figure <dir>/<name>.png and .svg, and removes the checkpoint; a shard
// keeps its checkpoint for Merge.
func Run(ctx context.Context, p *config.Plan, dir string, opt Options) (*Result, error) {
	start := time.Now()
	need := run.NeedOf(p, workers(opt.Workers), opt.Shard)
	budget := opt.MaxMemory
	if budget <= 0 {
		budget = membudget.Default()
	}
	if err := need.Check(budget); err != nil {
		return nil, fmt.Errorf("config %s: %w", p.File, err)
	}
	if opt.Shard.Count <= 1 {
		if err := checkOutputs(p, dir); err != nil {
			return nil, err
		}
	}
	if opt.Progress != nil && opt.Log != nil {
		opt.Log(fmt.Sprintf("%s: %s", p.Name, need))
	}
	out, err := run.Execute(ctx, p, dir, run.ExecOptions{
		Options: run.Options{Workers: opt.Workers, Progress: opt.Progress},
		Shard:   opt.Shard, Resume: opt.Resume, Log: opt.Log, Holder: opt.Holder,
	})
	if err != nil {
		return nil, err
	}
	res := &Result{Checkpoint: out.Checkpoint, Units: len(out.Results)}
	if opt.Shard.Count > 1 {
		res.Wall = time.Since(start)
		return res, out.Close()
	}
	if res.Report, err = finish(p, out.Results, dir, opt); err != nil {
		out.Close()
		return nil, err
	}
	res.Wall = time.Since(start)
	return res, out.Discard()
}

// workers resolves Options.Workers as run.RunUnits does.
func workers(w int) int {
	if w <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return w
}

// ShardFiles expands the arguments of a merge: a directory stands for
// all the shard files (shard-*-of-*.jsonl) in it, which must be some; a
// file stands for itself.
func ShardFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			m, _ := filepath.Glob(filepath.Join(a, "shard-*-of-*.jsonl"))
			if len(m) == 0 {
				return nil, inputerr.Errorf("merge: no shard-*-of-*.jsonl files in %s", a)
			}
			files = append(files, m...)
		} else {
			files = append(files, a)
		}
	}
	return files, nil
}

// Merge combines the checkpoint files of a run's shards (run.Merge) into
// the outputs of the whole run in dir: the same bytes an unsharded run
// writes.
func Merge(paths []string, dir string, opt Options) (*Result, error) {
	start := time.Now()
	if err := outdir.Check(dir); err != nil {
		return nil, err
	}
	p, results, err := run.Merge(paths)
	if err != nil {
		return nil, err
	}
	if err := checkOutputs(p, dir); err != nil {
		return nil, err
	}
	// Locked after reading: LockDir creates dir, and a merge refused for
	// its input must leave nothing behind; so must one that fails after
	// (the directories it created are removed when empty).
	undo, err := outdir.Create(dir)
	if err != nil {
		return nil, err
	}
	lk, err := run.LockDir(dir, opt.Holder)
	if err != nil {
		undo()
		return nil, err
	}
	rep, err := finish(p, results, dir, opt)
	lk.Release()
	if err != nil {
		undo()
		return nil, err
	}
	return &Result{Report: rep, Units: len(results), Wall: time.Since(start)}, nil
}

// finish computes the true values, builds the report, writes its files and
// draws its figure.
func finish(p *config.Plan, results []unit.Result, dir string, opt Options) (*report.Report, error) {
	truths, err := run.Truths(p, opt.TruthCache, opt.TruthProgress, opt.Log)
	if err != nil {
		return nil, err
	}
	rep, err := report.Build(p, results, truths)
	if err != nil {
		return nil, err
	}
	files, err := rep.Files(report.RunInfo{GoVersion: runtime.Version()})
	if err != nil {
		return nil, err
	}
	fig, err := figure.Files(rep.Figure(), p.Name)
	if err != nil {
		return nil, err
	}
	// All of the run's files or none: a figure that cannot be drawn or
	// written leaves no curve.csv behind.
	if err := atomicfile.WriteAll(dir, append(files, fig...)); err != nil {
		return nil, err
	}
	return rep, nil
}

// Redraw draws the figure of the run stored in dir again, from its files
// alone (report.ReadFigure).
func Redraw(dir string) error {
	f, name, err := report.ReadFigure(dir)
	if err != nil {
		return err
	}
	return figure.Draw(f, filepath.Join(dir, name))
}

// checkOutputs refuses, before anything runs or is written, a path of
// dir where a whole run of p writes one of its files (the report's data
// files, report.Outputs, and the figure's PNG and SVG) that holds what a
// file cannot replace: a directory, or another file that is not a
// regular file or a symbolic link (a run writes each file beside its
// target and renames it over it, atomicfile.WriteAll, which replaces a
// regular file or a link whatever its permissions). Bad input, naming the
// path and the file the run writes there.
func checkOutputs(p *config.Plan, dir string) error {
	if err := outdir.Check(dir); err != nil {
		return err
	}
	return checkNames(dir, append(report.Outputs(p), figure.FileNames(p.Name)...))
}

// checkNames refuses names in dir taken by anything but a regular file
// or a symbolic link: the files a run writes there.
func checkNames(dir string, names []string) error {
	for _, name := range names {
		path := filepath.Join(dir, name)
		st, err := os.Lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return inputerr.Errorf("%s, where the run writes its %s: %v", path, name, err)
		case st.IsDir():
			return inputerr.Errorf("%s is a directory, where the run writes its %s: move it away or choose another -out", path, name)
		case !st.Mode().IsRegular() && st.Mode()&fs.ModeSymlink == 0:
			return inputerr.Errorf("%s is not a regular file (%v), where the run writes its %s: move it away or choose another -out", path, st.Mode().Type(), name)
		}
	}
	return nil
}
