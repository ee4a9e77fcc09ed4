package estimators_test

import (
	"math"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestOptionsPDISUnbiasedWithTwoChangedOptions enumerates a 2-step MDP in
// which both steps are one-step options whose underlying policy changed
// (option ratio 1): pi_b uniform over {0, 1}, pi_e always 0, the second
// state is the first action, and r = 1 only after actions (0, 0). V(pi_e) = 1.
//
// options-PDIS must be unbiased: its expectation over the four equally
// likely trajectories is sum_traj 1/4 * estimate = 1/4 * (2 * 2 * 1) = 1,
// because the weight of the reward carries the ratio of the earlier changed
// option (it decided the state the later option starts in). Theorem 3 as
// printed, w_t * y_t with w_t the product of option ratios only, would give
// 1/4 * (1 * 2 * 1) = 0.5: biased. SPEC's formula agrees with the printed
// one whenever at most one changed option occurs per trajectory (every
// experiment of the paper).
func TestOptionsPDISUnbiasedWithTwoChangedOptions(t *testing.T) {
	e, _ := estimators.New("options-pdis")
	mean := 0.0
	for a := 0; a < 2; a++ {
		for c := 0; c < 2; c++ {
			rho := func(x int) float64 { // pi_e(x)/pi_b(x)
				if x == 0 {
					return 1 / 0.5
				}
				return 0
			}
			r := 0.0
			if a == 0 && c == 0 {
				r = 1
			}
			var b trajectory.Batch
			b.AddOption(0, rho(a), 1, true)
			b.AddOption(r, rho(c), 1, true)
			b.End()
			v, err := e.Estimate(&b)
			if err != nil {
				t.Fatal(err)
			}
			mean += 0.25 * v
		}
	}
	if math.Abs(mean-1) > 1e-15 {
		t.Errorf("E[options-PDIS] = %v, want V(pi_e) = 1", mean)
	}
}
