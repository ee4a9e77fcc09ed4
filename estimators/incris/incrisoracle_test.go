package incris

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// rowsMoments returns moments of horizon len(mean) whose row t is
// mean[t-1], second[t-1] (k = 0..t).
func rowsMoments(mean, second [][]float64) *trajectory.StepMoments {
	h := len(mean)
	return trajectory.NewStepMoments(h, 1, func(m, s []float64) {
		for t := 1; t <= h; t++ {
			copy(m[trajectory.MomentIndex(t, 0):], mean[t-1])
			copy(s[trajectory.MomentIndex(t, 0):], second[t-1])
		}
	})
}

// TestINCRISOracleHand: two trajectories of two steps,
//
//	trajectory 1: rho = (2, 0.5), r = (1, 3)
//	trajectory 2: rho = (0, 4),   r = (2, -1)
func TestINCRISOracleHand(t *testing.T) {
	var b trajectory.Batch
	b.Add(1, 2)
	b.Add(3, 0.5)
	b.End()
	b.Add(2, 0)
	b.Add(-1, 4)
	b.End()

	// Case 1. t = 1: mean = (1, 1.5), second = (2, 10), n = 2:
	//   MSE_0 = (1 - 1.5)^2 + (2 - 1)/2 = 0.25 + 0.5 = 0.75,
	//   MSE_1 = 0 + (10 - 2.25)/2 = 3.875: k* = 0.
	// t = 2: mean = (0, 0.5, 1), second = (4, 4.25, 100):
	//   MSE_0 = 1 + 4/2 = 3, MSE_1 = 0.25 + (4.25 - 0.25)/2 = 2.25,
	//   MSE_2 = 0 + (100 - 1)/2 = 49.5: k* = 1.
	// Estimate: t = 1, k = 0: (1 + 2)/2 = 1.5; t = 2, k = 1 (B_1 = rho_2):
	//   (0.5 x 3 + 4 x (-1))/2 = (1.5 - 4)/2 = -1.25. Total 0.25.
	m1 := rowsMoments([][]float64{{1, 1.5}, {0, 0.5, 1}}, [][]float64{{2, 10}, {4, 4.25, 100}})
	e := NewINCRISOracle()
	v, err := e.Estimate(withMoments(&b, m1))
	if err != nil || v != 0.25 || e.KStar()[0] != 0 || e.KStar()[1] != 1 {
		t.Errorf("case 1: %v, %v, k* %v; want 0.25, k* (0, 1)", v, err, e.KStar())
	}
	// At n = 10^6 the same moments: t = 1: MSE_0 = 0.25 + 1e-6, MSE_1 =
	// 7.75e-6: k* = 1; t = 2: MSE_2 = 99e-6 < MSE_1 = 0.25 + 4e-6: k* = 2.
	for tt, want := range []int{1, 2} {
		mean, second := m1.Row(tt + 1)
		if k := OracleKStar(mean, second, 1000000); k != want {
			t.Errorf("n = 10^6, t = %d: k* = %d, want %d", tt+1, k, want)
		}
	}

	// Case 2. Ties go to the larger k: t = 1: mean = (1, 1), second =
	// (1, 1): MSE_0 = MSE_1 = 0: k* = 1. t = 2: mean = (0, 0, 1), second =
	// (100, 100, 1): MSE_0 = MSE_1 = 1 + 50 = 51, MSE_2 = 0: k* = 2.
	// Estimate: t = 1, k = 1: (2 x 1 + 0 x 2)/2 = 1; t = 2, k = 2: (2 x 0.5
	// x 3 + 0 x 4 x (-1))/2 = 1.5 (the zero ratio kept: B = 0). Total 2.5.
	m2 := rowsMoments([][]float64{{1, 1}, {0, 0, 1}}, [][]float64{{1, 1}, {100, 100, 1}})
	v, err = e.Estimate(withMoments(&b, m2))
	if err != nil || v != 2.5 || e.KStar()[0] != 1 || e.KStar()[1] != 2 {
		t.Errorf("case 2: %v, %v, k* %v; want 2.5, k* (1, 2)", v, err, e.KStar())
	}
	// A tie within 1e-12 relative (the tables' rounding) goes to the larger k.
	if k := OracleKStar([]float64{0, 1e-17, 0}, []float64{1, 1, 1}, 1); k != 2 {
		t.Errorf("near-tie: k* = %d, want 2", k)
	}

	// No moments, too few, moments too short.
	if _, err := e.Estimate(&b); !errors.Is(err, ErrNoMoments) {
		t.Errorf("no moments: %v", err)
	}
	short := rowsMoments([][]float64{{1, 1}}, [][]float64{{1, 1}})
	if _, err := e.Estimate(withMoments(&b, short)); !errors.Is(err, ErrNoMoments) {
		t.Errorf("moments of H = 1 on data of 2 steps: %v", err)
	}
	var empty trajectory.Batch
	if _, err := e.Estimate(withMoments(&empty, m1)); !errors.Is(err, estimators.ErrTooFew) {
		t.Errorf("n = 0: %v", err)
	}
}

