package estimators

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/trajectory"
)

// INCRIS is Incremental Importance Sampling (paper, Algorithm 1; SPEC 1).
//
// For the reward at step t and each k = 0..t it splits the cumulative
// weight W_t into A_k = prod_{j<=t-k} rho_j (the dropped part) and
// B_k = prod_{t-k<j<=t} rho_j (the kept part), estimates the bias of
// dropping A_k by the sample covariance C_k = Cov(A_k, B_k r_t) (paper,
// eq. covtest) and the variance by V_k = s^2(B_k r_t)/n, both with
// denominator n-1, and keeps k* = argmin_k C_k^2 + V_k (ties to the larger
// k). The estimate is sum_t (1/n) sum_i B^i_{k*} r^i_t.
//
// With Printed set, V_k = s^2(B_k r_t) without the 1/n, as Algorithm 1 is
// printed; SPEC keeps the 1/n because the appendix's consistency proof
// needs an estimate of the variance of the mean.
type INCRIS struct {
	// Printed selects V_k without the 1/n (key "incris-printed").
	Printed bool

	s     sums
	sx    []float64 // triangular: sum_i B_k r_t           at (t,k)
	sxx   []float64 // triangular: sum_i (B_k r_t)^2
	sax   []float64 // triangular: sum_i (A_k - 1) B_k r_t
	w     []float64 // scratch: cumulative weights of one trajectory, w[0] = 1
	kstar []int
}

// NewINCRIS returns an INCRIS estimator; printed selects the printed V_k.
func NewINCRIS(printed bool) *INCRIS { return &INCRIS{Printed: printed} }

// Name returns "incris" or "incris-printed".
func (e *INCRIS) Name() string {
	if e.Printed {
		return "incris-printed"
	}
	return "incris"
}

// KStar returns, for each step t (index t-1), the number of most recent
// ratios kept by the last Estimate call.
func (e *INCRIS) KStar() []int { return e.kstar }

// tri returns the index of (step index s = t-1, k) in a triangular array
// holding k = 0..t for every t.
func tri(s, k int) int { return s*(s+3)/2 + k }

// Estimate returns the INCRIS estimate from b. It needs n >= 2.
//
// The sums run trajectory by trajectory, shifted for accuracy: A_k enters
// as A_k - 1 (E[A_k] = 1 under correct ratios), and steps with r_t = 0
// contribute nothing to the sums of B_k r_t, so padding costs nothing; the
// sum of A_k over all n (padded) trajectories is the per-step weight sum
// that CWPDIS also uses.
func (e *INCRIS) Estimate(b *trajectory.Batch) (float64, error) {
	n, h := b.N(), b.Horizon()
	if n < 2 {
		return 0, fmt.Errorf("%s: %w: n = %d, needs n >= 2 for sample covariances", e.Name(), ErrTooFew, n)
	}
	e.s.reset(n, h)
	if !e.s.accumulateFast(b, primitiveFactors, false) {
		return 0, fmt.Errorf("%s: importance weights leave the normal float64 range, so the covariances are %w", e.Name(), ErrNotRepresentable)
	}
	size := tri(h, 0) // = number of (t,k) cells for t = 1..h
	e.sx = zeroFloats(e.sx, size)
	e.sxx = zeroFloats(e.sxx, size)
	e.sax = zeroFloats(e.sax, size)
	if cap(e.kstar) < h {
		e.kstar = make([]int, h)
	}
	e.kstar = e.kstar[:h]
	for i := 0; i < n; i++ {
		e.addTrajectory(b, i)
	}
	return e.combine(n, h)
}

// addTrajectory adds trajectory i's B_k r_t terms to the triangular sums.
func (e *INCRIS) addTrajectory(b *trajectory.Batch, i int) {
	lo, hi := b.Offsets[i], b.Offsets[i+1]
	rho := b.Ratio[lo:hi]
	rew := b.Reward[lo:hi]
	if cap(e.w) < len(rho)+1 {
		e.w = make([]float64, len(rho)+1)
	}
	w := e.w[:len(rho)+1]
	w[0] = 1
	for s, f := range rho {
		w[s+1] = w[s] * f
	}
	for s, r := range rew {
		if r == 0 {
			continue
		}
		base := tri(s, 0)
		sx := e.sx[base : base+s+2]
		sxx := e.sxx[base : base+s+2]
		sax := e.sax[base : base+s+2]
		bk := 1.0
		for k := range sx {
			if k > 0 {
				bk *= rho[s-k+1]
			}
			x := bk * r
			sx[k] += x
			sxx[k] += x * x
			sax[k] += (w[s+1-k] - 1) * x
		}
	}
}

// combine picks k* per step from the sums and adds up r_hat_t.
func (e *INCRIS) combine(n, h int) (float64, error) {
	nf := float64(n)
	total := 0.0
	for s := 0; s < h; s++ {
		base := tri(s, 0)
		best, bestK := math.Inf(1), 0
		for k := 0; k <= s+1; k++ {
			// sum_i (A_k - 1) = sum_i W_{t-k} - n; W_0 = 1 for k = t.
			sa := 0.0
			if j := s - k; j >= 0 {
				sa = e.s.den[j] - nf
			}
			mx := e.sx[base+k] / nf
			c := (e.sax[base+k] - sa*mx) / (nf - 1)
			v := max(0, (e.sxx[base+k]-nf*mx*mx)/(nf-1))
			if !e.Printed {
				v /= nf
			}
			mse := c*c + v
			if math.IsNaN(mse) || math.IsInf(mse, 0) {
				return 0, fmt.Errorf("%s: step %d, k = %d: estimated MSE %w", e.Name(), s+1, k, ErrNotRepresentable)
			}
			if mse <= best { // ties to the larger k
				best, bestK = mse, k
			}
		}
		e.kstar[s] = bestK
		total += e.sx[base+bestK] / nf
	}
	return finite(e.Name(), total)
}
