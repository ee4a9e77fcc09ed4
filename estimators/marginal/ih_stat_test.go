package marginal

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// layeredBatch draws n episodes of a layered domain in the manner of
// Graph (BENCHMARKS B1, simplified): T steps, observation 0 at t = 1 and
// at t >= 2 the one of a_{t-1} in layer t (ids 2t-3 for a = 0, 2t-2 for
// a = 1), reward +1 for a_t = 0 and -1 for a_t = 1 plus N(0, 1) noise,
// policies independent of the observation: pi(a = 0) = pb and pe. Its
// value is (2 pe - 1) sum_{t<=T} gamma^(t-1).
func layeredBatch(rng *rand.Rand, n, T int, pb, pe float64) *trajectory.Batch {
	var b trajectory.Batch
	for range n {
		o := int32(0)
		for t := 1; t <= T; t++ {
			a, r, rho := int32(1), -1.0, (1-pe)/(1-pb)
			if rng.Float64() < pb {
				a, r, rho = 0, 1, pe/pb
			}
			b.Add(r+rng.NormFloat64(), rho)
			b.AddIDs(o, a)
			o = int32(2*t-1) + a
		}
		b.End()
	}
	return &b
}

// TestIHLayered: where ih is consistent. On the layered domain (T = 10,
// gamma = 0.98, pb = 0.5, pe = 0.3: V = -0.4 * 9.1463 = -3.6585) every
// observation occurs at one step, so w(o) is the ratio of the two
// policies' probabilities of o at its step: at n = 10^5 ih is within 0.07
// of V, 4 standard errors (measured: the standard deviation of ih over 20
// data sets of 10^4 is 0.049, so 0.015 at 10^5; error 0.0011 here).
func TestIHLayered(t *testing.T) {
	const T, gamma, pb, pe = 10, 0.98, 0.5, 0.3
	v := 0.0
	for k := range T {
		v += (2*pe - 1) * math.Pow(gamma, float64(k))
	}
	rng := rand.New(rand.NewPCG(12, 13))
	var d trajectory.Discounted
	b := layeredBatch(rng, 100000, T, pb, pe)
	got := estimate(t, "ih", d.Of(b, gamma))
	small := b.Prefix(1000)
	gotSmall := estimate(t, "ih", d.Of(&small, gamma))
	t.Logf("V = %.4f; ih %.4f at n = 10^5, %.4f at n = 10^3", v, got, gotSmall)
	if math.Abs(got-v) > 0.07 {
		t.Errorf("ih = %v at n = 10^5, V = %v", got, v)
	}
}

// TestIHTimeBias: where ih is biased by design. Two observations, o0 at
// t = 1; a = 0 moves to o1 (reward 1 there on the next step), a = 1 stays
// in o0; from o1 any action returns to o0; H = 4, gamma = 1, pb = 0.5,
// pe = 0.9 (V = 1.809). The occupancy of o1 under pi_e changes with t (0
// at t = 1), the horizon cuts every episode, and ih's error stays above
// 0.1 at n = 10^3 and 10^5 alike (measured: ih 1.653 and 1.652, an error
// of 0.157 that does not shrink), while PDIS, unbiased, is within 0.03 of
// V at 10^5 (measured 1.812).
func TestIHTimeBias(t *testing.T) {
	const h, pb, pe = 4, 0.5, 0.9
	// V by dynamic programming over (steps left, observation): at o1 the
	// reward is 1 and the next observation o0; at o0 the reward is 0 and
	// the next o1 with probability pe.
	v0, v1 := 0.0, 0.0
	for range h {
		v0, v1 = pe*v1+(1-pe)*v0, 1+v0
	}
	rng := rand.New(rand.NewPCG(14, 15))
	var b trajectory.Batch
	for range 100000 {
		o := int32(0)
		for range h {
			a, rho := int32(1), (1-pe)/(1-pb)
			if rng.Float64() < pb {
				a, rho = 0, pe/pb
			}
			r := 0.0
			if o == 1 {
				r, a, rho = 1, 0, 1 // both policies act alike at o1
			}
			b.Add(r, rho)
			b.AddIDs(o, a)
			switch {
			case o == 1:
				o = 0
			case a == 0:
				o = 1
			}
		}
		b.End()
	}
	small := b.Prefix(1000)
	ih, ihSmall := estimate(t, "ih", &b), estimate(t, "ih", &small)
	pdis := estimate(t, "pdis", &b)
	t.Logf("V = %.4f; ih %.4f at n = 10^5, %.4f at n = 10^3; pdis %.4f at 10^5", v0, ih, ihSmall, pdis)
	if math.Abs(ih-v0) < 0.1 || math.Abs(ihSmall-v0) < 0.1 {
		t.Errorf("ih = %v (10^5), %v (10^3): within 0.1 of V = %v, no time bias seen", ih, ihSmall, v0)
	}
	if math.Abs(pdis-v0) > 0.03 {
		t.Errorf("pdis = %v, V = %v", pdis, v0)
	}
}
