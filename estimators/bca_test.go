package estimators

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ope-lab/longhorizon/trajectory"
)

// TestBCaLevels checks the adjusted levels against the formula evaluated
// in 40-digit arithmetic (Phi and Phi^{-1} from the error function):
// z0 = 0.1, a = 0.05, alpha = 0.1: alpha1 = Phi(0.1 + (0.1 - 1.644854) /
// (1 + 0.05 * 1.544854)) = 0.0910886004202327, alpha2 = 0.9778704853869033;
// z0 = 0.5, a = 1: alpha1 = Phi(0.5 - 1.144854 / 2.144854) =
// 0.4865311890855945, and 1 - a (z0 + z_{0.95}) = -1.14 <= 0 gives the
// limit alpha2 = 1. z0 = a = 0 gives alpha/2 and 1 - alpha/2.
func TestBCaLevels(t *testing.T) {
	for _, tc := range []struct {
		z0, a, alpha float64
		a1, a2       float64
	}{
		{0.1, 0.05, 0.1, 0.091088600420232671, 0.97787048538690329},
		{0.5, 1, 0.1, 0.48653118908559453, 1},
		{0, 0, 0.1, 0.05, 0.95},
		{0, 0, 0.05, 0.025, 0.975},
		{-0.5, -1, 0.1, 0, 1 - 0.48653118908559453}, // the mirror image of the second case
	} {
		a1, a2 := bcaLevels(tc.z0, tc.a, tc.alpha)
		if math.Abs(a1-tc.a1) > 1e-14 || math.Abs(a2-tc.a2) > 1e-14 {
			t.Errorf("z0 %v, a %v, alpha %v: levels %.17g, %.17g; want %.17g, %.17g", tc.z0, tc.a, tc.alpha, a1, a2, tc.a1, tc.a2)
		}
	}
}

// TestAcceleration: jackknife values 1, 2, 4: thetabar = 7/3, d = 4/3,
// 1/3, -5/3; sum d^3 = (64 + 1 - 125)/27 = -20/9, sum d^2 = 42/9 = 14/3;
// a = (-20/9) / (6 (14/3)^{3/2}). Failed values (NaN) are left out; no
// spread, or fewer than two values, is no acceleration.
func TestAcceleration(t *testing.T) {
	want := (-20.0 / 9) / (6 * math.Pow(14.0/3, 1.5))
	for _, jack := range [][]float64{{1, 2, 4}, {4, math.NaN(), 1, 2}, {1e300, 2e300, 4e300}} {
		a, ok := acceleration(slices.Clone(jack))
		if !ok || math.Abs(a-want) > 1e-15 {
			t.Errorf("%v: a = %v, %v; want %v", jack, a, ok, want)
		}
	}
	for _, jack := range [][]float64{{3, 3, 3}, {2, math.NaN()}, {math.NaN(), math.NaN()}} {
		if a, ok := acceleration(jack); ok {
			t.Errorf("%v: a = %v, want none", jack, a)
		}
	}
}

// TestQuantileInterval: the order statistics of ten sorted replicates
// 1..10: levels 0.2 and 0.8 give the floor(10*0.2) = 2nd smallest and the
// floor(10*0.2) = 2nd largest; levels below 1/m clamp to the extremes.
func TestQuantileInterval(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tc := range []struct{ a1, a2, lo, hi float64 }{
		{0.2, 0.8, 2, 9},
		{0.05, 0.95, 1, 10},
		{0.35, 0.99, 3, 10},
		{0, 1, 1, 10},
		{1, 1, 10, 10},
		{0, 0, 1, 1},
	} {
		lo, hi := quantileInterval(v, tc.a1, tc.a2)
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("levels %v, %v: [%v, %v], want [%v, %v]", tc.a1, tc.a2, lo, hi, tc.lo, tc.hi)
		}
	}
}

