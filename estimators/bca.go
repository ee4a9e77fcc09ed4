package estimators

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ope-lab/longhorizon/trajectory"
)

// BootstrapBCa returns, for each estimator in names, the bias-corrected and
// accelerated (BCa) bootstrap interval (Efron 1987; SPEC 1e) at the given
// confidence level over reps resamples of b's trajectories. It has
// Bootstrap's contract: the same replicates (replicate r resamples n
// indices by IntN(n) from ReplicateStream(seed, r), every estimator on the
// same resample), the same failed-replicate accounting (Interval.Failed;
// NaN bounds when every replicate failed) and results that do not depend
// on workers.
//
// With theta the estimate on b, m successful replicates and alpha = 1 -
// confidence:
//
//	z0 = Phi^{-1}((#{replicates < theta} + #{replicates = theta}/2) / m)
//	a  = sum_i (thetabar - theta_(i))^3 / (6 (sum_i (thetabar - theta_(i))^2)^{3/2})
//	alpha1 = Phi(z0 + (z0 + z_{alpha/2}) / (1 - a (z0 + z_{alpha/2})))
//	alpha2 = Phi(z0 + (z0 + z_{1-alpha/2}) / (1 - a (z0 + z_{1-alpha/2})))
//
// where theta_(i) is the estimate on b without trajectory i (the
// delete-one jackknife; thetabar their mean; failed ones are left out)
// and z_p = Phi^{-1}(p). Where 1 - a (z0 + z) <= 0 the level is the
// formula's limit, 1 when z0 + z > 0 and 0 otherwise. The interval is the
// replicates' quantiles at alpha1 and alpha2 with Bootstrap's
// order-statistic convention: Low is the k1-th smallest replicate, k1 =
// floor(m alpha1), and High the k2-th largest, k2 = floor(m (1 -
// alpha2)), each clamped to [1, m]; with z0 = a = 0 this is Bootstrap's
// interval.
//
// Degenerate cases fall back to the percentile interval of Bootstrap (the
// same numbers Bootstrap returns): every successful replicate equal to the
// estimate; no replicate on one side of it (z0 infinite); a jackknife
// without spread (every leave-one-out estimate equal, or fewer than two
// of them succeeded: a is 0/0); or an estimate on b itself that failed.
//
// Cost: the jackknife adds n estimates (on n - 1 trajectories) per
// estimator to the reps of Bootstrap, so it needs n >= MinN + 1 (an error
// wrapping ErrTooFew otherwise) and its time grows like n^2; replicates
// and jackknife share the workers, each owning one batch (memory about
// (workers + 1) copies of b, as Bootstrap).
func BootstrapBCa(b *trajectory.Batch, names []string, reps int, confidence float64, seed uint64, workers int) ([]Interval, error) {
	if err := bootstrapArgs("bootstrap (BCa)", reps, confidence, names); err != nil {
		return nil, err
	}
	n := b.N()
	for _, name := range names {
		info, _ := Lookup(name)
		if need := max(info.MinN, 1) + 1; n < need {
			return nil, fmt.Errorf("bootstrap (BCa): %s: %w: n = %d, its jackknife needs n >= %d", name, ErrTooFew, n, need)
		}
	}
	if n < 2 {
		return nil, fmt.Errorf("bootstrap (BCa): %w: n = %d, the jackknife needs n >= 2", ErrTooFew, n)
	}
	theta := make([]float64, len(names)) // NaN: the estimate on b failed
	for j, name := range names {
		e, _ := New(name) // names were looked up above
		v, err := e.Estimate(b)
		if err != nil {
			if errors.Is(err, ErrTooFew) {
				return nil, fmt.Errorf("bootstrap (BCa): %w", err)
			}
			v = math.NaN()
		}
		theta[j] = v
	}
	est, jack, err := replicates(b, names, reps, seed, workers, true, nil)
	if err != nil {
		return nil, err
	}
	out := make([]Interval, len(names))
	for j, name := range names {
		out[j] = bcaInterval(name, est[j], jack[j], theta[j], confidence)
	}
	return out, nil
}

// bcaInterval returns the BCa interval of BootstrapBCa from the replicates
// v (NaN = failed; sorted and compacted in place), the jackknife values
// jack (NaN = failed; reordered in place) and the estimate theta (NaN =
// failed), falling back to percentileInterval in the degenerate cases.
func bcaInterval(name string, v, jack []float64, theta, confidence float64) Interval {
	iv := percentileInterval(name, v, confidence)
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
