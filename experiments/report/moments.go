package report

// Means and variances over trials in a fixed order of operations, so that
// the numbers in results/ do not depend on how gonum was built: gonum's
// stat.Mean, PopMeanVariance and StdDev sum with floats.Sum, which is
// assembly with eight partial sums on amd64 and a plain loop with -tags
// noasm or on other GOARCHes. The order here is the amd64 one (for a
// slice that starts on a 16-byte boundary, as every slice of two or more
// float64 that make returns does), so the committed results keep their
// bits; the explicit conversions keep compilers that fuse multiply-adds
// (arm64) from fusing them.

import "math"

// fixedSum returns the sum of x in the order of gonum's amd64 f64.Sum
// (internal/asm/f64/sum_amd64.s) on an aligned slice: eight lanes, lane l
// adding x[i+l] for i = 0, 8, 16, ... while 8 values remain; then lanes
// 6, 7 into 0, 1 and 4, 5 into 2, 3; four more values, if left, into
// lanes 0..3; lanes 2, 3 into 0, 1; two more into lanes 0, 1; lane 1 into
// lane 0; and the last value, if left.
func fixedSum(x []float64) float64 {
	var s [8]float64
	n := len(x)
	i := 0
	for ; n-i >= 8; i += 8 {
		for l := range s {
			s[l] += x[i+l]
		}
	}
	s[0], s[1] = s[0]+s[6], s[1]+s[7]
	s[2], s[3] = s[2]+s[4], s[3]+s[5]
	if n-i >= 4 {
		for l := range 4 {
			s[l] += x[i+l]
		}
		i += 4
	}
	s[0], s[1] = s[0]+s[2], s[1]+s[3]
	if n-i >= 2 {
		s[0], s[1] = s[0]+x[i], s[1]+x[i+1]
		i += 2
	}
	t := s[0] + s[1]
	if i < n {
		t += x[i]
	}
	return t
}

// fixedMean is stat.Mean(x, nil) with fixedSum's order.
func fixedMean(x []float64) float64 { return fixedSum(x) / float64(len(x)) }

// fixedMeanSS returns the mean of x and its sum of squared deviations, as
// gonum's stat does (the corrected two-pass algorithm: the sum of squares
// about the mean, less the square of the deviations' sum over n).
func fixedMeanSS(x []float64) (m, ss float64) {
	m = fixedMean(x)
	var sq, c float64
	for _, v := range x {
		d := v - m
		sq += float64(d * d)
		c += d
	}
	return m, sq - float64(c*c)/float64(len(x))
}

// fixedPopMeanVariance is stat.PopMeanVariance(x, nil): the mean and the
// variance with denominator n.
func fixedPopMeanVariance(x []float64) (m, v float64) {
	m, ss := fixedMeanSS(x)
	return m, ss / float64(len(x))
}

// fixedStdDev is stat.StdDev(x, nil): the standard deviation with
// denominator n - 1.
func fixedStdDev(x []float64) float64 {
	_, ss := fixedMeanSS(x)
	return math.Sqrt(ss / float64(len(x)-1))
}
