package estimators

import (
	"math"

	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// WeightStats describes the importance weights every estimator of a batch
// weights by (Batch.Factors), for the warnings of `runexp estimate`
// (issue 32 item 3). The effective sample sizes are Kish's,
// (sum_i w_i)^2 / sum_i w_i^2: n when the weights are equal, near 1 when
// one dominates, 0 when every weight is 0.
type WeightStats struct {
	// N is the number of trajectories.
	N int
	// ESS is the Kish effective sample size of the final weights W^i
	// (ESS).
	ESS float64
	// MinStepESS is the smallest over t = 1..H of the Kish effective
	// sample size of the weights W^i_t = prod_{s<=t} rho^i_s, a
	// trajectory that ended before t keeping its last weight (padding
	// multiplies by 1); MinStep is that t, the first where the minimum
	// is reached (0 when H = 0).
	MinStepESS float64
	MinStep    int
	// Overflow counts the trajectories whose final weight is above
	// math.MaxFloat64, Underflow those whose weight is positive but below
	// the smallest positive float64: a float64 product of their factors
	// is +Inf or 0. Every estimator here keeps such products as mantissa
	// and exponent where it needs them; code that multiplies plainly
	// (an external estimator, a spreadsheet) does not.
	Overflow, Underflow int
}

// float64 exponents (math.Frexp's) beyond which a weight is not a float64:
// MaxFloat64 < 2^1024, the smallest denormal is 2^-1074.
const (
	maxFloatExp = 1024
	minFloatExp = -1073
)

// WeightStatsOf returns the weight statistics of b. Products are kept as
// mantissa and exponent, so every number is exact where the weights
// themselves leave float64's range. Cost: O(steps + n H).
func WeightStatsOf(b *trajectory.Batch) WeightStats {
	n := b.N()
	st := WeightStats{N: n}
	if n == 0 {
		return st
	}
	f := b.Factors(nil)
	ws := make([]weights.Scaled, n)
	for i := range ws {
		ws[i] = weights.Scaled{M: 1}
	}
	h := b.Horizon()
	st.MinStepESS = math.Inf(1)
	for t := range h {
		for i := range n {
			if s := b.Offsets[i] + t; s < b.Offsets[i+1] {
				ws[i].Mul(f[s])
			}
		}
		if e := kish(ws); e < st.MinStepESS {
			st.MinStepESS, st.MinStep = e, t+1
		}
	}
	if h == 0 {
		st.MinStepESS = kish(ws)
	}
	st.ESS = kish(ws)
	for _, w := range ws {
		if w.M == 0 {
			continue
		}
		_, e := math.Frexp(w.M)
		switch e += w.E; {
		case e > maxFloatExp:
			st.Overflow++
		case e < minFloatExp:
			st.Underflow++
		}
	}
	return st
}

// kish returns (sum w)^2 / sum w^2 of the scaled weights, 0 when all are 0.
func kish(ws []weights.Scaled) float64 {
	top := weights.MinExp
	for _, w := range ws {
		if w.M != 0 {
			top = max(top, w.E)
		}
	}
	if top == weights.MinExp {
		return 0
	}
	var sum, sum2 float64
	for _, w := range ws {
		x := w.At(top)
		sum += x
		sum2 += x * x
	}
	return sum * sum / sum2
}
