package tabular

import (
	"math/rand/v2"
	"testing"
)

// TestSearchCountsAsBisection checks that the counting search of short
// tables draws the outcome bisection draws, on cumulative tables with
// zero-probability outcomes (ties in c), at the ties themselves and at u
// drawn uniformly: the sampled episodes, and so every committed number,
// depend on it.
func TestSearchCountsAsBisection(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for size := 1; size <= 2*linearSearchMax; size++ {
		for range 200 {
			p := make([]float64, size)
			sum := 0.0
			for j := range p {
				if rng.IntN(3) > 0 { // a third of the outcomes impossible
					p[j] = rng.Float64()
					sum += p[j]
				}
			}
			if sum == 0 {
				p[0], sum = 1, 1
			}
			for j := range p {
				p[j] /= sum
			}
			c := cumulative(nil, p)
			us := []float64{0, 0.5, 1 - 0x1p-53}
			us = append(us, c...) // every tie and boundary
			for range 50 {
				us = append(us, rng.Float64())
			}
			for _, u := range us {
				if u >= 1 {
					continue
				}
				if got, want := search(c, u), bisect(c, u); got != want {
					t.Fatalf("size %d, c = %v, u = %v: search %d, bisection %d", size, c, u, got, want)
				}
			}
		}
	}
}
