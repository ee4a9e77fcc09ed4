package evaluate_test

import (
	"fmt"

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
