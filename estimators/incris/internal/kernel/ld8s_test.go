package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSteps8MatchesLag: Steps8 (the AVX-512 assembly where the CPU has it,
// and its Go twin steps8Go) gives bit for bit the sums and B of Lag called
// for each of the eight steps and four lags, and MeansSteps8 (and
// meansSteps8Go) those of Means, on a dense table of ratios with heavy
// tails, zeros and ones, for every number of trajectories 0 to 20 and
// 512, both parities of the chunk's end, at the first lags and at the
// last ones a step's table allows (k+3 = s), with sums that start nonzero.
func TestSteps8MatchesLag(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	lengths := []int{512}
	for n := range 21 {
		lengths = append(lengths, n)
	}
	const s, stride = 9, 21
	for _, m := range lengths {
		ratio, rw := make([]float64, m*stride), make([]float64, m*stride)
		for i := range ratio {
			ratio[i], rw[i] = ldDraw(rng), rng.NormFloat64()*10
		}
		bk := make([]float64, 8*m)
		for i := range bk {
			bk[i] = math.Exp(rng.NormFloat64())
		}
		for _, k := range []int{0, 2, s - 3} {
			for _, lastOdd := range []bool{false, true} {
				if lastOdd && m%2 == 0 {
					continue
				}
				var init Steps8Acc
				var minit MeansSteps8Acc
				for i := range init {
					init[i] = float64(i%13) / 4
				}
				for i := range minit {
					minit[i] = float64(i%7) - 3
				}
				// The reference: Lag and Means, step by step, lag by lag.
				want, mwant := init, minit
				bw, mbw := append([]float64(nil), bk...), append([]float64(nil), bk...)
				for L := range 8 {
					r, b, mb := make([]float64, m), make([]float64, m), make([]float64, m)
					for j := range m {
						r[j], b[j], mb[j] = rw[j*stride+s+L], bw[8*j+L], mbw[8*j+L]
					}
					for q := range 4 {
						rho, fm := make([]float64, m), make([]float64, m)
						for j := range m {
							rho[j] = ratio[j*stride+s+L-k-q]
							fm[j] = rho[j] - 1
						}
						a := want[64*q:]
						p := Part{SX: a[L], SD: a[8+L], SS: a[16+L], Lanes: Lanes{L0: a[24+L], L1: a[32+L], Last: a[40+L]}}
						Lag(rho, fm, r, b, a[48+L], a[56+L], &p, false, lastOdd)
						a[L], a[8+L], a[16+L], a[24+L], a[32+L], a[40+L] = p.SX, p.SD, p.SS, p.L0, p.L1, p.Last
						Means(rho, r, mb, &mwant[16*q+L], &mwant[16*q+8+L])
					}
					for j := range m {
						bw[8*j+L], mbw[8*j+L] = b[j], mb[j]
					}
				}
				for name, f := range map[string]func(bk []float64, acc *Steps8Acc){
					"Steps8-" + LD8Name: func(bk []float64, acc *Steps8Acc) { Steps8(ratio, rw, stride, s, k, m, bk, acc, lastOdd) },
					"steps8Go":          func(bk []float64, acc *Steps8Acc) { steps8Go(ratio, rw, stride, s, k, 0, m, bk, acc, lastOdd) },
				} {
					got, bg := init, append([]float64(nil), bk...)
					f(bg, &got)
					if !sameRow(got[:], want[:]) || !sameRow(bg, bw) {
						t.Errorf("%s m=%d k=%d lastOdd=%v: sums or B differ from Lag's", name, m, k, lastOdd)
					}
				}
				for name, f := range map[string]func(bk []float64, acc *MeansSteps8Acc){
					"MeansSteps8-" + LD8Name: func(bk []float64, acc *MeansSteps8Acc) { MeansSteps8(ratio, rw, stride, s, k, m, bk, acc) },
					"meansSteps8Go":          func(bk []float64, acc *MeansSteps8Acc) { meansSteps8Go(ratio, rw, stride, s, k, 0, m, bk, acc) },
				} {
					got, bg := minit, append([]float64(nil), bk...)
					f(bg, &got)
					if !sameRow(got[:], mwant[:]) || !sameRow(bg, mbw) {
						t.Errorf("%s m=%d k=%d: sums or B differ from Means's", name, m, k)
					}
				}
			}
		}
	}
}
