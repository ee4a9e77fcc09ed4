package evaluate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/parallel"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Result is what an Evaluate call computed, indexed by method (request
// order) and grid point j.
type Result struct {
	// Values[m][j] is method m's estimate at n = grid[j].
	Values [][]float64
	// Diagnostics[m][d][j] is diagnostic d of method m (in the order of
	// its Caps) at grid point j.
	Diagnostics [][][][]float64
	// Bounds[m][b][j] is lower bound b (in the order of the request's
	// Bounds) of method m at grid point j, computed on exactly the data of
	// Values[m][j]; Bounds[m][b] is nil where method m does not have bound
	// b, and Bounds is nil without bounds.
	Bounds [][][]float64
	// Errs[m] and BoundErrs[m][b] are the failures a KeepGoing request
	// recorded (nil where none).
	Errs      []error
	BoundErrs [][]error
}

// Window returns the part of r at grid point j alone (sharing r's
// memory): the result of a one-point grid, for data drawn afresh at each
// n.
func (r *Result) Window(j int) Result {
	w := Result{Values: make([][]float64, len(r.Values)), Diagnostics: make([][][][]float64, len(r.Values)), Errs: r.Errs, BoundErrs: r.BoundErrs}
	for m := range r.Values {
		w.Values[m] = r.Values[m][j : j+1]
		w.Diagnostics[m] = make([][][]float64, len(r.Diagnostics[m]))
		for d := range r.Diagnostics[m] {
			w.Diagnostics[m][d] = r.Diagnostics[m][d][j : j+1]
		}
	}
	if r.Bounds != nil {
		w.Bounds = make([][][]float64, len(r.Bounds))
		for m := range r.Bounds {
			w.Bounds[m] = make([][]float64, len(r.Bounds[m]))
			for b, v := range r.Bounds[m] {
				if v != nil {
					w.Bounds[m][b] = v[j : j+1]
				}
			}
		}
	}
	return w
}

// Evaluator computes a Request on batches. Build one with New (or Reset
// one) per request and reuse it: it keeps its methods' workspaces and its
// views of the data.
type Evaluator struct {
	req  Request
	caps []Caps
	// bounds[m] lists the request's bounds that method m has.
	bounds [][]int
	// modeled[m]: method m reads the data through the request's Model.
	modeled []bool

	disc, discPre trajectory.Discounted // the batch and a data set under gamma
	pre           trajectory.Batch      // a prefix of the discounted batch, for bounds
	raw           trajectory.Batch      // a prefix of the batch, given the model's columns
	bw            boundWork
	boundMu       sync.Mutex // bw, when methods run at once
	// share is the cross-fitted models of the methods that fit the same
	// kind on the same data (drl, drl-mis), fitted once per batch when
	// the methods run one at a time; a new generation at every Evaluate.
	// It is own, or the request's PolicyShare's.
	share *models.CrossFitShare
	own   models.CrossFitShare
}

// New returns an Evaluator of req, or an error naming what is wrong with
// it: an unknown bound, a gamma outside (0, 1], a method needing a model
// without one. Which bound a method has is its own business: a bound no
// method has is simply not computed (CheckBounds finds it).
func New(req Request) (*Evaluator, error) {
	e := &Evaluator{}
	return e, e.Reset(req)
}

// Reset makes e an Evaluator of req, keeping its buffers.
func (e *Evaluator) Reset(req Request) error {
	g := req.gamma()
	if !(g > 0 && g <= 1) {
		return fmt.Errorf("evaluate: gamma %v, want a discount factor in (0, 1]", g)
	}
	e.req, e.caps, e.bounds, e.modeled = req, e.caps[:0], nil, e.modeled[:0]
	e.share = &e.own
	if req.Policies != nil {
		e.share = req.Policies.CrossFits()
	}
	if f, ok := req.Model.(*Fitted); ok {
		f.Policies = req.Policies
	}
	for _, m := range req.Methods {
		c := m.Caps()
		e.caps = append(e.caps, c)
		needs := c.Needs&estimators.Model != 0
		if needs && req.Model == nil {
			return fmt.Errorf("evaluate: %s needs a model, and the request has none", c.Name)
		}
		e.modeled = append(e.modeled, needs)
		e.shareWith(m)
	}
	for _, k := range req.Bounds {
		if _, ok := confidence.Lookup(k); !ok {
			return fmt.Errorf("evaluate: unknown bound %q (known: %v)", k, confidence.Names())
		}
	}
	if len(req.Bounds) > 0 {
		if !(req.Delta > 0 && req.Delta < 1) {
			return fmt.Errorf("evaluate: delta %v, want a number in (0, 1)", req.Delta)
		}
		e.bounds = make([][]int, len(e.caps))
		for m, c := range e.caps {
			for b, k := range req.Bounds {
				if slices.Contains(c.Bounds, k) {
					e.bounds[m] = append(e.bounds[m], b)
				}
			}
		}
	}
	return nil
}

