package experiments

import (
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
)

// TestMagicExactModelDegenerate: MAGIC with the exact model on `drift`
// makes its j-step returns nearly equal, and in trial 61 of seed 2017 at
// n = 10 rounding left a Cholesky pivot of M_SS at or below 0, which
// stopped `make suite` ("M restricted to 6 of its 9 rows is not numerically
// positive definite"). In exact arithmetic every pivot is >= the ridge
// (estimators' pivotFloor), so the solver now uses that bound there; the
// run finishes with a finite MSE.
func TestMagicExactModelDegenerate(t *testing.T) {
	const cfg = `name: mf
seed: 2017
trials: 62
n: [10]
series:
  - name: drift_exact
    domain: drift
    model: exact
    estimators: [dm, wdr, magic]
`
	p, err := config.Parse([]byte(cfg), "mf.yaml")
	if err != nil {
		t.Fatal(err)
	}
	runInto(t, p, 2)
}
