package estimators

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ope-lab/longhorizon/internal/parallel"
	"github.com/ope-lab/longhorizon/internal/streams"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Interval is a percentile bootstrap confidence interval of one estimator.
type Interval struct {
	Name      string
	Low, High float64
	// Failed counts replicates whose estimate failed (for instance, not
	// representable as a float64); they are left out of the percentiles.
	// When every replicate failed, Low and High are NaN.
	Failed int
}

// Bootstrap returns, for each estimator in names, the percentile bootstrap
// interval at the given confidence level (e.g. 0.95) over reps resamples
// of b's trajectories with replacement (n draws from n, uniformly).
//
// Percentiles: with alpha = 1 - confidence and m successful replicates
// sorted, k = max(1, floor(m alpha/2)); Low is the k-th smallest replicate
// and High the k-th largest, so at least a fraction confidence of the
// replicates lie in [Low, High], symmetrically.
//
// Replicate r draws its resample from its own PCG stream, derived from
// (seed, r) only, and every estimator sees the same resample, so the
// result does not depend on workers (goroutines; <= 0 means 1). Each
// worker owns one batch, reused for all its replicates, and its own
// estimators: memory is about (workers + 1) copies of b.
func Bootstrap(b *trajectory.Batch, names []string, reps int, confidence float64, seed uint64, workers int) ([]Interval, error) {
	if err := bootstrapArgs("bootstrap", reps, confidence, names); err != nil {
		return nil, err
	}
	n := b.N()
	for _, name := range names {
		info, _ := Lookup(name)
		if n < info.MinN {
			return nil, fmt.Errorf("bootstrap: %s: %w: n = %d, needs n >= %d", name, ErrTooFew, n, info.MinN)
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("bootstrap: %w: an empty batch", ErrTooFew)
	}
	est, _, err := replicates(b, names, reps, seed, workers, false, nil)
	if err != nil {
		return nil, err
	}
	out := make([]Interval, len(names))
	for j, name := range names {
		out[j] = percentileInterval(name, est[j], confidence)
	}
	return out, nil
}

// Prepare makes, once per bootstrap worker, the function that turns a
// replicate's resampled batch into the data the estimators read (for
// instance: a model refitted on the replicate, then the discount). The
// batch it is given is the worker's, reused for every replicate.
type Prepare func() func(*trajectory.Batch) (*trajectory.Batch, error)

// BootstrapPrepared is Bootstrap with each replicate's resample passed
// through prepare before the estimators run, so that what is fitted on
// the data is refitted on every replicate and its own estimation error is
// in the intervals. The replicates and the percentile rule are
// Bootstrap's; a prepare error stops the bootstrap.
func BootstrapPrepared(b *trajectory.Batch, names []string, reps int, confidence float64, seed uint64, workers int, prepare Prepare) ([]Interval, error) {
	if err := bootstrapArgs("bootstrap", reps, confidence, names); err != nil {
		return nil, err
	}
	if b.N() == 0 {
		return nil, fmt.Errorf("bootstrap: %w: an empty batch", ErrTooFew)
	}
	est, _, err := replicates(b, names, reps, seed, workers, false, prepare)
	if err != nil {
		return nil, err
	}
	out := make([]Interval, len(names))
	for j, name := range names {
		out[j] = percentileInterval(name, est[j], confidence)
	}
	return out, nil
}

// bootstrapArgs checks the arguments Bootstrap and BootstrapBCa share:
// at least one replicate, a confidence in (0, 1), known estimators. what
// prefixes the errors.
func bootstrapArgs(what string, reps int, confidence float64, names []string) error {
	if reps < 1 {
		return fmt.Errorf("%s: %d replicates, want at least 1", what, reps)
	}
	if !(confidence > 0 && confidence < 1) {
		return fmt.Errorf("%s: confidence %v, want a number in (0, 1)", what, confidence)
	}
	for _, name := range names {
		if _, err := New(name); err != nil {
			return err
		}
	}
	return nil
}

// replicates returns est[j][r], estimator j (of names, already looked up)
// on bootstrap replicate r < reps, and with jackknife jack[j][i], on b
// without trajectory i (NaN marks a failure in both). Replicate r draws
// from ReplicateStream(seed, r) only and every estimator sees the same
// resample; the reps (+ n) tasks run on workers goroutines, each with its
// own batch and estimators, so the values do not depend on workers. An
// ErrTooFew from an estimator is returned as an error.
func replicates(b *trajectory.Batch, names []string, reps int, seed uint64, workers int, jackknife bool, prepare Prepare) (est, jack [][]float64, err error) {
	n := b.N()
	est = make([][]float64, len(names))
	for j := range est {
		est[j] = make([]float64, reps)
	}
	tasks := reps
	if jackknife {
		jack = make([][]float64, len(names))
		for j := range jack {
			jack[j] = make([]float64, n)
		}
		tasks += n
	}
	err = parallel.Do(context.Background(), tasks, max(1, workers), func() func(int) error {
		ests := make([]Estimator, len(names))
		for j, name := range names {
			ests[j], _ = New(name) // names were looked up by the caller
		}
		var rb trajectory.Batch
		idx := make([]int, n)
		var prep func(*trajectory.Batch) (*trajectory.Batch, error)
		if prepare != nil {
			prep = prepare()
		}
		return func(k int) error {
			out := est
			if k < reps {
				rng := ReplicateStream(seed, k)
				for i := range idx {
					idx[i] = rng.IntN(n)
				}
				rb.Resample(b, idx)
			} else {
				k -= reps // leave trajectory k out
				for i := range idx[:n-1] {
					idx[i] = i
					if i >= k {
						idx[i] = i + 1
					}
				}
				rb.Resample(b, idx[:n-1])
				out = jack
			}
			data := &rb
			if prep != nil {
				var err error
				if data, err = prep(&rb); err != nil {
					return fmt.Errorf("bootstrap replicate %d: %w", k, err)
				}
			}
			for j, e := range ests {
				v, err := e.Estimate(data)
				if err != nil {
					if errors.Is(err, ErrTooFew) {
						return err
					}
					v = math.NaN()
				}
				out[j][k] = v
			}
			return nil
		}
	})
	return est, jack, err
}

// ReplicateStream returns the random stream of bootstrap replicate r: a
// PCG generator seeded from (seed, r) only (streams.New), so that
// neighbouring seeds and replicates get unrelated states.
func ReplicateStream(seed uint64, r int) *rand.Rand {
	return streams.New(seed^0x6a09e667f3bcc909, uint64(r))
}

// percentileInterval sorts the replicates (NaN = failed) in place and
// returns the interval of Bootstrap's percentile rule.
func percentileInterval(name string, v []float64, confidence float64) Interval {
	ok := v[:0]
	failed := 0
	for _, x := range v {
		if math.IsNaN(x) {
			failed++
			continue
		}
		ok = append(ok, x)
	}
	iv := Interval{Name: name, Failed: failed, Low: math.NaN(), High: math.NaN()}
	m := len(ok)
	if m == 0 {
		return iv
	}
	slices.Sort(ok)
	// the small tolerance keeps 0.05/2 * 2000 = 50.000000000000004 at 50
	k := max(1, int(math.Floor((1-confidence)/2*float64(m)+1e-9)))
	iv.Low, iv.High = ok[k-1], ok[m-k]
	return iv
}

// ESS returns the effective sample size of b's final importance weights,
// (sum_i W^i)^2 / sum_i (W^i)^2, with W^i the product of the per-step
// factors every estimator weights by (trajectory.Batch.Factors: action
// ratios, option ratios on options data) over all of trajectory i (padding
// multiplies by 1). It is n when all weights are equal and near 1 when one
// dominates; 0 when every weight is 0. Products are kept as mantissa and
// exponent, so the result is exact even where the weights themselves
// overflow a float64.
func ESS(b *trajectory.Batch) float64 {
	f := b.Factors(nil)
	n := b.N()
	if n == 0 {
		return 0
	}
	ws := make([]scaledWeight, n)
	top := minExp
	for i := range n {
		w := scaledWeight{m: 1}
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			w.mul(f[s])
		}
		ws[i] = w
		if w.m != 0 {
			top = max(top, w.e)
		}
	}
	if top == minExp {
		return 0
	}
	var sum, sum2 float64
	for _, w := range ws {
		x := w.at(top)
		sum += x
		sum2 += x * x
	}
	return sum * sum / sum2
}