// TestBCaSymmetricIsPercentile: replicates symmetric about the estimate
// (as many below as above, so z0 = Phi^{-1}(1/2) = 0 exactly) and a
// symmetric jackknife (sum d^3 = 0 exactly, a = 0): BCa's interval is the
// percentile interval, at several sizes and levels.
func TestBCaSymmetricIsPercentile(t *testing.T) {
	if z := distuv.UnitNormal.Quantile(0.5); z != 0 {
		t.Fatalf("Phi^{-1}(1/2) = %v, want 0", z)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for _, m := range []int{20, 200, 1000, 2001} {
		for _, conf := range []float64{0.5, 0.8, 0.9, 0.95, 0.99} {
			const theta = 3.0
			v := make([]float64, 0, m)
			for len(v)+1 < m {
				d := math.Ldexp(float64(1+rng.IntN(1000)), -6)
				v = append(v, theta-d, theta+d)
			}
			if len(v) < m {
				v = append(v, theta)
			}
			rng.Shuffle(len(v), func(i, j int) { v[i], v[j] = v[j], v[i] })
			jack := []float64{1, 5, 2, 4, 3}
			want := percentileInterval("x", slices.Clone(v), conf)
			got := bcaInterval("x", slices.Clone(v), jack, theta, conf)
			if got != want {
				t.Errorf("m %d, confidence %v: BCa %+v, percentile %+v", m, conf, got, want)
			}
		}
	}
}

// TestBCaDegenerate: the fallbacks to the percentile interval, by hand.
func TestBCaDegenerate(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	pct := percentileInterval("x", slices.Clone(v), 0.8) // k = 1: [1, 10]
	skew := []float64{1, 2, 10}                          // a != 0
	for _, tc := range []struct {
		name  string
		v     []float64
		jack  []float64
		theta float64
		want  Interval
	}{
		{"estimate failed", v, skew, math.NaN(), pct},
		{"every replicate below", v, skew, 11, pct},
		{"every replicate above", v, skew, 0.5, pct},
		{"no jackknife spread", v, []float64{2, 2, 2}, 4, pct},
		{"every replicate the estimate", []float64{3, 3, 3}, skew, 3, Interval{Name: "x", Low: 3, High: 3}},
		{"every replicate failed", []float64{math.NaN(), math.NaN()}, skew, 3, Interval{Name: "x", Failed: 2}},
	} {
		got := bcaInterval("x", slices.Clone(tc.v), slices.Clone(tc.jack), tc.theta, 0.8)
		same := got.Name == tc.want.Name && got.Failed == tc.want.Failed &&
			(got.Low == tc.want.Low || math.IsNaN(got.Low) && tc.want.Failed == len(tc.v)) &&
			(got.High == tc.want.High || math.IsNaN(got.High) && tc.want.Failed == len(tc.v))
		if !same {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	// not degenerate: theta = 4 with this skewed jackknife moves the interval
	if got := bcaInterval("x", slices.Clone(v), slices.Clone(skew), 4, 0.8); got == pct {
		t.Errorf("theta 4, skewed jackknife: %+v, the percentile interval", got)
	}
}

// expBatch makes b n one-step trajectories with Exp(1) rewards and ratio
// 1 (IS is their mean), or with ratios drawn from 0.5 and 1.5 when mixed.
func expBatch(b *trajectory.Batch, n int, rng *rand.Rand, mixed bool) {
	b.Reset()
	for range n {
		rho := 1.0
		if mixed {
			rho = []float64{0.5, 1.5}[rng.IntN(2)]
		}
		b.Add(rng.ExpFloat64(), rho)
		b.End()
	}
}

// TestBCaRule recomputes BootstrapBCa from its documented definition:
// replicate r resamples n indices by IntN(n) from ReplicateStream(seed, r);
// the jackknife leaves out each trajectory in turn; z0, a and the levels
// by the formulas of its doc comment, written out here with Phi from
// math.Erfc; and the order statistics floor(m alpha1), floor(m (1 -
// alpha2)). Skewed data with two ratios, so that BCa is not the
// percentile interval and the three estimators differ.
func TestBCaRule(t *testing.T) {
	var b trajectory.Batch
	expBatch(&b, 25, rand.New(rand.NewPCG(6, 1)), true)
	const reps, seed, conf = 400, 77, 0.9
	names := []string{"is", "wis", "pdis"}
	got, err := BootstrapBCa(&b, names, reps, conf, seed, 2)
	if err != nil {
		t.Fatal(err)
	}
	pct, _ := Bootstrap(&b, names, reps, conf, seed, 2)
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	n := b.N()
	for j, name := range names {
		theta := estimate(t, name, &b)
		e, _ := New(name)
		var rb trajectory.Batch
		vals := make([]float64, reps)
		idx := make([]int, n)
		for r := range reps {
			rng := ReplicateStream(seed, r)
			for i := range idx {
				idx[i] = rng.IntN(n)
			}
			rb.Resample(&b, idx)
			vals[r], _ = e.Estimate(&rb)
		}
		slices.Sort(vals)
		below, equal := 0, 0
		for _, v := range vals {
			if v < theta {
				below++
			} else if v == theta {
				equal++
			}
		}
		z0 := distuv.UnitNormal.Quantile((float64(below) + float64(equal)/2) / reps)
		jack := make([]float64, n)
		bar := 0.0
		for i := range n {
			var rest []int // every trajectory but i
			for k := range n {
				if k != i {
					rest = append(rest, k)
				}
			}
			rb.Resample(&b, rest)
			jack[i], _ = e.Estimate(&rb)
			bar += jack[i] / float64(n)
		}
		var s2, s3 float64
		for _, v := range jack {
			s2 += (bar - v) * (bar - v)
			s3 += (bar - v) * (bar - v) * (bar - v)
		}
		a := s3 / (6 * math.Pow(s2, 1.5))
		zl, zh := distuv.UnitNormal.Quantile((1-conf)/2), distuv.UnitNormal.Quantile(1-(1-conf)/2)
		a1 := phi(z0 + (z0+zl)/(1-a*(z0+zl)))
		a2 := phi(z0 + (z0+zh)/(1-a*(z0+zh)))
		k1 := max(1, int(math.Floor(reps*a1)))
		k2 := max(1, int(math.Floor(reps*(1-a2))))
		t.Logf("%s: z0 %.4f, a %.4f, levels %.4f %.4f, BCa [%.4f, %.4f], percentile [%.4f, %.4f]",
			name, z0, a, a1, a2, got[j].Low, got[j].High, pct[j].Low, pct[j].High)
		if got[j].Low != vals[k1-1] || got[j].High != vals[reps-k2] || got[j].Failed != 0 {
			t.Errorf("%s: %+v, want [%v, %v] (the %d-th smallest and %d-th largest replicates)",
				name, got[j], vals[k1-1], vals[reps-k2], k1, k2)
		}
		if got[j] == pct[j] {
			t.Errorf("%s: BCa %+v equals the percentile interval on skewed data", name, got[j])
		}
	}
}

// TestBCaWorkers: the intervals do not depend on the number of goroutines,
// but do on the seed.
func TestBCaWorkers(t *testing.T) {
	var b trajectory.Batch
	rng := rand.New(rand.NewPCG(1, 2))
	for range 60 {
		for range 1 + rng.IntN(4) {
			b.Add(rng.Float64(), []float64{0.5, 1.5}[rng.IntN(2)])
		}
		b.End()
	}
	names := []string{"is", "pdis", "wis", "cwpdis", "incris"}
	one, err := BootstrapBCa(&b, names, 201, 0.9, 42, 1)
	if err != nil {
		t.Fatal(err)
	}
	three, err := BootstrapBCa(&b, names, 201, 0.9, 42, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one, three) {
		t.Errorf("workers 1: %v\nworkers 3: %v", one, three)
	}
	other, _ := BootstrapBCa(&b, names, 201, 0.9, 43, 3)
	if slices.Equal(one, other) {
		t.Errorf("seeds 42 and 43 give the same intervals %v", one)
	}
	for _, iv := range one {
		if !(iv.Low < iv.High) || iv.Failed != 0 {
			t.Errorf("%+v: want Low < High and no failure", iv)
		}
	}
}

// TestBCaFailures: the failed-replicate accounting is Bootstrap's: one of
// three episodes has weight 1e400, so IS fails on every replicate that
// draws it (and on the jackknife samples that keep it, which are left out
// of the acceleration). When every replicate fails, NaN bounds.
func TestBCaFailures(t *testing.T) {
	b := batchOf([]step{{1, 1e200}, {1, 1e200}}, []step{{1, 1}}, []step{{3, 1}}, []step{{2, 1}})
	names := []string{"is", "wis"}
	bca, err := BootstrapBCa(b, names, 300, 0.9, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	pct, _ := Bootstrap(b, names, 300, 0.9, 1, 2)
	for j := range names {
		if bca[j].Failed != pct[j].Failed {
			t.Errorf("%s: %d failed replicates, Bootstrap counts %d", names[j], bca[j].Failed, pct[j].Failed)
		}
	}
	if bca[0].Failed < 150 || math.IsNaN(bca[0].Low) || bca[0].Low < 1 || bca[0].High > 3 {
		t.Errorf("is: %+v, want about 300 (1 - (3/4)^4) = 205 failures and an interval within [1, 3]", bca[0])
	}
	all := batchOf([]step{{1, 1e200}, {1, 1e200}}, []step{{1, 1e200}, {1, 1e200}})
	iv, err := BootstrapBCa(all, []string{"is"}, 10, 0.9, 1, 1)
	if err != nil || iv[0].Failed != 10 || !math.IsNaN(iv[0].Low) || !math.IsNaN(iv[0].High) {
		t.Errorf("every replicate fails: %+v, %v; want Failed 10 and NaN bounds", iv, err)
	}
}

func TestBCaErrors(t *testing.T) {
	one := batchOf([]step{{1, 1}})
	two := batchOf([]step{{1, 1}}, []step{{2, 1}})
	for _, tc := range []struct {
		b          *trajectory.Batch
		names      []string
		reps       int
		confidence float64
		tooFew     bool
	}{
		{two, []string{"nope"}, 10, 0.9, false},
		{two, []string{"pdis"}, 0, 0.9, false},
		{two, []string{"pdis"}, 10, 1, false},
		{two, []string{"pdis"}, 10, 0, false},
		{one, []string{"pdis"}, 10, 0.9, true},    // the jackknife needs n >= 2
		{two, []string{"incris"}, 10, 0.9, true},  // incris needs 2, its jackknife 3
		{&trajectory.Batch{}, nil, 10, 0.9, true}, // empty
	} {
		_, err := BootstrapBCa(tc.b, tc.names, tc.reps, tc.confidence, 1, 1)
		if err == nil || errors.Is(err, ErrTooFew) != tc.tooFew {
			t.Errorf("%v on n = %d, reps %d, confidence %v: %v (want too few: %v)", tc.names, tc.b.N(), tc.reps, tc.confidence, err, tc.tooFew)
		}
	}
	// identical episodes: the degenerate case, Bootstrap's [3, 3]
	same := batchOf(slices.Repeat([][]step{{{1, 1.5}, {2, 0.5}}}, 5)...)
	iv, err := BootstrapBCa(same, []string{"pdis", "wis"}, 50, 0.95, 1, 2)
	if err != nil || iv[0].Low != 3 || iv[0].High != 3 || iv[1].Low != 3 || iv[1].High != 3 {
		t.Errorf("identical episodes: %+v, %v; want [3, 3] for both", iv, err)
	}
}

// TestBCaCoverage: the mean of n = 20 draws of Exp(1) (true mean 1, a
// skewed distribution), 1000 data sets, B = 500, 90% intervals. The
// percentile interval of a right-skewed mean sits too far left and misses
// mostly above; BCa shifts it right (a > 0 whenever the sample's third
// central moment is positive, z0 > 0 whenever more than half of the
// replicates fall below the mean). Efron 1987: BCa's coverage error is
// O(1/n), the percentile's O(1/sqrt(n)). Asserted: BCa's upper limit is
// above the percentile's in at least 90% of the data sets, and BCa's
// coverage is closer to the nominal 0.90 than the percentile's, by more
// than two standard errors of the paired difference (sqrt(discordant
// data sets)/1000, McNemar), so that the ordering is not the luck of the
// seeds. At these seeds: BCa 0.853, percentile 0.831, 48 discordant
// (se 0.007).
func TestBCaCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("1000 bootstrap data sets")
	}
	const (
		sets, n, reps = 1000, 20, 500
		conf          = 0.9
		truth         = 1.0
	)
	var b trajectory.Batch
	var covBCa, covPct, right, missHighPct, missHighBCa, discordant int
	for d := range sets {
		expBatch(&b, n, rand.New(rand.NewPCG(uint64(d), 1987)), false)
		bca, err := BootstrapBCa(&b, []string{"is"}, reps, conf, uint64(d), 2)
		if err != nil {
			t.Fatal(err)
		}
		pct, err := Bootstrap(&b, []string{"is"}, reps, conf, uint64(d), 2)
		if err != nil {
			t.Fatal(err)
		}
		if bca[0].Low <= truth && truth <= bca[0].High {
			covBCa++
		} else if bca[0].High < truth {
			missHighBCa++
		}
		if pct[0].Low <= truth && truth <= pct[0].High {
			covPct++
		} else if pct[0].High < truth {
			missHighPct++
		}
		if bca[0].High > pct[0].High {
			right++
		}
		if (bca[0].Low <= truth && truth <= bca[0].High) != (pct[0].Low <= truth && truth <= pct[0].High) {
			discordant++
		}
	}
	cb, cp := float64(covBCa)/sets, float64(covPct)/sets
	// the paired difference of the two coverages has standard error
	// sqrt(discordant)/sets at most (McNemar)
	se := math.Sqrt(float64(discordant)) / sets
	t.Logf("coverage of the %.0f%% interval over %d data sets: BCa %.3f (%d miss above V), percentile %.3f (%d miss above V); "+
		"%d discordant data sets (paired se %.4f); BCa's upper limit higher in %d",
		100*conf, sets, cb, missHighBCa, cp, missHighPct, discordant, se, right)
	if right < 9*sets/10 {
		t.Errorf("BCa's upper limit above the percentile's in %d of %d data sets, want >= 90%%", right, sets)
	}
	if math.Abs(cb-conf) >= math.Abs(cp-conf) || cb-cp < 2*se {
		t.Errorf("BCa coverage %.3f not closer to %.2f than the percentile's %.3f by 2 paired se (%.4f)", cb, conf, cp, se)
	}
}
