package estimators

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ope-lab/longhorizon/trajectory"
)

// The high-confidence lower bounds of SPEC 1e, by key.
const (
	// BoundT is the Student-t lower bound of an estimator that is a mean
	// of i.i.d. per-trajectory terms: mean(X) - t_{1-delta, n-1} s(X) /
	// sqrt(n). Approximate.
	BoundT = "t"
	// BoundHCOPE is the high-confidence off-policy evaluation bound of
	// Thomas, Theocharous & Ghavamzadeh (2015), Theorem 1 with one
	// threshold c chosen on the first ceil(n/5) trajectories; it holds
	// with probability >= 1 - delta for any weights. Needs the range of
	// the returns.
	BoundHCOPE = "hcope"
)

// ErrOutOfRange reports a return outside the range a bound was given.
var ErrOutOfRange = errors.New("a return lies outside the given range")

// BoundInfo is a bound's registry entry.
type BoundInfo struct {
	// Name is the key (BoundT, BoundHCOPE).
	Name string
	// Doc says what the bound is and what it assumes, for help texts.
	Doc string
	// NeedsRange says that the bound needs [g_lo, g_hi], a range holding
	// every return.
	NeedsRange bool
	// MinN is the smallest number of trajectories it accepts.
	MinN int
}

// boundRegistry lists the bounds in the order of help texts.
var boundRegistry = []BoundInfo{
	{Name: BoundT, MinN: 2,
		Doc: "Student-t lower bound (SPEC 1e): mean(X) - t_{1-delta, n-1} s(X) / sqrt(n) over the per-trajectory " +
			"terms X_i whose mean is the estimate (is: W_H G_i; pdis: sum_t W_t r_t; dr: its per-trajectory sum), " +
			"s the sample standard deviation (denominator n - 1). Approximate: it assumes the mean is near normal, " +
			"which heavy-tailed importance weights break (the bound then holds less often than 1 - delta). Needs n >= 2."},
	{Name: BoundHCOPE, NeedsRange: true, MinN: 3,
		Doc: "HCOPE lower bound (Thomas, Theocharous & Ghavamzadeh 2015, Theorem 1 with one threshold c; SPEC 1e) on " +
			"X_i = W_H (G_i - g_lo) / (g_hi - g_lo): the first ceil(n/5) trajectories choose c among their distinct " +
			"positive X, the other m give L = max(0, mean(Y) - 7 c ln(2/delta) / (3 (m - 1)) - sqrt(2 ln(2/delta) s^2(Y) / m)), " +
			"Y = min(X, c); the bound is g_lo + (g_hi - g_lo) L. A guarantee: it holds with probability >= 1 - delta " +
			"for any importance weights, but is often vacuous (g_lo) at long horizons. Needs a range [g_lo, g_hi] " +
			"holding every return and n >= 3; when one trajectory chooses c (n <= 5), its sample variance is taken as 0."},
}

// LookupBound returns the registry entry of bound name (BoundT,
// BoundHCOPE).
func LookupBound(name string) (BoundInfo, bool) {
	for _, bi := range boundRegistry {
		if bi.Name == name {
			return bi, true
		}
	}
	return BoundInfo{}, false
}

// BoundNames returns every bound key in the order of help texts: t, hcope.
func BoundNames() []string {
	names := make([]string, len(boundRegistry))
	for j, bi := range boundRegistry {
		names[j] = bi.Name
	}
	return names
}

// withBounds returns registry entry i listing the bounds kinds.
func withBounds(i Info, kinds ...string) Info {
	i.Bounds = kinds
	return i
}

// termer is implemented by the estimators that are the mean of i.i.d.
// per-trajectory terms (BoundT).
type termer interface {
	Estimator
	// terms appends the per-trajectory terms X_1..X_n of the estimate
	// from b to dst[:0] and returns the extended slice; their mean is
	// the estimate. A term that is not representable as a float64 is an
	// error wrapping ErrNotRepresentable.
	terms(b *trajectory.Batch, dst []float64) ([]float64, error)
}

