package leaderboard

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// Alpha is the level of the Nemenyi test and of the intervals (95%).
const Alpha = 0.05

// nemenyiQ holds q_0.05 of the two-tailed Nemenyi test for k = 2..10
// classifiers: the studentized range statistic (infinite degrees of
// freedom) divided by sqrt(2), as printed in Demšar 2006 (J. Mach. Learn.
// Res. 7:1-30), Table 5(a). nemenyiQ[k] is the value for k.
var nemenyiQ = [...]float64{2: 1.960, 3: 2.343, 4: 2.569, 5: 2.728, 6: 2.850, 7: 2.949, 8: 3.031, 9: 3.102, 10: 3.164}

// NemenyiQ returns q_alpha (alpha = 0.05) of the Nemenyi test for k
// estimators: Demšar's Table 5(a) for k <= 10, and beyond it the same
// quantity computed, the 0.95 quantile of the range of k standard normal
// variables over sqrt(2) (rangeQuantile; it reproduces the table to
// 1e-3). NaN for k < 2.
func NemenyiQ(k int) float64 {
	switch {
	case k < 2:
		return math.NaN()
	case k < len(nemenyiQ):
		return nemenyiQ[k]
	}
	return rangeQuantile(1-Alpha, k) / math.Sqrt2
}

// CriticalDifference is Nemenyi's critical difference of average ranks
// for k estimators over n domains (Demšar 2006, Section 3.2.2):
// CD = q_alpha sqrt(k (k+1) / (6 N)).
func CriticalDifference(k, n int) float64 {
	return NemenyiQ(k) * math.Sqrt(float64(k*(k+1))/(6*float64(n)))
}

// rangeCDF is P(R <= q) for the range R of k independent standard normal
// variables: k ∫ φ(z) [Φ(z+q) - Φ(z)]^(k-1) dz (the studentized range at
// infinite degrees of freedom; Harter 1960, Ann. Math. Statist. 31:1122,
// eq. 2), by Simpson's rule on [-9, 9] in steps of 1/64, where the
// integrand outside is below 1e-17.
func rangeCDF(q float64, k int) float64 {
	const lo, hi, steps = -9.0, 9.0, 18 * 64
	h := (hi - lo) / steps
	s := 0.0
	for i := 0; i <= steps; i++ {
		z := lo + float64(i)*h
		w := 2.0
		switch {
		case i == 0 || i == steps:
			w = 1
		case i%2 == 1:
			w = 4
		}
		phi := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
		s += w * phi * math.Pow(normCDF(z+q)-normCDF(z), float64(k-1))
	}
	return float64(k) * s * h / 3
}

// normCDF is the standard normal distribution function.
func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// rangeQuantile returns the p quantile of the range of k standard normal
// variables, by bisection of rangeCDF to 1e-12.
func rangeQuantile(p float64, k int) float64 {
	lo, hi := 0.0, 20.0
	for hi-lo > 1e-12 {
		mid := (lo + hi) / 2
		if rangeCDF(mid, k) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// Friedman is Friedman's test of k estimators over N domains (Demšar
// 2006, Section 3.2.2), from the estimators' average ranks.
type Friedman struct {
	// Chi2 is chi^2_F = 12N / (k(k+1)) [sum_j R_j^2 - k(k+1)^2/4]
	// (Demšar's eq. for chi^2_F, no correction for ties), with k-1
	// degrees of freedom; P its p-value.
	Chi2, P float64
	// F is Iman and Davenport's F_F = (N-1) chi^2_F / (N(k-1) - chi^2_F),
	// with k-1 and (k-1)(N-1) degrees of freedom (+Inf when every domain
	// ranks the estimators alike); FP its p-value.
	F, FP float64
}

// FriedmanTest computes Friedman's test from the average ranks of k
// estimators over n domains.
func FriedmanTest(avgRanks []float64, n int) Friedman {
	k := len(avgRanks)
	fk, fn := float64(k), float64(n)
	sum := 0.0
	for _, r := range avgRanks {
		sum += r * r
	}
	chi := 12 * fn / (fk * (fk + 1)) * (sum - fk*(fk+1)*(fk+1)/4)
	chi = max(chi, 0) // rounding of equal ranks
	f := Friedman{Chi2: chi, P: distuv.ChiSquared{K: fk - 1}.Survival(chi)}
	d1, d2 := fk-1, (fk-1)*(fn-1)
	if den := fn*(fk-1) - chi; den > 0 {
		f.F = (fn - 1) * chi / den
		// P(F > x) = I_{d2/(d2 + d1 x)}(d2/2, d1/2) (Abramowitz and
		// Stegun 26.6.2): distuv.F's Survival is 1 - CDF, which cannot go
		// below 1.1e-16.
		f.FP = mathext.RegIncBeta(d2/2, d1/2, d2/(d2+d1*f.F))
	} else {
		f.F, f.FP = math.Inf(1), 0
	}
	return f
}

// rankRow sets ranks[j] to the rank of vals[j] among vals, 1 for the
// smallest, equal values sharing the average of their positions; order
// is scratch of len(vals).
func rankRow(vals, ranks []float64, order []int) {
	for j := range order {
		order[j] = j
	}
	sort.SliceStable(order, func(a, b int) bool { return vals[order[a]] < vals[order[b]] })
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && vals[order[j]] == vals[order[i]] {
			j++
		}
		r := float64(i+1+j) / 2 // the mean of positions i+1 .. j
		for _, o := range order[i:j] {
			ranks[o] = r
		}
		i = j
	}
}

// cliques returns the groups of estimators whose average ranks (sorted,
// ascending) differ by less than cd, as the index ranges [first, last]
// drawn as bars under a critical-difference diagram (Demšar 2006, Fig.
// 1): every maximal run of consecutive estimators whose extremes differ
// by less than cd, runs of a single estimator left out.
func cliques(sorted []float64, cd float64) [][2]int {
	var out [][2]int
	last := -1
	for i := range sorted {
		j := i
		for j+1 < len(sorted) && sorted[j+1]-sorted[i] < cd {
			j++
		}
		if j > i && j > last {
			out = append(out, [2]int{i, j})
			last = j
		}
	}
	return out
}

// tInterval returns the mean of x and its two-sided 1-Alpha Student t
// interval, mean ± t_{1-Alpha/2, N-1} sd / sqrt(N), and the sample
// standard deviation; the interval is NaN for fewer than two values.
func tInterval(x []float64) (mean, lo, hi, sd float64) {
	n := float64(len(x))
	for _, v := range x {
		mean += v
	}
	mean /= n
	if len(x) < 2 {
		return mean, math.NaN(), math.NaN(), math.NaN()
	}
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	sd = math.Sqrt(ss / (n - 1))
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1-Alpha/2) * sd / math.Sqrt(n)
	return mean, mean - half, mean + half, sd
}
