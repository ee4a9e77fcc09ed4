package estimators_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
)

// BenchmarkNaive: naive at n = 10^4 trajectories of H = 100 steps (issue
// 30's size), and the check that a warm call allocates nothing.
func BenchmarkNaive(b *testing.B) {
	batch := randomBatch(rand.New(rand.NewPCG(11, 12)), 10000, 100)
	e := estimators.NewNaive()
	if _, err := e.Estimate(batch); err != nil {
		b.Fatal(err)
	}
	b.Run("n=10000,H=100", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := e.Estimate(batch); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestNaiveNoAllocs: a warm naive allocates nothing.
func TestNaiveNoAllocs(t *testing.T) {
	batch := randomBatch(rand.New(rand.NewPCG(11, 13)), 100, 20)
	e := estimators.NewNaive()
	if got := testing.AllocsPerRun(20, func() {
		if _, err := e.Estimate(batch); err != nil {
			t.Fatal(err)
		}
	}); got != 0 {
		t.Errorf("naive allocates %v times a call", got)
	}
}
