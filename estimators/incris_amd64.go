//go:build !noasm

package estimators

import "golang.org/x/sys/cpu"

// incrisDefaultKernels returns INCRIS's kernels: the wide path with the
// AVX2 kernel where the CPU has AVX2, and the AVX-512 kernel for pairs of
// groups where it also has AVX-512; else the scalar path. The choice
// changes the speed, not the bits (every kernel adds the same terms in the
// same order, rounded alike: TestINCRISBitIdentical runs each path).
func incrisDefaultKernels() incrisKernels {
	var k incrisKernels
	if cpu.X86.HasAVX2 {
		k.group = incrisGroup
		if cpu.X86.HasAVX512F {
			k.pair = incrisPair
		}
	}
	return k
}

// incrisGroup is the wide path's kernel: incrisGroupAVX2, which computes
// what incrisGroupGo does, bit for bit (the same operations, lane by lane,
// in the same order; separate multiplies and adds, no FMA), after checking
// the bounds the assembly relies on.
func incrisGroup(cells []incrisCell, s0 int, rv *[4 * incrisWide]float64, rho, tda []float64) {
	_ = cells[4*(s0+5)-1]
	_ = rho[(s0+4)*incrisWide-1]
	_ = tda[(s0+5)*incrisWide-1]
	incrisGroupAVX2(&cells[0], s0, rv, &rho[0], &tda[0])
}

// incrisGroupAVX2 is incrisGroupGo with the group's four rows as the four
// lanes of a vector: for each j from s0+4 down to 0 it loads the vectors
// of c, s1, s2, s3 at j (the cells are in lanes form), adds the block's
// trajectories in order, and stores the sums back. Lanes before their
// row's top cell (j > t) hold x = 0 and leave the padding cells at 0.
//
//go:noescape
func incrisGroupAVX2(cells *incrisCell, s0 int, rv *[4 * incrisWide]float64, rho, tda *float64)

// incrisPair is the wide path's kernel for two groups, rows s0..s0+3
// (cells b) and s0+4..s0+7 (cells a), rv holding b's rewards then a's:
// incrisPairAVX512, which computes what incrisGroupGo does on each group,
// bit for bit, after checking the bounds the assembly relies on.
func incrisPair(a, b []incrisCell, s0 int, rv *[8 * incrisWide]float64, rho, tda []float64) {
	_ = a[4*(s0+9)-1]
	_ = b[4*(s0+5)-1]
	_ = rho[(s0+8)*incrisWide-1]
	_ = tda[(s0+9)*incrisWide-1]
	incrisPairAVX512(&a[0], &b[0], s0, rv, &rho[0], &tda[0])
}

// incrisPairAVX512 is incrisGroupAVX2 on two groups at once: the group of
// rows s0+4..s0+7 (a) in the low four lanes of a 512-bit vector, the group
// of rows s0..s0+3 (b) in the high four, wherever both have cells at j.
//
//go:noescape
func incrisPairAVX512(a, b *incrisCell, s0 int, rv *[8 * incrisWide]float64, rho, tda *float64)
