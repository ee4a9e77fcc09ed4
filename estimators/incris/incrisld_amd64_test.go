//go:build !noasm

package incris

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestLDRefGemvNIsGemv: the reference's fixed-order ldRefGemvN gives bit
// for bit what blas64.Gemv (NoTrans) gives with gonum's amd64 assembly,
// the order the first implementation of incris-ld had, for every parity
// of rows and columns, beta 0 and 1, and a strided matrix.
func TestLDRefGemvNIsGemv(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, m := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 40} {
		for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 33, 511, 512} {
			lda := n + 3
			a := make([]float64, (m-1)*lda+n)
			x := make([]float64, n)
			for i := range a {
				a[i] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
			}
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			for _, beta := range []float64{0, 1} {
				got, want := make([]float64, m), make([]float64, m)
				for i := range got {
					got[i] = rng.NormFloat64()
					want[i] = got[i]
				}
				alpha := 1 / float64(n+1)
				ldRefGemvN(alpha, a, lda, m, x, beta, got)
				blas64.Gemv(blas.NoTrans, alpha, blas64.General{Rows: m, Cols: n, Stride: lda, Data: a},
					blas64.Vector{N: n, Inc: 1, Data: x}, beta, blas64.Vector{N: m, Inc: 1, Data: want})
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("m=%d n=%d beta=%v: y[%d] = %v, Gemv %v", m, n, beta, i, got[i], want[i])
					}
				}
			}
		}
	}
}
