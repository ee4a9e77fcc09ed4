package report

import (
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/streams"
)

// The paired bootstrap of an MSE claim (ClaimBootstrap).
const (
	// ClaimReplicates is B, the number of bootstrap replicates of every
	// MSE claim.
	ClaimReplicates = 2000
	// ClaimAlpha is the level of every test of a claim's verdict
	// (ClaimVerdict): one-sided, 0.05.
	ClaimAlpha = 0.05
	// ClaimLevel is the coverage of the percentile interval [lo, hi].
	ClaimLevel = 0.95
)

// The verdicts of a claim (ClaimVerdict).
const (
	VerdictHolds        = "holds"
	VerdictFails        = "does not hold"
	VerdictInconclusive = "inconclusive"
)

// ClaimRule states the verdict rule, for the help of the claim files and
// claims.md.
const ClaimRule = "Paired bootstrap: B = 2000 replicates, each resampling the T trials with replacement " +
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

// ClaimInterval is the bootstrap of an MSE claim at one n.
type ClaimInterval struct {
	// Lo and Hi are the percentile interval of the ratio (ClaimLevel).
	Lo, Hi float64
	// PLE is the p-value of "ratio <= max_ratio" (small: significantly
	// below), PGT that of "ratio > max_ratio" (ClaimRule). For a claim on
	// bias, Lo and Hi bound the bias, PLE is the p-value of "min <= bias
	// <= max" and PGT that of "bias outside [min, max]" (BiasClaimRule).
	PLE, PGT float64
	// PMin and PMax are a bias claim's one-sided p-values of "bias >= min"
	// and "bias <= max" (PLE is the larger; claims.md shows them). They
	// are 0 for a threshold the claim does not give, for an MSE claim, and
	// when read back from claims.csv, which has no column for them.
	PMin, PMax float64
}

// claimKey is the stream key of claim name's bootstrap under seed.
func claimKey(seed uint64, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte("claim:" + name))
	return seed ^ streams.Mix(h.Sum64())
}

// ClaimBootstrap is the paired bootstrap of the MSE ratio of one claim
// (ClaimRule). sq[0][j][t] is the subject's squared error at the j-th n
// on trial t, sq[k][j][t] that of the k-th versus curve (k >= 1); every
// curve has the same T trials. It returns one interval per n.
func ClaimBootstrap(seed uint64, name string, maxRatio float64, sq [][][]float64, replicates int) []ClaimInterval {
	nn := len(sq[0])
	T := len(sq[0][0])
	key := claimKey(seed, name)
	reps := make([][]float64, nn)
	for j := range reps {
		reps[j] = make([]float64, replicates)
	}
	idx := make([]int, T)
	for b := 0; b < replicates; b++ {
		drawTrials(key, b, idx)
		for j := 0; j < nn; j++ {
			best := math.Inf(1)
			for k := 1; k < len(sq); k++ {
				best = min(best, resampledMean(sq[k][j], idx))
			}
			reps[j][b] = claimRatio(resampledMean(sq[0][j], idx), best)
		}
	}
	out := make([]ClaimInterval, nn)
	for j, r := range reps {
		out[j] = intervalOf(r, maxRatio)
	}
	return out
}

// drawTrials fills idx with replicate b's resample of the T = len(idx)
// trials of the claim of stream key (claimKey): T draws with replacement
// from stream b, in order.
func drawTrials(key uint64, b int, idx []int) {
	rng := streams.New(key, uint64(b))
	for t := range idx {
		idx[t] = rng.IntN(len(idx))
	}
}

// resampledMean is the mean of x at the indices idx, summed in idx's order.
func resampledMean(x []float64, idx []int) float64 {
	s := 0.0
	for _, i := range idx {
		s += x[i]
	}
	return s / float64(len(idx))
}

// intervalOf summarises the replicates r of a ratio against maxRatio: the
// percentile interval and both one-sided p-values (ClaimRule). r is
// sorted in place.
func intervalOf(r []float64, maxRatio float64) ClaimInterval {
	B := len(r)
	above := 0
	for _, v := range r {
		if !claimHolds(v, maxRatio) {
			above++
		}
	}
	lo, hi := percentiles(r)
	return ClaimInterval{
		Lo:  lo,
		Hi:  hi,
		PLE: float64(1+above) / float64(B+1),
		PGT: float64(1+B-above) / float64(B+1),
	}
}

// percentiles sorts the replicates r in place and returns their
// percentile interval at ClaimLevel: the 50th smallest and the 50th
// largest of B = 2000.
func percentiles(r []float64) (lo, hi float64) {
	B := len(r)
	sort.Float64s(r)
	k := int(math.Ceil(float64(B)*(1-ClaimLevel)/2)) - 1 // 49 for B = 2000: the 50th smallest
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

// ClaimVerdict is the verdict of an MSE claim with "at" all or some from
// its per-n p-values at level alpha (ClaimRule): VerdictHolds,
// VerdictFails or VerdictInconclusive.
func ClaimVerdict(at string, ple, pgt []float64, alpha float64) string {
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

// pointVerdict is the verdict of a claim checked without a bootstrap.
func pointVerdict(holds bool) string {
	if holds {
		return VerdictHolds
	}
	return VerdictFails
}

// claimSquaredErrors gathers, for MSE claim cl, the squared errors of its
// subject (k = 0) and versus curves (k >= 1) at each n of ns: sq[k][j][t],
// from the estimates and true values keyed by curveKey. It returns nil
// when one of them is missing (no per-trial data).
func claimSquaredErrors(cl *config.Claim, ns []int, trials map[string][]float64, truth map[string]float64) [][][]float64 {
	curves := append([]string{cl.Subject}, cl.Versus...)
	sq := make([][][]float64, len(curves))
	for k, c := range curves {
		sq[k] = make([][]float64, len(ns))
		for j, n := range ns {
			est, ok := trials[curveKey(c, n)]
			v, okv := truth[curveKey(c, n)]
			if !ok || !okv || len(est) == 0 || len(est) != len(trials[curveKey(cl.Subject, n)]) {
				return nil
			}
			sq[k][j] = make([]float64, len(est))
			for t, e := range est {
				d := e - v
				sq[k][j][t] = float64(d * d)
			}
		}
	}
	return sq
}

// curveKey names curve c ("series/estimator") at n.
func curveKey(c string, n int) string { return c + "/" + strconv.Itoa(n) }
