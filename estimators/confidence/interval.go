package confidence

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ope-lab/longhorizon/internal/streams"
)

// Interval is a bootstrap confidence interval of one estimator.
type Interval struct {
	Low, High float64
	// Failed counts replicates whose estimate failed (for instance, not
	// representable as a float64); they are left out of the percentiles.
	// When every replicate failed, Low and High are NaN.
	Failed int
}

// ReplicateStream returns the random stream of bootstrap replicate r: a
// PCG generator seeded from (seed, r) only (streams.New), so that
// neighbouring seeds and replicates get unrelated states.
func ReplicateStream(seed uint64, r int) *rand.Rand {
	return streams.New(seed^0x6a09e667f3bcc909, uint64(r))
}

// Percentile returns the percentile bootstrap interval at level
// confidence of the replicates v (NaN marks a failed one; v is sorted and
// compacted in place): with alpha = 1 - confidence and m successful
// replicates sorted, k = max(1, floor(m alpha/2)); Low is the k-th
// smallest replicate and High the k-th largest, so that at least a
// fraction confidence of them lie in [Low, High], symmetrically. When
// every replicate failed, Low and High are NaN.
func Percentile(v []float64, confidence float64) Interval { return percentileInterval(v, confidence) }

// BCa returns the bias-corrected and accelerated interval (Efron 1987;
// SPEC 1e) at level confidence from the replicates v, the delete-one
// jackknife values jack and the estimate theta on the whole data (NaN
// marks a failure in each; v and jack are reordered in place). With m
// successful replicates and alpha = 1 - confidence:
//
//	z0 = Phi^{-1}((#{replicates < theta} + #{replicates = theta}/2) / m)
//	a  = sum_i (thetabar - theta_(i))^3 / (6 (sum_i (thetabar - theta_(i))^2)^{3/2})
//	alpha1 = Phi(z0 + (z0 + z_{alpha/2}) / (1 - a (z0 + z_{alpha/2})))
//	alpha2 = Phi(z0 + (z0 + z_{1-alpha/2}) / (1 - a (z0 + z_{1-alpha/2})))
//
// theta_(i) the jackknife values (thetabar their mean; failed ones left
// out), z_p = Phi^{-1}(p). Where 1 - a (z0 + z) <= 0 the level is the
// formula's limit, 1 when z0 + z > 0 and 0 otherwise. The interval is the
// replicates' quantiles at alpha1 and alpha2 with Percentile's
// order-statistic convention: Low is the k1-th smallest replicate, k1 =
// floor(m alpha1), and High the k2-th largest, k2 = floor(m (1 - alpha2)),
// each clamped to [1, m]; with z0 = a = 0 this is Percentile's interval.
//
// Degenerate cases fall back to Percentile's interval: every successful
// replicate equal to theta; no replicate on one side of it (z0 infinite);
// a jackknife without spread (every value equal, or fewer than two of
// them succeeded: a is 0/0); or a failed theta.
func BCa(v, jack []float64, theta, confidence float64) Interval {
	return bcaInterval(v, jack, theta, confidence)
}

