package incris

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/incris/internal/kernel"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ldStep is one step (reward, ratio) of a hand-built trajectory.
type ldStep struct{ r, rho float64 }

// ldBatch builds a primitive batch from per-trajectory steps.
func ldBatch(trajs ...[]ldStep) *trajectory.Batch {
	var b trajectory.Batch
	for _, tr := range trajs {
		for _, s := range tr {
			b.Add(s.r, s.rho)
		}
		b.End()
	}
	return &b
}

// ldPadded returns the batch as dense n x h matrices of ratios and rewards,
// padded with rho = 1, r = 0 after each trajectory's end (SPEC notation).
func ldPadded(b *trajectory.Batch) (rho, rew [][]float64) {
	n, h := b.N(), b.Horizon()
	factors := b.Factors(nil) // the per-step ratios every estimator weights by
	rho = make([][]float64, n)
	rew = make([][]float64, n)
	for i := range n {
		rho[i] = make([]float64, h)
		rew[i] = make([]float64, h)
		for s := range h {
			rho[i][s] = 1
			if s < b.Len(i) {
				rho[i][s] = factors[b.Offsets[i]+s]
				rew[i][s] = b.Reward[b.Offsets[i]+s]
			}
		}
	}
	return rho, rew
}

// ldDirectX returns X[i][k] = B^i_k r^i_t for k = 0..t at 1-based step t,
// with B_k = prod_{j=t-k+1}^{t} rho_j multiplied from scratch for every k,
// and B[i][k].
func ldDirectX(rho, rew [][]float64, t int) (X, B [][]float64) {
	X = make([][]float64, len(rho))
	B = make([][]float64, len(rho))
	for i := range rho {
		X[i] = make([]float64, t+1)
		B[i] = make([]float64, t+1)
		for k := 0; k <= t; k++ {
			p := 1.0
			for j := t; j >= t-k+1; j-- {
				p *= rho[i][j-1]
			}
			B[i][k] = p
			X[i][k] = p * rew[i][t-1]
		}
	}
	return X, B
}

// ldCov is the sample covariance (denominator n-1) of columns a and b of X,
// two-pass.
func ldCov(X [][]float64, a, b int) float64 {
	n := float64(len(X))
	ma, mb := 0.0, 0.0
	for _, x := range X {
		ma += x[a]
		mb += x[b]
	}
	ma /= n
	mb /= n
	c := 0.0
	for _, x := range X {
		c += (x[a] - ma) * (x[b] - mb)
	}
	return c / (n - 1)
}

// referenceINCRISLD is SPEC 1b written out literally on dense padded
// matrices: D_k as the direct difference X_{k+1} - X_k, two-pass
// variances, S by a triple loop, z_k = Phi^{-1}(1 - alpha/(2(k+1)(k+2))).
func referenceINCRISLD(b *trajectory.Batch, guard bool) (float64, []int) {
	n, h := b.N(), b.Horizon()
	nf := float64(n)
	rho, rew := ldPadded(b)
	total := 0.0
	kstar := make([]int, h)
	for t := 1; t <= h; t++ {
		X, B := ldDirectX(rho, rew, t)
		kD := 0
		for k := 0; k < t; k++ {
			D := make([][]float64, n)
			c, pos, neg := 0, 0, 0
			for i := range n {
				d := X[i][k+1] - X[i][k]
				D[i] = []float64{d}
				if d != 0 {
					c++
					if d > 0 {
						pos++
					} else {
						neg++
					}
				}
			}
			delta := 0.0
			for i := range n {
				delta += D[i][0]
			}
			delta /= nf
			se := math.Sqrt(ldCov(D, 0, 0) / nf)
			z := distuv.UnitNormal.Quantile(1 - 0.05/(2*float64(k+1)*float64(k+2)))
			kept := math.Abs(delta) > z*se && math.Abs(delta) > 0
			if guard && c > 0 && c < n && math.Sqrt(float64(c)*(nf-1)/float64(n-c)) < z && (pos == 0 || neg == 0) {
				kept = true
			}
			if kept {
				kD = k + 1
			}
		}
		mean := make([]float64, t+1)
		for k := range mean {
			for i := range n {
				mean[k] += X[i][k]
			}
			mean[k] /= nf
		}
		kL := -1
		for k := 0; k <= t && kL < 0; k++ {
			ok := true
			for k2 := k + 1; k2 <= t; k2++ {
				v := ldCov(X, k, k) + ldCov(X, k2, k2) - 2*ldCov(X, k, k2)
				if math.Abs(mean[k2]-mean[k]) > 2*math.Sqrt(max(v, 0)/nf) {
					ok = false
				}
			}
			if ok {
				kL = k
			}
		}
		ks := max(kD, kL)
		kstar[t-1] = ks
		num, den := 0.0, 0.0
		for i := range n {
			num += X[i][ks]
			den += B[i][ks]
		}
		if den != 0 {
			total += num / den
		}
	}
	return total, kstar
}

