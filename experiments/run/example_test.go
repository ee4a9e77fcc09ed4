package run_test

import (
	"context"
	"fmt"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/run"
)

// Each (series, trial) unit draws its own data from its own stream and
// estimates at every n of the grid (the estimates approach V(pi_e) =
// -2.40625 as n grows); the results do not depend on workers. INCRIS
// reports k* per step beside each estimate.
func ExampleRunUnits() {
	p, err := config.Parse([]byte("trials: 3\nn: [10, 1000]\nseries:\n  - {name: s, domain: subepisode, params: {subepisodes: 5}, estimators: [pdis, incris]}\n"), "example.yaml")
	if err != nil {
		panic(err)
	}
	results, err := run.RunUnits(context.Background(), p, run.Units(p), run.Options{Workers: 2})
	if err != nil {
		panic(err)
	}
	for _, r := range results {
		kstar := r.Diagnostics[1][0][1] // incris's k* at n = 1000, per step
		fmt.Printf("trial %d: pdis %.3f %.3f, incris %.3f %.3f, k* %v\n", r.Trial,
			r.Estimates[0][0], r.Estimates[0][1], r.Estimates[1][0], r.Estimates[1][1], kstar)
	}
	// Output:
	// trial 0: pdis -2.260 -2.314, incris -1.749 -2.326, k* [1 2 1 2 1 2 1 2 3 6]
	// trial 1: pdis -3.859 -2.260, incris -2.520 -2.406, k* [1 2 1 2 1 2 7 8 9 2]
	// trial 2: pdis -1.021 -2.427, incris -0.927 -2.437, k* [1 2 1 3 3 2 3 3 5 4]
}
