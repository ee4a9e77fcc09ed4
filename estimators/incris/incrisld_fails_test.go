package incris

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/estimators/incris/internal/kernel"
)

// TestLDFailsFast: ldFails, which skips the division and the square root
// where v is far enough from its threshold, decides every comparison as
// the expression of SPEC 1b's Lepski rule, |m2 - m1| > 2 sqrt(v/n) with
// v = max(s11 + s22 - 2 s12, 0), computed as written: on random values
// over 600 binades, and on v placed at its threshold n (d/2)^2 times 1 +
// e for |e| from 2^-60 to 2^-30 (both sides of the fast path's margins
// 2^-40), also where (d/2)^2 n is subnormal or beyond 2^990 (the fast
// path's range), with special values (0, infinities, NaN) mixed in.
func TestLDFailsFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	ref := func(skk, s22, s12, mk, mk2, nf float64) bool {
		v := max(skk+s22-2*s12, 0)
		return math.Abs(mk2-mk) > ldZL*math.Sqrt(v/nf)
	}
	wide := func() float64 { return math.Ldexp(rng.Float64()+0.5, rng.IntN(600)-300) }
	special := []float64{0, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, 0x1p-1074}
	bad := 0
	for i := range 2000000 {
		nf := float64(2 + rng.IntN(20000))
		mk, mk2 := wide(), wide()
		if i%8 >= 6 {
			// |d| near 2^-520 and 2^500: (d/2)^2 n subnormal or beyond 2^990
			e := -530 + rng.IntN(30)
			if i%8 == 7 {
				e = 490 + rng.IntN(20)
			}
			mk, mk2 = 0, math.Ldexp(rng.Float64()+0.5, e)
		}
		if rng.IntN(2) == 0 {
			mk2 = -mk2
		}
		d := math.Abs(mk2 - mk)
		var skk, s22, s12 float64
		switch i % 4 {
		case 0: // anywhere
			skk, s22, s12 = wide(), wide(), wide()*(rng.Float64()*2-1)
		default: // at the threshold n (d/2)^2 (1 + e), through s12 = 0
			e := math.Ldexp(rng.Float64(), -30-rng.IntN(31))
			if rng.IntN(2) == 0 {
				e = -e
			}
			v := nf * (d / 2) * (d / 2) * (1 + e)
			if i%4 == 3 {
				// the nearest doubles around it
				v = math.Nextafter(v, math.Inf(rng.IntN(2)*2-1))
			}
			skk, s22 = v*rng.Float64(), 0
			s22 = v - skk
		}
		if rng.IntN(1000) == 0 {
			skk = special[rng.IntN(len(special))]
		}
		if rng.IntN(1000) == 0 {
			mk = special[rng.IntN(len(special))]
		}
		if got, want := kernel.Fails(skk, s22, s12, mk, mk2, nf), ref(skk, s22, s12, mk, mk2, nf); got != want {
			if bad++; bad <= 10 {
				t.Errorf("kernel.Fails(%v, %v, %v, %v, %v, %v) = %v, the expression says %v", skk, s22, s12, mk, mk2, nf, got, want)
			}
		}
	}
}