// ldRandomBatch draws n trajectories of random length in [1, h], ratios in
// {0, 0.5, 1, 1.5, 2} (1 makes exact-zero increments, 0 zero weights),
// rewards zero with probability 0.3, else depending on the current ratio
// and, with probability dep, on the ratio two steps back (so that some
// increments at lag 2 are biased).
func ldRandomBatch(rng *rand.Rand, n, h int, dep float64) *trajectory.Batch {
	var b trajectory.Batch
	ratios := []float64{0, 0.5, 1, 1.5, 2}
	for range n {
		l := 1 + rng.IntN(h)
		var hist []float64
		for range l {
			rho := ratios[rng.IntN(len(ratios))]
			hist = append(hist, rho)
			r := 0.0
			if rng.Float64() < 0.7 {
				r = rho + 0.5*rng.NormFloat64()
				if len(hist) > 2 && rng.Float64() < dep {
					r += 3 * hist[len(hist)-3]
				}
			}
			b.Add(r, rho)
		}
		b.End()
	}
	return &b
}

// TestINCRISLDIncrementIdentity checks, step by step on random data with
// padding, zero rewards and ratios 0 and 1, that the estimator's increment
// statistics, computed from D_k = (rho_{t-k} - 1) X_k, equal those of the
// direct difference X_{k+1} - X_k with X built from scratch: the mean
// delta_k, the centred sum of squares (n-1) s^2(D_k), the count c_k of
// nonzero increments and the count of negative ones; and that the
// estimator's S and means are the sample covariances and means of X.
func TestINCRISLDIncrementIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 10 {
		b := ldRandomBatch(rng, 2+rng.IntN(60), 1+rng.IntN(9), 0.5)
		n, h := b.N(), b.Horizon()
		nf := float64(n)
		rho, rew := ldPadded(b)
		e := NewINCRISLD(true)
		e.prepare(b)
		for s := range h {
			tt := s + 1
			if _, err := e.step(b, s); err != nil {
				t.Fatal(err)
			}
			if e.nact[s] == 0 {
				continue // the step short-cuts: nothing to compare
			}
			X, _ := ldDirectX(rho, rew, tt)
			for k := 0; k < tt; k++ {
				sum, c, neg := 0.0, 0, 0
				for i := range n {
					d := X[i][k+1] - X[i][k]
					sum += d
					if d != 0 {
						c++
					}
					if d < 0 {
						neg++
					}
				}
				mean := sum / nf
				ss := 0.0
				for i := range n {
					d := X[i][k+1] - X[i][k] - mean
					ss += d * d
				}
				if !near(e.delta[k], mean, 1e-12) || !near(e.ssD[k], ss, 1e-10) {
					t.Errorf("trial %d t=%d k=%d: delta %v ss %v; direct difference: %v %v", trial, tt, k, e.delta[k], e.ssD[k], mean, ss)
				}
				if e.cnt[k] != c || e.neg[k] != neg {
					t.Errorf("trial %d t=%d k=%d: c=%d neg=%d; direct difference: %d %d", trial, tt, k, e.cnt[k], e.neg[k], c, neg)
				}
			}
			m := tt + 1
			for k := 0; k <= tt; k++ {
				mk := 0.0
				for i := range n {
					mk += X[i][k]
				}
				if !near(e.mean[k], mk/nf, 1e-12) {
					t.Errorf("trial %d t=%d: mean X_%d = %v, direct %v", trial, tt, k, e.mean[k], mk/nf)
				}
				for k2 := k; k2 <= tt; k2++ {
					if got, want := e.s[k*m+k2], ldCov(X, k, k2); !near(got, want, 1e-10) {
						t.Errorf("trial %d t=%d: S[%d,%d] = %v, direct %v", trial, tt, k, k2, got, want)
					}
				}
			}
		}
	}
}

