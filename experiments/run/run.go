package run

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/parallel"
	"github.com/ope-lab/longhorizon/internal/streams"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Unit is the unit of work: one trial of one series (DESIGN: work units).
type Unit struct {
	Series, Trial int
}

// UnitResult is what one unit produces: every estimator's estimate at every
// n of the grid, and the diagnostics of estimators that report them.
type UnitResult struct {
	Series, Trial int
	// Estimates[e][j] is estimator e (series order) at n = N[j].
	Estimates [][]float64
	// Diagnostics[e][d][j] is diagnostic d (in the order of estimator e's
	// registry entry) at n = N[j], indexed by its index minus 1 (k* by
	// step t-1); Diagnostics[e] is empty for estimators without any.
	Diagnostics [][][][]float64
	// Bounds[e][b][j] is the lower bound b (in the order of the series'
	// Bounds) of estimator e at n = N[j] (SPEC 1e), from the data of the
	// estimate Estimates[e][j]; Bounds[e][b] is nil where estimator e does
	// not support bound b (config.Supports), and Bounds is nil for a
	// series without bounds.
	Bounds [][][]float64
}

// Options control a run's execution, not its results: any Options give the
// same numbers.
type Options struct {
	// Workers is the number of goroutines running units; <= 0 means
	// runtime.GOMAXPROCS(0).
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

// Units lists every (series, trial) unit of p in canonical order: series
// by series, trials in order.
func Units(p *config.Plan) []Unit {
	units := make([]Unit, 0, len(p.Series)*p.Trials)
	for s := range p.Series {
		for t := 0; t < p.Trials; t++ {
			units = append(units, Unit{Series: s, Trial: t})
		}
	}
	return units
}

// Stream returns the random stream of one unit. It depends only on the
// plan's seed, the series' name and the trial index (SPEC 3), so results
// do not depend on workers, shards or the order of series in the file.
func Stream(p *config.Plan, u Unit) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(p.Series[u.Series].Name))
	return streams.New(p.Seed^streams.Mix(h.Sum64()), uint64(u.Trial))
}

