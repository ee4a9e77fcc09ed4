package estimators_test

import (
	"math"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestSumsOfNormalWeightsOverflow: every weight is a normal float64, but
// their sums are not (2 x 1e308 > MaxFloat64). The estimates must be those
// of exact arithmetic, never a silent 0 or NaN from Inf sums.
//
// Two one-step trajectories, ratio 1e308 each, rewards 1e-10 and 3e-10:
// WIS = CWPDIS = (1e308 (1e-10 + 3e-10)) / (2e308) = 2e-10;
// IS = PDIS = (1/2) 1e308 (4e-10) = 2e298, representable.
func TestSumsOfNormalWeightsOverflow(t *testing.T) {
	var b trajectory.Batch
	b.Add(1e-10, 1e308)
	b.End()
	b.Add(3e-10, 1e308)
	b.End()
	for _, tc := range []struct {
		name string
		want float64
	}{
		{"wis", 2e-10}, {"cwpdis", 2e-10}, {"is", 2e298}, {"pdis", 2e298},
	} {
		e, _ := estimators.New(tc.name)
		got, err := e.Estimate(&b)
		if err != nil || math.Abs(got-tc.want) > 1e-14*tc.want {
			t.Errorf("%s = %v, %v; want %v", tc.name, got, err, tc.want)
		}
		out := make([]float64, 2)
		if err := estimators.EstimateGrid(e, &b, []int{1, 2}, out, nil); err != nil || math.Abs(out[1]-tc.want) > 1e-14*tc.want {
			t.Errorf("%s grid at n = 2: %v, %v; want %v", tc.name, out[1], err, tc.want)
		}
	}
}