// TestINCRISLDMatchesReference compares estimate and k* with the literal
// reference on random data (padding, zero rewards, zero and unit ratios,
// lag-2 dependence), for both variants.
//
// The last two data sets hold more than one chunk (ldChunk = 512) of
// trajectories: the first with zero rewards and ended trajectories, so that
// the active ones are gathered, the second with every reward nonzero and
// one length, so that the chunks are runs of consecutive trajectories.
func TestINCRISLDMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const trials = 40
	for trial := range trials + 2 {
		var b *trajectory.Batch
		switch trial {
		case trials:
			b = ldRandomBatch(rng, 1300, 6, 0.5)
		case trials + 1:
			b = subepisodeBatch(rng, 1300, 3)
		default:
			b = ldRandomBatch(rng, 2+rng.IntN(80), 1+rng.IntN(10), rng.Float64())
		}
		for _, guard := range []bool{true, false} {
			e := NewINCRISLD(guard)
			got, err := e.Estimate(b)
			if err != nil {
				t.Fatal(err)
			}
			want, wantK := referenceINCRISLD(b, guard)
			if !near(got, want, 1e-12) {
				t.Errorf("trial %d guard=%v: %v, reference %v", trial, guard, got, want)
			}
			for s, k := range e.KStar() {
				if k != wantK[s] {
					t.Errorf("trial %d guard=%v: k*[t=%d] = %d, reference %d", trial, guard, s+1, k, wantK[s])
				}
			}
		}
	}
}

// z values used in the hand-computed cases below, from
// distuv.UnitNormal.Quantile (checked in TestINCRISLDZ):
// z_0 = Phi^{-1}(1 - 0.05/4)  = Phi^{-1}(0.9875)    = 2.241403
// z_1 = Phi^{-1}(1 - 0.05/12) = Phi^{-1}(0.9958333) = 2.638257
func TestINCRISLDZ(t *testing.T) {
	for _, c := range []struct {
		k    int
		want float64
	}{{0, 2.241403}, {1, 2.638257}} {
		if got := ldZ(c.k); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("z_%d = %v, want %v", c.k, got, c.want)
		}
	}
}

