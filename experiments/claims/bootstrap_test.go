package claims

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/internal/streams"
)

// curves is K curves x nn n x T trials of estimates, curve k all equal to
// e[k], with true value 0 (so its squared errors are e[k]^2), and their
// true values.
func curves(T, nn int, e ...float64) ([][][]float64, [][]float64) {
	est := make([][][]float64, len(e))
	truth := make([][]float64, len(e))
	for k := range e {
		est[k] = make([][]float64, nn)
		truth[k] = make([]float64, nn)
		for j := range est[k] {
			est[k][j] = make([]float64, T)
			for t := range est[k][j] {
				est[k][j][t] = e[k]
			}
		}
	}
	return est, truth
}

func lookup(t *testing.T, name string) *Quantity {
	t.Helper()
	q, ok := Lookup(name)
	if !ok {
		t.Fatalf("no quantity %s", name)
	}
	return q
}

// TestRatioBootstrapDegenerate: subject's errors all 1, the best versus
// curve's all 10 (another at 20): every replicate's MSE ratio is 1/100 =
// 0.01, so the interval is [0.01, 0.01], no replicate is above 0.1 (p_le
// = 1/(B+1)) and all are <= 0.1 (p_gt = (B+1)/(B+1) = 1): the claim holds
// at all n. Against 0.001 it is the other way round: does not hold.
func TestRatioBootstrapDegenerate(t *testing.T) {
	est, truth := curves(16, 3, 1, 20, 10)
	mse := lookup(t, "mse")
	B := Replicates
	for _, iv := range Bootstrap(7, "c", mse, Thresholds{MaxRatio: 0.1}, est, truth, B) {
		if iv.Lo != 0.01 || iv.Hi != 0.01 || iv.PLE != 1/float64(B+1) || iv.PGT != 1 {
			t.Errorf("interval %+v, want [0.01, 0.01], p_le 1/%d, p_gt 1", iv, B+1)
		}
	}
	for _, tc := range []struct {
		thr  float64
		at   string
		want string
	}{{0.1, "all", VerdictHolds}, {0.1, "some", VerdictHolds}, {0.001, "all", VerdictFails}, {0.001, "some", VerdictFails},
		{0.01, "all", VerdictHolds}, // equal to the threshold: <= counts
	} {
		var ple, pgt []float64
		for _, iv := range Bootstrap(7, "c", mse, Thresholds{MaxRatio: tc.thr}, est, truth, B) {
			ple, pgt = append(ple, iv.PLE), append(pgt, iv.PGT)
		}
		if got := Verdict(tc.at, ple, pgt, Alpha); got != tc.want {
			t.Errorf("threshold %v at %s n: %s, want %s (p_le %v, p_gt %v)", tc.thr, tc.at, got, tc.want, ple, pgt)
		}
	}
}

// TestRatioBootstrapStraddles: the subject's errors alternate 0 and 2
// (squared 0 and 4, mean 2), the versus curve's are all sqrt(2) (squared
// 2, to rounding): the ratio is 1 and its replicates spread on both sides
// of the threshold 1, so neither test is significant: inconclusive, at
// all n and at some n; the interval holds 1 and is the same for every n
// (one resample of trial indices serves every n).
func TestRatioBootstrapStraddles(t *testing.T) {
	const T = 40
	est, truth := curves(T, 2, 0, math.Sqrt2)
	for j := range est[0] {
		for i := range est[0][j] {
			est[0][j][i] = float64(2 * (i % 2))
		}
	}
	mse := lookup(t, "mse")
	th := Thresholds{MaxRatio: 1}
	ivs := Bootstrap(3, "straddle", mse, th, est, truth, Replicates)
	if ivs[0] != ivs[1] {
		t.Errorf("n 0 and 1 (equal data) differ: %+v, %+v", ivs[0], ivs[1])
	}
	iv := ivs[0]
	if !(iv.Lo < 1 && iv.Hi > 1) || iv.PLE < 0.2 || iv.PGT < 0.2 {
		t.Fatalf("interval %+v, want one straddling 1 with both p-values large", iv)
	}
	if math.Abs(iv.PLE+iv.PGT-float64(Replicates+2)/float64(Replicates+1)) > 1e-12 {
		t.Errorf("p_le + p_gt = %v, want (B+2)/(B+1)", iv.PLE+iv.PGT)
	}
	for _, at := range []string{"all", "some"} {
		if got := Verdict(at, []float64{iv.PLE, iv.PLE}, []float64{iv.PGT, iv.PGT}, Alpha); got != VerdictInconclusive {
			t.Errorf("at %s n: %s, want inconclusive", at, got)
		}
	}
	// Deterministic: the same seed and name give the same replicates; a
	// different name, different ones.
	if again := Bootstrap(3, "straddle", mse, th, est, truth, Replicates); !reflect.DeepEqual(again, ivs) {
		t.Error("the same seed and claim gave different intervals")
	}
	if other := Bootstrap(3, "other", mse, th, est, truth, Replicates); reflect.DeepEqual(other, ivs) {
		t.Error("claims of different names share their replicates")
	}
}

