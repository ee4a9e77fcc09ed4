package trajectory

import "math"

// Discounted is a reusable view of a batch under a discount factor gamma
// (SPEC 1c): the reward of 1-based step t of every trajectory becomes
// gamma^(t-1) r_t, and the model columns q_hat_t and v_hat_t are scaled
// the same way, so that every estimator's undiscounted formula, applied to
// the view, is its discounted formula (SPEC 1c: "every formula ... applies
// unchanged to the discounted rewards"; for dr, wdr, magic and reg the
// factor gamma^(t-1) of each step's term moves onto r, q_hat and v_hat).
// On options data t counts primitive steps, as the batch's steps are.
//
// The factors are math.Pow(gamma, t-1), each rounded once. The zero value
// is ready; a Discounted reuses its buffers, so a worker that discounts one
// batch per trial allocates only while the batches grow.
type Discounted struct {
	view             Batch
	pow              []float64
	gamma            float64
	reward, qHat, vH []float64
}

// Of returns b under gamma: b itself when gamma is 1 (no copy, the same
// bits), else a view sharing b's offsets, ratios, options, splits and ids,
// with discounted rewards and model columns. The view is valid until the
// next call of Of.
func (d *Discounted) Of(b *Batch, gamma float64) *Batch {
	if gamma == 1 {
		return b
	}
	if gamma != d.gamma || len(d.pow) < b.Horizon() {
		d.gamma = gamma
		d.pow = d.pow[:0]
		for t := range b.Horizon() {
			d.pow = append(d.pow, math.Pow(gamma, float64(t)))
		}
	}
	d.view = *b
	d.view.Gamma = gamma
	d.reward = scaleSteps(d.reward, b.Reward, b.Offsets, d.pow)
	d.view.Reward = d.reward
	if b.HasModel() {
		d.qHat = scaleSteps(d.qHat, b.QHat, b.Offsets, d.pow)
		d.vH = scaleSteps(d.vH, b.VHat, b.Offsets, d.pow)
		d.view.QHat, d.view.VHat = d.qHat, d.vH
	}
	return &d.view
}

// scaleSteps writes x[s] * pow[t] into dst for every step s, t its
// 0-based index within its trajectory, and returns dst.
func scaleSteps(dst, x []float64, off []int, pow []float64) []float64 {
	if cap(dst) < len(x) {
		dst = make([]float64, len(x))
	}
	dst = dst[:len(x)]
	for i := 0; i+1 < len(off); i++ {
		lo, hi := off[i], off[i+1]
		for s := lo; s < hi; s++ {
			dst[s] = x[s] * pow[s-lo]
		}
	}
	return dst
}