// TestINCRISLDRules runs each rule of SPEC 1b where it must and must not
// fire. Every case has one step (H = 1, so t = 1, lags k = 0 only,
// X_0 = r, X_1 = rho r, D_0 = (rho - 1) r) unless it says otherwise; n = 4.
// Variances have denominator n - 1 = 3, se = s/sqrt(4) = s/2.
func TestINCRISLDRules(t *testing.T) {
	one := func(pairs ...float64) *trajectory.Batch { // (r, rho) pairs, one step each
		var trajs [][]ldStep
		for i := 0; i < len(pairs); i += 2 {
			trajs = append(trajs, []ldStep{{pairs[i], pairs[i+1]}})
		}
		return ldBatch(trajs...)
	}
	for _, tc := range []struct {
		name             string
		b                *trajectory.Batch
		kGuard, kNoGuard []int
		wGuard, wNoGuard float64
		how              string
	}{
		{
			name: "significant lag kept",
			b:    one(1, 2, 1, 2, 2, 2, 2, 1.5),
			// X_0 = (1,1,2,2), X_1 = (2,2,4,3), D_0 = (1,1,2,1).
			how: "delta = 5/4 = 1.25; deviations (-.25,-.25,.75,-.25), sum sq = .75, s^2 = .25, " +
				"se = .5/2 = .25; |delta|/se = 5 > z_0 = 2.2414: kept by (a), k_D = 1, k* = 1; " +
				"r_hat = sum X_1 / sum B_1 = 11/7.5",
			kGuard: []int{1}, kNoGuard: []int{1}, wGuard: 11 / 7.5, wNoGuard: 11 / 7.5,
		},
		{
			name: "powerless same-sign lag: guard keeps, noguard drops",
			b:    one(2, 3, 1, 1, 1, 1, 1, 1),
			// X_0 = (2,1,1,1), X_1 = (6,1,1,1), D_0 = (4,0,0,0).
			how: "delta = 1; deviations (3,-1,-1,-1), sum sq = 12, s^2 = 4, se = 2/2 = 1, |delta|/se = 1 < z_0: " +
				"(a) fails. c_0 = 1, sqrt(1*3/3) = 1 < z_0 and the one nonzero D is positive: (b) keeps, " +
				"k* = 1, r_hat = 9/6 = 1.5. Without (b): k_D = 0; Lepski k=0 vs k'=1: |mean X_1 - mean X_0| = 1, " +
				"S_00 + S_11 - 2 S_01 = s^2(D_0) = 4, threshold 2 sqrt(4/4) = 2 >= 1: k_L = 0, k* = 0, r_hat = 5/4",
			kGuard: []int{1}, kNoGuard: []int{0}, wGuard: 1.5, wNoGuard: 1.25,
		},
		{
			name: "powerless mixed-sign lag dropped",
			b:    one(2, 3, 2, 0, 1, 1, 1, 1),
			// X_0 = (2,2,1,1), X_1 = (6,0,1,1), D_0 = (4,-2,0,0).
			how: "delta = .5; deviations (3.5,-2.5,-.5,-.5), sum sq = 19, s^2 = 19/3, se = sqrt(19/12) = 1.258, " +
				"|delta|/se = .397 < z_0: (a) fails; c_0 = 2, sqrt(2*3/2) = 1.732 < z_0 but signs differ: (b) fails; " +
				"Lepski: .5 <= 2*1.258: k_L = 0; k* = 0, r_hat = 6/4",
			kGuard: []int{0}, kNoGuard: []int{0}, wGuard: 1.5, wNoGuard: 1.5,
		},
		{
			name: "insignificant same-sign lag with power dropped",
			b:    one(10, 2, 1, 2, 1, 2, 1, 1),
			// X_0 = (10,1,1,1), X_1 = (20,2,2,1), D_0 = (10,1,1,0).
			how: "delta = 3; deviations (7,-2,-2,-3), sum sq = 66, s^2 = 22, se = sqrt(22/4) = 2.345, " +
				"|delta|/se = 1.279 < z_0: (a) fails; c_0 = 3, sqrt(3*3/1) = 3 >= z_0: the test had power, (b) " +
				"fails; Lepski: 3 <= 2*2.345: k_L = 0; k* = 0, r_hat = 13/4",
			kGuard: []int{0}, kNoGuard: []int{0}, wGuard: 13.0 / 4, wNoGuard: 13.0 / 4,
		},
		{
			name: "Lepski rejection, k_L > k_D",
			b:    one(1, 2, 1, 2, 1, 2, 2, 0.875),
			// X_0 = (1,1,1,2), X_1 = (2,2,2,1.75), D_0 = (1,1,1,-.25).
			how: "delta = .6875; deviations (.3125 x3, -.9375), sum sq = 1.171875, s^2 = .390625, se = .625/2 = .3125, " +
				"|delta|/se = 2.2 < z_0 = 2.2414: (a) fails; c_0 = 4 = n: (b) fails; k_D = 0. " +
				"Lepski k=0 vs k'=1: S_00 = .25, S_11 = .015625, S_01 = -.0625, S_00 + S_11 - 2 S_01 = .390625, " +
				"threshold 2 sqrt(.390625/4) = .625 < |1.9375 - 1.25| = .6875: k = 0 rejected, k_L = 1 > k_D; " +
				"k* = 1, r_hat = 7.75/6.875",
			kGuard: []int{1}, kNoGuard: []int{1}, wGuard: 7.75 / 6.875, wNoGuard: 7.75 / 6.875,
		},
		{
			// H = 2; at t = 2 lags 0 and 1. Trajectories (r_1, rho_1), (r_2, rho_2):
			// r_1 = 0 everywhere, so t = 1 has k* = 0 and r_hat_1 = 0.
			name: "k_D = 1 + the largest kept lag, not the first dropped one",
			b: ldBatch(
				[]ldStep{{0, 2}, {1, 1}}, []ldStep{{0, 2}, {1, 1}}, []ldStep{{0, 2}, {2, 1}},
				[]ldStep{{0, 3}, {2, 1}}),
			// t = 2: X_0 = r_2 = (1,1,2,2), X_1 = rho_2 X_0 = X_0, X_2 = rho_1 X_1 = (2,2,4,6).
			how: "lag 0: D_0 = (rho_2 - 1) X_0 = 0: delta = 0, c_0 = 0: dropped by (a) (|delta| = 0) and (b) (c = 0). " +
				"lag 1: D_1 = (rho_1 - 1) X_1 = (1,1,2,4), delta = 2, deviations (-1,-1,0,2), s^2 = 6/3 = 2, " +
				"se = sqrt(2/4) = .7071, |delta|/se = 2.83 > z_1 = 2.638: kept, so k_D = 2 although lag 0 is " +
				"dropped; k* = 2, r_hat_2 = sum X_2 / sum B_2 = 14/9 (k = 0 would give 6/4)",
			kGuard: []int{0, 2}, kNoGuard: []int{0, 2}, wGuard: 14.0 / 9, wNoGuard: 14.0 / 9,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, guard := range []bool{true, false} {
				e := NewINCRISLD(guard)
				got, err := e.Estimate(tc.b)
				if err != nil {
					t.Fatal(err)
				}
				want, wantK := tc.wGuard, tc.kGuard
				if !guard {
					want, wantK = tc.wNoGuard, tc.kNoGuard
				}
				if !near(got, want, 1e-14) {
					t.Errorf("%s = %v, want %v (%s)", e.Name(), got, want, tc.how)
				}
				ks := e.KStar()
				if len(ks) != len(wantK) {
					t.Fatalf("%s: k* = %v, want %v", e.Name(), ks, wantK)
				}
				for s := range ks {
					if ks[s] != wantK[s] {
						t.Errorf("%s: k* = %v, want %v (%s)", e.Name(), ks, wantK, tc.how)
						break
					}
				}
			}
		})
	}
}