// scaledReturner is implemented by the estimators that HCOPE bounds: IS.
type scaledReturner interface {
	Estimator
	// scaledReturns appends X_i = W^i_H (G_i - lo) / (hi - lo) to dst[:0],
	// or returns an error wrapping ErrOutOfRange when some return G_i lies
	// outside [lo, hi].
	scaledReturns(b *trajectory.Batch, lo, hi float64, dst []float64) ([]float64, error)
}

// boundWork is the reusable workspace of LowerBound: estimators by name
// and the terms. A pool holds them, so that repeated calls allocate
// nothing once warm.
type boundWork struct {
	ests      map[string]Estimator
	x, sorted []float64
}

var boundPool = sync.Pool{New: func() any { return &boundWork{ests: make(map[string]Estimator)} }}

// LowerBound returns the 1 - delta lower bound kind (BoundT, BoundHCOPE)
// on V(pi_e) from b, for estimator est, whose registry entry must list kind
// in Info.Bounds (SPEC 1e). lo and hi are the range [g_lo, g_hi] of the
// returns, used by bounds with NeedsRange (finite, g_lo < g_hi, with a
// width that fits a float64; a return outside it is an error wrapping
// ErrOutOfRange that names the trajectory's 0-based index) and ignored by
// the others. b is read as every
// estimator reads it (already discounted, SPEC 1c).
//
// BoundT: mean(X) - t_{1-delta, n-1} s(X) / sqrt(n), X_i the estimator's
// per-trajectory terms (is: W_H G_i; pdis: sum_t W_t r_t; dr: sum_t [W_t
// r_t - (W_t q_hat_t - W_{t-1} v_hat_t)]), weighted by the per-step factors
// every estimator uses (trajectory.Batch.Factors), s with denominator
// n - 1, t the Student-t quantile with n - 1 degrees of freedom. A term
// that overflows a float64 is an error wrapping ErrNotRepresentable (the
// mean and deviation themselves are computed under a binary scale, so
// only a bound that does not fit is such an error).
//
// BoundHCOPE: see BoundInfo.Doc (SPEC 1e). A scaled return X_i that is not
// representable (a weight beyond 2^1024 on a return above g_lo) is an
// error wrapping ErrNotRepresentable.
//
// Too few trajectories (fewer than the bound's or the estimator's MinN) is
// an error wrapping ErrTooFew. Repeated calls allocate nothing once warm.
func LowerBound(est, kind string, b *trajectory.Batch, delta, lo, hi float64) (float64, error) {
	bi, ok := LookupBound(kind)
	if !ok {
		return 0, fmt.Errorf("estimators: unknown lower bound %q (known: %v)", kind, BoundNames())
	}
	info, ok := Lookup(est)
	if !ok {
		return 0, fmt.Errorf("estimators: lower bound %s: unknown estimator %q (known: %v)", kind, est, Names())
	}
	if !slices.Contains(info.Bounds, kind) {
		return 0, fmt.Errorf("estimators: %s has no %s lower bound (its bounds: %v)", est, kind, info.Bounds)
	}
	if !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("estimators: %s lower bound of %s: delta %v, want a number in (0, 1)", kind, est, delta)
	}
	if bi.NeedsRange {
		if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(lo < hi) {
			return 0, fmt.Errorf("estimators: %s lower bound of %s: return range [%v, %v], want finite g_lo < g_hi", kind, est, lo, hi)
		}
		if math.IsInf(hi-lo, 0) {
			return 0, fmt.Errorf("estimators: %s lower bound of %s: return range [%v, %v] wider than a float64 holds", kind, est, lo, hi)
		}
	}
	if n, need := b.N(), max(bi.MinN, info.MinN); n < need {
		return 0, fmt.Errorf("estimators: %s lower bound of %s: %w: n = %d, needs n >= %d", kind, est, ErrTooFew, n, need)
	}
	w := boundPool.Get().(*boundWork)
	defer boundPool.Put(w)
	e := w.ests[est]
	if e == nil {
		e = info.new()
		w.ests[est] = e
	}
	var v float64
	var err error
	switch kind {
	case BoundT:
		te, ok := e.(termer)
		if !ok {
			return 0, fmt.Errorf("estimators: %s lower bound of %s: the estimator has no per-trajectory terms", kind, est)
		}
		if w.x, err = te.terms(b, w.x); err == nil {
			v = tBound(w.x, delta)
		}
	case BoundHCOPE:
		se, ok := e.(scaledReturner)
		if !ok {
			return 0, fmt.Errorf("estimators: %s lower bound of %s: the estimator has no scaled returns", kind, est)
		}
		if w.x, err = se.scaledReturns(b, lo, hi, w.x); err == nil {
			var l float64
			l, w.sorted = hcope(w.x, delta, w.sorted)
			v = lo + (hi-lo)*l
		}
	}
	if err != nil {
		return 0, fmt.Errorf("estimators: %s lower bound of %s: %w", kind, est, err)
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("estimators: %s lower bound of %s: bound %w", kind, est, ErrNotRepresentable)
	}
	return v, nil
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

