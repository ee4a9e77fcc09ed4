package trajectory_test

import (
	"fmt"

	"github.com/ope-lab/longhorizon/trajectory"
)

// A batch is filled step by step; Prefix views its first n trajectories
// without copying, and Factors gives the per-step importance factors every
// estimator multiplies (here with one changed option: its action ratio
// counts).
func ExampleBatch() {
	var b trajectory.Batch
	b.Add(1, 2) // a primitive step: reward 1, pi_e/pi_b = 2
	b.End()
	b.AddOption(0, 0.5, 3, true) // an option starts: mu_e/mu_b = 3, changed, action ratio 0.5
	b.AddOption(5, 2, 1, true)   // its second step: action ratio 2
	b.MarkSplit()
	b.End()
	p := b.Prefix(1)
	fmt.Println(b.N(), b.Horizon(), b.Steps(), p.N(), p.Horizon())
	fmt.Println(b.Factors(nil), b.Split)
	// Output:
	// 2 2 3 1 1
	// [2 1.5 2] [false false true]
}
