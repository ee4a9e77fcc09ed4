package evaluate

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/internal/parallel"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Intervals asks for bootstrap intervals over trajectories (SPEC 1e):
// Replicates resamples with replacement, at level Confidence, each
// replicate from its own stream of Seed (confidence.ReplicateStream);
// with BCa, bias-corrected and accelerated intervals (confidence.BCa,
// whose jackknife reruns every method on the data without each
// trajectory in turn). Workers goroutines share the replicates (<= 0:
// one); the intervals do not depend on them.
type Intervals struct {
	Replicates int
	Confidence float64
	Seed       uint64
	BCa        bool
	Workers    int
}

// check says what is wrong with opt for data of n trajectories and
// methods caps, or nil. Too few trajectories is an error wrapping
// estimators.ErrTooFew.
func (opt Intervals) check(caps []Caps, n int) error {
	switch {
	case opt.Replicates < 1:
		return fmt.Errorf("bootstrap: %d replicates, want at least 1", opt.Replicates)
	case !(opt.Confidence > 0 && opt.Confidence < 1):
		return fmt.Errorf("bootstrap: confidence %v, want a number in (0, 1)", opt.Confidence)
	case n == 0:
		return fmt.Errorf("bootstrap: %w: an empty batch", estimators.ErrTooFew)
	}
	for _, c := range caps {
		if n < c.MinN {
			return fmt.Errorf("bootstrap: %s: %w: n = %d, needs n >= %d", c.Name, estimators.ErrTooFew, n, c.MinN)
		}
		if need := max(c.MinN, 1) + 1; opt.BCa && n < need {
			return fmt.Errorf("bootstrap (BCa): %s: %w: n = %d, its jackknife needs n >= %d", c.Name, estimators.ErrTooFew, n, need)
		}
	}
	if opt.BCa && n < 2 {
		return fmt.Errorf("bootstrap (BCa): %w: n = %d, the jackknife needs n >= 2", estimators.ErrTooFew, n)
	}
	return nil
}

// Bootstrap returns, for each method of req (in its order), the interval
// opt asks for from batch b, as collected or read: undiscounted, its
// model columns (if any) its own. Replicate r draws n = b.N() indices by
// IntN(n) from confidence.ReplicateStream(opt.Seed, r) and is evaluated
// as Evaluate evaluates b at its n: under req's gamma, through req's Model
// (a learned model is refitted on every replicate, so that its own
// estimation error is in the interval; Columns reads the replicate's
// columns); every method sees the same replicates. theta are the
// estimates on b itself (NaN where one failed), which BCa needs; the
// percentile interval ignores them.
//
// A replicate on which a method fails is left out of its interval
// (confidence.Interval.Failed); an ErrTooFew, a failed model fit or bad
// input stops the bootstrap. Every method must be a Resampler: each
// worker reruns its own copies (Resampler.Fresh) and its own Model
// (Model.Fresh), reusing one batch, so that memory is about (workers + 1)
// copies of b and the result does not depend on the workers. Bounds are
// not computed on replicates.
func Bootstrap(req Request, b *trajectory.Batch, theta []float64, opt Intervals) ([]confidence.Interval, error) {
	caps := make([]Caps, len(req.Methods))
	for m, meth := range req.Methods {
		caps[m] = meth.Caps()
		if _, ok := meth.(Resampler); !ok {
			return nil, fmt.Errorf("bootstrap: %s cannot be rerun on bootstrap replicates", caps[m].Name)
		}
	}
	n := b.N()
	if err := opt.check(caps, n); err != nil {
		return nil, err
	}
	est, jack, err := replicates(req, b, opt)
	if err != nil {
		return nil, err
	}
	out := make([]confidence.Interval, len(caps))
	for m := range caps {
		if opt.BCa {
			out[m] = confidence.BCa(est[m], jack[m], theta[m], opt.Confidence)
		} else {
			out[m] = confidence.Percentile(est[m], opt.Confidence)
		}
	}
	return out, nil
}

// replicates returns est[m][r], method m on replicate r, and with BCa
// jack[m][i], on b without trajectory i (NaN marks a failure in both),
// the Replicates (+ n) tasks on opt.Workers goroutines, each with its own
// evaluator of req.
func replicates(req Request, b *trajectory.Batch, opt Intervals) (est, jack [][]float64, err error) {
	n, nm := b.N(), len(req.Methods)
	est = grid2(nm, opt.Replicates)
	tasks := opt.Replicates
	if opt.BCa {
		jack = grid2(nm, n)
		tasks += n
	}
	err = parallel.Do(context.Background(), tasks, max(1, opt.Workers), func() func(int) error {
		ev, err := replicaEvaluator(req)
		if err != nil {
			return func(int) error { return err }
		}
		res := ev.NewResult(1)
		var rb trajectory.Batch
		idx := make([]int, n)
		point := make([]int, 1)
		return func(k int) error {
			out, r := est, k
			if k < opt.Replicates {
				rng := confidence.ReplicateStream(opt.Seed, k)
				for i := range idx {
					idx[i] = rng.IntN(n)
				}
				rb.Resample(b, idx)
			} else {
				out, r = jack, k-opt.Replicates // leave trajectory r out
				for i := range idx[:n-1] {
					idx[i] = i
					if i >= r {
						idx[i] = i + 1
					}
				}
				rb.Resample(b, idx[:n-1])
			}
			point[0] = rb.N()
			clear(res.Errs) // the last replicate's failures
			if err := ev.Evaluate(&rb, point, &res); err != nil {
				return fmt.Errorf("bootstrap replicate %d: %w", k, err)
			}
			for m := range out {
				v := res.Values[m][0]
				if err := res.Errs[m]; err != nil {
					if errors.Is(err, estimators.ErrTooFew) {
						return err
					}
					v = math.NaN()
				}
				out[m][r] = v
			}
			return nil
		}
	})
	return est, jack, err
}

// replicaEvaluator returns an evaluator of req's methods and model, fresh
// copies of each (a bootstrap worker's), keeping going past a method's
// failure, without bounds, one method at a time.
func replicaEvaluator(req Request) (*Evaluator, error) {
	r := Request{Gamma: req.Gamma, KeepGoing: true, Workers: 1}
	for _, m := range req.Methods {
		f, err := m.(Resampler).Fresh()
		if err != nil {
			return nil, err
		}
		r.Methods = append(r.Methods, f)
	}
	if req.Model != nil {
		r.Model = req.Model.Fresh()
	}
	return New(r)
}

// grid2 returns rows slices of cols values each.
func grid2(rows, cols int) [][]float64 {
	out := make([][]float64, rows)
	for i := range out {
		out[i] = make([]float64, cols)
	}
	return out
}
