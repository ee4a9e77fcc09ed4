package claims

import (
	"hash/fnv"
	"math"
	"slices"
	"sort"

	"github.com/ope-lab/longhorizon/internal/streams"
)

// The bootstrap of every claim on a Ratio or Curve quantity (Bootstrap).
const (
	// Replicates is B, the number of bootstrap replicates of every claim.
	Replicates = 2000
	// Alpha is the level of every test of a claim's verdict (Verdict):
	// one-sided, 0.05.
	Alpha = 0.05
	// Level is the coverage of the percentile interval [lo, hi].
	Level = 0.95
)

// The verdicts of a claim (Verdict, PointVerdict).
const (
	VerdictHolds        = "holds"
	VerdictFails        = "does not hold"
	VerdictInconclusive = "inconclusive"
)

// RatioRule states the verdict rule of claims on a Ratio quantity (mse),
// for the help of the claim files and claims.md (whose committed bytes
// hold it: it changes only with the rule).
const RatioRule = "Paired bootstrap: B = 2000 replicates, each resampling the T trials with replacement " +
	"(one draw of T trial indices per replicate, shared by the subject and every versus curve and by every n of the claim; " +
	"replicate b of claim c uses stream b of the key seed XOR SplitMix64(FNV-1a(\"claim:\" + c)), internal/streams); " +
	"the replicate's ratio is the mean of the resampled squared errors (estimate - true value)^2 of the subject over the smallest such mean of the versus curves. " +
	"lo and hi are the 2.5% and 97.5% percentiles (the 50th smallest and the 50th largest of the 2000 replicates). " +
	"p_le = (1 + #{replicates > max_ratio}) / (B + 1) is the p-value of H0 \"ratio > max_ratio\" against \"ratio <= max_ratio\"; " +
	"p_gt = (1 + #{replicates <= max_ratio}) / (B + 1) that of H0 \"ratio <= max_ratio\" against \"ratio > max_ratio\" " +
	"(both with the +1 correction; a replicate within 1e-9 relative of max_ratio counts as <=). " +
	"Verdict, alpha = 0.05: a claim \"at all n\" holds when p_le <= alpha at every n (intersection-union test, no correction needed), " +
	"does not hold when Holm's step-down procedure at family-wise level alpha over the n rejects \"ratio <= max_ratio\" at some n (p_gt), " +
	"else is inconclusive; a claim \"at some n\" holds when Holm's procedure over the n rejects \"ratio > max_ratio\" at some n (p_le), " +
	"does not hold when p_gt <= alpha at every n, else is inconclusive. " +
	"Claims on a bound quantity (lower_bound, bound_gap, coverage, vacuous) keep their point verdict: trials.csv holds estimates, not bounds, and their thresholds are stated on the sample of trials."

// CurveRule states the verdict rule of claims on a Curve quantity (bias,
// rel_rmse), for the help of the claim files and claims.md (whose
// committed bytes hold it: it changes only with the rule).
const CurveRule = "Claims on bias (and on rel_rmse: read rel_rmse for bias throughout): a bootstrap over trials, B = 2000 replicates, each resampling the T trials with replacement " +
	"exactly as for an MSE claim (one draw of T trial indices per replicate, shared by every n of the claim; " +
	"replicate b of claim c uses stream b of the key seed XOR SplitMix64(FNV-1a(\"claim:\" + c))); " +
	"the replicate's bias is the mean of the subject's resampled estimates minus V(pi_e), its rel_rmse the root of the mean of their squared errors divided by |V(pi_e)| " +
	"(with V(pi_e) = 0: 0 when every error is 0, else +Inf). " +
	"The value is curve.csv's bias (for rel_rmse sqrt(mse) / |true_value|, the same convention at 0), and the point test min <= bias <= max, compared exactly (an absent min or max constrains nothing). " +
	"lo and hi are the 2.5% and 97.5% percentiles of the replicates (the 50th smallest and the 50th largest). " +
	"One-sided p-values, with the +1 correction: p_min = (1 + #{replicates < min}) / (B + 1) is the p-value of H0 \"bias < min\" against \"bias >= min\", " +
	"p_max = (1 + #{replicates > max}) / (B + 1) that of H0 \"bias > max\" against \"bias <= max\" (a replicate equal to min or max counts as inside). " +
	"The claim \"min <= bias <= max\" is the intersection of the two one-sided claims (intersection-union test): " +
	"its p-value, claims.csv's p_le, is max(p_min, p_max) (the one of the threshold given, when only min or only max is); " +
	"p_gt, the p-value of H0 \"min <= bias <= max\" against \"bias outside [min, max]\", is the smallest of 1, 2 (1 + #{replicates >= min}) / (B + 1) and 2 (1 + #{replicates <= max}) / (B + 1) " +
	"(the one-sided p-values of \"bias < min\" and of \"bias > max\", doubled for the two sides; a term only for a threshold given). " +
	"Verdict at one n, alpha = 0.05: holds when p_le <= alpha, i.e. both one-sided tests reject (the 100th smallest replicate is >= min and the 100th largest <= max: the 90% percentile interval lies inside [min, max]); " +
	"does not hold when p_gt <= alpha, which with B = 2000 is exactly the 95% interval [lo, hi] lying entirely outside [min, max] (hi < min or lo > max); else inconclusive. " +
	"Over the n of the claim, p_le and p_gt are composed as an MSE claim's: a claim at all n holds when p_le <= alpha at every n (intersection-union test), " +
	"does not hold when Holm's step-down procedure at family-wise level alpha over the n rejects \"min <= bias <= max\" at some n (p_gt), else is inconclusive; " +
	"a claim at some n holds when Holm's procedure over the n rejects at some n with p_le, does not hold when p_gt <= alpha at every n, else is inconclusive."

