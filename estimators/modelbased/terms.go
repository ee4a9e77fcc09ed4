package modelbased

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Terms implements Termer: X_i = sum_t [W^i_t r^i_t - (W^i_t q_hat^i_t -
// W^i_{t-1} v_hat^i_t)], the sum of drFast and drScaled per trajectory.
func (e *DR) Terms(b *trajectory.Batch, dst []float64) ([]float64, error) {
	if err := checkModel("dr", b, 1); err != nil {
		return dst[:0], err
	}
	b = e.view.Of(b)
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
		if weights.LeftNormal(w, f, prev) {
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
	top := weights.MinExp
	w := weights.Scaled{M: 1}
	for t, f := range rho {
		prev := w
		w.Mul(f)
		if w.M != 0 && rew[t]-q[t] != 0 {
			top = max(top, w.E)
		}
		if prev.M != 0 && v[t] != 0 {
			top = max(top, prev.E)
		}
	}
	if top == weights.MinExp {
		return 0 // no term
	}
	x := 0.0
	w = weights.Scaled{M: 1}
	for t, f := range rho {
		prev := w
		w.Mul(f)
		if d := rew[t] - q[t]; d != 0 {
			x += w.At(top) * d
		}
		if vt := v[t]; vt != 0 {
			x += prev.At(top) * vt
		}
	}
	return math.Ldexp(x, top)
}

// termError is the error of trajectory i's term of estimator name.
func termError(name string, i int) error {
	return fmt.Errorf("%s: the term of trajectory %d %w", name, i, estimators.ErrNotRepresentable)
}

func finiteValue(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }
