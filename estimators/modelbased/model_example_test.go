package modelbased_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// A one-step bandit logged under a uniform behavior policy: arm 0 pays 1,
// arm 1 pays 2, each plus uniform noise in [-0.5, 0.5). The evaluation
// policy pulls arm 1 with probability 0.9, so V(pi_e) = 0.1*1 + 0.9*2 =
// 1.9, and the ratios are 0.1/0.5 = 0.2 and 0.9/0.5 = 1.8. The model
// columns hold the true q (1 or 2, the pulled arm's mean) and v = 1.9: dr
// keeps only the importance-weighted noise, W (r - q), around the model's
// value, where pdis weights the whole reward. The model is exact and its
// v_hat constant, so magic puts (all but a ridge's worth of) its weight on
// dm.
func ExampleDR() {
	rng := rand.New(rand.NewPCG(1, 2))
	var b trajectory.Batch
	for range 20 {
		arm := 0
		if rng.Float64() < 0.5 {
			arm = 1
		}
		q, rho := 1.0, 0.2
		if arm == 1 {
			q, rho = 2, 1.8
		}
		b.Add(q+rng.Float64()-0.5, rho) // reward r, ratio pi_e/pi_b
		b.AddModel(q, 1.9)              // q_hat = q(arm), v_hat = V(pi_e)
		b.End()
	}
	for _, name := range []string{"pdis", "dm", "dr", "wdr", "magic"} {
		e, err := estimators.New(name)
		if err != nil {
			panic(err)
		}
		v, err := e.Estimate(&b)
		fmt.Printf("%-5s %.4f %v\n", name, v, err)
	}
	// Output:
	// pdis  1.2752 <nil>
	// dm    1.9000 <nil>
	// dr    1.9552 <nil>
	// wdr   1.9812 <nil>
	// magic 1.9000 <nil>
}
