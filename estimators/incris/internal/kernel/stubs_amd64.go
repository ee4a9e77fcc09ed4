//go:build !noasm && !gccgo

package kernel

import "golang.org/x/sys/cpu"

// The kernels' names, for the tests' and benchmarks' labels: the
// instruction sets of the assembly.
const (
	GroupName  = "avx2"
	PairName   = "avx512"
	Pairs4Name = "avx2"
)

// HasGroup reports whether Group runs here: the CPU has AVX2.
func HasGroup() bool { return cpu.X86.HasAVX2 }

// HasPair reports whether Pair runs here: the CPU has AVX2 and AVX-512.
func HasPair() bool { return cpu.X86.HasAVX2 && cpu.X86.HasAVX512F }

// HasPairs4 reports whether Pairs4 runs here: the CPU has AVX2.
func HasPairs4() bool { return cpu.X86.HasAVX2 }

// Group adds the wide block's Wide trajectories to the group of rows
// s0..s0+3 of INCRIS's cells, whose cells (4 rows of s0+5, in lanes form:
// see Flip) are cells. rv[q*4+l] is trajectory q's reward in row s0+l,
// rho and tda the block's interleaved ratios and W_j - aref_j
// (rho[j*Wide+q], j < s0+4; tda[j*Wide+q], j <= s0+4). Every trajectory's
// terms are added, zero rewards included; the padding cells (j > t) stay
// 0 when the ratios and tda are finite. Here it is groupAVX2, which does
// the Go twin's operations lane by lane, in the same order, separate
// multiplies and adds, no FMA, after checking the bounds the assembly
// relies on. It needs AVX2 (HasGroup).
func Group(cells []Cell, s0 int, rv *[4 * Wide]float64, rho, tda []float64) {
	_ = cells[4*(s0+5)-1]
	_ = rho[(s0+4)*Wide-1]
	_ = tda[(s0+5)*Wide-1]
	groupAVX2(&cells[0], s0, rv, &rho[0], &tda[0])
}

// groupAVX2 is Group with the group's four rows as the four lanes of a
// vector: for each j from s0+4 down to 0 it loads the vectors of C, S1,
// S2, S3 at j (the cells are in lanes form), adds the block's trajectories
// in order, and stores the sums back. Lanes before their row's top cell
// (j > t) hold x = 0 and leave the padding cells at 0.
//
//go:noescape
func groupAVX2(cells *Cell, s0 int, rv *[4 * Wide]float64, rho, tda *float64)

// Pair is Group on two groups at once, rows s0+4..s0+7 (cells a, rv's
// second half) and s0..s0+3 (cells b, rv's first half), for the block's
// first m trajectories (1 <= m <= Wide; those after them add nothing
// where their tda is finite): here pairAVX512, after checking the bounds the
// assembly relies on. It needs AVX-512 (HasPair).
func Pair(a, b []Cell, s0 int, rv *[8 * Wide]float64, rho, tda []float64, m int) {
	_ = a[4*(s0+9)-1]
	_ = b[4*(s0+5)-1]
	_ = rho[(s0+8)*Wide-1]
	_ = tda[(s0+9)*Wide-1]
	var masks [Wide]uint64
	for q := range min(max(m, 1), Wide) {
		masks[q] = ^uint64(0)
	}
	pairAVX512(&a[0], &b[0], s0, rv, &rho[0], &tda[0], &masks)
}

// pairAVX512 is groupAVX2 on two groups at once: the group of rows
// s0+4..s0+7 (a) in the low four lanes of a 512-bit vector, the group of
// rows s0..s0+3 (b) in the high four, wherever both have cells at j;
// trajectory q's terms are added where masks[q] is all ones, and are 0
// where it is 0.
//
//go:noescape
func pairAVX512(a, b *Cell, s0 int, rv *[8 * Wide]float64, rho, tda *float64, masks *[Wide]uint64)

// Pairs4 is Lag4's inner loop (a Pairs4Func): m (even) trajectories, in
// pairs whose first goes to lane L0 and second to L1, each through the
// four lags, B^j carried from lag to lag (bk[j] ends at B_{k+4}), with
// the four cells' sums and shifts in acc. Here pairs4AVX2, which does the
// Go twin's operations lane by lane, in the same order, after checking
// the bounds it relies on. It needs AVX2 (HasPairs4).
func Pairs4(rho0, rho1, rho2, rho3, rw, bk []float64, m int, acc *Acc4) {
	if m <= 0 {
		return
	}
	_, _, _, _, _, _ = rho0[m-1], rho1[m-1], rho2[m-1], rho3[m-1], rw[m-1], bk[m-1]
	pairs4AVX2(&rho0[0], &rho1[0], &rho2[0], &rho3[0], &rw[0], &bk[0], m, acc)
}

//go:noescape
func pairs4AVX2(rho0, rho1, rho2, rho3, rw, bk *float64, m int, acc *Acc4)

// Means4 is Means for four lags at once (sx, sd: theirs): here
// means4AVX2 where the CPU has AVX2 (HasPairs4), which does the Go twin's
// operations (means4Go) lane by lane, one lag per lane, in the same order,
// after checking the bounds it relies on; else the Go twin.
func Means4(rho0, rho1, rho2, rho3, rw, bk []float64, sx, sd []float64) {
	m := len(bk)
	if m == 0 || !HasPairs4() {
		means4Go(rho0, rho1, rho2, rho3, rw, bk, sx, sd)
		return
	}
	_, _, _, _, _ = rho0[m-1], rho1[m-1], rho2[m-1], rho3[m-1], rw[m-1]
	_, _ = sx[3], sd[3]
	means4AVX2(&rho0[0], &rho1[0], &rho2[0], &rho3[0], &rw[0], &bk[0], m, &sx[0], &sd[0])
}

//go:noescape
func means4AVX2(rho0, rho1, rho2, rho3, rw, bk *float64, m int, sx, sd *float64)
