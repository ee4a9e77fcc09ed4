package tabular

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSampler measures n = 10^4 episodes of a random time-homogeneous
// MDP (S = 10 or 20, A = 3, Gaussian rewards, horizon H = 100, ending
// early with probability below 0.3 a step) under a random policy: the
// sampler's Reset and Step with the policy's Sample. S = 10 draws its
// transitions by counting (search), S = 20 by bisection.
func BenchmarkSampler(b *testing.B) {
	for _, states := range []int{10, 20} {
		rng := rand.New(rand.NewPCG(1, 2))
		k := randomMDP(states, 3, 1, rng).At(0)
		m := &MDP{States: states, Actions: 3, Horizon: 100, Start: randomDist(states, false, rng), At: func(int) *Kernel { return k }}
		env, err := NewSampler(m)
		if err != nil {
			b.Fatal(err)
		}
		act := NewPolicySampler(randomPolicy(states, 3, false, rng))
		b.Run(fmt.Sprintf("S=%d,n=10000,H=100", states), func(b *testing.B) {
			sum := 0.0
			for b.Loop() {
				for range 10000 {
					env.Reset(rng)
					for {
						r, done := env.Step(act.Sample(env.State(), rng), rng)
						sum += r
						if done {
							break
						}
					}
				}
			}
			if sum == 0.5 {
				b.Log(sum)
			}
		})
	}
}
