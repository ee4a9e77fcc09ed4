package kernel

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ope-lab/longhorizon/internal/hugepage"
)

// BenchmarkSteps8: one call of Steps8 and of MeansSteps8 on m = 512
// trajectories of horizon h (the rows h apart, as in a dense batch), at
// step s = h-8: a block of incris-ld's dense pass at its longest steps.
func BenchmarkSteps8(b *testing.B) {
	for _, h := range []int{16, 1000} {
		const m = 512
		rng := rand.New(rand.NewPCG(1, 2))
		ratio, rw := hugepage.Make[float64](m*h), hugepage.Make[float64](m*h)
		for i := range ratio {
			ratio[i], rw[i] = 0.5+rng.Float64(), rng.NormFloat64()
		}
		bk := make([]float64, 8*m)
		s := h - 8
		b.Run("Steps8/h="+strconv.Itoa(h), func(b *testing.B) {
			accs := hugepage.Make[Steps8Acc](2)
			acc := &accs[0]
			k := 0
			for b.Loop() {
				for j := range bk {
					bk[j] = 1
				}
				Steps8(ratio, rw, h, s, k, m, bk, acc, false)
				k = (k + 4) % (s - 3)
			}
		})
		b.Run("MeansSteps8/h="+strconv.Itoa(h), func(b *testing.B) {
			var acc MeansSteps8Acc
			k := 0
			for b.Loop() {
				for j := range bk {
					bk[j] = 1
				}
				MeansSteps8(ratio, rw, h, s, k, m, bk, &acc)
				k = (k + 4) % (s - 3)
			}
		})
	}
}

// BenchmarkPairs8: Pairs8 on m = 512 trajectories (eight lags), for the
// cost per cell against Steps8's (Steps8 does half its cells a call).
func BenchmarkPairs8(b *testing.B) {
	const m = 512
	rng := rand.New(rand.NewPCG(1, 2))
	var rows [8][]float64
	for L := range rows {
		rows[L] = make([]float64, m)
		for j := range m {
			rows[L][j] = 0.5 + rng.Float64()
		}
	}
	rw, bk := make([]float64, m), make([]float64, m)
	for j := range rw {
		rw[j] = rng.NormFloat64()
	}
	var acc Acc8
	for b.Loop() {
		for j := range bk {
			bk[j] = 1
		}
		Pairs8(&rows, 0, m, rw, bk, &acc)
	}
}
