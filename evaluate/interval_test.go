package evaluate

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/subepisode"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/estimators/modelbased"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// bootstrap is Bootstrap's percentile intervals of the registry
// estimators names on b (undiscounted, no model).
func bootstrap(b *trajectory.Batch, names []string, reps int, conf float64, seed uint64, workers int) ([]confidence.Interval, error) {
	ms, err := registryMethods(names)
	if err != nil {
		return nil, err
	}
	return Bootstrap(Request{Methods: ms}, b, nil, Intervals{Replicates: reps, Confidence: conf, Seed: seed, Workers: workers})
}

// bootstrapBCa is Bootstrap's BCa intervals of the registry estimators
// names on b, with theta their estimates on b (NaN where one fails).
func bootstrapBCa(b *trajectory.Batch, names []string, reps int, conf float64, seed uint64, workers int) ([]confidence.Interval, error) {
	ms, err := registryMethods(names)
	if err != nil {
		return nil, err
	}
	theta := make([]float64, len(ms))
	for j, name := range names {
		e, _ := estimators.New(name)
		v, err := e.Estimate(b)
		if err != nil {
			v = math.NaN()
		}
		theta[j] = v
	}
	return Bootstrap(Request{Methods: ms}, b, theta, Intervals{Replicates: reps, Confidence: conf, Seed: seed, Workers: workers, BCa: true})
}