// shareWith hands the evaluator's CrossFitShare to method m if it can
// read its cross-fitted model from one, unless the request runs methods
// at once: a shared fit is refitted by the next batch's first method, and
// must not be while another reads it.
func (e *Evaluator) shareWith(m Method) {
	rm, ok := m.(*registryMethod)
	if !ok {
		return
	}
	if ps, ok := rm.est.(models.PolicySharer); ok {
		ps.SharePolicies(e.req.Policies)
	}
	sh, ok := rm.est.(models.CrossFitSharer)
	if !ok {
		return
	}
	if e.req.Workers > 1 {
		sh.ShareCrossFit(nil)
		return
	}
	sh.ShareCrossFit(e.share)
}

// Caps returns the capabilities of the request's methods, in its order.
func (e *Evaluator) Caps() []Caps { return e.caps }

// BoundPairs counts the (method, bound) pairs computed.
func (e *Evaluator) BoundPairs() int {
	c := 0
	for _, bs := range e.bounds {
		c += len(bs)
	}
	return c
}

// NewResult allocates a Result for a grid of points grid points.
func (e *Evaluator) NewResult(points int) Result {
	nm := len(e.caps)
	r := Result{Values: make([][]float64, nm), Diagnostics: make([][][][]float64, nm)}
	flat := make([]float64, nm*points)
	for m, c := range e.caps {
		r.Values[m] = flat[m*points : (m+1)*points : (m+1)*points]
		r.Diagnostics[m] = make([][][]float64, len(c.Diagnostics))
		for d := range r.Diagnostics[m] {
			r.Diagnostics[m][d] = make([][]float64, points)
		}
	}
	if e.bounds != nil {
		r.Bounds = make([][][]float64, nm)
		for m, bs := range e.bounds {
			r.Bounds[m] = make([][]float64, len(e.req.Bounds))
			for _, b := range bs {
				r.Bounds[m][b] = make([]float64, points)
			}
		}
	}
	if e.req.KeepGoing {
		r.Errs = make([]error, nm)
		if e.bounds != nil {
			r.BoundErrs = make([][]error, nm)
			for m := range r.BoundErrs {
				r.BoundErrs[m] = make([]error, len(e.req.Bounds))
			}
		}
	}
	return r
}

// Evaluate computes every method of the request at every n of grid from
// the first n trajectories of b (nested data, SPEC 3), into res (from
// NewResult(len(grid))). Every method sees the data under the request's
// gamma (SPEC 1c). The methods without a model read all of b in one call
// (one pass over the grid where they can); those needing one get, at each
// n, the data set of n trajectories with the columns of the request's
// Model applied to it (fitted on those n trajectories, or the batch's own)
// (SPEC 1d). The lower bounds (SPEC 1e) are computed at each n on exactly
// the data of the estimate there, before the estimates. Errors name the n where they arose, as
// "n = 50: <error>"; a return outside the bounds' range is bad input
// (inputerr).
func (e *Evaluator) Evaluate(b *trajectory.Batch, grid []int, res *Result) error {
	// the data of this call, and of its prefixes, is new to the share
	e.share.Begin()
	defer e.share.Begin()
	gamma := e.req.gamma()
	whole := e.disc.Of(b, gamma)
	if len(grid) > 1 {
		preallocDiagnostics(res, b.Horizon())
	}
	// the bounds first: a return outside the range is bad input, found
	// in one pass before the estimates run
	if e.bounds != nil {
		for j, n := range grid {
			e.pre = whole.Prefix(n)
			for m := range e.caps {
				if e.modeled[m] {
					continue // with the model columns, below
				}
				if err := e.boundsAt(m, Input{Batch: &e.pre, Gamma: gamma}, res, j); err != nil {
					return gridErr(n, err)
				}
			}
		}
	}
	in := Input{Batch: whole, Raw: b, Gamma: gamma}
	if err := e.estimateAll(false, in, grid, res, -1); err != nil {
		if len(grid) == 1 {
			return gridErr(grid[0], err) // a one-point grid's errors name no n
		}
		return err
	}
	if !slices.Contains(e.modeled, true) {
		return nil
	}
	for j, n := range grid {
		e.raw = b.Prefix(n)
		if err := e.req.Model.Apply(&e.raw, gamma); err != nil {
			return gridErr(n, err)
		}
		in := Input{Batch: e.discPre.Of(&e.raw, gamma), Raw: &e.raw, Gamma: gamma}
		if err := e.estimateAll(true, in, grid[j:j+1], res, j); err != nil {
			return gridErr(n, err)
		}
	}
	return nil
}

