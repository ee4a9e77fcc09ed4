package estimators_test

import (
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/estimators/internal/estimatortest"
	"github.com/ope-lab/longhorizon/trajectory"
)

// The data sets and checks the estimator packages' tests share
// (estimators/internal/estimatortest), under the names these tests use.

type step = estimatortest.Step

func batchOf(trajs ...[]step) *trajectory.Batch { return estimatortest.Of(trajs...) }

func handBatch() *trajectory.Batch { return estimatortest.Hand() }

func randomBatch(rng *rand.Rand, n, h int) *trajectory.Batch { return estimatortest.Random(rng, n, h) }

func subepisodeBatch(rng *rand.Rand, n, subepisodes int) *trajectory.Batch {
	return estimatortest.Subepisode(rng, n, subepisodes)
}

func optionBatch(rng *rand.Rand, n, h int) *trajectory.Batch { return estimatortest.Options(rng, n, h) }

func chainAllA1(h int) *trajectory.Batch { return estimatortest.ChainAllA1(h) }

func withIDs(rng *rand.Rand, b *trajectory.Batch, nObs, nAct int) *trajectory.Batch {
	return estimatortest.WithIDs(rng, b, nObs, nAct)
}

func withModelColumns(rng *rand.Rand, b *trajectory.Batch) *trajectory.Batch {
	return estimatortest.WithModelColumns(rng, b)
}

func withMoments(b *trajectory.Batch, m *trajectory.StepMoments) *trajectory.Batch {
	return estimatortest.WithMoments(b, m)
}

func syntheticMoments(h int) *trajectory.StepMoments { return estimatortest.SyntheticMoments(h) }

func allocated(f func()) float64 { return estimatortest.Allocated(f) }

func within(got, bound float64) bool { return estimatortest.Within(got, bound) }

func near(a, b, tol float64) bool { return estimatortest.Near(a, b, tol) }

func sameFloat(a, b float64) bool { return estimatortest.SameFloat(a, b) }
