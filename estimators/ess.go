package estimators

import (
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

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
	ws := make([]weights.Scaled, n)
	for i := range n {
		w := weights.Scaled{M: 1}
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			w.Mul(f[s])
		}
		ws[i] = w
	}
	return kish(ws)
}
