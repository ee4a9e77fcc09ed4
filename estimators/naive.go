package estimators

import "github.com/ope-lab/longhorizon/trajectory"

// Naive is the behaviour data's own mean return (key "naive", COBS's
// NAIVE row, Voloshin et al. 2021; BENCHMARKS B3):
//
//	naive = (1/n) sum_i sum_t r^i_t,
//
// rewards as given (discounted by the view of SPEC 1c). It reads no ratio:
// it estimates V(pi_b), and is V(pi_e)'s estimate only on-policy, the
// reference any off-policy estimator has to beat. It allocates nothing.
type Naive struct{}

// NewNaive returns a Naive estimator.
func NewNaive() *Naive { return &Naive{} }

// Name returns "naive".
func (*Naive) Name() string { return "naive" }

// Estimate returns the mean return of b's trajectories.
func (*Naive) Estimate(b *trajectory.Batch) (float64, error) {
	n := b.N()
	if n == 0 {
		return 0, ErrTooFew
	}
	sum := 0.0
	for _, r := range b.Reward {
		sum += r
	}
	return Finite("naive", sum/float64(n))
}
