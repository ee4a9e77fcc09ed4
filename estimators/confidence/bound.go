package confidence

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// The high-confidence lower bounds of SPEC 1e, by key.
const (
	// T is the Student-t lower bound of an estimator that is a mean
	// of i.i.d. per-trajectory terms: mean(X) - t_{1-delta, n-1} s(X) /
	// sqrt(n). Approximate.
	T = "t"
	// HCOPE is the high-confidence off-policy evaluation bound of
	// Thomas, Theocharous & Ghavamzadeh (2015), Theorem 1 with one
	// threshold c chosen on the first ceil(n/5) trajectories; it holds
	// with probability >= 1 - delta for any weights. Needs the range of
	// the returns.
	HCOPE = "hcope"
)

// Bound is a bound's registry entry.
type Bound struct {
	// Name is the key (T, HCOPE).
	Name string
	// Doc says what the bound is and what it assumes, for help texts.
	Doc string
	// NeedsRange says that the bound needs [g_lo, g_hi], a range holding
	// every return.
	NeedsRange bool
	// MinN is the smallest number of trajectories it accepts.
	MinN int
}

// bounds lists the bounds in the order of help texts.
var bounds = []Bound{
	{Name: T, MinN: 2,
		Doc: "Student-t lower bound (SPEC 1e): mean(X) - t_{1-delta, n-1} s(X) / sqrt(n) over the per-trajectory " +
			"terms X_i whose mean is the estimate (is: W_H G_i; pdis: sum_t W_t r_t; dr: its per-trajectory sum), " +
			"s the sample standard deviation (denominator n - 1). Approximate: it assumes the mean is near normal, " +
			"which heavy-tailed importance weights break (the bound then holds less often than 1 - delta). Needs n >= 2."},
	{Name: HCOPE, NeedsRange: true, MinN: 3,
		Doc: "HCOPE lower bound (Thomas, Theocharous & Ghavamzadeh 2015, Theorem 1 with one threshold c; SPEC 1e) on " +
			"X_i = W_H (G_i - g_lo) / (g_hi - g_lo): the first ceil(n/5) trajectories choose c among their distinct " +
			"positive X, the other m give L = max(0, mean(Y) - 7 c ln(2/delta) / (3 (m - 1)) - sqrt(2 ln(2/delta) s^2(Y) / m)), " +
			"Y = min(X, c); the bound is g_lo + (g_hi - g_lo) L. A guarantee: it holds with probability >= 1 - delta " +
			"for any importance weights, but is often vacuous (g_lo) at long horizons. Needs a range [g_lo, g_hi] " +
			"holding every return and n >= 3; when one trajectory chooses c (n <= 5), its sample variance is taken as 0."},
}

// Lookup returns the registry entry of bound name (T, HCOPE).
func Lookup(name string) (Bound, bool) {
	for _, bi := range bounds {
		if bi.Name == name {
			return bi, true
		}
	}
	return Bound{}, false
}

// Names returns every bound key in the order of help texts: t, hcope.
func Names() []string {
	names := make([]string, len(bounds))
	for j, bi := range bounds {
		names[j] = bi.Name
	}
	return names
}

// CheckRange checks a range of the returns [lo, hi] for the bounds that
// need one (Bound.NeedsRange): finite, lo < hi, with a width that fits a
// float64.
func CheckRange(lo, hi float64) error {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(lo < hi) {
		return fmt.Errorf("[%v, %v], want finite g_lo < g_hi", lo, hi)
	}
	if math.IsInf(hi-lo, 0) {
		return fmt.Errorf("[%v, %v]: g_hi - g_lo is beyond the float64 range", lo, hi)
	}
	return nil
}

// TLower returns the Student-t lower bound of SPEC 1e from the
// per-trajectory terms x (len(x) >= 2) whose mean is the estimate:
// mean(x) - t_{1-delta, n-1} s(x) / sqrt(n). It is Inf only when the
// bound itself does not fit a float64.
func TLower(x []float64, delta float64) float64 { return tBound(x, delta) }

// HCOPELower returns the HCOPE lower bound's L in [0, 1] of SPEC 1e from
// the scaled returns x (len(x) >= 3): the bound is g_lo + (g_hi - g_lo) L.
// scratch is reused and returned, so that repeated calls allocate nothing
// once warm.
func HCOPELower(x []float64, delta float64, scratch []float64) (float64, []float64) {
	return hcope(x, delta, scratch)
}

// studentT returns t_{p, nu}, the p-quantile of Student's t distribution
// with nu degrees of freedom.
func studentT(p, nu float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(p)
}

