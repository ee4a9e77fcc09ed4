package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestScanClass: ScanClass (the AVX-512 assembly where the CPU has it)
// returns what its Go twin scanClassGo returns (the undecided lags and
// the first failing one), for every start and length of rows of values
// drawn at many scales (with zeros, NaN and infinities), with means near
// the row's (mostly passes), equal to it (Fails's slow path) and near
// Fails's margins, with and without syr's factors; and scanClassGo
// classifies as scanRow did, from Fails at both bounds, written out here.
func TestScanClass(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 31))
	special := false
	draw := func() float64 {
		if !special {
			return rng.NormFloat64() * math.Ldexp(1, rng.IntN(8)-4)
		}
		switch rng.IntN(20) {
		case 0:
			return 0
		case 1:
			return math.NaN()
		case 2:
			return math.Inf(1 - 2*rng.IntN(2))
		}
		return rng.NormFloat64() * math.Ldexp(1, rng.IntN(80)-40)
	}
	const n = 64
	kinds := [3]int{} // lanes that pass, are undecided, fail
	for it := range 600 {
		special = it%3 == 0
		sd, sq, mean, cx, dm := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			sd[i], sq[i], mean[i], cx[i], dm[i] = math.Abs(draw()), math.Abs(draw()), draw(), draw(), draw()
		}
		p := ScanRow{Skk: math.Abs(rng.NormFloat64()), Sqk: math.Abs(rng.NormFloat64()) * math.Ldexp(1, -rng.IntN(12)), Mk: rng.NormFloat64(), Nf: 1000}
		if it%4 > 0 {
			p.Tmp1 = rng.NormFloat64() * 1e-3
		}
		if it%4 > 1 {
			p.Tmp2 = rng.NormFloat64() * 1e-3
		}
		if !special {
			for i := range n {
				mean[i] = p.Mk + rng.NormFloat64()*math.Sqrt((p.Skk+sd[i])/p.Nf)*2
				if rng.IntN(4) == 0 {
					mean[i] = p.Mk // t = 0: Fails's slow path
				}
			}
		}
		if it%5 == 0 {
			// Near the margins: (mean - mk)^2/4 nf close to v.
			for i := range n {
				mean[i] = p.Mk + 2*math.Sqrt((p.Skk+sd[i])/p.Nf)*(1+float64(rng.IntN(5)-2)*0x1p-41)
				sq[i], p.Tmp1, p.Tmp2 = 0, 0, 0
			}
		}
		// scanRow's classification, lane by lane.
		for i := range n {
			bnd := float64(p.Sqk*sq[i]) + 0x1p-1000
			up, lo := bnd, -bnd
			if p.Tmp1 != 0 {
				up, lo = up+float64(cx[i]*p.Tmp1), lo+float64(cx[i]*p.Tmp1)
			}
			if p.Tmp2 != 0 {
				up, lo = up+float64(dm[i]*p.Tmp2), lo+float64(dm[i]*p.Tmp2)
			}
			kind := 0
			if Fails(p.Skk, sd[i], up, p.Mk, mean[i], p.Nf) {
				kind = 1
				if Fails(p.Skk, sd[i], lo, p.Mk, mean[i], p.Nf) {
					kind = 2
				}
			}
			kinds[kind]++
			u, f := scanClassGo(&p, 5, sd[i:i+1], sq[i:i+1], mean[i:i+1], cx[i:i+1], dm[i:i+1], nil)
			if got := map[bool]int{true: 1, false: 0}[len(u) == 1] + 2*map[bool]int{true: 1, false: 0}[f == 0]; got != kind || (kind == 1 && u[0].K2 != 5) {
				t.Fatalf("it %d lane %d: scanClassGo says %d (%v, %d), scanRow %d", it, i, got, u, f, kind)
			}
		}
		for a := 0; a < n; a += 3 {
			for b := a; b <= n; b += 5 {
				pre := []Unknown{{K2: -1, Score: 2}}
				got, gf := ScanClass(&p, 100+a, sd[a:b], sq[a:b], mean[a:b], cx[a:b], dm[a:b], append(make([]Unknown, 0, 1+b-a), pre...))
				want, wf := scanClassGo(&p, 100+a, sd[a:b], sq[a:b], mean[a:b], cx[a:b], dm[a:b], pre)
				if gf != wf || len(got) != len(want) {
					t.Fatalf("%s it %d [%d, %d): %d undecided, fails at %d; Go twin %d, %d", LD8Name, it, a, b, len(got), gf, len(want), wf)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s it %d [%d, %d): undecided %d = %v, Go twin %v", LD8Name, it, a, b, i, got[i], want[i])
					}
				}
			}
		}
	}
	for k, c := range kinds {
		if c < 1000 {
			t.Errorf("only %d lanes of kind %d (pass, undecided, fail): the data test too little", c, k)
		}
	}
}