// termError is the error of trajectory i's term of estimator name.
func termError(name string, i int) error {
	return fmt.Errorf("%s: the term of trajectory %d %w", name, i, ErrNotRepresentable)
}

func finiteValue(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }

// finalWeight returns the product of rho, W = m 2^e, and the sum g of
// rew: with plain products while they stay normal (then e = 0, m = W,
// as the estimators' fast paths compute it), else as mantissa and
// exponent (scaledWeight).
func finalWeight(rho, rew []float64) (m float64, e int, g float64) {
	rew = rew[:len(rho)]
	w := 1.0
	for t, f := range rho {
		prev := w
		w *= f
		if leftNormal(w, f, prev) {
			return finalWeightScaled(rho, rew)
		}
		g += rew[t]
	}
	return w, 0, g
}

func finalWeightScaled(rho, rew []float64) (float64, int, float64) {
	rew = rew[:len(rho)]
	w := scaledWeight{m: 1}
	g := 0.0
	for t, f := range rho {
		w.mul(f)
		g += rew[t]
	}
	return w.m, w.e, g
}

// terms implements termer: X_i = W^i_H G^i.
func (e *IS) terms(b *trajectory.Batch, dst []float64) ([]float64, error) {
	b = e.s.view.of(b)
	dst = dst[:0]
	for i := range b.N() {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		m, ex, g := finalWeight(b.Ratio[lo:hi], b.Reward[lo:hi])
		x := math.Ldexp(m*g, ex)
		if !finiteValue(x) {
			return dst, termError("is", i)
		}
		dst = append(dst, x)
	}
	return dst, nil
}

// scaledReturns implements scaledReturner: X_i = W^i_H (G_i - lo) / (hi -
// lo), for HCOPE (SPEC 1e).
func (e *IS) scaledReturns(b *trajectory.Batch, lo, hi float64, dst []float64) ([]float64, error) {
	b = e.s.view.of(b)
	dst = dst[:0]
	width := hi - lo
	for i := range b.N() {
		s, t := b.Offsets[i], b.Offsets[i+1]
		m, ex, g := finalWeight(b.Ratio[s:t], b.Reward[s:t])
		if !(g >= lo && g <= hi) {
			return dst, fmt.Errorf("trajectory %d (0-based): return %v outside [%v, %v]: %w", i, g, lo, hi, ErrOutOfRange)
		}
		u := (g - lo) / width // in [0, 1]
		x := 0.0
		if u != 0 {
			x = math.Ldexp(m*u, ex)
		}
		if !finiteValue(x) {
			return dst, fmt.Errorf("trajectory %d (0-based): scaled return W (G - g_lo) / (g_hi - g_lo) %w", i, ErrNotRepresentable)
		}
		dst = append(dst, x)
	}
	return dst, nil
}

// terms implements termer: X_i = sum_t W^i_t r^i_t, the weights starting
// again at 1 after each split point when Partitioned.
func (e *PDIS) terms(b *trajectory.Batch, dst []float64) ([]float64, error) {
	b = e.s.view.of(b)
	dst = dst[:0]
	for i := range b.N() {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		rho, rew, split := b.Ratio[lo:hi], b.Reward[lo:hi], b.Split[lo:hi]
		x, ok := pdisTermFast(rho, rew, split, e.Partitioned)
		if !ok || !finiteValue(x) {
			x = pdisTermScaled(rho, rew, split, e.Partitioned)
		}
		if !finiteValue(x) {
			return dst, termError(e.name, i)
		}
		dst = append(dst, x)
	}
	return dst, nil
}