// estimateAll runs the methods that read the data through the model
// (modeled) or not on in: at every point of grid (j < 0), or, with their
// bounds first, at the one point grid, point j of res. Methods run in
// order, or on the request's workers at once; the first error stops the
// calls (in order) and is returned.
func (e *Evaluator) estimateAll(modeled bool, in Input, grid []int, res *Result, j int) error {
	if e.req.Workers > 1 {
		return e.estimateParallel(modeled, in, grid, *res, j)
	}
	for m := range e.caps {
		if e.modeled[m] != modeled {
			continue
		}
		if err := e.estimateOne(m, in, grid, res, j); err != nil {
			return err
		}
	}
	return nil
}

// estimateParallel is estimateAll on the request's workers (res is a copy
// sharing the caller's memory, so that the sequential path does not move
// it to the heap).
func (e *Evaluator) estimateParallel(modeled bool, in Input, grid []int, res Result, j int) error {
	var ms []int
	for m := range e.caps {
		if e.modeled[m] == modeled {
			ms = append(ms, m)
		}
	}
	errs := make([]error, len(ms))
	_ = parallel.Do(context.Background(), len(ms), e.req.Workers, func() func(int) error {
		return func(k int) error { errs[k] = e.estimateOne(ms[k], in, grid, &res, j); return nil }
	})
	return errors.Join(errs...)
}

// estimateOne runs method m as estimateAll does.
func (e *Evaluator) estimateOne(m int, in Input, grid []int, res *Result, j int) error {
	if j < 0 {
		return e.estimate(m, in, grid, res)
	}
	if err := e.boundsAt(m, in, res, j); err != nil {
		return err
	}
	return e.estimateAt(m, in, grid, res, j)
}

// estimateAt runs method m on in at the one-point grid point (grid point
// j of res).
func (e *Evaluator) estimateAt(m int, in Input, point []int, res *Result, j int) error {
	out := Out{Values: res.Values[m][j : j+1]}
	if diags := res.Diagnostics[m]; len(diags) > 0 {
		out.Diagnostics = make([][][]float64, len(diags))
		for d := range diags {
			out.Diagnostics[d] = diags[d][j : j+1]
		}
	}
	return e.run(m, in, point, out, res)
}

// estimate runs method m on in at grid into res.
func (e *Evaluator) estimate(m int, in Input, grid []int, res *Result) error {
	return e.run(m, in, grid, Out{Values: res.Values[m], Diagnostics: res.Diagnostics[m]}, res)
}

// run runs method m into out; a KeepGoing request keeps its error in
// res.Errs.
func (e *Evaluator) run(m int, in Input, grid []int, out Out, res *Result) error {
	err := e.req.Methods[m].Estimate(in, grid, out)
	if err != nil && e.req.KeepGoing && !inputerr.Is(err) {
		res.Errs[m] = err
		return nil
	}
	return err
}

// boundsAt sets method m's lower bounds at grid point j of res from in,
// the data of its estimate there (SPEC 1e). A return outside the range is
// bad input, always returned. The bounds of methods that run at once
// (Request.Workers) are computed one method at a time: they share the
// evaluator's workspace.
func (e *Evaluator) boundsAt(m int, in Input, res *Result, j int) error {
	if e.bounds == nil || len(e.bounds[m]) == 0 {
		return nil
	}
	e.boundMu.Lock()
	defer e.boundMu.Unlock()
	c := &e.caps[m]
	for _, k := range e.bounds[m] {
		kind := e.req.Bounds[k]
		v, err := e.bw.lower(e.req.Methods[m], c, kind, in, e.req.Delta, e.req.Lo, e.req.Hi)
		if errors.Is(err, estimators.ErrOutOfRange) {
			return inputerr.Mark(&RangeError{Estimator: c.Name, Bound: kind, Lo: e.req.Lo, Hi: e.req.Hi, Err: err})
		}
		if err != nil {
			if e.req.KeepGoing {
				res.BoundErrs[m][k] = err
				continue
			}
			return fmt.Errorf("estimator %s, bound %s: %w", c.Name, kind, err)
		}
		res.Bounds[m][k][j] = v
	}
	return nil
}

// RangeError is a return outside the range a bound was given: bad input
// (the range must hold every return).
type RangeError struct {
	Estimator, Bound string
	Lo, Hi           float64
	Err              error
}

func (r *RangeError) Error() string {
	return fmt.Sprintf("estimator %s, bound %s: %v", r.Estimator, r.Bound, r.Err)
}

func (r *RangeError) Unwrap() error { return r.Err }

// preallocDiagnostics gives every diagnostic vector of res one backing
// array of len(grid) x h, so that a unit's diagnostics cost one
// allocation each (a vector at n has length <= h).
func preallocDiagnostics(res *Result, h int) {
	for m := range res.Diagnostics {
		for _, diag := range res.Diagnostics[m] {
			if len(diag) == 0 || diag[0] != nil {
				continue
			}
			buf := make([]float64, len(diag)*h)
			for j := range diag {
				diag[j] = buf[j*h : j*h : (j+1)*h]
			}
		}
	}
}

// gridErr names the grid point n at which a computation failed.
func gridErr(n int, err error) error { return fmt.Errorf("n = %d: %w", n, err) }