// Interval is the bootstrap of a claim at one n.
type Interval struct {
	// Lo and Hi are the percentile interval of the replicates (Level).
	Lo, Hi float64
	// PLE is the p-value of "ratio <= max_ratio" (small: significantly
	// below), PGT that of "ratio > max_ratio" (RatioRule). For a claim on
	// a Curve quantity, Lo and Hi bound the value, PLE is the p-value of
	// "min <= value <= max" and PGT that of "value outside [min, max]"
	// (CurveRule).
	PLE, PGT float64
	// PMin and PMax are a Curve claim's one-sided p-values of "value >=
	// min" and "value <= max" (PLE is the larger; claims.md shows them).
	// They are 0 for a threshold the claim does not give, for a Ratio
	// claim, and when read back from claims.csv, which has no column for
	// them.
	PMin, PMax float64
}

// StreamKey is the key of the family of bootstrap streams called name
// under seed: seed XOR SplitMix64(FNV-1a(name)). The bootstrap of the
// claim called c uses StreamKey(seed, "claim:" + c).
func StreamKey(seed uint64, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return seed ^ streams.Mix(h.Sum64())
}

// Bootstrap is the bootstrap over trials of the claim called name on
// quantity q (a Ratio or Curve quantity; RatioRule, CurveRule), seeded by
// seed. est[k][j][t] is curve k's estimate at the j-th n on trial t and
// truth[k][j] its true value there: k = 0 is the subject, k >= 1 the
// versus curves of a Ratio quantity; every curve and n has the same T > 0
// trials. th holds the claim's thresholds. It returns one interval per n;
// nil for a Bounds quantity, without data, or for data of unequal shapes.
func Bootstrap(seed uint64, name string, q *Quantity, th Thresholds, est [][][]float64, truth [][]float64, replicates int) []Interval {
	if q.Replicate == nil || replicates <= 0 || len(est) == 0 || len(est) != len(truth) || len(est[0]) == 0 || len(est[0][0]) == 0 ||
		q.Source == Ratio && len(est) < 2 {
		return nil
	}
	nn, T := len(est[0]), len(est[0][0])
	for k := range est {
		if len(est[k]) != nn || len(truth[k]) != nn {
			return nil
		}
		for _, e := range est[k] {
			if len(e) != T {
				return nil
			}
		}
	}
	key := StreamKey(seed, "claim:"+name)
	reps := make([][]float64, nn)
	for j := range reps {
		reps[j] = make([]float64, replicates)
	}
	idx := make([]int, T)
	for b := 0; b < replicates; b++ {
		drawTrials(key, b, idx)
		for j := 0; j < nn; j++ {
			x := q.Replicate(est[0][j], idx, truth[0][j])
			if q.Source == Ratio {
				best := math.Inf(1)
				for k := 1; k < len(est); k++ {
					best = min(best, q.Replicate(est[k][j], idx, truth[k][j]))
				}
				x = ratio(x, best)
			}
			reps[j][b] = x
		}
	}
	out := make([]Interval, nn)
	for j, r := range reps {
		if q.Source == Ratio {
			out[j] = ratioInterval(r, th.MaxRatio)
		} else {
			out[j] = rangeInterval(r, th.Min, th.Max)
		}
	}
	return out
}

