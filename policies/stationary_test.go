package policies

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestStationaryPick checks Pick against the cumulative intervals, for two
// actions (its fast path) and more, including actions of probability 0,
// which are never picked.
func TestStationaryPick(t *testing.T) {
	for _, tc := range []struct {
		probs []float64
		u     []float64
		want  []int
	}{
		{[]float64{0.75, 0.25}, []float64{0, 0.5, 0.7499, 0.75, 0.9999}, []int{0, 0, 0, 1, 1}},
		{[]float64{0, 1}, []float64{0, 0.5}, []int{1, 1}},
		{[]float64{1, 0}, []float64{0, 0.999999}, []int{0, 0}},
		{[]float64{0.2, 0, 0.8}, []float64{0.1, 0.2, 0.99}, []int{0, 2, 2}},
	} {
		s, err := NewStationary(tc.probs...)
		if err != nil {
			t.Fatal(err)
		}
		for i, u := range tc.u {
			if got := s.Pick(u); got != tc.want[i] {
				t.Errorf("%v: Pick(%v) = %d, want %d", tc.probs, u, got, tc.want[i])
			}
		}
	}
}

// TestStationaryFrequencies: 200k draws of a (0.3, 0.7) policy give a1 with
// frequency within 4 standard errors sqrt(0.3*0.7/200000) of 0.3.
func TestStationaryFrequencies(t *testing.T) {
	s, _ := TwoAction(0.3)
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 200000
	c := 0
	for range n {
		if s.Sample(rng) == 0 {
			c++
		}
	}
	if f, se := float64(c)/n, math.Sqrt(0.3*0.7/n); math.Abs(f-0.3) > 4*se {
		t.Errorf("frequency of a1 %v, want 0.3 +/- %v", f, 4*se)
	}
}

func TestStationaryRejects(t *testing.T) {
	for _, p := range [][]float64{{}, {0.5, 0.6}, {-0.1, 1.1}, {math.NaN(), 1}} {
		if _, err := NewStationary(p...); err == nil {
			t.Errorf("%v accepted", p)
		}
	}
}
