package incris

// The single-step path of incris-ld, for the tests that compare one
// step's sums and S with the reference and with direct formulas.

import "github.com/ope-lab/longhorizon/trajectory"

// step computes k* and r_hat_t for step index s = t-1 alone, after
// prepare(b); it leaves the step's sums in e.sumX ... e.neg and its S in
// e.s (ldStepView).
func (e *INCRISLD) step(b *trajectory.Batch, s int) (float64, error) {
	e.b = b
	e.fillS = true
	e.group(s, s+1)
	st := &e.gs[0]
	if st.err != nil {
		return 0, st.err
	}
	return st.r, nil
}
