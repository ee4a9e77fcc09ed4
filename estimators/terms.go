package estimators

import (
	"errors"
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ErrOutOfRange reports a return outside the range a bound was given.
var ErrOutOfRange = errors.New("a return lies outside the given range")

// Termer is implemented by the estimators that are the mean of i.i.d.
// per-trajectory terms, for which the Student-t bound of SPEC 1e holds
// (confidence.T).
type Termer interface {
	Estimator
	// Terms appends the per-trajectory terms X_1..X_n of the estimate
	// from b to dst[:0] and returns the extended slice; their mean is
	// the estimate. A term that is not representable as a float64 is an
	// error wrapping ErrNotRepresentable.
	Terms(b *trajectory.Batch, dst []float64) ([]float64, error)
}

// ScaledReturner is implemented by the estimators that HCOPE bounds
// (confidence.HCOPE): IS.
type ScaledReturner interface {
	Estimator
	// ScaledReturns appends X_i = W^i_H (G_i - lo) / (hi - lo) to
	// dst[:0], or returns an error wrapping ErrOutOfRange, naming the
	// trajectory's 0-based index, when some return G_i lies outside
	// [lo, hi]; a value that is not representable is an error wrapping
	// ErrNotRepresentable.
	ScaledReturns(b *trajectory.Batch, lo, hi float64, dst []float64) ([]float64, error)
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
		if weights.LeftNormal(w, f, prev) {
			return finalWeightScaled(rho, rew)
		}
		g += rew[t]
	}
	return w, 0, g
}

func finalWeightScaled(rho, rew []float64) (float64, int, float64) {
	rew = rew[:len(rho)]
	w := weights.Scaled{M: 1}
	g := 0.0
	for t, f := range rho {
		w.Mul(f)
		g += rew[t]
	}
	return w.M, w.E, g
}

// Terms implements Termer: X_i = W^i_H G^i.
func (e *IS) Terms(b *trajectory.Batch, dst []float64) ([]float64, error) {
	b = e.view.Of(b)
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

// ScaledReturns implements ScaledReturner: X_i = W^i_H (G_i - lo) / (hi -
// lo), for HCOPE (SPEC 1e).
func (e *IS) ScaledReturns(b *trajectory.Batch, lo, hi float64, dst []float64) ([]float64, error) {
	b = e.view.Of(b)
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

// Terms implements Termer: X_i = sum_t W^i_t r^i_t, the weights starting
// again at 1 after each split point when Partitioned.
func (e *PDIS) Terms(b *trajectory.Batch, dst []float64) ([]float64, error) {
	b = e.view.Of(b)
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
		if weights.LeftNormal(w, f, prev) {
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
	top := weights.MinExp
	w := weights.Scaled{M: 1}
	for t, f := range rho {
		w.Mul(f)
		if w.M != 0 && rew[t] != 0 {
			top = max(top, w.E)
		}
		if restart && split[t] {
			w = weights.Scaled{M: 1}
		}
	}
	if top == weights.MinExp {
		return 0 // no term
	}
	x := 0.0
	w = weights.Scaled{M: 1}
	for t, f := range rho {
		w.Mul(f)
		if r := rew[t]; r != 0 {
			x += w.At(top) * r
		}
		if restart && split[t] {
			w = weights.Scaled{M: 1}
		}
	}
	return math.Ldexp(x, top)
}
