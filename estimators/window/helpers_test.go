package window

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

func batchOf(trajs ...[]step) *trajectory.Batch { return estimatortest.Of(trajs...) }

func randomBatch(rng *rand.Rand, n, h int) *trajectory.Batch { return estimatortest.Random(rng, n, h) }

func subepisodeBatch(rng *rand.Rand, n, subepisodes int) *trajectory.Batch {
	return estimatortest.Subepisode(rng, n, subepisodes)
}

func optionBatch(rng *rand.Rand, n, h int) *trajectory.Batch { return estimatortest.Options(rng, n, h) }

func near(a, b, tol float64) bool { return estimatortest.Near(a, b, tol) }

// estimate runs the registry's estimator name on b.
func estimate(t *testing.T, name string, b *trajectory.Batch) float64 {
	t.Helper()
	e, err := estimators.New(name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Estimate(b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