func registryMethods(names []string) ([]Method, error) {
	var ms []Method
	for _, n := range names {
		m, err := Registry(n)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// estimateName is registry estimator name on b.
func estimateName(t *testing.T, name string, b *trajectory.Batch) float64 {
	t.Helper()
	e, err := estimators.New(name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Estimate(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// subepisodeData draws n episodes of the sub-episode MDP (SPEC 2.2) with S
// sub-episodes under the uniform behavior policy, with ratios against the
// policy that picks a1 with probability pe, split at sub-episode ends.
func subepisodeData(t testing.TB, b *trajectory.Batch, s, n int, pe float64, rng *rand.Rand) {
	t.Helper()
	d, _, err := domains.New("subepisode", map[string]float64{"subepisodes": float64(s), "p_e": pe})
	if err != nil {
		t.Fatal(err)
	}
	d.Collect(b, n, rng)
}

// TestBootstrapWorkers: the intervals do not depend on the number of
// goroutines (each replicate has its own stream), but do on the seed.
func TestBootstrapWorkers(t *testing.T) {
	var b trajectory.Batch
	subepisodeData(t, &b, 5, 120, 0.75, rand.New(rand.NewPCG(1, 2)))
	names := []string{"is", "pdis", "wis", "cwpdis", "incris", "partitioned-pdis", "options-pdis"}
	one, err := bootstrap(&b, names, 301, 0.9, 42, 1)
	if err != nil {
		t.Fatal(err)
	}
	three, err := bootstrap(&b, names, 301, 0.9, 42, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one, three) {
		t.Errorf("workers 1: %v\nworkers 3: %v", one, three)
	}
	other, _ := bootstrap(&b, names, 301, 0.9, 43, 3)
	if slices.Equal(one, other) {
		t.Errorf("seeds 42 and 43 give the same intervals %v", one)
	}
	for _, iv := range one {
		if !(iv.Low < iv.High) || iv.Failed != 0 {
			t.Errorf("%+v: want Low < High and no failure", iv)
		}
	}
}

// TestBootstrapRule recomputes the replicates from the documented scheme
// (replicate r resamples n indices by IntN(n) from confidence.ReplicateStream(seed, r))
// and checks the percentile rule: k = max(1, floor(B (1-c)/2)), Low the k-th
// smallest, High the k-th largest replicate.
func TestBootstrapRule(t *testing.T) {
	var b trajectory.Batch
	subepisodeData(t, &b, 3, 50, 0.75, rand.New(rand.NewPCG(3, 4)))
	const reps, seed = 200, 9
	for _, conf := range []float64{0.95, 0.9, 0.5, 0.999} {
		got, err := bootstrap(&b, []string{"pdis"}, reps, conf, seed, 2)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := estimators.New("pdis")
		var rb trajectory.Batch
		vals := make([]float64, reps)
		idx := make([]int, b.N())
		for r := range reps {
			rng := confidence.ReplicateStream(seed, r)
			for i := range idx {
				idx[i] = rng.IntN(b.N())
			}
			rb.Resample(&b, idx)
			vals[r], _ = e.Estimate(&rb)
		}
		slices.Sort(vals)
		k := max(1, int(math.Floor(reps*(1-conf)/2+1e-9))) // 0.95: 5; 0.9: 10; 0.5: 50; 0.999: 1
		if got[0].Low != vals[k-1] || got[0].High != vals[reps-k] {
			t.Errorf("confidence %v: [%v, %v], want the %d-th smallest and largest replicates [%v, %v]",
				conf, got[0].Low, got[0].High, k, vals[k-1], vals[reps-k])
		}
	}
}

// TestBootstrapSmall: two one-step episodes with returns 0 and 1 (ratio
// 1): a replicate's IS estimate is 0, 0.5 or 1 with probabilities 1/4, 1/2,
// 1/4. With B = 1000, about 250 replicates are 0 and 250 are 1, so the
// 80% interval (k = 100) is [0, 1] and the 20% one (k = 400) is [0.5, 0.5].
// Identical episodes give a degenerate interval at the estimate.
func TestBootstrapSmall(t *testing.T) {
	var b trajectory.Batch
	b.Add(0, 1)
	b.End()
	b.Add(1, 1)
	b.End()
	for _, tc := range []struct{ conf, lo, hi float64 }{{0.8, 0, 1}, {0.2, 0.5, 0.5}} {
		iv, err := bootstrap(&b, []string{"is"}, 1000, tc.conf, 5, 2)
		if err != nil {
			t.Fatal(err)
		}
		if iv[0].Low != tc.lo || iv[0].High != tc.hi {
			t.Errorf("confidence %v: [%v, %v], want [%v, %v]", tc.conf, iv[0].Low, iv[0].High, tc.lo, tc.hi)
		}
	}
	var same trajectory.Batch
	for range 5 {
		same.Add(1, 1.5)
		same.Add(2, 0.5)
		same.End()
	}
	iv, _ := bootstrap(&same, []string{"pdis", "wis"}, 50, 0.95, 1, 2)
	// pdis: 1.5*1 + 0.75*2 = 3; wis: weight 0.75, return 3
	if iv[0].Low != 3 || iv[0].High != 3 || iv[1].Low != 3 || iv[1].High != 3 {
		t.Errorf("identical episodes: %+v, want [3, 3] for both", iv)
	}
}

// TestBootstrapCoverage: on the sub-episode MDP with 3 sub-episodes (H =
// 6) and p_e = 0.75, whose value is V = S(1-2p) + p eps_step (S + p S(S-1)/2)
// = 3(-0.5) + 0.75*0.01*(3 + 0.75*3) = -1.460625 (domains.SubepisodeValue),
// the 90% percentile interval of PDIS over D = 200 independent data sets
// of n = 200 episodes (B = 400 each) must cover V in a fraction within
// 0.90 +- 3 sqrt(0.9*0.1/200), i.e. [0.836, 0.964]: three binomial standard
// errors of the coverage count, if the interval has its nominal level.
func TestBootstrapCoverage(t *testing.T) {
	const (
		s, pe   = 3, 0.75
		sets, n = 200, 200
		reps    = 400
		conf    = 0.9
	)
	truth := domains.SubepisodeValue(subepisode.Params{Subepisodes: s, EpsStep: 0.01, EpsBeforeReward: true}, pe)
	if math.Abs(truth-(-1.460625)) > 1e-12 {
		t.Fatalf("true value %v, want -1.460625", truth)
	}
	names := []string{"pdis", "is"}
	covered := make([]int, len(names))
	var b trajectory.Batch
	for d := range sets {
		b.Reset()
		subepisodeData(t, &b, s, n, pe, rand.New(rand.NewPCG(uint64(d), 2017)))
		ivs, err := bootstrap(&b, names, reps, conf, uint64(d), 2)
		if err != nil {
			t.Fatal(err)
		}
		for j, iv := range ivs {
			if iv.Low <= truth && truth <= iv.High {
				covered[j]++
			}
		}
	}
	se := math.Sqrt(conf * (1 - conf) / sets)
	for j, name := range names {
		c := float64(covered[j]) / sets
		t.Logf("%s: coverage %.3f of the %.0f%% interval over %d data sets", name, c, 100*conf, sets)
		if name == "pdis" && math.Abs(c-conf) > 3*se {
			t.Errorf("pdis: coverage %.3f outside %.2f +- %.3f", c, conf, 3*se)
		}
	}
}

// TestBootstrapFailures: a replicate whose estimate is not representable
// is left out and counted. One of three episodes has weight 1e400 (two
// steps of ratio 1e200), so IS fails on every replicate that draws it:
// about 1 - (2/3)^3 = 70% of them.
func TestBootstrapFailures(t *testing.T) {
	var b trajectory.Batch
	b.Add(1, 1e200)
	b.Add(1, 1e200)
	b.End()
	b.Add(1, 1)
	b.End()
	b.Add(3, 1)
	b.End()
	iv, err := bootstrap(&b, []string{"is", "wis"}, 300, 0.9, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if f := iv[0].Failed; f < 170 || f > 250 || math.IsNaN(iv[0].Low) || iv[0].Low < 1 || iv[0].High > 3 {
		t.Errorf("is: %+v, want about 211 failures and an interval within [1, 3]", iv[0])
	}
	if iv[1].Failed != 0 {
		t.Errorf("wis: %+v, want no failure (self-normalised)", iv[1])
	}
	var all trajectory.Batch
	all.Add(1, 1e200)
	all.Add(1, 1e200)
	all.End()
	iv, _ = bootstrap(&all, []string{"is"}, 10, 0.9, 1, 1)
	if iv[0].Failed != 10 || !math.IsNaN(iv[0].Low) || !math.IsNaN(iv[0].High) {
		t.Errorf("every replicate fails: %+v, want Failed 10 and NaN bounds", iv[0])
	}
}

func TestBootstrapErrors(t *testing.T) {
	var one trajectory.Batch
	one.Add(1, 1)
	one.End()
	for _, tc := range []struct {
		names      []string
		reps       int
		confidence float64
	}{
		{[]string{"nope"}, 10, 0.9},
		{[]string{"incris"}, 10, 0.9}, // needs n >= 2
		{[]string{"pdis"}, 0, 0.9},
		{[]string{"pdis"}, 10, 1},
		{[]string{"pdis"}, 10, 0},
	} {
		if _, err := bootstrap(&one, tc.names, tc.reps, tc.confidence, 1, 1); err == nil {
			t.Errorf("%+v: no error", tc)
		}
	}
	var empty trajectory.Batch
	if _, err := bootstrap(&empty, []string{"pdis"}, 10, 0.9, 1, 1); err == nil {
		t.Error("empty batch: no error")
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
// replicate r resamples n indices by IntN(n) from confidence.ReplicateStream(seed, r);
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
	got, err := bootstrapBCa(&b, names, reps, conf, seed, 2)
	if err != nil {
		t.Fatal(err)
	}
	pct, _ := bootstrap(&b, names, reps, conf, seed, 2)
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	n := b.N()
	for j, name := range names {
		theta := estimateName(t, name, &b)
		e, _ := estimators.New(name)
		var rb trajectory.Batch
		vals := make([]float64, reps)
		idx := make([]int, n)
		for r := range reps {
			rng := confidence.ReplicateStream(seed, r)
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
	one, err := bootstrapBCa(&b, names, 201, 0.9, 42, 1)
	if err != nil {
		t.Fatal(err)
	}
	three, err := bootstrapBCa(&b, names, 201, 0.9, 42, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one, three) {
		t.Errorf("workers 1: %v\nworkers 3: %v", one, three)
	}
	other, _ := bootstrapBCa(&b, names, 201, 0.9, 43, 3)
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
	bca, err := bootstrapBCa(b, names, 300, 0.9, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	pct, _ := bootstrap(b, names, 300, 0.9, 1, 2)
	for j := range names {
		if bca[j].Failed != pct[j].Failed {
			t.Errorf("%s: %d failed replicates, Bootstrap counts %d", names[j], bca[j].Failed, pct[j].Failed)
		}
	}
	if bca[0].Failed < 150 || math.IsNaN(bca[0].Low) || bca[0].Low < 1 || bca[0].High > 3 {
		t.Errorf("is: %+v, want about 300 (1 - (3/4)^4) = 205 failures and an interval within [1, 3]", bca[0])
	}
	all := batchOf([]step{{1, 1e200}, {1, 1e200}}, []step{{1, 1e200}, {1, 1e200}})
	iv, err := bootstrapBCa(all, []string{"is"}, 10, 0.9, 1, 1)
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
		_, err := bootstrapBCa(tc.b, tc.names, tc.reps, tc.confidence, 1, 1)
		if err == nil || errors.Is(err, estimators.ErrTooFew) != tc.tooFew {
			t.Errorf("%v on n = %d, reps %d, confidence %v: %v (want too few: %v)", tc.names, tc.b.N(), tc.reps, tc.confidence, err, tc.tooFew)
		}
	}
	// identical episodes: the degenerate case, Bootstrap's [3, 3]
	same := batchOf(slices.Repeat([][]step{{{1, 1.5}, {2, 0.5}}}, 5)...)
	iv, err := bootstrapBCa(same, []string{"pdis", "wis"}, 50, 0.95, 1, 2)
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
		bca, err := bootstrapBCa(&b, []string{"is"}, reps, conf, uint64(d), 2)
		if err != nil {
			t.Fatal(err)
		}
		pct, err := bootstrap(&b, []string{"is"}, reps, conf, uint64(d), 2)
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

// TestBootstrapRefitsModel: with a learned model, every replicate and
// every jackknife sample is evaluated with the model refitted on it: dm's
// interval recomputed by hand (the replicates of confidence.ReplicateStream,
// models.Fitter on each, dm on the result; the jackknife likewise, BCa by
// confidence.BCa) equals Bootstrap's, percentile and BCa, bit for bit;
// and pdis, which reads no model, gets the intervals it gets alone.
func TestBootstrapRefitsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var b trajectory.Batch
	for range 30 {
		for s := range 3 {
			a := int32(rng.IntN(2))
			b.Add(float64(a)+rng.Float64(), 0.5+float64(a))
			b.AddIDs(int32(s%2), a)
		}
		b.End()
	}
	kind, _ := models.Lookup("fitted")
	sp := spaceForTest()
	ms, _ := registryMethods([]string{"dm", "pdis"})
	req := Request{Methods: ms, Model: ModelOf(kind, sp), Gamma: 0.9}
	dm := func(x *trajectory.Batch) float64 {
		var f models.Fitter
		if err := f.Fit(x, sp, 0.9); err != nil {
			t.Fatal(err)
		}
		var disc trajectory.Discounted
		v, err := modelbased.NewDM().Estimate(disc.Of(x, 0.9))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	const reps, seed, conf = 200, 5, 0.9
	n := b.N()
	vals := make([]float64, reps)
	idx := make([]int, n)
	for r := range reps {
		s := confidence.ReplicateStream(seed, r)
		for i := range idx {
			idx[i] = s.IntN(n)
		}
		var rb trajectory.Batch
		rb.Resample(&b, idx)
		vals[r] = dm(&rb)
	}
	jack := make([]float64, n)
	for i := range n {
		var rest []int
		for k := range n {
			if k != i {
				rest = append(rest, k)
			}
		}
		var rb trajectory.Batch
		rb.Resample(&b, rest)
		jack[i] = dm(&rb)
	}
	whole := b
	theta := dm(&whole)
	wantPct := confidence.Percentile(slices.Clone(vals), conf)
	wantBCa := confidence.BCa(slices.Clone(vals), jack, theta, conf)
	pdisAlone, err := Bootstrap(Request{Methods: ms[1:], Gamma: 0.9}, &b, nil, Intervals{Replicates: reps, Confidence: conf, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	for _, bca := range []bool{false, true} {
		got, err := Bootstrap(req, &b, []float64{theta, math.NaN()}, Intervals{Replicates: reps, Confidence: conf, Seed: seed, Workers: 3, BCa: bca})
		if err != nil {
			t.Fatal(err)
		}
		want := wantPct
		if bca {
			want = wantBCa
		}
		if got[0] != want {
			t.Errorf("BCa %v: dm %+v, refitted by hand %+v", bca, got[0], want)
		}
		if !bca && got[1] != pdisAlone[0] {
			t.Errorf("pdis beside dm %+v, alone %+v", got[1], pdisAlone[0])
		}
	}
	if wantPct == wantBCa {
		t.Errorf("BCa equals the percentile interval %+v: the test does not tell them apart", wantPct)
	}
}
