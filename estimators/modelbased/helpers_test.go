package modelbased

import (
	"math"
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

func allocated(f func()) float64 { return estimatortest.Allocated(f) }

func near(a, b, tol float64) bool { return estimatortest.Near(a, b, tol) }

func relNear(got, want, tol float64) bool { return estimatortest.RelNear(got, want, tol) }

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

// overflowModelBatch is the data set of the overflow tests: trajectory A,
// 1030 steps of ratio 2 (W_t = 2^t), r_t = 2^-100 t, q_t = 2^-101, v_t =
// 2^-102 (t - 1): terms up to 2^930, beyond any float64 product chain
// (2^1030); then 20 small random trajectories with a model.
func overflowModelBatch(rng *rand.Rand) *trajectory.Batch {
	var c trajectory.Batch
	for tt := 1; tt <= 1030; tt++ {
		c.Add(math.Ldexp(float64(tt), -100), 2)
		c.AddModel(math.Ldexp(1, -101), math.Ldexp(float64(tt-1), -102))
	}
	c.End()
	small := randomModelBatch(rng, 20, 6, true)
	for i := range small.N() {
		for s := small.Offsets[i]; s < small.Offsets[i+1]; s++ {
			c.Add(small.Reward[s], small.Ratio[s])
			c.AddModel(small.QHat[s], small.VHat[s])
		}
		c.End()
	}
	return &c
}