// RunUnits runs the given units on a pool of goroutines and returns their
// results in the order of units. The first error cancels the run; so does
// ctx, after the units in flight finish (each is passed to OnResult), which
// makes an interrupted run resumable from its checkpoint.
func RunUnits(ctx context.Context, p *config.Plan, units []Unit, opt Options) ([]UnitResult, error) {
	if opt.Progress != nil {
		opt.Progress.Start(len(units))
		defer opt.Progress.Finish()
	}
	results := make([]UnitResult, len(units))
	var mu sync.Mutex // serialises OnResult and Progress
	procs := &procSet{}
	defer procs.closeAll() // external estimators end with the run
	err := parallel.Do(ctx, len(units), opt.Workers, func() func(int) error {
		wk := newWorker(p)
		wk.procs = procs
		return func(i int) error {
			res, err := wk.run(units[i])
			if err != nil {
				procs.stopAll() // no other unit waits on an external program
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			if opt.OnResult != nil {
				if err := opt.OnResult(res); err != nil {
					return err
				}
			}
			if opt.Progress != nil {
				opt.Progress.Add(1)
			}
			results[i] = res
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// worker holds one goroutine's reusable state: the batch, and the domain
// and estimators of the series it is on, built when it moves to a series.
// Units come series by series, so a worker rarely rebuilds, and it keeps
// one series' state at a time: its memory is that of the largest series,
// as Estimate assumes, not the sum over series. Estimators are kept by
// key across series (an estimator is its key and a workspace that every
// call reuses), so that moving to a series with the same estimators frees
// and reallocates nothing: the garbage of dropped workspaces, not the live
// heap, set the peak resident size of long runs.
type worker struct {
	p      *config.Plan
	batch  trajectory.Batch
	series int
	st     *seriesState
	pool   map[string]estimators.Estimator

	disc, discPre trajectory.Discounted // the batch and a prefix under gamma
	pre           trajectory.Batch      // a prefix of the discounted batch, for bounds
	fit           models.Fitter
	qHat, vHat    []float64 // the fitted model's columns (reused)

	// procs are the external estimators' running programs of the run;
	// ext those this worker started, by externalKey.
	procs *procSet
	ext   map[string]*externalProc
}

type seriesState struct {
	domain domains.Domain
	ests   []estimators.Estimator
	// ext[e] is external estimator e's program (nil for the registry's);
	// ext is nil when the series has none.
	ext   []*externalProc
	ndiag []int  // diagnostics per estimator
	model []bool // the estimator needs the model columns (SPEC 1d)
	gamma float64
	// bounds[e] lists the bounds of the series that estimator e supports
	// (indices into the series' Bounds); lo, hi is its return range.
	bounds [][]int
	lo, hi float64
	// fitted: the model is fitted on each data set, over space; else the
	// domain records the exact model as it collects (when any estimator
	// needs one).
	fitted bool
	space  models.Space
}

func newWorker(p *config.Plan) *worker {
	return &worker{p: p, series: -1}
}

func (w *worker) state(u Unit) (*seriesState, error) {
	s := u.Series
	if w.series == s {
		return w.st, nil
	}
	rs := &w.p.Series[s]
	var d domains.Domain
	var err error
	if rs.HasExternal() {
		// Its data sets are also written as logged data, with the
		// probabilities of every action; recording them draws no random
		// number, so every estimator sees the data it would without.
		d, err = FileDomain(rs)
	} else if d, err = rs.Spec().New(rs.Params); err != nil {
		err = fmt.Errorf("series %s: %w", rs.Name, err)
	}
	if err != nil {
		return nil, err
	}
	st := &seriesState{domain: d, gamma: 1}
	if g, ok := rs.Params["gamma"]; ok {
		st.gamma = g
	}
	pool := make(map[string]estimators.Estimator, len(rs.Estimators))
	for _, name := range rs.Estimators {
		if x := rs.ExternalOf(name); x != nil {
			pr, err := w.external(x)
			if err != nil {
				return nil, fmt.Errorf("series %s, trial %d, estimator %s (external): %w", rs.Name, u.Trial, name, err)
			}
			if st.ext == nil {
				st.ext = make([]*externalProc, len(rs.Estimators))
			}
			st.ext[len(st.ests)] = pr
			st.ests = append(st.ests, nil)
			st.ndiag = append(st.ndiag, 0)
			st.model = append(st.model, false)
			continue
		}
		e, ok := w.pool[name]
		if !ok {
			if e, err = estimators.New(name); err != nil {
				return nil, fmt.Errorf("series %s: %w", rs.Name, err)
			}
		}
		pool[name] = e
		info, _ := estimators.Lookup(name)
		st.ests = append(st.ests, e)
		st.ndiag = append(st.ndiag, len(info.Diagnostics))
		st.model = append(st.model, info.Needs&estimators.Model != 0)
	}
	if len(rs.Bounds) > 0 {
		st.bounds = make([][]int, len(rs.Estimators))
		rs.BoundPairs(func(e, b int) { st.bounds[e] = append(st.bounds[e], b) })
		st.lo, st.hi, _ = rs.Range()
	}
	if rs.NeedsModel() {
		md, ok := d.(domains.ModelDomain)
		if !ok {
			return nil, fmt.Errorf("series %s: domain %s supplies no model", rs.Name, rs.Domain)
		}
		st.fitted = rs.Model != config.ModelExact
		md.Record(st.fitted, !st.fitted)
		st.space = md.Space()
	}
	w.series, w.st, w.pool = s, st, pool
	return st, nil
}

// run computes one unit: nested data draws max(n) trajectories once and
// estimates at each n from the first n, in one pass per estimator
// (estimators.EstimateGrid); independent data draws afresh per n. Every
// estimator sees the data under the series' gamma (trajectory.Discounted,
// SPEC 1c); those that need the model columns (SPEC 1d) get, at each n,
// the model fitted on those n trajectories, or the exact one the domain
// recorded. The lower bounds of the series (SPEC 1e) are computed at each
// n on exactly the data of the estimate there: the first n trajectories
// (nested) under gamma, with the model columns for the estimators that
// need them.
func (w *worker) run(u Unit) (UnitResult, error) {
	st, err := w.state(u)
	if err != nil {
		return UnitResult{}, err
	}
	p := w.p
	rng := Stream(p, u)
	ne, nn := len(st.ests), len(p.N)
	res := UnitResult{Series: u.Series, Trial: u.Trial, Estimates: make([][]float64, ne), Diagnostics: make([][][][]float64, ne)}
	flat := make([]float64, ne*nn)
	for e := range st.ests {
		res.Estimates[e] = flat[e*nn : (e+1)*nn : (e+1)*nn]
		res.Diagnostics[e] = make([][][]float64, st.ndiag[e])
		for d := range res.Diagnostics[e] {
			res.Diagnostics[e][d] = make([][]float64, nn)
		}
	}
	if st.bounds != nil {
		nb := len(p.Series[u.Series].Bounds)
		res.Bounds = make([][][]float64, ne)
		for e, bs := range st.bounds {
			res.Bounds[e] = make([][]float64, nb)
			for _, b := range bs {
				res.Bounds[e][b] = make([]float64, nn)
			}
		}
	}
	name := p.Series[u.Series].Name
	fail := func(n int, err error) error {
		if n > 0 {
			return fmt.Errorf("series %s, trial %d, n = %d: %w", name, u.Trial, n, err)
		}
		return fmt.Errorf("series %s, trial %d, %w", name, u.Trial, err)
	}
	if p.Data == "nested" {
		w.batch.Reset()
		st.domain.Collect(&w.batch, p.NMax(), rng)
		h := w.batch.Horizon()
		view := w.disc.Of(&w.batch, st.gamma)
		for e, est := range st.ests {
			diags := res.Diagnostics[e]
			for d := range diags {
				// one backing array per diagnostic; a vector at n has length <= h
				buf := make([]float64, nn*h)
				for j := range diags[d] {
					diags[d][j] = buf[j*h : j*h : (j+1)*h]
				}
			}
			if st.model[e] || st.ext != nil && st.ext[e] != nil {
				continue // below, prefix by prefix; or external, below
			}
			if err := estimators.EstimateGrid(est, view, p.N, res.Estimates[e], diags); err != nil {
				return UnitResult{}, fail(0, err)
			}
		}
		if st.bounds != nil {
			for j, n := range p.N {
				w.pre = view.Prefix(n)
				for e := range st.ests {
					if st.model[e] || st.ext != nil && st.ext[e] != nil {
						continue // with the model columns, below; or external
					}
					if err := w.boundsInto(st, &w.pre, &res, e, j); err != nil {
						return UnitResult{}, fail(n, err)
					}
				}
			}
		}
		for e, pr := range st.ext {
			if pr == nil {
				continue
			}
			rs := &p.Series[u.Series]
			if err := externalEstimate(pr, rs, &w.batch, p.N, st.gamma, res.Estimates[e]); err != nil {
				return UnitResult{}, fail(0, fmt.Errorf("estimator %s (external, %s): %w", rs.Estimators[e], quoteCommand(pr.x.Command), err))
			}
		}
		if !slices.Contains(st.model, true) {
			return res, nil
		}
		for j, n := range p.N {
			pre := w.batch.Prefix(n)
			if err := w.estimateModel(st, &pre, &res, j); err != nil {
				return UnitResult{}, fail(n, err)
			}
		}
		return res, nil
	}
	if st.ext != nil {
		return UnitResult{}, fail(0, errors.New("external estimators need data: nested"))
	}
	for j, n := range p.N {
		w.batch.Reset()
		st.domain.Collect(&w.batch, n, rng)
		view := w.disc.Of(&w.batch, st.gamma)
		for e, est := range st.ests {
			if st.model[e] {
				continue
			}
			if err := estimateInto(est, view, &res, e, j); err != nil {
				return UnitResult{}, fail(n, err)
			}
			if err := w.boundsInto(st, view, &res, e, j); err != nil {
				return UnitResult{}, fail(n, err)
			}
		}
		if err := w.estimateModel(st, &w.batch, &res, j); err != nil {
			return UnitResult{}, fail(n, err)
		}
	}
	return res, nil
}

// estimateModel runs the estimators of st that need the model columns on
// b (a data set of N[j] trajectories), with the model fitted on b or the
// exact one b carries, under the series' gamma, and computes their bounds
// on the same view.
func (w *worker) estimateModel(st *seriesState, b *trajectory.Batch, res *UnitResult, j int) error {
	if !slices.Contains(st.model, true) {
		return nil
	}
	if st.fitted {
		b.QHat, b.VHat = w.qHat[:0], w.vHat[:0]
		if err := w.fit.Fit(b, st.space, st.gamma); err != nil {
			return fmt.Errorf("fitting the model: %w", err)
		}
		w.qHat, w.vHat = b.QHat, b.VHat
	}
	view := w.discPre.Of(b, st.gamma)
	for e, est := range st.ests {
		if !st.model[e] {
			continue
		}
		if err := estimateInto(est, view, res, e, j); err != nil {
			return err
		}
		if err := w.boundsInto(st, view, res, e, j); err != nil {
			return err
		}
	}
	return nil
}

// boundsInto sets res's lower bounds of estimator e at grid point j from
// b, the data (under gamma, with the model columns the estimate used) of
// its estimate there (SPEC 1e). A return outside the series' return range
// is the config's fault: bad input.
func (w *worker) boundsInto(st *seriesState, b *trajectory.Batch, res *UnitResult, e, j int) error {
	if st.bounds == nil {
		return nil
	}
	rs := &w.p.Series[res.Series]
	est := rs.Estimators[e]
	for _, k := range st.bounds[e] {
		kind := rs.Bounds[k]
		v, err := estimators.LowerBound(est, kind, b, w.p.Delta, st.lo, st.hi)
		switch {
		case errors.Is(err, estimators.ErrOutOfRange):
			return inputerr.Errorf("estimator %s, bound %s: %w (series %s: return_range [%v, %v] must hold every return, under gamma)", est, kind, err, rs.Name, st.lo, st.hi)
		case err != nil:
			return fmt.Errorf("estimator %s, bound %s: %w", est, kind, err)
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("estimator %s, bound %s: %v is not a finite number", est, kind, v)
		}
		res.Bounds[e][k][j] = v
	}
	return nil
}

// estimateInto sets res's estimate and diagnostics of estimator e at grid
// point j from b.
func estimateInto(est estimators.Estimator, b *trajectory.Batch, res *UnitResult, e, j int) error {
	v, err := est.Estimate(b)
	if err != nil {
		return err
	}
	res.Estimates[e][j] = v
	if r, ok := est.(estimators.Reporter); ok {
		for d := range res.Diagnostics[e] {
			res.Diagnostics[e][d][j] = r.AppendDiagnostic(res.Diagnostics[e][d][j][:0], d)
		}
	}
	return nil
}
