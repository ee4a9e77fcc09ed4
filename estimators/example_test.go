package estimators_test

import (
	"fmt"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Two logged trajectories, each step a reward and the ratio pi_e/pi_b of
// the logged action; the second ended early (it is padded with reward 0 and
// ratio 1). INCRIS keeps k* = 1 weight at t = 1 (r_hat = 1.5), all at t = 2
// (no reward: 0) and 2 at t = 3 (r_hat = mean(1.5, 0) = 0.75): 2.25.
func Example() {
	var b trajectory.Batch
	b.Add(1, 2)   // r = 1, rho = 2
	b.Add(0, 0.5) // r = 0, rho = 0.5
	b.Add(3, 1)   // r = 3, rho = 1
	b.End()
	b.Add(2, 0.5)
	b.End()
	for _, name := range []string{"is", "pdis", "wis", "cwpdis", "incris"} {
		e, err := estimators.New(name)
		if err != nil {
			panic(err)
		}
		v, err := e.Estimate(&b)
		fmt.Printf("%-7s %.4f %v\n", name, v, err)
	}
	// Output:
	// is      2.5000 <nil>
	// pdis    3.0000 <nil>
	// wis     3.3333 <nil>
	// cwpdis  3.2000 <nil>
	// incris  2.2500 <nil>
}

// EstimateGrid computes an estimator at several data-set sizes (prefixes of
// the batch) in one pass, as the nested MSE protocol needs.
func ExampleEstimateGrid() {
	var b trajectory.Batch
	for i := range 6 {
		b.Add(float64(i), 1+0.1*float64(i%3))
		b.End()
	}
	e, _ := estimators.New("wis")
	out := make([]float64, 3)
	if err := estimators.EstimateGrid(e, &b, []int{2, 4, 6}, out, nil); err != nil {
		panic(err)
	}
	fmt.Printf("%.4f\n", out)
	// Output:
	// [0.5238 1.5116 2.5606]
}
