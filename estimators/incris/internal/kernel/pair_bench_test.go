package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkPair: one call of Pair on two groups of rows around row s0
// (8 trajectories, every cell of the 8 rows), data in cache: ratios
// around 1 (lognormal, sd 0.5) so that every value stays normal, and
// ratios 0.5 or 1.5 (configs/horizon.yaml's B and C, p_e = 0.75) whose
// products shrink until d^2 is subnormal at the far lags. ns per cell
// update is ns/op / (8 * 8 * (s0 + 5)).
func BenchmarkPair(b *testing.B) {
	if !HasPair() {
		b.Skip("Pair needs AVX-512, which this CPU lacks")
	}
	for _, s0 := range []int{252, 2996} {
		for _, data := range []string{"normal", "halves"} {
			rng := rand.New(rand.NewPCG(5, 6))
			hp := s0 + 8
			rho := make([]float64, Wide*hp)
			tda := make([]float64, Wide*(hp+1))
			for i := range rho {
				rho[i] = math.Exp(0.5 * rng.NormFloat64())
				if data == "halves" {
					rho[i] = []float64{0.5, 1.5}[rng.IntN(2)]
				}
			}
			for i := range tda {
				tda[i] = rng.NormFloat64()
			}
			var rv [8 * Wide]float64
			for i := range rv {
				rv[i] = 1 + rng.Float64()
			}
			a, c := make([]Cell, 4*(s0+9)), make([]Cell, 4*(s0+5))
			b.Run(fmt.Sprintf("%s/s0=%d", data, s0), func(b *testing.B) {
				for b.Loop() {
					Pair(a, c, s0, &rv, rho, tda, Wide)
				}
			})
		}
	}
}
