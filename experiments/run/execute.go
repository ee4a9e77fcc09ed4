package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ope-lab/longhorizon/experiments/config"
)

// ExecOptions control Execute: which units, from where, how shown.
type ExecOptions struct {
	Options
	// Shard selects a subset of the units (zero value: all).
	Shard Shard
	// Resume continues from the checkpoint in the output directory,
	// skipping its finished units (no checkpoint: start afresh).
	Resume bool
	// Log, when not nil, hears what Execute decided (resuming, starting
	// afresh), one line per call.
	Log func(string)
}

// Outcome is what Execute leaves: the results of every unit of the shard
// (finished earlier or now, in canonical order) and the checkpoint that
// holds them.
type Outcome struct {
	Results []UnitResult
	// Checkpoint is the path of the checkpoint file: DIR/checkpoint.jsonl,
	// or DIR/shard-i-of-N.jsonl for a shard.
	Checkpoint string
	ckpt       *Checkpoint
}

// Discard removes the checkpoint, once the run's outputs are safely
// written: a finished whole run keeps no checkpoint.
func (o *Outcome) Discard() error { return o.ckpt.Remove() }

// Close closes the checkpoint and keeps it (a shard's result, or a run
// whose outputs could not be written).
func (o *Outcome) Close() error { return o.ckpt.Close() }

// CheckpointPath returns where a run of shard s into dir checkpoints.
func CheckpointPath(dir string, s Shard) string {
	if s.Count > 1 {
		return filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d.jsonl", s.Index, s.Count))
	}
	return filepath.Join(dir, "checkpoint.jsonl")
}

// Execute runs the units of plan p (those of opt.Shard) into dir: every
// finished unit is appended to the checkpoint as it completes, so that a
// run killed at any moment continues with Resume, redoing nothing. It
// returns when every unit of the shard is done; the caller then writes the
// outputs and discards the checkpoint (Outcome.Discard), or, for a shard,
// keeps it for Merge (Outcome.Close).
//
// When ctx ends, the units in flight finish and are checkpointed, and
// Execute returns an error wrapping context.Canceled.
func Execute(ctx context.Context, p *config.Plan, dir string, opt ExecOptions) (*Outcome, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := CheckpointPath(dir, opt.Shard)
	resume := opt.Resume
	if _, err := os.Stat(path); resume && errors.Is(err, os.ErrNotExist) {
		logf(opt.Log, "no checkpoint at %s: starting from the first unit", path)
		resume = false
	}
	ckpt, done, err := OpenCheckpoint(path, p, opt.Shard, resume)
	if err != nil {
		return nil, err
	}
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
	if resume {
		logf(opt.Log, "resuming %s: %d units already done, %d to run", path, len(done), len(todo))
	}
	run := opt.Options
	run.OnResult = ckpt.Append
	results, err := RunUnits(ctx, p, todo, run)
	if err != nil {
		ckpt.Close()
		return nil, err
	}
	return &Outcome{Results: append(done, results...), Checkpoint: path, ckpt: ckpt}, nil
}

func logf(log func(string), format string, args ...any) {
	if log != nil {
		log(fmt.Sprintf(format, args...))
	}
}
