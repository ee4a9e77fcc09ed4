package estimators_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// 95% lower bounds on V(pi_e) from 200 logged episodes of two steps: the
// behavior policy takes a1 with probability 0.5, the evaluation policy
// with 0.7 (ratios 1.4 and 0.6), and each step pays 1 with probability 0.8
// after a1 and 0.2 after a2, so V(pi_e) = 2 (0.7 * 0.8 + 0.3 * 0.2) = 1.24
// and every return lies in [0, 2]. The t bounds are approximate; hcope
// holds with probability >= 0.95 for any weights, and is wider.
func ExampleLowerBound() {
	rng := rand.New(rand.NewPCG(1, 2))
	var b trajectory.Batch
	for range 200 {
		for range 2 {
			rho, p := 0.6, 0.2 // a2
			if rng.IntN(2) == 0 {
				rho, p = 1.4, 0.8 // a1
			}
			r := 0.0
			if rng.Float64() < p {
				r = 1
			}
			b.Add(r, rho)
		}
		b.End()
	}
	is, _ := estimators.NewIS().Estimate(&b)
	fmt.Printf("estimate is %.4f\n", is)
	for _, c := range []struct{ est, kind string }{{"is", estimators.BoundT}, {"pdis", estimators.BoundT}, {"is", estimators.BoundHCOPE}} {
		v, err := estimators.LowerBound(c.est, c.kind, &b, 0.05, 0, 2)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-5s %-4s %.4f\n", c.kind, c.est, v)
	}
	// Output:
	// estimate is 1.1530
	// t     is   1.0063
	// t     pdis 1.0196
	// hcope is   0.6663
}
