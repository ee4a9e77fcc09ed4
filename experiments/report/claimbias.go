package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/ope-lab/longhorizon/experiments/config"
)

// BiasClaimRule states the verdict rule of a claim on bias or on the
// relative RMSE (config.QuantityBias, QuantityRelRMSE), for the help of
// the claim files and claims.md.
const BiasClaimRule = "Claims on bias (and on rel_rmse: read rel_rmse for bias throughout): a bootstrap over trials, B = 2000 replicates, each resampling the T trials with replacement " +
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

// claimsFilesDoc documents claims.csv and claims.md (Files).
var claimsFilesDoc = "every claim checked at every n of its range: `" + strings.Join(ClaimsHeader, ",") + "` " +
	"(`value` for `ratio` when a claim is on bias or on a bound quantity: value is then the MSE ratio of an MSE claim, the bias (curve.csv's) of a claim on bias and the quantity of a bound claim). " +
	"`holds` is the point test of the ratio against max_ratio (to 1e-9 relative; 0/0 counts as 1), or of the value against min and max (exactly); " +
	"`lo,hi` the 95% percentile interval of the ratio (of the bias), `p_le,p_gt` its bootstrap p-values (empty for a claim on a bound quantity). " +
	ClaimRule + " " + BiasClaimRule +
	" claims.md is a readable summary with each claim's verdict (holds, does not hold, inconclusive) beside its point verdict, and for a claim on bias p_min and p_max"

// BiasBootstrap is the bootstrap over trials of the bias of one claim on
// bias named name (BiasClaimRule). est[j][t] is the subject's estimate at
// the j-th n on trial t, every n with the same T > 0 trials, and truth[j]
// its true value there; cmin and cmax are the claim's thresholds (nil:
// absent). It returns one interval per n, nil without data.
//
// quantity is config.QuantityBias or config.QuantityRelRMSE: which
// statistic of the resampled estimates each replicate computes.
func BiasBootstrap(seed uint64, name, quantity string, est [][]float64, truth []float64, cmin, cmax *float64, replicates int) []ClaimInterval {
	if len(est) == 0 || len(est[0]) == 0 || len(truth) != len(est) || replicates <= 0 {
		return nil
	}
	T := len(est[0])
	for _, e := range est {
		if len(e) != T {
			return nil
		}
	}
	key := claimKey(seed, name)
	reps := make([][]float64, len(est))
	for j := range reps {
		reps[j] = make([]float64, replicates)
	}
	idx := make([]int, T)
	for b := 0; b < replicates; b++ {
		drawTrials(key, b, idx)
		for j := range est {
			if quantity == config.QuantityRelRMSE {
				reps[j][b] = relRMSE(resampledSquaredError(est[j], idx, truth[j]), truth[j])
			} else {
				reps[j][b] = resampledMean(est[j], idx) - truth[j]
			}
		}
	}
	out := make([]ClaimInterval, len(est))
	for j, r := range reps {
		out[j] = biasIntervalOf(r, cmin, cmax)
	}
	return out
}

// resampledSquaredError is the mean of (e[i] - v)^2 over the indices idx.
func resampledSquaredError(e []float64, idx []int, v float64) float64 {
	s := 0.0
	for _, i := range idx {
		d := e[i] - v
		s += d * d
	}
	return s / float64(len(idx))
}