// TestINCRISLDPadding: trajectories shorter than the horizon count in
// every sum with r = 0 and their ratios frozen (rho = 1 after the end).
func TestINCRISLDPadding(t *testing.T) {
	// H = 2. Trajectory 1: (r=0, rho=2), (r=1, rho=1); trajectory 2:
	// (r=0, rho=0.5), (r=1, rho=1); trajectory 3: (r=0, rho=2), ended.
	// t = 1: all r = 0, k* = 0, r_hat = 0. t = 2: X_0 = (1,1,0),
	// X_1 = X_0 (rho_2 = 1, padded 1 for traj 3), X_2 = (2,.5,0).
	// Lag 0: D = 0, dropped. Lag 1: D_1 = (rho_1 - 1) X_1 = (1,-.5,0):
	// delta = 1/6, mixed signs, c = 2, sqrt(2*2/1) = 2 < z_1 = 2.638 but
	// signs differ: (b) fails; s^2 = [(5/6)^2 + (2/3)^2 + (1/6)^2]/2 = 7/12,
	// se = sqrt(7/36) = .441, |delta|/se = .378: dropped; k_D = 0.
	// Lepski: k=0 vs 1: X_1 = X_0, 0 <= 0; k=0 vs 2: |mean X_2 - mean X_0|
	// = |2.5/3 - 2/3| = 1/6 <= 2 se = .882 (X_2 - X_0 = D_1): k_L = 0.
	// k* = 0: r_hat_2 = sum X_0 / sum B_0 = 2/3 (n = 3, the ended
	// trajectory included). With k = 2 the denominator would be
	// 2 + .5 + 2 = 4.5, its frozen weight included.
	b := ldBatch([]ldStep{{0, 2}, {1, 1}}, []ldStep{{0, 0.5}, {1, 1}}, []ldStep{{0, 2}})
	e := NewINCRISLD(true)
	got, err := e.Estimate(b)
	if err != nil {
		t.Fatal(err)
	}
	if !near(got, 2.0/3, 1e-15) || e.KStar()[1] != 0 {
		t.Errorf("estimate %v, k* %v; want 2/3, [0 0]", got, e.KStar())
	}
	e.prepare(b)
	if _, err := e.step(b, 1); err != nil {
		t.Fatal(err)
	}
	if d, ok := kernel.InactiveB(e.b.Offsets, e.b.Reward, e.b.Ratio, e.n, e.nact[1], 1, 2); !ok || e.sumB[2]+d != 4.5 {
		t.Errorf("sum_i B_2 at t = 2 = %v + %v, want 2 + .5 (active) + 2 (ended, padded ratio 1) = 4.5", e.sumB[2], d)
	}
}

func TestINCRISLDNeedsTwo(t *testing.T) {
	for _, guard := range []bool{true, false} {
		_, err := NewINCRISLD(guard).Estimate(ldBatch([]ldStep{{1, 1}}))
		if !errors.Is(err, estimators.ErrTooFew) {
			t.Errorf("guard=%v, n = 1: err = %v, want estimators.ErrTooFew", guard, err)
		}
		if info, ok := estimators.Lookup(NewINCRISLD(guard).Name()); !ok || info.MinN != 2 {
			t.Errorf("registry entry for guard=%v: %+v, %v; want MinN 2", guard, info, ok)
		}
	}
}

