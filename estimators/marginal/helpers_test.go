package marginal

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/estimatortest"
	"github.com/ope-lab/longhorizon/trajectory"
)

// The data sets and checks the estimator packages' tests share
// (estimators/internal/estimatortest), under the names these tests use.

type step = estimatortest.Step

func randomBatch(rng *rand.Rand, n, h int) *trajectory.Batch { return estimatortest.Random(rng, n, h) }

func withIDs(rng *rand.Rand, b *trajectory.Batch, nObs, nAct int) *trajectory.Batch {
	return estimatortest.WithIDs(rng, b, nObs, nAct)
}

func allocated(f func()) float64 { return estimatortest.Allocated(f) }

func near(a, b, tol float64) bool { return estimatortest.Near(a, b, tol) }

func sameFloat(a, b float64) bool { return estimatortest.SameFloat(a, b) }

// estimate returns estimator name's estimate from b, failing the test on
// an error.
func estimate(t *testing.T, name string, b *trajectory.Batch) float64 {
	t.Helper()
	e, err := estimators.New(name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Estimate(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}
