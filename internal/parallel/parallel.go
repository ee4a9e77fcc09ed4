// Package parallel runs indexed jobs on a bounded pool of goroutines: the
// one worker pool of the project (run units, bootstrap replicates,
// estimators on logged data, Monte Carlo chunks).
//
// Jobs are handed out in increasing index order. Results must not depend on
// which goroutine ran which index: callers write job i's result to slot i
// and combine slots in index order afterwards.
package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Do runs job(i) for every i in [0, n) on min(workers, n) goroutines;
// workers <= 0 means runtime.GOMAXPROCS(0). newJob is called once per
// goroutine, in that goroutine, to build its job function: state a job
// reuses (a batch, estimators) lives in the closure, so it is never
// shared.
//
// The first job error, or the end of ctx, stops the handing out of
// indices; Do waits for the jobs already running and returns that error
// (for ctx, context.Cause(ctx)). Otherwise it returns nil once every index
// ran.
func Do(ctx context.Context, n, workers int, newJob func() func(i int) error) error {
	if n <= 0 {
		return context.Cause(ctx)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			job := newJob()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := job(i); err != nil {
					cancel(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}
