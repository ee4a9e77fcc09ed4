package estimators

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// BenchmarkAdaptive: one adaptive estimate from n sub-episode trajectories
// of H = 100 (50 sub-episodes), workspace warm: the cost the issue asks
// for at n = 10^4, H = 100.
func BenchmarkAdaptive(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			batch := subepisodeBatch(rand.New(rand.NewPCG(2017, uint64(n))), n, 50)
			e := NewAdaptiveBlend()
			if _, err := e.Estimate(batch); err != nil {
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