// TestINCRISLDNotRepresentable: products of ratios that overflow or
// underflow a float64 give estimators.ErrNotRepresentable, never NaN.
func TestINCRISLDNotRepresentable(t *testing.T) {
	// Two trajectories with every ratio rho and rewards scale*{0,1,2},
	// different between them (so that the centred X are not all 0).
	mk := func(h int, rho, scale float64) *trajectory.Batch {
		var b trajectory.Batch
		for i := range 2 {
			for s := 1; s <= h; s++ {
				b.Add(scale*float64((s+i)%3), rho)
			}
			b.End()
		}
		return &b
	}
	for _, c := range []struct {
		name, in string // in: what the error message must name
		b        *trajectory.Batch
	}{
		{"overflow: B_31 = 1e310, X at most 2e10", "product of importance ratios", mk(40, 1e10, 1e-300)},
		{"underflow: B_31 = 1e-310", "product of importance ratios", mk(40, 1e-10, 1)},
		{"overflow of the covariances only: X = 2e160 at t = 16, squares 4e320", "sample variance", mk(20, 1e10, 1)},
	} {
		for _, guard := range []bool{true, false} {
			v, err := NewINCRISLD(guard).Estimate(c.b)
			if !errors.Is(err, estimators.ErrNotRepresentable) || !strings.Contains(err.Error(), c.in) {
				t.Errorf("%s guard=%v: %v, %v; want estimators.ErrNotRepresentable about the %s", c.name, guard, v, err, c.in)
			}
		}
	}
}

// TestINCRISLDSyrkUpper: ldRefSyrkUpper (the reference's S) is
// blas64.Syrk (NoTrans, upper triangle) up to rounding, with beta = 0 and 1, on a strided submatrix, leaving the lower
// triangle alone.
func TestINCRISLDSyrkUpper(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, dims := range [][2]int{{1, 1}, {3, 7}, {17, 40}, {101, 512}} {
		m, k := dims[0], dims[1]
		stride := k + 3
		a := blas64.General{Rows: m, Cols: k, Stride: stride, Data: make([]float64, (m-1)*stride+k)}
		for i := range a.Data {
			a.Data[i] = rng.NormFloat64()
		}
		for _, beta := range []float64{0, 1} {
			got := blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: m, Data: make([]float64, m*m)}
			want := blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: m, Data: make([]float64, m*m)}
			for i := range got.Data {
				got.Data[i] = float64(i % 5)
				want.Data[i] = float64(i % 5)
			}
			ldRefSyrkUpper(0.5, a, beta, got)
			blas64.Syrk(blas.NoTrans, 0.5, a, beta, want)
			for i := range m {
				for j := range m {
					g, w := got.Data[i*m+j], want.Data[i*m+j]
					if j < i && g != float64((i*m+j)%5) {
						t.Fatalf("%dx%d: lower triangle (%d,%d) changed to %v", m, k, i, j, g)
					}
					if j >= i && math.Abs(g-w) > 1e-12*(1+math.Abs(w)) {
						t.Fatalf("%dx%d beta=%v: (%d,%d) = %v, Syrk %v", m, k, beta, i, j, g, w)
					}
				}
			}
		}
	}
}

func TestINCRISLDNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	big := subepisodeBatch(rng, 1200, 10) // more than one chunk of trajectories
	small := ldRandomBatch(rng, 30, 6, 0.5)
	for _, guard := range []bool{true, false} {
		e := NewINCRISLD(guard)
		if _, err := e.Estimate(big); err != nil { // warm up at the larger size
			t.Fatal(err)
		}
		for _, b := range []*trajectory.Batch{big, small} {
			allocs := testing.AllocsPerRun(3, func() {
				if _, err := e.Estimate(b); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("guard=%v n=%d: %v allocations per Estimate once warm, want 0", guard, b.N(), allocs)
			}
		}
	}
}

func BenchmarkINCRISLD(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1000, 10000} {
		batch := subepisodeBatch(rng, n, 50) // H = 100
		e := NewINCRISLD(true)
		if _, err := e.Estimate(batch); err != nil { // warm: sizes the workspace
			b.Fatal(err)
		}
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Estimate(batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