// TestINCRISOracleRange: a kept product is computed from prefix products
// without overflow where the whole weight overflows: rho = (1e300, 1e300,
// 2, 3), r_4 = 1 and k* = 2 at t = 4 (mean(4, .) = (0, 0, 1, 1, 1),
// second(4, .) = (1, 1, 1, 9, 9): MSE_2 = 0, the others > 0) keeps
// B_2 = 2 x 3 = 6 exactly; k* = 4 (second(4, 4) = 1, the rest 9) is W_4 =
// 6e600: not representable, an error rather than Inf.
func TestINCRISOracleRange(t *testing.T) {
	var b trajectory.Batch
	for s, rho := range []float64{1e300, 1e300, 2, 3} {
		r := 0.0
		if s == 3 {
			r = 1
		}
		b.Add(r, rho)
	}
	b.End()
	low := [][]float64{{0, 0}, {0, 0, 0}, {0, 0, 0, 0}}
	mean := append(low, []float64{0, 0, 1, 1, 1})
	e := NewINCRISOracle()
	v, err := e.Estimate(withMoments(&b, rowsMoments(mean, append(low, []float64{1, 1, 1, 9, 9}))))
	if err != nil || v != 6 || e.KStar()[3] != 2 {
		t.Errorf("k* = 2: %v, %v, k* %v; want 6", v, err, e.KStar())
	}
	_, err = e.Estimate(withMoments(&b, rowsMoments(mean, append(low, []float64{9, 9, 9, 9, 1}))))
	if !errors.Is(err, estimators.ErrNotRepresentable) || e.KStar()[3] != 4 {
		t.Errorf("k* = 4 (W = 6e600): %v, k* %v; want estimators.ErrNotRepresentable", err, e.KStar())
	}
}

// TestINCRISOracleProducts: on random data with zero ratios and rewards,
// the estimate equals the direct sum_t (1/n) sum_i (prod of the last k*
// ratios) r_t, each product multiplied out, to 1e-13 relative, for
// moments that make k* vary with t.
func TestINCRISOracleProducts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var b trajectory.Batch
	h := 30
	for range 200 {
		l := 1 + rng.IntN(h)
		for range l {
			rho := []float64{0, 0.5, 1.5, 2, 0.25}[rng.IntN(5)]
			r := []float64{0, 1, -2, 3.5}[rng.IntN(4)]
			b.Add(r, rho)
		}
		b.End()
	}
	m := trajectory.NewStepMoments(h, 1, func(mean, second []float64) {
		for tt := 1; tt <= h; tt++ {
			for k := 0; k <= tt; k++ {
				mean[trajectory.MomentIndex(tt, k)] = float64((tt*7+k*3)%5) / 10
				second[trajectory.MomentIndex(tt, k)] = 1 + float64((tt+k)%3)
			}
		}
	})
	e := NewINCRISOracle()
	got, err := e.Estimate(withMoments(&b, m))
	if err != nil {
		t.Fatal(err)
	}
	want, seen := 0.0, map[int]bool{}
	acc := make([]float64, h)
	for i := range b.N() {
		lo := b.Offsets[i]
		for s := range b.Len(i) {
			k := e.KStar()[s]
			seen[k] = true
			x := b.Reward[lo+s]
			for j := s - k + 1; j <= s; j++ {
				x *= b.Ratio[lo+j]
			}
			acc[s] += x
		}
	}
	for _, a := range acc {
		want += a / float64(b.N())
	}
	if d := got - want; d > 1e-13*max(1, want) || d < -1e-13*max(1, -want) || len(seen) < 3 {
		t.Errorf("estimate %v, direct %v; k* values %v", got, want, seen)
	}
}

func BenchmarkINCRISOracle(b *testing.B) {
	// BenchmarkINCRIS's data (H = 100, ratios 1.5 and 0.5), moments with
	// k* = t at every t at every n (the most ratios kept).
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1000, 10000} {
		batch := withMoments(subepisodeBatch(rng, n, 50), syntheticMoments(100))
		e := NewINCRISOracle()
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			if _, err := e.Estimate(batch); err != nil { // the workspace, the tables
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
