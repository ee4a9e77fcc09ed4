package estimators

import "github.com/ope-lab/longhorizon/trajectory"

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
