package domains

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// TestChainWeightMoment: E_b[W_H^2] = (p_e^2/p_b + (1-p_e)^2/(1-p_b))^H,
// by hand at small cases, and by Monte Carlo through the domain's
// Collect (mean of W_H^2 over 200,000 episodes within 4 standard errors).
func TestChainWeightMoment(t *testing.T) {
	for _, tc := range []struct {
		h      int
		pe, pb float64
		want   float64
	}{
		{3, 1, 0.5, 8},                        // Theorem 1's 2^H: (1/0.5)^3
		{10, 0.5, 0.5, 1},                     // pi_e = pi_b: every ratio 1
		{100, 1, 0.99, math.Pow(0.99, -100)},  // issue 24's control D: 2.732
		{2, 0.7, 0.4, (1.225 + 0.15) * 1.375}, // 0.49/0.4 + 0.09/0.6 = 1.375, squared
		{4, 0.5, 1, math.Inf(1)},              // pi_b never takes a2, pi_e does
	} {
		if got := ChainWeightMoment(tc.h, tc.pe, tc.pb); math.Abs(got-tc.want) > 1e-12*tc.want && got != tc.want {
			t.Errorf("H %d, p_e %v, p_b %v: %v, want %v", tc.h, tc.pe, tc.pb, got, tc.want)
		}
	}

	const h, n = 5, 200000
	p := map[string]float64{"horizon": h, "p_e": 0.7, "p_b": 0.4}
	d, _, err := New("chainmdp", p)
	if err != nil {
		t.Fatal(err)
	}
	var b trajectory.Batch
	d.Collect(&b, n, rand.New(rand.NewPCG(24, 1)))
	var sum, sum2 float64
	for i := range b.N() {
		w := 1.0
		for _, r := range b.Ratio[b.Offsets[i]:b.Offsets[i+1]] {
			w *= r
		}
		sum += w * w
		sum2 += w * w * w * w
	}
	mean := sum / n
	se := math.Sqrt((sum2/n - mean*mean) / n)
	want := ChainWeightMoment(h, 0.7, 0.4) // 1.375^5 = 4.916
	if math.Abs(mean-want) > 4*se {
		t.Errorf("Monte Carlo E_b[W_5^2] = %v +- %v, closed form %v", mean, se, want)
	}
	spec, _ := Lookup("chainmdp")
	full, err := spec.Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := spec.Truth(full, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Extra["is_weight_second_moment"] != want {
		t.Errorf("truth's is_weight_second_moment %v, want %v", tr.Extra["is_weight_second_moment"], want)
	}
}
