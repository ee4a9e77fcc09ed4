package estimators_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/subepisode"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

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
	one, err := estimators.Bootstrap(&b, names, 301, 0.9, 42, 1)
	if err != nil {
		t.Fatal(err)
	}
	three, err := estimators.Bootstrap(&b, names, 301, 0.9, 42, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one, three) {
		t.Errorf("workers 1: %v\nworkers 3: %v", one, three)
	}
	other, _ := estimators.Bootstrap(&b, names, 301, 0.9, 43, 3)
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
// (replicate r resamples n indices by IntN(n) from ReplicateStream(seed, r))
// and checks the percentile rule: k = max(1, floor(B (1-c)/2)), Low the k-th
// smallest, High the k-th largest replicate.
func TestBootstrapRule(t *testing.T) {
	var b trajectory.Batch
	subepisodeData(t, &b, 3, 50, 0.75, rand.New(rand.NewPCG(3, 4)))
	const reps, seed = 200, 9
	for _, conf := range []float64{0.95, 0.9, 0.5, 0.999} {
		got, err := estimators.Bootstrap(&b, []string{"pdis"}, reps, conf, seed, 2)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := estimators.New("pdis")
		var rb trajectory.Batch
		vals := make([]float64, reps)
		idx := make([]int, b.N())
		for r := range reps {
			rng := estimators.ReplicateStream(seed, r)
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
		iv, err := estimators.Bootstrap(&b, []string{"is"}, 1000, tc.conf, 5, 2)
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
	iv, _ := estimators.Bootstrap(&same, []string{"pdis", "wis"}, 50, 0.95, 1, 2)
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
		ivs, err := estimators.Bootstrap(&b, names, reps, conf, uint64(d), 2)
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
	iv, err := estimators.Bootstrap(&b, []string{"is", "wis"}, 300, 0.9, 1, 2)
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
	iv, _ = estimators.Bootstrap(&all, []string{"is"}, 10, 0.9, 1, 1)
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
		if _, err := estimators.Bootstrap(&one, tc.names, tc.reps, tc.confidence, 1, 1); err == nil {
			t.Errorf("%+v: no error", tc)
		}
	}
	var empty trajectory.Batch
	if _, err := estimators.Bootstrap(&empty, []string{"pdis"}, 10, 0.9, 1, 1); err == nil {
		t.Error("empty batch: no error")
	}
}

// TestESS checks the effective sample size by hand.
func TestESS(t *testing.T) {
	var b trajectory.Batch
	b.Add(1, 2)
	b.End()
	b.Add(0, 0.5)
	b.Add(0, 1) // padding-like step: weight stays 0.5
	b.End()
	if got, want := estimators.ESS(&b), 2.5*2.5/(4+0.25); math.Abs(got-want) > 1e-15 {
		t.Errorf("weights 2, 0.5: ESS %v, want %v", got, want)
	}
	var big trajectory.Batch // three weights of 1e400, beyond float64
	for range 3 {
		big.Add(1, 1e200)
		big.Add(1, 1e200)
		big.End()
	}
	if got := estimators.ESS(&big); got != 3 {
		t.Errorf("equal overflowing weights: ESS %v, want 3", got)
	}
	var zero trajectory.Batch
	zero.Add(1, 0)
	zero.End()
	if got := estimators.ESS(&zero); got != 0 {
		t.Errorf("zero weights: ESS %v, want 0", got)
	}
	var opt trajectory.Batch // option weights 3 and 1 (unchanged options ignore rho = 7)
	opt.AddOption(1, 7, 3, false)
	opt.End()
	opt.AddOption(1, 1, 1, false)
	opt.End()
	if got, want := estimators.ESS(&opt), 16.0/10; got != want {
		t.Errorf("option weights 3, 1: ESS %v, want %v", got, want)
	}
}

// TestResample checks Batch.Resample (trajectory/resample.go): order,
// repeats, every per-step field, the horizon, and reuse of memory.
func TestResample(t *testing.T) {
	var src trajectory.Batch
	src.AddOption(1, 2, 3, true)
	src.MarkSplit()
	src.AddOption(4, 5, 1, true)
	src.End()
	src.Add(6, 0.5)
	src.End()
	var dst trajectory.Batch
	dst.Resample(&src, []int{1, 0, 1})
	if !slices.Equal(dst.Offsets, []int{0, 1, 3, 4}) || dst.Horizon() != 2 ||
		!slices.Equal(dst.Reward, []float64{6, 1, 4, 6}) || !slices.Equal(dst.Ratio, []float64{0.5, 2, 5, 0.5}) ||
		!slices.Equal(dst.OptionRatio, []float64{0.5, 3, 1, 0.5}) || !slices.Equal(dst.Changed, []bool{false, true, true, false}) ||
		!slices.Equal(dst.Split, []bool{false, true, false, false}) {
		t.Errorf("resample [1 0 1]: %+v", dst)
	}
	if err := dst.Validate(); err != nil {
		t.Error(err)
	}
	dst.Resample(&src, []int{1})
	if dst.Horizon() != 1 || dst.N() != 1 {
		t.Errorf("resample [1]: horizon %d, n %d, want 1, 1", dst.Horizon(), dst.N())
	}
	idx := []int{0, 1, 0}
	if a := testing.AllocsPerRun(10, func() { dst.Resample(&src, idx) }); a != 0 {
		t.Errorf("Resample allocates %v times per call into a grown batch", a)
	}
}