// TestBootstrapStreams: replicate b resamples the trials from stream b of
// StreamKey(seed, "claim:" + name), T draws in order (the rule as
// RatioRule states it), recomputed here by hand for a claim on bias.
func TestBootstrapStreams(t *testing.T) {
	est := [][][]float64{{{0, 1, 2, 3, 4, 5, 6}}}
	truth := [][]float64{{3}}
	const B = 41
	reps := make([]float64, B)
	for b := range reps {
		rng := streams.New(StreamKey(9, "claim:x"), uint64(b))
		s := 0.0
		for range 7 {
			s += est[0][0][rng.IntN(7)]
		}
		reps[b] = s/7 - 3
	}
	lo, hi := Percentiles(reps)
	iv := Bootstrap(9, "x", lookup(t, "bias"), Thresholds{Max: new(float64)}, est, truth, B)
	if len(iv) != 1 || iv[0].Lo != lo || iv[0].Hi != hi {
		t.Errorf("%+v, want [%v, %v]", iv, lo, hi)
	}
}

// TestBootstrapShapes: no data, unequal trials, a Bounds quantity or a
// Ratio claim without versus curves give no intervals, not a panic.
func TestBootstrapShapes(t *testing.T) {
	bias, mse, cov := lookup(t, "bias"), lookup(t, "mse"), lookup(t, "coverage")
	th := Thresholds{Max: new(float64), MaxRatio: 1}
	est, truth := curves(4, 2, 1, 2)
	for _, tc := range []struct {
		name  string
		q     *Quantity
		est   [][][]float64
		truth [][]float64
	}{
		{"nil", bias, nil, nil},
		{"no trials", bias, [][][]float64{{{}}}, [][]float64{{0}}},
		{"unequal trials", bias, [][][]float64{{{1, 2}, {1}}}, [][]float64{{0, 0}}},
		{"truths missing", bias, est, truth[:1]},
		{"bounds", cov, est, truth},
		{"no versus", mse, est[:1], truth[:1]},
	} {
		if got := Bootstrap(1, "c", tc.q, th, tc.est, tc.truth, Replicates); got != nil {
			t.Errorf("%s: %+v, want nil", tc.name, got)
		}
	}
}

