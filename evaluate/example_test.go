package evaluate_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/evaluate"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Two estimators at two sizes of nested data, with the t lower bound of
// the one that has it: four one-step trajectories of reward 1, 2, 3, 4,
// the first two with ratio 2, the others 0.5.
func ExampleEvaluator() {
	var b trajectory.Batch
	for i, r := range []float64{1, 2, 3, 4} {
		rho := 2.0
		if i >= 2 {
			rho = 0.5
		}
		b.Add(r, rho)
		b.End()
	}
	var ms []evaluate.Method
	for _, name := range []string{"pdis", "wis"} {
		m, _ := evaluate.Registry(name)
		ms = append(ms, m)
	}
	ev, err := evaluate.New(evaluate.Request{Methods: ms, Bounds: []string{"t"}, Delta: 0.05})
	if err != nil {
		fmt.Println(err)
		return
	}
	grid := []int{2, 4}
	res := ev.NewResult(len(grid))
	if err := ev.Evaluate(&b, grid, &res); err != nil {
		fmt.Println(err)
		return
	}
	// pdis at n = 4: (2 + 4 + 1.5 + 2) / 4; wis: 9.5 / (2 + 2 + 0.5 + 0.5)
	fmt.Println("pdis", res.Values[0], "wis", res.Values[1])
	// t bound: terms (2, 4, 1.5, 2), s^2 = 3.6875/3, t_{0.95, 3} = 2.3534:
	// 2.375 - 2.3534 x 1.1087 / 2
	fmt.Printf("pdis's t bound at n = 4: %.4f\n", res.Bounds[0][0][1])
	// Output:
	// pdis [3 2.375] wis [1.5 1.9]
	// pdis's t bound at n = 4: 1.0704
}

// 95% lower bounds on V(pi_e) from 200 logged episodes of two steps: the
// behavior policy takes a1 with probability 0.5, the evaluation policy
// with 0.7 (ratios 1.4 and 0.6), and each step pays 1 with probability 0.8
// after a1 and 0.2 after a2, so V(pi_e) = 2 (0.7 * 0.8 + 0.3 * 0.2) = 1.24
// and every return lies in [0, 2]. The t bounds are approximate; hcope
// holds with probability >= 0.95 for any weights, and is wider.
func ExampleEvaluator_lowerBounds() {
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
	var ms []evaluate.Method
	for _, name := range []string{"is", "pdis"} {
		m, _ := evaluate.Registry(name)
		ms = append(ms, m)
	}
	ev, err := evaluate.New(evaluate.Request{Methods: ms, Bounds: []string{"t", "hcope"}, Delta: 0.05, Lo: 0, Hi: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	res := ev.NewResult(1)
	if err := ev.Evaluate(&b, []int{b.N()}, &res); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("estimate is %.4f\n", res.Values[0][0])
	fmt.Printf("t     is   %.4f\n", res.Bounds[0][0][0])
	fmt.Printf("t     pdis %.4f\n", res.Bounds[1][0][0])
	fmt.Printf("hcope is   %.4f\n", res.Bounds[0][1][0])
	fmt.Println("hcope of pdis:", res.Bounds[1][1] == nil) // pdis has no hcope bound
	// Output:
	// estimate is 1.1530
	// t     is   1.0063
	// t     pdis 1.0196
	// hcope is   0.6663
	// hcope of pdis: true
}