// tBound returns mean(x) - t_{1-delta, n-1} s(x) / sqrt(n) (SPEC 1e), s
// with denominator n - 1 (len(x) >= 2). The terms are scaled by a power of
// two that brings the largest to [0.5, 1) (exact for every normal term),
// so that the mean and deviation never overflow; the result is scaled
// back, and is Inf only when the bound itself does not fit.
func tBound(x []float64, delta float64) float64 {
	n := len(x)
	top := 0.0
	for _, v := range x {
		top = max(top, math.Abs(v))
	}
	_, e := math.Frexp(top)
	mean := 0.0
	for _, v := range x {
		mean += math.Ldexp(v, -e)
	}
	mean /= float64(n)
	ss := 0.0
	for _, v := range x {
		d := math.Ldexp(v, -e) - mean
		ss += d * d
	}
	s := math.Sqrt(ss / float64(n-1))
	q := studentT(1-delta, float64(n-1))
	return math.Ldexp(mean-q*s/math.Sqrt(float64(n)), e)
}

// hcope returns L of SPEC 1e from the scaled returns x (len(x) >= 3): the
// first n1 = ceil(n/5) choose c (chooseC), the other m = n - n1 give L
// (hcopeL); L = 0 when no c exists. sorted is scratch, returned for reuse.
func hcope(x []float64, delta float64, sorted []float64) (float64, []float64) {
	n := len(x)
	n1 := (n + 4) / 5
	m := n - n1
	a, v := hcopeCoef(delta, m)
	sorted = append(sorted[:0], x[:n1]...)
	c, ok := chooseC(sorted, a, v)
	if !ok {
		return 0, sorted
	}
	return hcopeL(x[n1:], c, a, v), sorted
}

// hcopeCoef returns the coefficients of SPEC 1e's expression for m
// trajectories, mean(Y) - a c - sqrt(v s^2(Y)): a = 7 ln(2/delta) / (3 (m
// - 1)) and v = 2 ln(2/delta) / m.
func hcopeCoef(delta float64, m int) (a, v float64) {
	l := math.Log(2 / delta)
	return 7 * l / (3 * float64(m-1)), 2 * l / float64(m)
}

// chooseC returns the threshold c of SPEC 1e among the distinct positive
// values of x (sorted in place): the c that maximises
//
//	pred(c) = mean(Y) - a c - sqrt(v s^2(Y)),  Y = min(x, c),
//
// ties to the smaller c, with s^2 the sample variance with denominator
// len(x) - 1, read as 0 when len(x) = 1 (Theorem 1 writes the deviation
// term as (1/n) sqrt(ln(2/delta)/(n-1) sum_{i,j} (Y_i - Y_j)^2), whose
// double sum is 0 for one term). ok is false when x has no positive
// value.
//
// One pass over the sorted values: with k values <= c, Y is those k and
// n1 - k copies of c, so its mean and sum of squared deviations follow
// from the running (Welford) mean and M2 of the first k by the pooled
// formula (Chan, Golub & LeVeque 1979), stable and O(n1 log n1).
func chooseC(x []float64, a, v float64) (c float64, ok bool) {
	slices.Sort(x)
	n1 := len(x)
	nf := float64(n1)
	best := 0.0
	mean, m2 := 0.0, 0.0
	for j, xj := range x {
		k := float64(j + 1)
		d := xj - mean
		mean += d / k
		m2 += d * (xj - mean)
		if xj <= 0 || (j+1 < n1 && x[j+1] == xj) {
			continue // not positive, or not the last of its group
		}
		rest := nf - k // values above c, each Y = c
		mu := mean + rest*(xj-mean)/nf
		ss := m2 + k*(mean-mu)*(mean-mu) + rest*(xj-mu)*(xj-mu)
		s2 := 0.0
		if n1 > 1 {
			s2 = ss / (nf - 1)
		}
		pred := mu - a*xj - math.Sqrt(v*s2)
		if !ok || pred > best {
			c, best, ok = xj, pred, true
		}
	}
	return c, ok
}

// hcopeL returns L = max(0, mean(Y) - a c - sqrt(v s^2(Y))) over the
// values x, Y = min(x, c), s^2 with denominator len(x) - 1 (SPEC 1e).
func hcopeL(x []float64, c, a, v float64) float64 {
	m := float64(len(x))
	mean := 0.0
	for _, xi := range x {
		mean += min(xi, c)
	}
	mean /= m
	ss := 0.0
	for _, xi := range x {
		d := min(xi, c) - mean
		ss += d * d
	}
	return max(0, mean-a*c-math.Sqrt(v*ss/(m-1)))
}