// relRMSE is sqrt(mse) / |v|, with v = 0: 0 when mse is 0, else +Inf
// (BiasClaimRule).
func relRMSE(mse, v float64) float64 {
	if v == 0 {
		if mse == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return math.Sqrt(mse) / math.Abs(v)
}

// biasIntervalOf summarises the replicates r of a bias against the
// thresholds cmin and cmax (nil: absent): the percentile interval, the
// one-sided p-values and their compositions PLE and PGT (BiasClaimRule).
// r is sorted in place. Without either threshold (which config refuses)
// both compositions are 1.
func biasIntervalOf(r []float64, cmin, cmax *float64) ClaimInterval {
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
	iv := ClaimInterval{PGT: 1}
	iv.Lo, iv.Hi = percentiles(r)
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

// claimEstimates gathers the estimates of curve c ("series/estimator") at
// each n of ns, est[j][t], and its true values truth[j], from the
// estimates and true values keyed by curveKey. It returns nil when some n
// has no estimates, no true value, or not as many trials as the first.
func claimEstimates(c string, ns []int, trials map[string][]float64, truth map[string]float64) ([][]float64, []float64) {
	est := make([][]float64, len(ns))
	tv := make([]float64, len(ns))
	for j, n := range ns {
		e, ok := trials[curveKey(c, n)]
		v, okv := truth[curveKey(c, n)]
		if !ok || !okv || len(e) == 0 || j > 0 && len(e) != len(est[0]) {
			return nil, nil
		}
		est[j], tv[j] = e, v
	}
	return est, tv
}

// biasTest states the test of a claim on bias, e.g. "bias (mean estimate
// - V(pi_e)) of s/wis in [-0.01, 0.01]".
func biasTest(c *config.Claim) string {
	var thr string
	switch {
	case c.Min != nil && c.Max != nil:
		thr = fmt.Sprintf("in [%v, %v]", *c.Min, *c.Max)
	case c.Min != nil:
		thr = fmt.Sprintf(">= %v", *c.Min)
	case c.Max != nil:
		thr = fmt.Sprintf("<= %v", *c.Max)
	}
	if c.Quantity == config.QuantityRelRMSE {
		return fmt.Sprintf("relative RMSE (sqrt(MSE) / |V(pi_e)|) of %s %s", c.Subject, thr)
	}
	return fmt.Sprintf("bias (mean estimate - V(pi_e)) of %s %s", c.Subject, thr)
}

// decidingBias formats the bias and interval of claim on bias cl at its
// deciding n (the largest p_le for a claim at all n, the least clearly
// inside; the smallest at some n; the first such n) and returns it with
// the claim's bootstrap verdict; without intervals, "not computed" and
// "n/a".
func decidingBias(cl *config.Claim, points []ClaimResult) (string, string) {
	if len(points) == 0 || points[0].Boot == nil {
		return "not computed (no bootstrap in claims.csv: rerun)", "n/a"
	}
	d := 0
	for j, pt := range points {
		if (cl.At == "all" && pt.Boot.PLE > points[d].Boot.PLE) || (cl.At != "all" && pt.Boot.PLE < points[d].Boot.PLE) {
			d = j
		}
	}
	pt := points[d]
	return fmt.Sprintf("n = %d: %.3g [%.3g, %.3g]", pt.N, pt.Ratio, pt.Boot.Lo, pt.Boot.Hi), verdictOf(cl, points)
}

// writeBiasClaimMD writes the section body of claims.md of a claim on
// bias c (after its heading and text): the test and one table row per n.
func writeBiasClaimMD(b *strings.Builder, c *ClaimSummary) {
	cl := &c.Claim
	fmt.Fprintf(b, "Test: %s at %s n in [%d, %d] (point: from curve.csv, compared exactly; verdict: bootstrap over trials, above).\n\n",
		biasTest(cl), cl.At, cl.NMin, cl.NMax)
	fmt.Fprintf(b, "| n | %s | 95%% interval | p_min | p_max | p_le | p_gt | holds (point) |\n|---:|---:|:---:|---:|---:|---:|---:|:---:|\n", cl.Quantity)
	yes := map[bool]string{true: "yes", false: "no"}
	for _, p := range c.Points {
		iv, pmin, pmax, ple, pgt := "", "", "", "", ""
		if bt := p.Boot; bt != nil {
			iv, ple, pgt = fmt.Sprintf("[%.4g, %.4g]", bt.Lo, bt.Hi), fmt.Sprintf("%.4g", bt.PLE), fmt.Sprintf("%.4g", bt.PGT)
			if cl.Min != nil {
				pmin = fmt.Sprintf("%.4g", bt.PMin)
			}
			if cl.Max != nil {
				pmax = fmt.Sprintf("%.4g", bt.PMax)
			}
		}
		fmt.Fprintf(b, "| %d | %.4g | %s | %s | %s | %s | %s | %s |\n", p.N, p.Ratio, iv, pmin, pmax, ple, pgt, yes[p.Holds])
	}
	b.WriteString("\n")
}
