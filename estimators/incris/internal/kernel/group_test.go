package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// groupRef is Group written plainly from its contract, on cells in the
// cells form: for each row l of the group (t = s0+l+1) and each trajectory
// q < m of the block in order (m = Wide: Group's; fewer: Pair's first m), x = rv[q*4+l] times the ratios rho_{t-1}, ...,
// rho_j (rho[j*Wide+q]) goes into cell (l, j) for j = t down to 0 as d = x
// - C, S1 += d, S2 += d^2, S3 += tda_j d (tda[j*Wide+q]), every product
// rounded on its own. Each cell takes the trajectories in order, with the
// operations of the kernels, so they must give its bits.
func groupRef(cells []Cell, s0 int, rv *[4 * Wide]float64, rho, tda []float64, m int) {
	rl := s0 + 5
	for l := range 4 {
		t := s0 + l + 1
		row := cells[l*rl : l*rl+t+1]
		for q := range m {
			x := rv[q*4+l]
			for j := t; j >= 0; j-- {
				if j < t {
					x *= rho[j*Wide+q]
				}
				cl := &row[j]
				d := x - cl.C
				cl.S1 += d
				cl.S2 += float64(d * d)
				cl.S3 += float64(tda[j*Wide+q] * d)
			}
		}
	}
}

// sameBits reports whether a and b are the same float64, bit for bit (any
// NaN matching any NaN: NaN payloads are not part of the contract).
func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// TestFlip: the flip transposes each j's 4 x 4 block of the group (row l,
// component c) and is its own inverse.
func TestFlip(t *testing.T) {
	const s0 = 4
	cells := make([]Cell, 4*(s0+5))
	for i := range cells {
		f := float64(4 * i)
		cells[i] = Cell{f, f + 1, f + 2, f + 3}
	}
	orig := slices.Clone(cells)
	Flip(cells, s0)
	comp := func(c Cell, k int) float64 { return [4]float64{c.C, c.S1, c.S2, c.S3}[k] }
	for l := range 4 {
		for k := range 4 {
			for j := range s0 + 5 {
				if got, want := comp(cells[l*(s0+5)+j], k), comp(orig[k*(s0+5)+j], l); got != want {
					t.Fatalf("row %d, j = %d, component %d: %v, want row %d's component %d, %v", l, j, k, got, k, l, want)
				}
			}
		}
	}
	Flip(cells, s0)
	if !slices.Equal(cells, orig) {
		t.Error("flipping twice changed the cells")
	}
}

// TestGroup: Group (the AVX2 kernel, or its Go twin with -tags noasm)
// against groupRef, bit for bit, on random cells and block data with
// zeros, signed zeros, huge, tiny, subnormal, infinite and NaN values;
// padding cells (j > t) start and stay at 0 when the ratios and W_j -
// aref_j are finite. Run in both builds, it shows the assembly and the Go
// twin give the same bits.
func TestGroup(t *testing.T) {
	if !HasGroup() {
		t.Skip("Group needs AVX2, which this CPU lacks")
	}
	rng := rand.New(rand.NewPCG(31, 37))
	special := []float64{0, math.Copysign(0, -1), 1e300, -1e300, 1e-300, 5e-324, math.Inf(1), math.Inf(-1), math.NaN(), 1, -1}
	val := func(p float64) float64 {
		if rng.Float64() < p {
			return special[rng.IntN(len(special))]
		}
		return math.Ldexp(rng.NormFloat64(), rng.IntN(40)-20)
	}
	for trial := range 300 {
		g := rng.IntN(6)
		s0 := 4 * g
		hp := s0 + 4 + 4*rng.IntN(2) // rows beyond the group, as in a workspace
		p := []float64{0, 0.02, 0.2}[trial%3]
		cells := make([]Cell, 4*(s0+5))
		for l := range 4 {
			for j := 0; j <= s0+l+1; j++ {
				cells[l*(s0+5)+j] = Cell{val(p), val(p), val(p), val(p)}
			}
		}
		var rv [4 * Wide]float64
		for i := range rv {
			rv[i] = val(p)
		}
		rho := make([]float64, Wide*hp)
		tda := make([]float64, Wide*(hp+1))
		for i := range rho {
			rho[i] = val(p)
		}
		for i := range tda {
			tda[i] = val(p)
		}
		// padding lanes add d = 0 * rho... and tda d: 0 only if the
		// ratios and tda are finite (as interleave ensures)
		finite := true
		for _, f := range slices.Concat(rho, tda) {
			finite = finite && !math.IsInf(f, 0) && !math.IsNaN(f)
		}
		want := slices.Clone(cells)
		groupRef(want, s0, &rv, rho, tda, Wide)
		Flip(cells, s0) // the kernels take the lanes form
		Group(cells, s0, &rv, rho, tda)
		Flip(cells, s0)
		for i := range cells {
			l, j := i/(s0+5), i%(s0+5)
			if j > s0+l+1 && !finite {
				continue
			}
			a, b := cells[i], want[i]
			if !sameBits(a.C, b.C) || !sameBits(a.S1, b.S1) || !sameBits(a.S2, b.S2) || !sameBits(a.S3, b.S3) {
				t.Fatalf("trial %d (s0 = %d): cell %d (row %d, j = %d): %+v, reference %+v", trial, s0, i, s0+l, j, a, b)
			}
		}
	}
}

