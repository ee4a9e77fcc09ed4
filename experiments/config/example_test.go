package config_test

import (
	"fmt"

	"github.com/ope-lab/longhorizon/experiments/config"
)

// A config names its domains, parameters (a list sweeps) and estimators;
// Parse validates it and fills in every default.
func ExampleParse() {
	yaml := `
n: [10, 100]
series:
  - name: chain
    domain: chainmdp
    params: {horizon: [4, 8]}
    estimators: [pdis, wis]
`
	p, err := config.Parse([]byte(yaml), "example.yaml")
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Name, p.Trials, p.Seed, p.Data)
	for _, s := range p.Series {
		fmt.Println(s.Name, s.Params["horizon"], s.Params["p_b"], s.Estimators)
	}
	_, err = config.Parse([]byte("n: [10]\nseries:\n  - {name: s, domain: chainmdp, params: {p_e: 2}, estimators: [pdis]}\n"), "bad.yaml")
	fmt.Println(err)
	// Output:
	// example 128 1 nested
	// chain[horizon=4] 4 0.5 [pdis wis]
	// chain[horizon=8] 8 0.5 [pdis wis]
	// config bad.yaml:3: series[0].params.p_e: 2 is outside [0, 1]
}
