package modelbased

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
)

// BenchmarkModelEstimators: dr, wdr and magic (and dm) on 10^4
// sub-episode trajectories of H = 100 (every reward nonzero, ratios 1.5
// and 0.5) with model columns, the workspace warm: one estimate per op,
// O(n H) for dr and wdr, O(n H + n |J|^2) plus the simplex solve (|J| = 9)
// for magic. allocs/op must be 0.
func BenchmarkModelEstimators(b *testing.B) {
	rng := rand.New(rand.NewPCG(31, 32))
	batch := withModelColumns(rng, subepisodeBatch(rng, 10000, 50))
	for _, name := range []string{"dm", "dr", "wdr", "magic"} {
		e, err := estimators.New(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			if _, err := e.Estimate(batch); err != nil { // the workspace
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Estimate(batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkREG: reg on BenchmarkModelEstimators's batch (10^4 sub-episode
// trajectories of H = 100 with model columns), the workspace warm: one
// pass, O(n H), like dr. allocs/op must be 0.
func BenchmarkREG(b *testing.B) {
	rng := rand.New(rand.NewPCG(31, 32))
	batch := withModelColumns(rng, subepisodeBatch(rng, 10000, 50))
	e := NewREG()
	b.Run("n=10000", func(b *testing.B) {
		if _, err := e.Estimate(batch); err != nil { // the workspace
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := e.Estimate(batch); err != nil {
				b.Fatal(err)
			}
		}
	})
}