// percentileInterval sorts the replicates (NaN = failed) in place and
// returns the interval of Bootstrap's percentile rule.
func percentileInterval(v []float64, confidence float64) Interval {
	ok := v[:0]
	failed := 0
	for _, x := range v {
		if math.IsNaN(x) {
			failed++
			continue
		}
		ok = append(ok, x)
	}
	iv := Interval{Failed: failed, Low: math.NaN(), High: math.NaN()}
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

// bcaInterval returns the BCa interval of BootstrapBCa from the replicates
// v (NaN = failed; sorted and compacted in place), the jackknife values
// jack (NaN = failed; reordered in place) and the estimate theta (NaN =
// failed), falling back to percentileInterval in the degenerate cases.
func bcaInterval(v, jack []float64, theta, confidence float64) Interval {
	iv := percentileInterval(v, confidence)
	m := len(v) - iv.Failed
	sorted := v[:m] // percentileInterval left the successful replicates here, sorted
	if m == 0 || math.IsNaN(theta) || (sorted[0] == theta && sorted[m-1] == theta) {
		return iv
	}
	below, _ := slices.BinarySearch(sorted, theta) // replicates < theta
	above, _ := slices.BinarySearch(sorted, math.Nextafter(theta, math.Inf(1)))
	p := (float64(below) + 0.5*float64(above-below)) / float64(m)
	if p <= 0 || p >= 1 {
		return iv
	}
	a, ok := acceleration(jack)
	if !ok {
		return iv
	}
	z0 := distuv.UnitNormal.Quantile(p)
	a1, a2 := bcaLevels(z0, a, 1-confidence)
	iv.Low, iv.High = quantileInterval(sorted, a1, a2)
	return iv
}

// acceleration returns a = sum_i d_i^3 / (6 (sum_i d_i^2)^{3/2}), d_i =
// thetabar - theta_(i), over the jackknife values that did not fail (NaN),
// and false when fewer than two did or they have no spread. The
// deviations are divided by the largest first (a is scale-free), so that
// their cubes never overflow. jack is reordered.
func acceleration(jack []float64) (float64, bool) {
	ok := jack[:0]
	for _, x := range jack {
		if !math.IsNaN(x) {
			ok = append(ok, x)
		}
	}
	if len(ok) < 2 {
		return 0, false
	}
	// the mean under a binary scale that keeps the sum finite
	top := 0.0
	for _, x := range ok {
		top = max(top, math.Abs(x))
	}
	_, e := math.Frexp(top)
	bar := 0.0
	for _, x := range ok {
		bar += math.Ldexp(x, -e)
	}
	bar /= float64(len(ok))
	dmax := 0.0
	for _, x := range ok {
		dmax = max(dmax, math.Abs(bar-math.Ldexp(x, -e)))
	}
	if dmax == 0 {
		return 0, false
	}
	var s2, s3 float64
	for _, x := range ok {
		d := (bar - math.Ldexp(x, -e)) / dmax
		s2 += d * d
		s3 += d * d * d
	}
	return s3 / (6 * math.Pow(s2, 1.5)), true
}

// bcaLevels returns BCa's adjusted levels alpha1 and alpha2 (Efron 1987)
// for bias correction z0, acceleration a and alpha = 1 - confidence:
// Phi(z0 + (z0 + z) / (1 - a (z0 + z))) at z = z_{alpha/2} and
// z_{1-alpha/2}; where 1 - a (z0 + z) <= 0, the formula's limit (1 if
// z0 + z > 0, else 0).
func bcaLevels(z0, a, alpha float64) (alpha1, alpha2 float64) {
	level := func(z float64) float64 {
		s := z0 + z
		den := 1 - a*s
		if den <= 0 {
			if s > 0 {
				return 1
			}
			return 0
		}
		return distuv.UnitNormal.CDF(z0 + s/den)
	}
	return level(distuv.UnitNormal.Quantile(alpha / 2)), level(distuv.UnitNormal.Quantile(1 - alpha/2))
}

// quantileInterval returns the replicates' quantiles at levels a1 <= a2
// with percentileInterval's order-statistic convention: the k1-th smallest
// of the sorted replicates, k1 = floor(m a1), and the k2-th largest, k2 =
// floor(m (1 - a2)), each clamped to [1, m] (the 1e-9 keeps a level that
// is an integer over m, up to rounding, at that integer).
func quantileInterval(sorted []float64, a1, a2 float64) (lo, hi float64) {
	m := len(sorted)
	k1 := min(m, max(1, int(math.Floor(a1*float64(m)+1e-9))))
	k2 := min(m, max(1, int(math.Floor((1-a2)*float64(m)+1e-9))))
	return sorted[k1-1], sorted[m-k2]
}
