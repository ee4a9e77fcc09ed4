package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// sumAtRef is sumAt as it was before sumAt2 (commit 27a9e2f,
// models/fqe.go), the reference the interleaved sums must equal bit for
// bit: the committed results hold estimates computed with it.
func sumAtRef(v []float64, at []int32) float64 {
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(at); j += 4 {
		s0 += v[at[j]]
		s1 += v[at[j+1]]
		s2 += v[at[j+2]]
		s3 += v[at[j+3]]
	}
	for ; j < len(at); j++ {
		s0 += v[at[j]]
	}
	return (s0 + s1) + (s2 + s3)
}

// TestSumAt2: sumAt2(a, b) is (sumAtRef(a), sumAtRef(b)) bit for bit, and
// sumAt is sumAtRef, for every pair of lengths 0..13 (both sides of the
// shared blocks of four and of the tails) over values of mixed sizes and
// signs, where a reordered addition would round differently.
func TestSumAt2(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 32))
	v := make([]float64, 64)
	for i := range v {
		v[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
	}
	idx := func(n int) []int32 {
		at := make([]int32, n)
		for j := range at {
			at[j] = int32(rng.IntN(len(v)))
		}
		return at
	}
	for la := range 14 {
		for lb := range 14 {
			a, b := idx(la), idx(lb)
			x, y := sumAt2(v, a, b)
			wx, wy := sumAtRef(v, a), sumAtRef(v, b)
			if math.Float64bits(x) != math.Float64bits(wx) || math.Float64bits(y) != math.Float64bits(wy) {
				t.Fatalf("lengths %d, %d: sumAt2 = %v, %v; sumAtRef = %v, %v", la, lb, x, y, wx, wy)
			}
			if s := sumAt(v, a); math.Float64bits(s) != math.Float64bits(wx) {
				t.Fatalf("length %d: sumAt = %v; sumAtRef = %v", la, s, wx)
			}
		}
	}
}

// fqeRefColumns recomputes FQE's columns on b with the sweep as it was
// before sumAt2 (commit 27a9e2f: one sumAtRef a pair), from the grouping
// of a FitTo(b, b, ...) that has just run on f.
func fqeRefColumns(f *FQE, b *trajectory.Batch, sp Space, gamma float64) (qHat, vHat []float64) {
	m, na, h := len(f.obs), sp.Actions, sp.Horizon
	np := m * na
	q, v, vp := make([]float64, np), make([]float64, m+1), make([]float64, m+1)
	out := clone(b)
	out.QHat, out.VHat = make([]float64, b.Steps()), make([]float64, b.Steps())
	for k := 1; k <= h; k++ {
		v, vp = vp, v
		for p := range np {
			lo, hi := f.row[p], f.row[p+1]
			switch {
			case f.nv[p] == 0:
				q[p] = 0
			case lo == hi:
				q[p] = f.r[p]
			default:
				q[p] = f.r[p] + gamma*sumAtRef(vp, f.next[lo:hi])/float64(hi-lo)
			}
		}
		for c := range m {
			x := 0.0
			for a, w := range f.pie[c*na : (c+1)*na] {
				x += w * q[c*na+a]
			}
			v[c] = x
		}
		writeStep(out, f.idx, f.obs, q, v, na, 1, h-k+1, f.start, f.byLen)
	}
	return out.QHat, out.VHat
}

// TestFQEKernelBits: FQE's columns are those of its sweep before sumAt2,
// bit for bit, on random off-policy data (episodes ended and cut at H,
// -0, 0 and huge rewards, empty and one-step trajectories) at gamma 1 and
// 0.9, H = 1 included.
func TestFQEKernelBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 33))
	var f FQE
	for _, c := range []struct{ n, h, obs, actions int }{{60, 5, 4, 2}, {300, 9, 12, 3}, {50, 1, 5, 3}, {200, 40, 30, 4}} {
		b, sp := offPolicy(rng, c.n, c.h, c.obs, c.actions)
		b = edgy(b)
		for _, gamma := range []float64{1, 0.9} {
			got := clone(b)
			if err := f.FitTo(got, got, sp, gamma); err != nil {
				t.Fatal(err)
			}
			wq, wv := fqeRefColumns(&f, got, sp, gamma)
			if s := sameColumns(got.QHat, wq); s >= 0 {
				t.Fatalf("H = %d, gamma %v: q_hat of step %d: %v, the old sweep's %v", c.h, gamma, s, got.QHat[s], wq[s])
			}
			if s := sameColumns(got.VHat, wv); s >= 0 {
				t.Fatalf("H = %d, gamma %v: v_hat of step %d: %v, the old sweep's %v", c.h, gamma, s, got.VHat[s], wv[s])
			}
		}
	}
}
