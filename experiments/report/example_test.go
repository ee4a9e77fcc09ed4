package report_test

import (
	"context"
	"fmt"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/report"
	"github.com/ope-lab/longhorizon/experiments/run"
)

// A report aggregates the unit results over trials (SPEC 3): per series,
// estimator and n, the mean estimate, bias, variance and MSE against the
// true value, and checks the config's claims at every n. On the chain with
// H = 4 and p_e = 1 (SPEC 2.1) V = 1, MSE(PDIS) = (2^4 - 1)/n = 0.9375 at
// n = 16, and E[WIS] = 1 - (15/16)^n = 0.644 at n = 16: 64 trials come
// close.
func ExampleBuild() {
	p, err := config.Parse([]byte(`trials: 64
n: [16, 256]
series:
  - {name: chain, domain: chainmdp, params: {horizon: 4}, estimators: [pdis, wis]}
claims:
  - {name: wis-below-pdis, subject: chain/wis, versus: [chain/pdis], max_ratio: 1}
`), "example.yaml")
	if err != nil {
		panic(err)
	}
	results, _ := run.RunUnits(context.Background(), p, run.Units(p), run.Options{})
	truths, _ := run.Truths(p, nil, nil, nil)
	rep, err := report.Build(p, results, truths)
	if err != nil {
		panic(err)
	}
	for _, r := range rep.Rows {
		fmt.Printf("%s n=%d: V %g, mean %.4f, MSE %.4f\n", r.Estimator, r.N, r.TrueValue, r.MeanEstimate, r.MSE)
	}
	c := rep.Claims[0]
	fmt.Println(c.Claim.Name, c.Holds)
	// Output:
	// pdis n=16: V 1, mean 1.0625, MSE 0.9062
	// pdis n=256: V 1, mean 0.9990, MSE 0.0444
	// wis n=16: V 1, mean 0.6875, MSE 0.3125
	// wis n=256: V 1, mean 1.0000, MSE 0.0000
	// wis-below-pdis true
}
