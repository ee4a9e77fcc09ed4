package chainmdp_test

import (
	"fmt"

	"github.com/ope-lab/longhorizon/envs/chainmdp"
)

// The only reward of the chain is 1 for a1 in x_H: H a1 actions in a row.
func ExampleEnv() {
	env, _ := chainmdp.New(4, false)
	env.Reset()
	total := 0.0
	for done := false; !done; {
		var r float64
		r, done = env.Step(chainmdp.A1)
		total += r
	}
	fmt.Println(total, env.Top())
	// Output: 1 true
}
