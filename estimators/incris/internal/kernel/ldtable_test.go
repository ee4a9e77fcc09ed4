package kernel

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCountRun: CountRun (with the AVX-512 popcount kernel where the CPU
// has it) gives the counts of its Go loop countRunGo and of a direct
// count, trajectory by trajectory, from the masks' definition (MarkRatio:
// an increment is nonzero while no ratio from step s down to its lag's
// was 0 and the lag's ratio is not 1; negative when (rho < 1) differs
// from (r < 0)), for runs of every shape in a block and masks with
// sparse and dense bits.
func TestCountRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 41))
	const h = 40
	for it := range 200 {
		ratio := make([][]float64, h) // ratio[s][j]
		eq1, lt1, zero := make([]uint64, h*blockWords), make([]uint64, h*blockWords), make([]uint64, h*blockWords)
		pz := []float64{0, 0.001, 0.05}[it%3]
		for s := range h {
			ratio[s] = make([]float64, 512)
			for j := range ratio[s] {
				f := 0.5 + rng.Float64()
				switch u := rng.Float64(); {
				case u < pz:
					f = 0
				case u < 0.2:
					f = 1
				}
				ratio[s][j] = f
				MarkRatio(eq1[s*blockWords:], lt1[s*blockWords:], zero[s*blockWords:], j, f)
			}
		}
		var idx []int
		switch it % 4 {
		case 0: // the whole block
			for j := range 512 {
				idx = append(idx, j)
			}
		case 1: // a contiguous run
			a := rng.IntN(500)
			for j := a; j < a+1+rng.IntN(512-a); j++ {
				idx = append(idx, j)
			}
		default: // scattered
			for j := range 512 {
				if rng.IntN(3) == 0 {
					idx = append(idx, j)
				}
			}
			if len(idx) == 0 {
				idx = append(idx, 7)
			}
		}
		rw := make([]float64, len(idx))
		for p := range rw {
			rw[p] = rng.NormFloat64()
		}
		s := rng.IntN(h)
		n := s + 1
		cnt, neg := make([]int, n), make([]int, n)
		for k := range cnt {
			cnt[k], neg[k] = k, 2*k // counts added to what is there
		}
		wc, wn := slices.Clone(cnt), slices.Clone(neg)
		for p, j := range idx {
			for k := range n {
				alive := true
				for q := s; q > s-k; q-- {
					alive = alive && ratio[q][j] != 0
				}
				if f := ratio[s-k][j]; alive && f != 1 {
					wc[k]++
					if (f < 1) != (rw[p] < 0) {
						wn[k]++
					}
				}
			}
		}
		gc, gn := slices.Clone(cnt), slices.Clone(neg)
		CountRun(idx, rw, s, h, eq1, lt1, zero, gc, gn)
		if !slices.Equal(gc, wc) || !slices.Equal(gn, wn) {
			t.Fatalf("it %d (s = %d, %d trajectories): CountRun %v %v, direct %v %v", it, s, len(idx), gc, gn, wc, wn)
		}
		var alive, rneg [blockWords]uint64
		for p, j := range idx {
			alive[j>>6] |= 1 << (j & 63)
			if rw[p] < 0 {
				rneg[j>>6] |= 1 << (j & 63)
			}
		}
		oc, on := slices.Clone(cnt), slices.Clone(neg)
		countRunGo(&alive, &rneg, idx[0]>>6, idx[len(idx)-1]>>6+1, s, eq1, lt1, zero, oc, on)
		if !slices.Equal(oc, wc) || !slices.Equal(on, wn) {
			t.Fatalf("it %d: countRunGo %v %v, direct %v %v", it, oc, on, wc, wn)
		}
	}
}
