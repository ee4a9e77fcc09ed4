package policies_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/envs/subepisode"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

// A behavior policy draws the actions of the sub-episode MDP; each step is
// recorded with the ratio pi_e(a)/pi_b(a) of the action drawn (1.5 for a1,
// 0.5 for a2), and the ends of sub-episodes as split points. Here a1 in s1
// pays +1, s2 pays -2 + 0.01 (eps grew on entering it), a2 in s1 pays -1
// and s3 pays +2.
func ExamplePair_Collect() {
	env, _ := subepisode.New(subepisode.Params{Subepisodes: 2, EpsStep: 0.01, EpsBeforeReward: true})
	b, _ := policies.TwoAction(0.5)
	e, _ := policies.TwoAction(0.75)
	pair, _ := policies.NewPair(b, e)
	var batch trajectory.Batch
	pair.Collect(env, &batch, 1, rand.New(rand.NewPCG(3, 4)))
	fmt.Println(batch.Reward)
	fmt.Println(batch.Ratio)
	fmt.Println(batch.Split)
	// Output:
	// [1 -1.99 -1 2]
	// [1.5 0.5 0.5 0.5]
	// [false true false false]
}
