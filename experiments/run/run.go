package run

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sync"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/evaluate"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/unit"
	"github.com/ope-lab/longhorizon/external"
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
	OnResult func(unit.Result) error
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
// The candidates of a series (config.Series.Candidates) share the stream
// of its base name: every candidate of a trial draws the same behaviour
// data (a domain's collection draws no random number for pi_e; the config
// check refuses candidates whose behaviour data differ).
func Stream(p *config.Plan, u Unit) *rand.Rand {
	rs := &p.Series[u.Series]
	key := rs.Name
	if rs.Candidates != "" {
		key = rs.Base
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	return streams.New(p.Seed^streams.Mix(h.Sum64()), uint64(u.Trial))
}

// RunUnits runs the given units on a pool of goroutines and returns their
// results in the order of units. The first error cancels the run; so does
// ctx, after the units in flight finish (each is passed to OnResult), which
// makes an interrupted run resumable from its checkpoint.
func RunUnits(ctx context.Context, p *config.Plan, units []Unit, opt Options) ([]unit.Result, error) {
	if opt.Progress != nil {
		opt.Progress.Start(len(units))
		defer opt.Progress.Finish()
	}
	results := make([]unit.Result, len(units))
	var mu sync.Mutex // serialises OnResult and Progress
	setups := setupsOf(p)
	procs := &external.Set{}
	defer procs.CloseAll() // external estimators end with the run
	err := parallel.Do(ctx, len(units), opt.Workers, func() func(int) error {
		wk := newWorker(p, setups)
		wk.procs = procs
		return func(i int) error {
			res, err := wk.run(units[i])
			if err != nil {
				procs.StopAll() // no other unit waits on an external program
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

// worker holds one goroutine's reusable state: the batch, the domain of
// the series it is on, and the evaluator of that series' request (package
// evaluate), rebuilt when it moves to a series. Units come series by
// series, so a worker rarely rebuilds, and it keeps one series' state at a
// time: its memory is that of the largest series, as NeedOf assumes, not
// the sum over series. Methods are kept by key across series (a registry
// method is its key and a workspace that every call reuses), and so is
// the learned model's workspace, so that moving to a series with the same
// estimators frees and reallocates nothing: the garbage of dropped
// workspaces, not the live heap, set the peak resident size of long runs.
type worker struct {
	p      *config.Plan
	setups []setup // per series, shared by the workers (read only)
	batch  trajectory.Batch
	series int
	domain domains.Domain
	ev     evaluate.Evaluator
	pool   map[string]evaluate.Method
	fitted evaluate.Fitted // the learned model's workspace (SPEC 1d)
	ess    estimators.ESSGrid

	// procs are the external estimators' running programs of the run;
	// ext those this worker started, by externalKey.
	procs *external.Set
	ext   map[string]*external.Proc
}

func newWorker(p *config.Plan, setups []setup) *worker {
	return &worker{p: p, setups: setups, series: -1}
}

// setupsOf decides the setup of every series of p, once per run.
func setupsOf(p *config.Plan) []setup {
	out := make([]setup, len(p.Series))
	for i := range p.Series {
		out[i] = setupOf(p, &p.Series[i])
	}
	return out
}

// state moves the worker to the series of unit u: its domain, built once
// and told what to record, and its request (the setup's, with this
// worker's methods and model) in the evaluator.
func (w *worker) state(u Unit) error {
	s := u.Series
	if w.series == s {
		return nil
	}
	rs := &w.p.Series[s]
	st := &w.setups[s]
	d, err := rs.Spec().New(rs.Params)
	if err != nil {
		return fmt.Errorf("series %s: %w", rs.Name, err)
	}
	if err := st.apply(rs, d); err != nil {
		return err
	}
	req := st.req
	pool := make(map[string]evaluate.Method, len(rs.Estimators))
	for _, name := range rs.Estimators {
		if x := rs.ExternalOf(name); x != nil {
			pr, err := w.external(x)
			if err != nil {
				return fmt.Errorf("series %s, trial %d, estimator %s (external): %w", rs.Name, u.Trial, name, err)
			}
			req.Methods = append(req.Methods, external.NewMethod(pr, st.files))
			continue
		}
		key := name + "\x00" + rs.Model // an estimator that fits its own model fits the series'
		m, ok := w.pool[key]
		if !ok {
			if m, err = evaluate.RegistryModel(name, rs.Model); err != nil {
				return fmt.Errorf("series %s: %w", rs.Name, err)
			}
		}
		pool[key] = m
		req.Methods = append(req.Methods, m)
	}
	req.Model = st.model(func() models.Space { return d.(domains.ModelDomain).Space() }, &w.fitted)
	if err := w.ev.Reset(req); err != nil {
		return fmt.Errorf("series %s: %w", rs.Name, err)
	}
	w.series, w.domain, w.pool = s, d, pool
	return nil
}

// run computes one unit. Nested data draws max(n) trajectories once and
// evaluates every estimator at each n from the first n (package evaluate:
// one pass per estimator where it can, the model fitted on each data set
// of n trajectories where one is needed, the lower bounds on exactly the
// data of each estimate); independent data draws afresh per n.
func (w *worker) run(u Unit) (unit.Result, error) {
	if err := w.state(u); err != nil {
		return unit.Result{}, err
	}
	p := w.p
	rs := &p.Series[u.Series]
	rng := Stream(p, u)
	res := w.ev.NewResult(len(p.N))
	ess, minStep := make([]float64, len(p.N)), make([]float64, len(p.N))
	fail := func(err error) error {
		var re *evaluate.RangeError
		if errors.As(err, &re) {
			err = inputerr.Errorf("%w (series %s: return_range [%v, %v] must hold every return, under gamma)", err, rs.Name, re.Lo, re.Hi)
		}
		return fmt.Errorf("series %s, trial %d, %w", rs.Name, u.Trial, err)
	}
	if p.Data == "nested" {
		w.batch.Reset()
		w.domain.Collect(&w.batch, p.NMax(), rng)
		if err := w.ev.Evaluate(&w.batch, p.N, &res); err != nil {
			return unit.Result{}, fail(err)
		}
		if err := w.ess.Compute(&w.batch, p.N, ess, minStep); err != nil {
			return unit.Result{}, fail(err)
		}
	} else {
		if rs.HasExternal() {
			return unit.Result{}, fail(errors.New("external estimators need data: nested"))
		}
		for j, n := range p.N {
			w.batch.Reset()
			w.domain.Collect(&w.batch, n, rng)
			win := res.Window(j)
			if err := w.ev.Evaluate(&w.batch, p.N[j:j+1], &win); err != nil {
				return unit.Result{}, fail(err)
			}
			if err := w.ess.Compute(&w.batch, p.N[j:j+1], ess[j:j+1], minStep[j:j+1]); err != nil {
				return unit.Result{}, fail(err)
			}
		}
	}
	return unit.Result{Series: u.Series, Trial: u.Trial, Estimates: res.Values, Diagnostics: res.Diagnostics, Bounds: res.Bounds,
		ESS: ess, MinStepESS: minStep}, nil
}
