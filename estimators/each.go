package estimators

import (
	"context"

	"github.com/ope-lab/longhorizon/internal/parallel"
	"github.com/ope-lab/longhorizon/trajectory"
)

// EstimateEach runs each named estimator once on b, on up to workers
// goroutines (estimators only read the batch), and returns every estimate
// and error in the order of names: a failing estimator does not stop the
// others.
func EstimateEach(b *trajectory.Batch, names []string, workers int) ([]float64, []error) {
	values := make([]float64, len(names))
	errs := make([]error, len(names))
	_ = parallel.Do(context.Background(), len(names), max(1, workers), func() func(int) error {
		return func(j int) error {
			e, err := New(names[j])
			if err == nil {
				values[j], err = e.Estimate(b)
			}
			errs[j] = err
			return nil
		}
	})
	return values, errs
}