// drawTrials fills idx with replicate b's resample of the T = len(idx)
// trials of the claim of stream key key: T draws with replacement from
// stream b, in order.
func drawTrials(key uint64, b int, idx []int) {
	rng := streams.New(key, uint64(b))
	for t := range idx {
		idx[t] = rng.IntN(len(idx))
	}
}

// ratioInterval summarises the replicates r of a ratio against maxRatio:
// the percentile interval and both one-sided p-values (RatioRule). r is
// sorted in place.
func ratioInterval(r []float64, maxRatio float64) Interval {
	B := len(r)
	above := 0
	for _, v := range r {
		if !ratioHolds(v, maxRatio) {
			above++
		}
	}
	lo, hi := Percentiles(r)
	return Interval{
		Lo:  lo,
		Hi:  hi,
		PLE: float64(1+above) / float64(B+1),
		PGT: float64(1+B-above) / float64(B+1),
	}
}

// rangeInterval summarises the replicates r of a value against the
// thresholds cmin and cmax (nil: absent): the percentile interval, the
// one-sided p-values and their compositions PLE and PGT (CurveRule). r is
// sorted in place. Without either threshold (which config refuses) both
// compositions are 1.
func rangeInterval(r []float64, cmin, cmax *float64) Interval {
	B := len(r)
	below, above := 0, 0 // #{r < min}, #{r > max}
	for _, v := range r {
		if cmin != nil && v < *cmin {
			below++
		}
		if cmax != nil && v > *cmax {
			above++
		}
	}
	pv := func(k int) float64 { return float64(1+k) / float64(B+1) }
	twice := func(k int) float64 { return min(1, float64(2*(1+k))/float64(B+1)) }
	iv := Interval{PGT: 1}
	iv.Lo, iv.Hi = Percentiles(r)
	if cmin != nil {
		iv.PMin = pv(below)
		iv.PLE = max(iv.PLE, iv.PMin)
		iv.PGT = min(iv.PGT, twice(B-below))
	}
	if cmax != nil {
		iv.PMax = pv(above)
		iv.PLE = max(iv.PLE, iv.PMax)
		iv.PGT = min(iv.PGT, twice(B-above))
	}
	if cmin == nil && cmax == nil {
		iv.PLE = 1
	}
	return iv
}

// Percentiles sorts the bootstrap replicates r in place and returns their
// percentile interval at Level (95%): for B = 2000 the 50th smallest and
// the 50th largest, as every interval of the claims.
func Percentiles(r []float64) (lo, hi float64) {
	B := len(r)
	sort.Float64s(r)
	k := int(math.Ceil(float64(B)*(1-Level)/2)) - 1 // 49 for B = 2000: the 50th smallest
	k = max(k, 0)
	return r[k], r[B-1-k]
}

// Holm is Holm's step-down procedure at family-wise level alpha over the
// p-values p: with p sorted ascending (ties in index order), reject the
// i-th smallest (i = 1, 2, ...) while it is <= alpha / (K - i + 1), and
// stop at the first that is not. It reports which hypotheses are
// rejected.
func Holm(p []float64, alpha float64) []bool {
	order := make([]int, len(p))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p[order[a]] < p[order[b]] })
	rej := make([]bool, len(p))
	for i, o := range order {
		if !(p[o] <= alpha/float64(len(p)-i)) {
			break
		}
		rej[o] = true
	}
	return rej
}

// Verdict is the bootstrap verdict of a claim with "at" all or some from
// its per-n p-values at level alpha (RatioRule, CurveRule): VerdictHolds,
// VerdictFails or VerdictInconclusive.
func Verdict(at string, ple, pgt []float64, alpha float64) string {
	if len(ple) == 0 {
		return VerdictFails
	}
	sig := func(p float64) bool { return p <= alpha }
	if at == "all" {
		switch {
		case !slices.ContainsFunc(ple, func(p float64) bool { return !sig(p) }):
			return VerdictHolds
		case slices.Contains(Holm(pgt, alpha), true):
			return VerdictFails
		}
		return VerdictInconclusive
	}
	switch {
	case slices.Contains(Holm(ple, alpha), true):
		return VerdictHolds
	case !slices.ContainsFunc(pgt, func(p float64) bool { return !sig(p) }):
		return VerdictFails
	}
	return VerdictInconclusive
}

// PointVerdict is the verdict of a claim checked without a bootstrap.
func PointVerdict(holds bool) string {
	if holds {
		return VerdictHolds
	}
	return VerdictFails
}