// TestPair: Pair (the AVX-512 kernel, or Group twice with -tags noasm)
// against groupRef on each group, bit for bit, as TestGroup.
func TestPair(t *testing.T) {
	if !HasPair() {
		t.Skip("Pair needs AVX-512, which this CPU lacks")
	}
	rng := rand.New(rand.NewPCG(41, 43))
	special := []float64{0, math.Copysign(0, -1), 1e300, -1e300, 1e-300, 5e-324, math.Inf(1), math.Inf(-1), math.NaN(), 1, -1}
	val := func(p float64) float64 {
		if rng.Float64() < p {
			return special[rng.IntN(len(special))]
		}
		return math.Ldexp(rng.NormFloat64(), rng.IntN(40)-20)
	}
	for trial := range 300 {
		s0 := 4 * rng.IntN(6) // group b: rows s0..s0+3, a: s0+4..s0+7
		hp := s0 + 8 + 4*rng.IntN(2)
		p := []float64{0, 0.02, 0.2}[trial%3]
		a, b := make([]Cell, 4*(s0+9)), make([]Cell, 4*(s0+5))
		for _, gc := range []struct {
			cells []Cell
			s0    int
		}{{a, s0 + 4}, {b, s0}} {
			for l := range 4 {
				for j := 0; j <= gc.s0+l+1; j++ {
					gc.cells[l*(gc.s0+5)+j] = Cell{val(p), val(p), val(p), val(p)}
				}
			}
		}
		var rv [8 * Wide]float64
		for i := range rv {
			rv[i] = val(p)
		}
		rho := make([]float64, Wide*hp)
		tda := make([]float64, Wide*(hp+1))
		for i := range rho {
			rho[i] = val(p)
		}
		for i := range tda {
			tda[i] = val(p)
		}
		finite := true
		for _, f := range slices.Concat(rho, tda) {
			finite = finite && !math.IsInf(f, 0) && !math.IsNaN(f)
		}
		wantA, wantB := slices.Clone(a), slices.Clone(b)
		m := drawM(rng, trial, tda)
		groupRef(wantA, s0+4, (*[4 * Wide]float64)(rv[4*Wide:]), rho, tda, m)
		groupRef(wantB, s0, (*[4 * Wide]float64)(rv[:4*Wide]), rho, tda, m)
		Flip(a, s0+4) // the kernels take the lanes form
		Flip(b, s0)
		Pair(a, b, s0, &rv, rho, tda, m)
		checkPair(t, trial, s0, m, a, b, wantA, wantB, finite)
	}
}

