package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestScanPasses: ScanPasses (the AVX-512 assembly where the CPU has it)
// returns what its Go twin scanPassesGo returns, for every start and
// length of rows of values drawn at many scales (with zeros, NaN and
// infinities, and comparisons near Fails's margins), with and without
// syr's factors; and scanPass claims a pass only where Fails, given the
// upper bound scanRow forms, returns false (soundness, lane by lane).
func TestScanPasses(t *testing.T) {
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
	long := 0 // ScanPasses calls that return past their first vector
	for it := range 400 {
		special = it%3 == 0
		sd, sq, mean, cx, dm := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			sd[i], sq[i], mean[i], cx[i], dm[i] = math.Abs(draw()), math.Abs(draw()), draw(), draw(), draw()
		}
		p := ScanRow{Skk: math.Abs(rng.NormFloat64()), Sqk: math.Abs(rng.NormFloat64()) * 1e-3, Mk: rng.NormFloat64(), Nf: 1000}
		if it%4 > 0 {
			p.Tmp1 = rng.NormFloat64() * 1e-3
		}
		if it%4 > 1 {
			p.Tmp2 = rng.NormFloat64() * 1e-3
		}
		if !special {
			// Mostly passes: means within about one standard error.
			for i := range n {
				mean[i] = p.Mk + rng.NormFloat64()*math.Sqrt((p.Skk+sd[i])/p.Nf)
			}
		}
		if it%5 == 0 {
			// Near the margins: (mean - mk)^2/4 nf close to v.
			for i := range n {
				v := p.Skk + sd[i]
				mean[i] = p.Mk + 2*math.Sqrt(v/p.Nf)*(1+float64(rng.IntN(5)-2)*0x1p-41)
				sq[i], p.Tmp1, p.Tmp2 = 0, 0, 0
			}
		}
		passes := 0
		for i := range n {
			if !scanPass(&p, sd[i], sq[i], mean[i], cx[i], dm[i]) {
				continue
			}
			passes++
			y := float64(p.Sqk*sq[i]) + 0x1p-1000
			if p.Tmp1 != 0 {
				y += float64(cx[i] * p.Tmp1)
			}
			if p.Tmp2 != 0 {
				y += float64(dm[i] * p.Tmp2)
			}
			if Fails(p.Skk, sd[i], y, p.Mk, mean[i], p.Nf) {
				t.Fatalf("it %d lane %d: scanPass claims a pass that Fails fails", it, i)
			}
		}
		for a := 0; a < n; a += 3 {
			for b := a; b <= n; b += 5 {
				got := ScanPasses(&p, sd[a:b], sq[a:b], mean[a:b], cx[a:b], dm[a:b])
				if want := scanPassesGo(&p, sd[a:b], sq[a:b], mean[a:b], cx[a:b], dm[a:b]); got != want {
					t.Fatalf("%s it %d [%d, %d): %d, Go twin %d", LD8Name, it, a, b, got, want)
				}
				if got > 8 {
					long++
				}
			}
		}
	}
	if long < 1000 {
		t.Errorf("only %d calls passed a whole vector: the data test too little", long)
	}
}
