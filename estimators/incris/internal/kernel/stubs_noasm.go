//go:build noasm || gccgo || !amd64

package kernel

// The Go twins of the assembly kernels (stubs_amd64.go): the same names,
// the same operations in the same order, so the same bits (the package's
// tests compare each with a reference in both builds). Without assembly
// they always run.

// The kernels' names, for the tests' and benchmarks' labels: Go, and
// Group twice for Pair.
const (
	GroupName  = "go"
	PairName   = "go-pairs"
	Pairs4Name = "go"
)

// HasGroup reports whether Group runs here: always, without assembly.
func HasGroup() bool { return true }

// HasPair reports whether Pair runs here: always, without assembly.
func HasPair() bool { return true }

// HasPairs4 reports whether Pairs4 runs here: always, without assembly.
func HasPairs4() bool { return true }

// Group adds the wide block's Wide trajectories to the group of rows
// s0..s0+3 of INCRIS's cells, whose cells (4 rows of s0+5, in lanes form:
// see Flip) are cells. rv[q*4+l] is trajectory q's reward in row s0+l,
// rho and tda the block's interleaved ratios and W_j - aref_j
// (rho[j*Wide+q], j < s0+4; tda[j*Wide+q], j <= s0+4). Every trajectory's
// terms are added, zero rewards included; the padding cells (j > t) stay
// 0 when the ratios and tda are finite. Here it is Go, lane by lane, each
// product rounded on its own (the float64 conversions forbid FMA).
func Group(cells []Cell, s0 int, rv *[4 * Wide]float64, rho, tda []float64) {
	Flip(cells, s0)
	defer Flip(cells, s0)
	const w = Wide
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
			c, s1, s2, s3 := cl.C, cl.S1, cl.S2, cl.S3
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
			cl.S1, cl.S2, cl.S3 = s1, s2, s3
		}
	}
}

// Pair is Group on two groups at once, rows s0+4..s0+7 (cells a, rv's
// second half) and s0..s0+3 (cells b, rv's first half), for the block's
// first m trajectories (1 <= m <= Wide; those after them add nothing
// where their tda is finite): here Group on each, or groupFirst for m < Wide.
func Pair(a, b []Cell, s0 int, rv *[8 * Wide]float64, rho, tda []float64, m int) {
	ra, rb := (*[4 * Wide]float64)(rv[4*Wide:]), (*[4 * Wide]float64)(rv[:4*Wide])
	if m >= Wide {
		Group(a, s0+4, ra, rho, tda)
		Group(b, s0, rb, rho, tda)
		return
	}
	groupFirst(a, s0+4, ra, rho, tda, max(m, 1))
	groupFirst(b, s0, rb, rho, tda, max(m, 1))
}

// groupFirst is Group for the block's first m trajectories only, one at
// a time: each cell still takes them in order.
func groupFirst(cells []Cell, s0 int, rv *[4 * Wide]float64, rho, tda []float64, m int) {
	Flip(cells, s0)
	defer Flip(cells, s0)
	const w = Wide
	rl := s0 + 5
	for l := range 4 {
		t := s0 + l + 1
		row := cells[l*rl : l*rl+t+1]
		for q := range m {
			x := rv[q*4+l]
			for j := t; j >= 0; j-- {
				if j < t {
					x *= rho[j*w+q]
				}
				cl := &row[j]
				d := x - cl.C
				cl.S1 += d
				cl.S2 += float64(d * d)
				cl.S3 += float64(tda[j*w+q] * d)
			}
		}
	}
}

// Pairs4 is Lag4's inner loop (a Pairs4Func): m (even) trajectories, in
// pairs whose first goes to lane L0 and second to L1, each through the
// four lags, B^j carried from lag to lag (bk[j] ends at B_{k+4}), with
// the four cells' sums and shifts in acc. Here it is Go, every product
// rounded on its own.
func Pairs4(rho0, rho1, rho2, rho3, rw, bk []float64, m int, acc *Acc4) {
	rho := [4][]float64{rho0, rho1, rho2, rho3}
	for j := 0; j < m; j++ {
		b := bk[j]
		r := rw[j]
		for L := range 4 {
			f := rho[L][j]
			x := float64(b * r)
			d := float64((f - 1) * x)
			acc[L] += x
			acc[4+L] += d
			dd := d - acc[24+L]
			acc[8+L] += float64(dd * dd)
			a := x - acc[20+L]
			acc[12+4*(j&1)+L] += float64(a * a)
			b = float64(b * f)
		}
		bk[j] = b
	}
}

// Means4 is Means for four lags at once (sx, sd: theirs): here the Go
// twin, means4Go.
func Means4(rho0, rho1, rho2, rho3, rw, bk []float64, sx, sd []float64) {
	means4Go(rho0, rho1, rho2, rho3, rw, bk, sx, sd)
}
