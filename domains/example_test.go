package domains_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Draw 5000 episodes of the sub-episode MDP (SPEC 2.2, 5 sub-episodes)
// under its uniform behavior policy and estimate the evaluation policy's
// value, which is known in closed form.
func ExampleNew() {
	set := map[string]float64{"p_e": 0.75, "subepisodes": 5}
	d, p, err := domains.New("subepisode", set)
	if err != nil {
		panic(err)
	}
	var b trajectory.Batch
	d.Collect(&b, 5000, rand.New(rand.NewPCG(1, 2)))
	spec, _ := domains.Lookup("subepisode")
	truth, _ := spec.Truth(p, nil)
	fmt.Printf("V(pi_e) = %.5f (%s)\n", truth.Value, truth.Method[:11])
	for _, name := range []string{"pdis", "cwpdis", "partitioned-pdis"} {
		e, _ := estimators.New(name)
		v, _ := e.Estimate(&b)
		fmt.Printf("%s: %.3f\n", name, v)
	}
	// Output:
	// V(pi_e) = -2.40625 (closed form)
	// pdis: -2.352
	// cwpdis: -2.356
	// partitioned-pdis: -2.394
}