// TestPairTiny: Pair where the products of ratios shrink through the
// range in which squares turn subnormal (|d| < 2^-511), so that the
// assembly turns to its assist-free squares (ACCZT, past a product below
// 2^-480), against groupRef's plain multiplies bit for bit. Rewards start
// near 2^-490 and every ratio takes 0.4 to 2.0 bits off (0.25 to 0.76),
// so over s0 = 60 lags x sweeps 2^-489 .. 2^-610: through 2^-512 (where
// ACCZT's emulation starts), 2^-537 (below which squares round to 0)
// and on. Cells start at 0 (d = x, as in raw rows), at a tiny shift
// (d = x - C cancels to any magnitude, as in shifted rows) or at a normal
// one; some rewards are 0 (x = 0 stays 0 and is not "tiny").
func TestPairTiny(t *testing.T) {
	if !HasPair() {
		t.Skip("Pair needs AVX-512, which this CPU lacks")
	}
	rng := rand.New(rand.NewPCG(47, 53))
	tiny := func() float64 { return math.Ldexp(1+rng.Float64(), -490) * float64(1-2*rng.IntN(2)) }
	for trial := range 40 {
		s0 := 60 + 4*rng.IntN(3)
		hp := s0 + 8
		a, b := make([]Cell, 4*(s0+9)), make([]Cell, 4*(s0+5))
		for g, cells := range [][]Cell{a, b} {
			gs0 := s0 + 4*(1-g) // a's rows start at s0+4, b's at s0
			for i := range cells {
				if i%(gs0+5) > gs0+i/(gs0+5)+1 {
					continue // padding (j > t) stays 0
				}
				switch trial % 3 {
				case 1: // shifted rows: C near the products
					cells[i].C = math.Ldexp(tiny(), -rng.IntN(120))
				case 2: // a normal shift in some cells
					if rng.IntN(4) == 0 {
						cells[i].C = rng.NormFloat64()
					}
				}
			}
		}
		var rv [8 * Wide]float64
		for i := range rv {
			if rng.IntN(10) > 0 {
				rv[i] = tiny()
			}
		}
		rho := make([]float64, Wide*hp)
		tda := make([]float64, Wide*(hp+1))
		for i := range rho {
			rho[i] = 0.25 + 0.51*rng.Float64()
		}
		for i := range tda {
			tda[i] = rng.NormFloat64()
		}
		wantA, wantB := slices.Clone(a), slices.Clone(b)
		m := drawM(rng, trial, tda)
		groupRef(wantA, s0+4, (*[4 * Wide]float64)(rv[4*Wide:]), rho, tda, m)
		groupRef(wantB, s0, (*[4 * Wide]float64)(rv[:4*Wide]), rho, tda, m)
		subnormal := 0
		for _, c := range slices.Concat(wantA, wantB) {
			if c.S2 != 0 && math.Abs(c.S2) < 0x1p-1022 {
				subnormal++
			}
		}
		if subnormal == 0 {
			t.Fatalf("trial %d: no subnormal S2: the data misses the range it is for", trial)
		}
		Flip(a, s0+4)
		Flip(b, s0)
		Pair(a, b, s0, &rv, rho, tda, m)
		checkPair(t, trial, s0, m, a, b, wantA, wantB, true)
	}
}

// drawM returns the trajectories Pair adds in a trial: every one (even
// trials) or the first 1..7, as in a last block, whose others then get a
// finite tda (Pair's contract).
func drawM(rng *rand.Rand, trial int, tda []float64) int {
	if trial%2 == 0 {
		return Wide
	}
	m := 1 + rng.IntN(Wide-1)
	for i := range tda {
		if i%Wide >= m && (math.IsInf(tda[i], 0) || math.IsNaN(tda[i])) {
			tda[i] = rng.NormFloat64()
		}
	}
	return m
}

// checkPair flips Pair's groups a (rows s0+4..) and b (rows s0..) back
// to the cells form and fails unless every cell has the reference's bits;
// the padding cells (j > t) count only when finite (their zeros hold only
// for finite data).
func checkPair(t *testing.T, trial, s0, m int, a, b, wantA, wantB []Cell, finite bool) {
	t.Helper()
	for _, gc := range []struct {
		name      string
		got, want []Cell
		s0        int
	}{{"a", a, wantA, s0 + 4}, {"b", b, wantB, s0}} {
		Flip(gc.got, gc.s0)
		for i := range gc.got {
			l, j := i/(gc.s0+5), i%(gc.s0+5)
			if j > gc.s0+l+1 && !finite {
				continue
			}
			x, y := gc.got[i], gc.want[i]
			if !sameBits(x.C, y.C) || !sameBits(x.S1, y.S1) || !sameBits(x.S2, y.S2) || !sameBits(x.S3, y.S3) {
				t.Fatalf("trial %d (s0 = %d, m = %d): group %s, row %d, j = %d: %+v, reference %+v", trial, s0, m, gc.name, gc.s0+l, j, x, y)
			}
		}
	}
}