// TestHolm: Holm's step-down on hand-made p-values, alpha = 0.05.
func TestHolm(t *testing.T) {
	for _, tc := range []struct {
		p    []float64
		want []bool
	}{
		// sorted: 0.005 <= 0.05/4 = 0.0125 rejected; 0.01 <= 0.05/3 =
		// 0.0167 rejected; 0.03 > 0.05/2 = 0.025: stop, so 0.04 (<= 0.05
		// alone) is not rejected either.
		{[]float64{0.01, 0.04, 0.03, 0.005}, []bool{true, false, false, true}},
		// 0.02 > 0.05/3: nothing, though each is below 0.05.
		{[]float64{0.02, 0.02, 0.02}, []bool{false, false, false}},
		// 0.012 <= 0.0167, 0.02 <= 0.025, 0.04 <= 0.05: all.
		{[]float64{0.04, 0.012, 0.02}, []bool{true, true, true}},
		// ties in index order: 0.025 <= 0.05/2 rejected, then 0.025 <= 0.05.
		{[]float64{0.025, 0.025}, []bool{true, true}},
		{[]float64{0.06}, []bool{false}},
		{nil, []bool{}},
	} {
		if got := Holm(tc.p, 0.05); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Holm(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

// TestVerdict: the verdict rule on hand-made p-values (two n).
func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		at       string
		ple, pgt []float64
		want     string
	}{
		{"all", []float64{0.001, 0.05}, []float64{0.999, 0.95}, VerdictHolds},        // every n at 0.05, no correction
		{"all", []float64{0.001, 0.06}, []float64{0.999, 0.94}, VerdictInconclusive}, // one n not significant
		{"all", []float64{0.5, 0.98}, []float64{0.5, 0.02}, VerdictFails},            // 0.02 <= 0.05/2 (Holm)
		{"all", []float64{0.5, 0.97}, []float64{0.5, 0.03}, VerdictInconclusive},     // 0.03 > 0.05/2
		{"some", []float64{0.5, 0.02}, []float64{0.5, 0.98}, VerdictHolds},           // 0.02 <= 0.05/2 (Holm)
		{"some", []float64{0.5, 0.03}, []float64{0.5, 0.97}, VerdictInconclusive},    // 0.03 > 0.05/2
		{"some", []float64{0.95, 0.99}, []float64{0.05, 0.01}, VerdictFails},         // every n at 0.05
		{"some", []float64{0.9, 0.99}, []float64{0.1, 0.01}, VerdictInconclusive},
		{"all", nil, nil, VerdictFails}, // no point: a claim checked nowhere does not hold
	} {
		if got := Verdict(tc.at, tc.ple, tc.pgt, 0.05); got != tc.want {
			t.Errorf("at %s, p_le %v, p_gt %v: %s, want %s", tc.at, tc.ple, tc.pgt, got, tc.want)
		}
	}
	if PointVerdict(true) != VerdictHolds || PointVerdict(false) != VerdictFails {
		t.Error("PointVerdict")
	}
}

// TestCurveBootstrapDrawsAsRatio: a claim on bias resamples the trials as
// an MSE claim of the same name and seed does: with errors x_t in {0, 1}
// (true value 0), an MSE ratio against a versus curve of squared errors 1
// is mean(x^2) / 1 = mean(x), the bias, on every replicate, so both
// intervals are equal.
func TestCurveBootstrapDrawsAsRatio(t *testing.T) {
	const T = 30
	x := make([]float64, T)
	for i := range x {
		x[i] = float64(i % 3 % 2) // 0, 1, 0, 0, 1, 0, ...
	}
	est, truth := curves(T, 2, 0, 1)
	est[0][0], est[0][1] = x, x
	thr := 0.3
	mse := Bootstrap(11, "c", lookup(t, "mse"), Thresholds{MaxRatio: thr}, est, truth, Replicates)
	bias := Bootstrap(11, "c", lookup(t, "bias"), Thresholds{Max: &thr}, est[:1], truth[:1], Replicates)
	for j := range mse {
		if mse[j].Lo != bias[j].Lo || mse[j].Hi != bias[j].Hi || mse[j].PLE != bias[j].PLE {
			t.Errorf("n %d: MSE %+v, bias %+v: want the same interval and p_le", j, mse[j], bias[j])
		}
	}
}

// TestRangeIntervalRule: on B = 2000 replicates and thresholds at and
// around their order statistics, the verdict rule at one n is as
// CurveRule states it: p_le <= 0.05 exactly when the 100th smallest
// replicate is >= min and the 100th largest <= max (the 90% interval
// inside), p_gt <= 0.05 exactly when the 95% interval [lo, hi] lies
// outside [min, max]; never both.
func TestRangeIntervalRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	r := make([]float64, Replicates)
	for i := range r {
		r[i] = rng.NormFloat64()
	}
	s := slices.Clone(r)
	slices.Sort(s)
	var cuts []float64
	for _, k := range []int{0, 48, 49, 50, 98, 99, 100, 1000, 1899, 1900, 1901, 1949, 1950, 1951, 1999} {
		cuts = append(cuts, s[k], math.Nextafter(s[k], math.Inf(-1)), math.Nextafter(s[k], math.Inf(1)))
	}
	cuts = append(cuts, -10, 10)
	sig := func(p float64) bool { return p <= Alpha }
	for _, lo := range append(cuts, math.NaN()) {
		for _, hi := range append(cuts, math.NaN()) {
			var cmin, cmax *float64
			if !math.IsNaN(lo) {
				cmin = &lo
			}
			if !math.IsNaN(hi) {
				cmax = &hi
			}
			if cmin == nil && cmax == nil || cmin != nil && cmax != nil && lo > hi {
				continue
			}
			iv := rangeInterval(slices.Clone(r), cmin, cmax)
			inside := (cmin == nil || s[99] >= lo) && (cmax == nil || s[Replicates-100] <= hi)
			outside := cmin != nil && iv.Hi < lo || cmax != nil && iv.Lo > hi
			if sig(iv.PLE) != inside || sig(iv.PGT) != outside || sig(iv.PLE) && sig(iv.PGT) {
				t.Errorf("[%v, %v]: p_le %v, p_gt %v (interval [%v, %v]); want p_le significant %v, p_gt %v", lo, hi, iv.PLE, iv.PGT, iv.Lo, iv.Hi, inside, outside)
			}
			if iv.Lo != s[49] || iv.Hi != s[1950] || !(iv.PLE > 0 && iv.PLE <= 1 && iv.PGT > 0 && iv.PGT <= 1) {
				t.Errorf("[%v, %v]: %+v, want [s(50), s(1951)] and p-values in (0, 1]", lo, hi, iv)
			}
		}
	}
}