// pdisTermFast returns sum_t W_t r_t with plain products, or false as soon
// as a weight leaves the normal float64 range.
func pdisTermFast(rho, rew []float64, split []bool, restart bool) (float64, bool) {
	rew, split = rew[:len(rho)], split[:len(rho)]
	w, x := 1.0, 0.0
	for t, f := range rho {
		prev := w
		w *= f
		if leftNormal(w, f, prev) {
			return 0, false
		}
		x += w * rew[t]
		if restart && split[t] {
			w = 1
		}
	}
	return x, true
}

// pdisTermScaled returns sum_t W_t r_t in two passes: the largest binary
// exponent E of a weight that multiplies a nonzero reward, then the terms
// scaled by 2^-E, scaled back at the end.
func pdisTermScaled(rho, rew []float64, split []bool, restart bool) float64 {
	rew, split = rew[:len(rho)], split[:len(rho)]
	top := minExp
	w := scaledWeight{m: 1}
	for t, f := range rho {
		w.mul(f)
		if w.m != 0 && rew[t] != 0 {
			top = max(top, w.e)
		}
		if restart && split[t] {
			w = scaledWeight{m: 1}
		}
	}
	if top == minExp {
		return 0 // no term
	}
	x := 0.0
	w = scaledWeight{m: 1}
	for t, f := range rho {
		w.mul(f)
		if r := rew[t]; r != 0 {
			x += w.at(top) * r
		}
		if restart && split[t] {
			w = scaledWeight{m: 1}
		}
	}
	return math.Ldexp(x, top)
}

// terms implements termer: X_i = sum_t [W^i_t r^i_t - (W^i_t q_hat^i_t -
// W^i_{t-1} v_hat^i_t)], the sum of drFast and drScaled per trajectory.
func (e *DR) terms(b *trajectory.Batch, dst []float64) ([]float64, error) {
	if err := checkModel("dr", b, 1); err != nil {
		return dst[:0], err
	}
	b = e.view.of(b)
	dst = dst[:0]
	for i := range b.N() {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		rho := b.Ratio[lo:hi]
		rew, q, v := b.Reward[lo:hi], b.QHat[lo:hi], b.VHat[lo:hi]
		x, ok := drTermFast(rho, rew, q, v)
		if !ok || !finiteValue(x) {
			x = drTermScaled(rho, rew, q, v)
		}
		if !finiteValue(x) {
			return dst, termError("dr", i)
		}
		dst = append(dst, x)
	}
	return dst, nil
}

// drTermFast returns one trajectory's DR sum with plain products (drFast's
// arithmetic), or false as soon as a weight leaves the normal range.
func drTermFast(rho, rew, q, v []float64) (float64, bool) {
	rew, q, v = rew[:len(rho)], q[:len(rho)], v[:len(rho)]
	w, x := 1.0, 0.0
	for t, f := range rho {
		prev := w
		w *= f
		if leftNormal(w, f, prev) {
			return 0, false
		}
		x += w*(rew[t]-q[t]) + prev*v[t]
	}
	return x, true
}

// drTermScaled returns one trajectory's DR sum as drScaled computes it:
// terms scaled by the largest binary exponent of a weight multiplying a
// nonzero r - q_hat or v_hat, scaled back at the end.
func drTermScaled(rho, rew, q, v []float64) float64 {
	rew, q, v = rew[:len(rho)], q[:len(rho)], v[:len(rho)]
	top := minExp
	w := scaledWeight{m: 1}
	for t, f := range rho {
		prev := w
		w.mul(f)
		if w.m != 0 && rew[t]-q[t] != 0 {
			top = max(top, w.e)
		}
		if prev.m != 0 && v[t] != 0 {
			top = max(top, prev.e)
		}
	}
	if top == minExp {
		return 0 // no term
	}
	x := 0.0
	w = scaledWeight{m: 1}
	for t, f := range rho {
		prev := w
		w.mul(f)
		if d := rew[t] - q[t]; d != 0 {
			x += w.at(top) * d
		}
		if vt := v[t]; vt != 0 {
			x += prev.at(top) * vt
		}
	}
	return math.Ldexp(x, top)
}
