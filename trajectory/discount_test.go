package trajectory

import (
	"math"
	"testing"
)

// TestDiscounted: rewards and model columns of step t (1-based) are
// multiplied by gamma^(t-1) within each trajectory; gamma = 1 returns the
// batch itself; the source is untouched; a second call reuses the view.
func TestDiscounted(t *testing.T) {
	var b Batch
	// trajectory 0: rewards 1, 2, 3; trajectory 1: reward 4 (one step)
	for s, r := range []float64{1, 2, 3} {
		b.Add(r, 1)
		b.AddModel(10*r, float64(s))
	}
	b.End()
	b.Add(4, 2)
	b.AddModel(40, 7)
	b.End()
	var d Discounted
	if d.Of(&b, 1) != &b {
		t.Fatal("gamma = 1 must return the batch itself")
	}
	v := d.Of(&b, 0.5)
	// gamma^(t-1) for t = 1, 2, 3 is 1, 0.5, 0.25 (exact in binary)
	wantR := []float64{1, 2 * 0.5, 3 * 0.25, 4}
	wantQ := []float64{10, 20 * 0.5, 30 * 0.25, 40}
	wantV := []float64{0, 1 * 0.5, 2 * 0.25, 7}
	for s := range wantR {
		if v.Reward[s] != wantR[s] || v.QHat[s] != wantQ[s] || v.VHat[s] != wantV[s] {
			t.Errorf("step %d: r, q, v = %v, %v, %v; want %v, %v, %v", s, v.Reward[s], v.QHat[s], v.VHat[s], wantR[s], wantQ[s], wantV[s])
		}
	}
	if b.Reward[2] != 3 || b.QHat[2] != 30 {
		t.Error("the source batch changed")
	}
	if v.Ratio[3] != 2 || v.Horizon() != 3 || v.N() != 2 {
		t.Error("the view must share ratios, offsets and horizon")
	}
	// gamma = 0.9: the factors are math.Pow(0.9, t-1)
	v = d.Of(&b, 0.9)
	if want := 3 * math.Pow(0.9, 2); v.Reward[2] != want {
		t.Errorf("gamma 0.9, step 3: %v, want %v", v.Reward[2], want)
	}
	if allocs := testing.AllocsPerRun(10, func() { d.Of(&b, 0.9) }); allocs != 0 {
		t.Errorf("%v allocations per warm call", allocs)
	}
}
