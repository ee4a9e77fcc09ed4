package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/unit"
	"github.com/ope-lab/longhorizon/internal/lock"
	"github.com/ope-lab/longhorizon/internal/outdir"
)

// ExecOptions control Execute: which units, from where, how shown.
type ExecOptions struct {
	Options
	// Shard selects a subset of the units (zero value: all).
	Shard Shard
	// Resume continues from the checkpoint in the output directory,
	// skipping its finished units (no checkpoint: start afresh).
	Resume bool
	// Holder describes this process in the lock files, for whoever is
	// refused them (e.g. the command line); "" means "runexp".
	Holder string
	// Log, when not nil, hears what Execute decided (resuming, starting
	// afresh), one line per call.
	Log func(string)
}

// Outcome is what Execute leaves: the results of every unit of the shard
// (finished earlier or now, in canonical order) and the checkpoint that
// holds them, still locked.
type Outcome struct {
	Results []unit.Result
	// Checkpoint is the path of the checkpoint file: DIR/checkpoint.jsonl,
	// or DIR/shard-i-of-N.jsonl for a shard.
	Checkpoint string
	ckpt       *Checkpoint
	locks      []*lock.Lock
}

// Discard removes the checkpoint, once the run's outputs are safely
// written (a finished whole run keeps no checkpoint), and releases the
// locks. Calls after the first Discard or Close do nothing.
func (o *Outcome) Discard() error {
	var err error
	if o.ckpt != nil {
		err = o.ckpt.Remove()
		o.ckpt = nil
	}
	return errors.Join(err, o.release())
}

// Close closes the checkpoint and keeps it (a shard's result, or a run
// whose outputs could not be written), and releases the locks. Calls after
// the first Discard or Close do nothing.
func (o *Outcome) Close() error {
	var err error
	if o.ckpt != nil {
		err = o.ckpt.Close()
		o.ckpt = nil
	}
	return errors.Join(err, o.release())
}

// release releases the locks, the last taken first.
func (o *Outcome) release() error {
	var errs []error
	for i := len(o.locks) - 1; i >= 0; i-- {
		errs = append(errs, o.locks[i].Release())
	}
	o.locks = nil
	return errors.Join(errs...)
}

// CheckpointPath returns where a run of shard s into dir checkpoints.
func CheckpointPath(dir string, s Shard) string {
	if s.Count > 1 {
		return filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d.jsonl", s.Index, s.Count))
	}
	return filepath.Join(dir, "checkpoint.jsonl")
}

// DirLockName is the name of the lock file of a results directory's
// outputs (see LockDir).
const DirLockName = ".runexp.lock"

// LockDir locks the outputs of the results directory dir for whoever
// writes them: a whole run (Execute takes this lock when opt.Shard.Count
// <= 1) and a merge, so that two writers never mix their files. The lock
// file is DIR/.runexp.lock, recording holder (e.g. the command line; ""
// means "runexp") with the process id, host and time; Release removes it.
// When another process holds the lock, LockDir fails at once with an
// error marked as bad input (package inputerr) naming dir, the lock file
// and the holder.
//
// LockDir creates dir if needed. A merge should therefore call it after
// reading its inputs (Merge), just before writing the outputs, and release
// it when they are written: a merge refused for bad shard files then
// leaves nothing behind.
func LockDir(dir, holder string) (*lock.Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return acquire(filepath.Join(dir, DirLockName), dir, holder)
}

// acquire takes the lock file path for holder, explaining a refusal as
// what being in use: "results/fig4 is in use: lock file ... is held by
// pid ...".
func acquire(path, what, holder string) (*lock.Lock, error) {
	if holder == "" {
		holder = "runexp"
	}
	l, err := lock.Acquire(path, holder)
	var held *lock.HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("%s is in use: %w", what, err)
	}
	return l, err
}

