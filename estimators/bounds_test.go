package estimators_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/estimators/modelbased"
	"github.com/ope-lab/longhorizon/trajectory"
)

// meanOf returns the plain mean of x and the mean of |x|.
func meanOf(x []float64) (mean, meanAbs float64) {
	for _, v := range x {
		mean += v
		meanAbs += math.Abs(v)
	}
	return mean / float64(len(x)), meanAbs / float64(len(x))
}

// overflowBatch: a weight of 2^1030 (beyond float64) on reward 2^-100 at
// the last of 1030 steps, beside a short trajectory: the estimators' and
// the terms' scaled paths. Model columns make DR's terms nonzero.
func overflowBatch() *trajectory.Batch {
	var b trajectory.Batch
	for t := 1; t <= 1030; t++ {
		r := 0.0
		if t == 1030 {
			r = math.Ldexp(1, -100)
		}
		b.Add(r, 2)
		b.AddModel(r/2, r/4)
	}
	b.End()
	b.Add(1, 1)
	b.AddModel(0.5, 0.25)
	b.End()
	return &b
}

// TestTermsMatchEstimate: the mean of each estimator's per-trajectory
// terms is its estimate, to 1e-12 relative to the terms' size, on random
// primitive and options data of varying lengths (with changed options,
// split points and model columns) and on weights beyond float64.
func TestTermsMatchEstimate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 17))
	type named struct {
		name string
		mk   func() estimators.Termer
	}
	ests := []named{
		{"is", func() estimators.Termer { return estimators.NewIS() }},
		{"pdis", func() estimators.Termer { return estimators.NewPDIS() }},
		{"options-pdis", func() estimators.Termer { return estimators.NewOptionsPDIS() }},
		{"partitioned-pdis", func() estimators.Termer { return estimators.NewPartitionedPDIS() }},
		{"dr", func() estimators.Termer { return modelbased.NewDR() }},
	}
	var batches []*trajectory.Batch
	for range 10 {
		batches = append(batches,
			withModelColumns(rng, randomBatch(rng, 2+rng.IntN(60), 1+rng.IntN(12))),
			withModelColumns(rng, optionBatch(rng, 2+rng.IntN(60), 1+rng.IntN(12))))
	}
	batches = append(batches, overflowBatch())
	for k, b := range batches {
		for _, ne := range ests {
			e := ne.mk()
			x, err := e.Terms(b, nil)
			if err != nil {
				t.Fatalf("batch %d, %s: %v", k, ne.name, err)
			}
			if len(x) != b.N() {
				t.Fatalf("batch %d, %s: %d terms for %d trajectories", k, ne.name, len(x), b.N())
			}
			want, err := ne.mk().Estimate(b)
			if err != nil {
				t.Fatalf("batch %d, %s: %v", k, ne.name, err)
			}
			got, size := meanOf(x)
			if math.Abs(got-want) > 1e-12*math.Max(math.Abs(want), size) {
				t.Errorf("batch %d, %s: mean of terms %v, estimate %v", k, ne.name, got, want)
			}
		}
	}
	// the overflow batch's terms, by hand: is and pdis 2^1030 * 2^-100 =
	// 2^930 and 1; dr adds for the short trajectory 1*(1 - 0.5) + 1*0.25
	x, _ := estimators.NewIS().Terms(overflowBatch(), nil)
	if !slices.Equal(x, []float64{math.Ldexp(1, 930), 1}) {
		t.Errorf("is terms of the overflow batch %v, want [2^930 1]", x)
	}
	if x, _ := modelbased.NewDR().Terms(overflowBatch(), nil); x[1] != 0.75 {
		t.Errorf("dr term of the short trajectory %v, want 1*(1-0.5) + 1*0.25 = 0.75", x[1])
	}
}

// TestBoundsImplemented: the bounds an entry lists are those its
// estimator implements what they need for (Termer for the t bound,
// ScaledReturner for hcope), and the registry lists is: t, hcope; pdis,
// options-pdis, partitioned-pdis (means of per-trajectory terms,
// TestTermsMatchEstimate), dr, drl, drl-mis (marginal's TestDRLTerms): t.
func TestBoundsImplemented(t *testing.T) {
	want := map[string][]string{"is": {confidence.T, confidence.HCOPE}, "pdis": {confidence.T}, "options-pdis": {confidence.T},
		"partitioned-pdis": {confidence.T}, "dr": {confidence.T}, "drl": {confidence.T}, "drl-mis": {confidence.T}}
	for _, info := range estimators.All() {
		if !slices.Equal(info.Bounds, want[info.Name]) {
			t.Errorf("%s: Bounds %v, want %v", info.Name, info.Bounds, want[info.Name])
		}
		e := info.New()
		_, isTermer := e.(estimators.Termer)
		_, isReturner := e.(estimators.ScaledReturner)
		if slices.Contains(info.Bounds, confidence.T) != isTermer || slices.Contains(info.Bounds, confidence.HCOPE) != isReturner {
			t.Errorf("%s lists bounds %v; Termer %v, ScaledReturner %v", info.Name, info.Bounds, isTermer, isReturner)
		}
	}
}
