package estimators

// The wide path's kernels in Go: the reference the assembly kernels are
// tested against (TestINCRISGroupKernel, TestINCRISPairKernel), and the
// wide path's kernels in the tests when there is no assembly.

// incrisGroupGo is the vector kernel (incrisGroup) in Go, lane by lane: it
// adds the wide block's incrisWide trajectories to the group of rows
// s0..s0+3, whose cells (4 rows of s0+5, in lanes form: see flipGroup)
// are cells. rv[q*4+l] is trajectory q's reward in row s0+l, rho and tda
// the block's interleaved ratios and W_j - aref_j. Every trajectory's terms
// are added, zero rewards included (which add nothing; see wideBlock). The
// padding cells (j > t) stay 0, as in the vector kernel.
func incrisGroupGo(cells []incrisCell, s0 int, rv *[4 * incrisWide]float64, rho, tda []float64) {
	flipGroup(cells, s0)
	defer flipGroup(cells, s0)
	const w = incrisWide
	rl := s0 + 5
	for l := range 4 {
		t := s0 + l + 1
		row := cells[l*rl : l*rl+t+1]
		rho := rho[:t*w]
		tda := tda[:(t+1)*w]
		x0, x1, x2, x3 := rv[l], rv[4+l], rv[8+l], rv[12+l]
		x4, x5, x6, x7 := rv[16+l], rv[20+l], rv[24+l], rv[28+l]
		for j := t; j >= 0; j-- {
			if j < t {
				f := rho[j*w : j*w+w]
				x0 *= f[0]
				x1 *= f[1]
				x2 *= f[2]
				x3 *= f[3]
				x4 *= f[4]
				x5 *= f[5]
				x6 *= f[6]
				x7 *= f[7]
			}
			a := tda[j*w : j*w+w]
			cl := &row[j]
			c, s1, s2, s3 := cl.c, cl.s1, cl.s2, cl.s3
			d := x0 - c
			s1 += d
			s2 += float64(d * d)
			s3 += float64(a[0] * d)
			d = x1 - c
			s1 += d
			s2 += float64(d * d)
			s3 += float64(a[1] * d)
			d = x2 - c
			s1 += d
			s2 += float64(d * d)
			s3 += float64(a[2] * d)
			d = x3 - c
			s1 += d
			s2 += float64(d * d)
			s3 += float64(a[3] * d)
			d = x4 - c
			s1 += d
			s2 += float64(d * d)
			s3 += float64(a[4] * d)
			d = x5 - c
			s1 += d
			s2 += float64(d * d)
			s3 += float64(a[5] * d)
			d = x6 - c
			s1 += d
			s2 += float64(d * d)
			s3 += float64(a[6] * d)
			d = x7 - c
			s1 += d
			s2 += float64(d * d)
			s3 += float64(a[7] * d)
			cl.s1, cl.s2, cl.s3 = s1, s2, s3
		}
	}
}

// incrisPairGo is incrisPair in Go: incrisGroupGo on each of the two
// groups, rows s0+4..s0+7 (cells a, the second half of rv) and s0..s0+3
// (cells b).
func incrisPairGo(a, b []incrisCell, s0 int, rv *[8 * incrisWide]float64, rho, tda []float64) {
	incrisGroupGo(a, s0+4, (*[4 * incrisWide]float64)(rv[4*incrisWide:]), rho, tda)
	incrisGroupGo(b, s0, (*[4 * incrisWide]float64)(rv[:4*incrisWide]), rho, tda)
}