// Execute runs the units of plan p (those of opt.Shard) into dir: every
// finished unit is appended to the checkpoint as it completes, so that a
// run killed at any moment continues with Resume, redoing nothing. It
// returns when every unit of the shard is done; the caller then writes the
// outputs and discards the checkpoint (Outcome.Discard), or, for a shard,
// keeps it for Merge (Outcome.Close).
//
// Execute holds the checkpoint's lock, the file <checkpoint>.lock (package
// lock), from before it reads the checkpoint until Discard or Close, so
// that two runs never write one checkpoint; the shards of a run hold
// different locks and may run at once into one directory. A whole run
// (opt.Shard.Count <= 1), which goes on to write the directory's outputs,
// also holds the directory's lock (LockDir). A lock held by another
// process is an error at once, marked as bad input, naming its holder;
// nothing is written then. Every error return releases the locks, and so
// do Discard and Close, removing the lock files.
//
// When ctx ends, the units in flight finish and are checkpointed, and
// Execute returns an error wrapping context.Canceled.
func Execute(ctx context.Context, p *config.Plan, dir string, opt ExecOptions) (*Outcome, error) {
	// Refusals that need no file come first: they leave nothing behind.
	if err := outdir.Check(dir); err != nil {
		return nil, err
	}
	if err := p.CheckCommands(); err != nil {
		return nil, err
	}
	undo, err := outdir.Create(dir)
	if err != nil {
		return nil, err
	}
	path := CheckpointPath(dir, opt.Shard)
	o := &Outcome{Checkpoint: path}
	// created: the checkpoint is this run's (not resumed); appended: how
	// many units it holds. A run that fails before it checkpoints a unit
	// removes its checkpoint and the directories it created, so that a
	// refused run leaves nothing behind; an interrupted one keeps them
	// (the message says to rerun with -resume).
	created, appended := false, 0
	fail := func(err error) (*Outcome, error) {
		o.Close()
		if created && appended == 0 && !errors.Is(err, context.Canceled) {
			os.Remove(path)
		}
		undo()
		return nil, err
	}
	what := dir
	if opt.Shard.Count > 1 {
		what = fmt.Sprintf("shard %s of %s", opt.Shard, dir)
	} else {
		l, err := LockDir(dir, opt.Holder)
		if err != nil {
			return fail(err)
		}
		o.locks = append(o.locks, l)
	}
	l, err := acquire(path+".lock", what, opt.Holder)
	if err != nil {
		return fail(err)
	}
	o.locks = append(o.locks, l)

	resume := opt.Resume
	if _, err := os.Stat(path); resume && errors.Is(err, os.ErrNotExist) {
		logf(opt.Log, "no checkpoint at %s: starting from the first unit", path)
		resume = false
	}
	if !resume {
		if n := unitLines(path); n > 0 {
			logf(opt.Log, "%s held %d finished units: starting over without -resume replaces them", path, n)
		}
	}
	ckpt, done, err := OpenCheckpoint(path, p, opt.Shard, resume)
	if err != nil {
		return fail(err)
	}
	o.ckpt = ckpt
	created = !resume
	finished := map[Unit]bool{}
	for _, u := range done {
		finished[Unit{Series: u.Series, Trial: u.Trial}] = true
	}
	var todo []Unit
	for _, u := range ShardUnits(p, opt.Shard) {
		if !finished[u] {
			todo = append(todo, u)
		}
	}
	if ckpt.dups > 0 {
		logf(opt.Log, "%s: ignored %d duplicate lines (units checkpointed twice, with identical numbers)", path, ckpt.dups)
	}
	if ckpt.ExtendedFrom > 0 {
		logf(opt.Log, "extending %s from %d to %d trials: %d units already done, %d to run", path, ckpt.ExtendedFrom, p.Trials, len(done), len(todo))
	} else if resume {
		logf(opt.Log, "resuming %s: %d units already done, %d to run", path, len(done), len(todo))
	}
	run := opt.Options
	run.OnResult = func(res unit.Result) error { // one call at a time
		if err := ckpt.Append(res); err != nil {
			return err
		}
		appended++
		return nil
	}
	results, err := RunUnits(ctx, p, todo, run)
	if err != nil {
		return fail(err)
	}
	o.Results = append(done, results...)
	return o, nil
}

func logf(log func(string), format string, args ...any) {
	if log != nil {
		log(fmt.Sprintf(format, args...))
	}
}
