package experiments

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Unit is the unit of work: one trial of one series (DESIGN: work units).
type Unit struct {
	Series, Trial int
}

// UnitResult is what one unit produces: every estimator's estimate at every
// n of the grid, and the k* choices of estimators that report them.
type UnitResult struct {
	Series, Trial int
	// Estimates[e][j] is estimator e (series order) at n = N[j].
	Estimates [][]float64
	// KStar[e][j][t-1] is the k* of estimator e at n = N[j] and step t;
	// nil for estimators that do not report k*.
	KStar [][][]int
}

// Options control a run's execution, not its results: any Options give the
// same numbers.
type Options struct {
	// Workers is the number of goroutines running units; <= 0 means
	// runtime.NumCPU().
	Workers int
	// Progress, when not nil, is told how many units there are and when
	// each finishes.
	Progress Progress
	// OnResult, when not nil, is called with each finished unit, one call
	// at a time, before the unit counts as done (e.g. to checkpoint it).
	// An error stops the run.
	OnResult func(UnitResult) error
}

// Progress receives a run's progress. Implementations decide how to show
// it (a bar on a terminal, plain lines in a log).
type Progress interface {
	Start(total int)
	Add(done int)
	Finish()
}

// Units lists every (series, trial) unit of r in canonical order.
func (r *Resolved) Units() []Unit {
	units := make([]Unit, 0, len(r.Series)*r.Trials)
	for s := range r.Series {
		for t := 0; t < r.Trials; t++ {
			units = append(units, Unit{Series: s, Trial: t})
		}
	}
	return units
}

// Stream returns the random stream of one unit. It depends only on the
// config's seed, the series' name and the trial index (SPEC 3), so results
// do not depend on workers, shards or the order of series in the file.
func (r *Resolved) Stream(u Unit) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(r.Series[u.Series].Name))
	return rand.New(rand.NewPCG(splitmix(r.Seed^splitmix(h.Sum64())), splitmix(uint64(u.Trial)+0x9e3779b97f4a7c15)))
}

// splitmix is the SplitMix64 finaliser: it spreads nearby integers (seeds,
// trial indices) over unrelated 64-bit states.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// RunUnits runs the given units on a pool of goroutines and returns their
// results in the order of units. The first error cancels the run; so does
// ctx, after the units in flight finish (each is passed to OnResult), which
// makes an interrupted run resumable from its checkpoint.
func RunUnits(ctx context.Context, r *Resolved, units []Unit, opt Options) ([]UnitResult, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = max(1, min(workers, len(units)))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	if opt.Progress != nil {
		opt.Progress.Start(len(units))
		defer opt.Progress.Finish()
	}
	results := make([]UnitResult, len(units))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex // serialises OnResult and Progress
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := newWorker(r)
			for i := range next {
				res, err := wk.run(units[i])
				if err == nil {
					mu.Lock()
					if opt.OnResult != nil {
						err = opt.OnResult(res)
					}
					if err == nil && opt.Progress != nil {
						opt.Progress.Add(1)
					}
					mu.Unlock()
				}
				if err != nil {
					cancel(err)
					continue
				}
				results[i] = res
			}
		}()
	}
feed:
	for i := range units {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return results, nil
}

// worker holds one goroutine's reusable state: domains, estimators and a
// batch per series, built on first use.
type worker struct {
	r      *Resolved
	series []*seriesState
}

type seriesState struct {
	domain Domain
	ests   []estimators.Estimator
	batch  trajectory.Batch
}

func newWorker(r *Resolved) *worker {
	return &worker{r: r, series: make([]*seriesState, len(r.Series))}
}

func (w *worker) state(s int) (*seriesState, error) {
	if st := w.series[s]; st != nil {
		return st, nil
	}
	rs := &w.r.Series[s]
	d, err := rs.spec.New(rs.Params)
	if err != nil {
		return nil, fmt.Errorf("series %s: %w", rs.Name, err)
	}
	st := &seriesState{domain: d}
	for _, name := range rs.Estimators {
		e, err := estimators.New(name)
		if err != nil {
			return nil, fmt.Errorf("series %s: %w", rs.Name, err)
		}
		st.ests = append(st.ests, e)
	}
	w.series[s] = st
	return st, nil
}

// run computes one unit: nested data draws max(n) trajectories once and
// estimates at each n from the first n, in one pass per estimator
// (estimators.EstimateGrid); independent data draws afresh per n.
func (w *worker) run(u Unit) (UnitResult, error) {
	st, err := w.state(u.Series)
	if err != nil {
		return UnitResult{}, err
	}
	r := w.r
	rng := r.Stream(u)
	ne, nn := len(st.ests), len(r.N)
	res := UnitResult{Series: u.Series, Trial: u.Trial, Estimates: make([][]float64, ne), KStar: make([][][]int, ne)}
	flat := make([]float64, ne*nn)
	for e := range st.ests {
		res.Estimates[e] = flat[e*nn : (e+1)*nn : (e+1)*nn]
	}
	if r.Data == "nested" {
		st.batch.Reset()
		st.domain.Collect(&st.batch, r.NMax(), rng)
		h := st.batch.Horizon()
		for e, est := range st.ests {
			var ks [][]int
			if _, ok := est.(estimators.KStarReporter); ok {
				// one backing array per unit; k* at n has length <= h
				ks = make([][]int, nn)
				buf := make([]int, nn*h)
				for j := range ks {
					ks[j] = buf[j*h : j*h : (j+1)*h]
				}
				res.KStar[e] = ks
			}
			if err := estimators.EstimateGrid(est, &st.batch, r.N, res.Estimates[e], ks); err != nil {
				return UnitResult{}, fmt.Errorf("series %s, trial %d, %w", r.Series[u.Series].Name, u.Trial, err)
			}
		}
		return res, nil
	}
	for j, n := range r.N {
		st.batch.Reset()
		st.domain.Collect(&st.batch, n, rng)
		for e, est := range st.ests {
			v, err := est.Estimate(&st.batch)
			if err != nil {
				return UnitResult{}, fmt.Errorf("series %s, trial %d, n = %d: %w", r.Series[u.Series].Name, u.Trial, n, err)
			}
			res.Estimates[e][j] = v
			if kr, ok := est.(estimators.KStarReporter); ok {
				if res.KStar[e] == nil {
					res.KStar[e] = make([][]int, len(r.N))
				}
				res.KStar[e][j] = append([]int(nil), kr.KStar()...)
			}
		}
	}
	return res, nil
}