// TestRelRMSEBootstrap: a claim on rel_rmse resamples the squared errors.
// Every trial off by exactly 1 from V = 2 makes every replicate's relative
// RMSE sqrt(1)/2 = 0.5, so min 0.4 holds with the smallest p-value
// 1/(B+1) and min 0.6 has its whole interval below; errors 0 and 2 in
// equal shares give the point sqrt(2)/2 = 0.7071 inside a proper
// interval; V = 0 follows the stated convention (0 when exact, +Inf).
func TestRelRMSEBootstrap(t *testing.T) {
	const T = 64
	off := make([]float64, T)
	mixed := make([]float64, T)
	for i := range off {
		off[i] = 2 + 1 - 2*float64(i%2) // 3, 1, 3, 1, ...: error +-1
		mixed[i] = 2 + 2*float64(i%2)   // 2, 4, ...: error 0 or 2
	}
	q := lookup(t, "rel_rmse")
	lo, hi := 0.4, 0.6
	pB := 1 / float64(Replicates+1)
	two := [][]float64{{2}}
	iv := Bootstrap(5, "r", q, Thresholds{Min: &lo}, [][][]float64{{off}}, two, Replicates)
	if iv[0].Lo != 0.5 || iv[0].Hi != 0.5 || iv[0].PLE != pB {
		t.Errorf("errors +-1, V 2, min 0.4: %+v, want [0.5, 0.5], p_le %v", iv[0], pB)
	}
	iv = Bootstrap(5, "r", q, Thresholds{Min: &hi}, [][][]float64{{off}}, two, Replicates)
	if iv[0].PGT > 0.05 {
		t.Errorf("errors +-1, V 2, min 0.6: p_gt %v, want <= 0.05 (every replicate 0.5)", iv[0].PGT)
	}
	iv = Bootstrap(5, "r", q, Thresholds{Min: &lo}, [][][]float64{{mixed}}, two, Replicates)
	if p := math.Sqrt(2) / 2; !(iv[0].Lo < p && p < iv[0].Hi) {
		t.Errorf("errors 0 and 2: interval [%v, %v] does not contain the point %v", iv[0].Lo, iv[0].Hi, p)
	}
	if got := relRMSE(0, 0); got != 0 {
		t.Errorf("relRMSE(0, 0) = %v, want 0", got)
	}
	if got := relRMSE(1, 0); !math.IsInf(got, 1) {
		t.Errorf("relRMSE(1, 0) = %v, want +Inf", got)
	}
}
