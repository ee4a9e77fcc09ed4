package resultsdir

import (
	"math"
	"strings"
	"testing"
)

// TestQuantile checks type-7 quantiles against numpy.quantile's default
// (linear) on hand cases: x = [1, 2, 4, 8].
func TestQuantile(t *testing.T) {
	x := []float64{1, 2, 4, 8}
	for _, c := range []struct{ q, want float64 }{
		{0, 1}, {1, 8},
		{0.5, 3},       // h = 1.5: 2 + 0.5 (4 - 2)
		{0.025, 1.075}, // h = 0.075: 1 + 0.075 (2 - 1)
		{0.975, 7.7},   // h = 2.925: 4 + 0.925 (8 - 4)
	} {
		if got := Quantile(x, c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", x, c.q, got, c.want)
		}
	}
	if got := Quantile([]float64{1, math.Inf(1)}, 0.5); !math.IsInf(got, 1) {
		t.Errorf("a quantile between 1 and +Inf is +Inf, got %v", got)
	}
	if got := Quantile([]float64{math.Inf(1), math.Inf(1)}, 0.3); !math.IsInf(got, 1) {
		t.Errorf("a quantile of +Inf values is +Inf (not NaN), got %v", got)
	}
}

// TestMidRankPercentile: ties count half.
func TestMidRankPercentile(t *testing.T) {
	x := []float64{1, 2, 2, 3}
	for _, c := range []struct{ v, want float64 }{{0.5, 0}, {2, 50}, {2.5, 75}, {9, 100}, {1, 12.5}} {
		if got := MidRankPercentile(x, c.v); got != c.want {
			t.Errorf("MidRankPercentile(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}

// TestReadPublishedCSVErrors: strict reading, naming line and column.
func TestReadPublishedCSVErrors(t *testing.T) {
	head := strings.Join(publishedHeader, ",") + "\n"
	for _, c := range []struct{ body, want string }{
		{"s,1,IS,Standard,x,1,0,2,5\n", "line 2: column published"},
		{"s,1,IS,Standard,1,3,0,2,5\n", "line 2: column median: median 3 outside"},
		{"s,1,IS,Standard,1,1,0,2,101\n", "line 2: column percentile: 101 is above 100"},
		{"s,1,IS,Standard,1,1,0,+Inf,50\ns,1,IS,Standard,NaN,1,0,2,5\n", "line 3: column published"},
	} {
		_, err := ReadPublishedCSV(strings.NewReader(head+c.body), "published.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.body, err, c.want)
		}
	}
}
