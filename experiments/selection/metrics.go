package selection

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// The metrics of a selection, by key (Metrics).
const (
	// Spearman is Spearman's rank correlation of the estimates with the
	// true values over the candidates.
	Spearman = "spearman"
	// Regret1 is the true value lost by choosing the candidate with the
	// largest estimate.
	Regret1 = "regret1"
	// Regret3 is the true value lost by choosing the best (in truth) of
	// the three candidates with the largest estimates.
	Regret3 = "regret3"
	// Coverage is the fraction of candidates whose interval holds the
	// true value.
	Coverage = "coverage"
)

// Metric documents one metric of a selection.
type Metric struct {
	Name, Label, Doc string
}

// Metrics returns every metric in the order of the outputs: a fresh copy.
func Metrics() []Metric {
	return []Metric{
		{Spearman, "Spearman's rho", "Spearman's rank correlation of the estimates with the true values over the candidates: " +
			"the Pearson correlation of their average ranks (ties share the mean of the ranks they span); 0 when every estimate is equal (no ranking at all), NaN when an estimate is NaN"},
		{Regret1, "regret@1", "V(best) - V(chosen): the true value lost by choosing the candidate with the largest estimate (ties: the first listed), against the best true value"},
		{Regret3, "regret@3", "V(best) - max of V over the three candidates with the largest estimates (ties: the first listed): what is lost when the estimates shortlist three and the best of them is found"},
		{Coverage, "coverage", "the fraction of candidates whose two-sided interval [L, U] holds the true value, L the series' t lower bound at delta and U = 2*theta-L, theta the estimate (the mean of the terms L is computed from): level 1 - 2 delta; n/a for an estimator without the t bound"},
	}
}

// MetricNames returns the metrics' keys in order.
func MetricNames() []string {
	var out []string
	for _, m := range Metrics() {
		out = append(out, m.Name)
	}
	return out
}

// Ranks returns the average ranks of x, 1 for the smallest: tied values
// share the mean of the ranks they span (x holds no NaN).
func Ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1 // ranks i+1 .. j+1
		for k := i; k <= j; k++ {
			r[idx[k]] = mean
		}
		i = j + 1
	}
	return r
}

// SpearmanRho returns Spearman's rank correlation of est with truth (one
// entry per candidate): the Pearson correlation of their average ranks.
// It is 0 when est is constant (no ranking), NaN when est holds a NaN;
// truth must not be constant (Compute refuses it).
func SpearmanRho(est, truth []float64) float64 {
	if slices.ContainsFunc(est, math.IsNaN) {
		return math.NaN()
	}
	a, b := Ranks(est), Ranks(truth)
	return pearson(a, b)
}

// pearson is the correlation of x and y, 0 when either is constant.
func pearson(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// TopK returns the indices of the k largest estimates (k at most
// len(est)), largest first; ties keep the candidates' order, and a NaN
// estimate ranks below every number.
func TopK(est []float64, k int) []int {
	idx := make([]int, len(est))
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) float64 {
		if math.IsNaN(est[i]) {
			return math.Inf(-1)
		}
		return est[i]
	}
	sort.SliceStable(idx, func(a, b int) bool { return key(idx[a]) > key(idx[b]) })
	return idx[:min(k, len(idx))]
}

// Regret returns the regret@k of est: max(truth) minus the largest true
// value among the k candidates with the largest estimates (TopK).
func Regret(est, truth []float64, k int) float64 {
	best := slices.Max(truth)
	got := math.Inf(-1)
	for _, i := range TopK(est, k) {
		got = max(got, truth[i])
	}
	return best - got
}

// CoverageOf returns the fraction of candidates i with lo[i] <= truth[i]
// <= hi[i].
func CoverageOf(lo, hi, truth []float64) float64 {
	in := 0
	for i := range truth {
		if lo[i] <= truth[i] && truth[i] <= hi[i] {
			in++
		}
	}
	return float64(in) / float64(len(truth))
}

// checkTruths refuses candidates whose true values cannot be ranked: all
// equal, or not finite.
func checkTruths(group string, truth []float64) error {
	for i, v := range truth {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("series %s: candidate %d's true value is %v", group, i+1, v)
		}
	}
	if slices.Min(truth) == slices.Max(truth) {
		return fmt.Errorf("series %s: every candidate has the true value %v: nothing to select", group, truth[0])
	}
	return nil
}
