package kernel

// Wide is the number of trajectories INCRIS's group kernels (Group, Pair)
// add at a time: the wide block, its x in registers.
const Wide = 8

// Cell holds, for one (t, j = t-k) of INCRIS and the trajectories added so
// far, the sums of d = X - C, d^2 and (A - aref_j) d, where X = B_k r_t,
// A = W_{t-k}, and C is the cell's shift (estimators/incris).
type Cell struct {
	C, S1, S2, S3 float64
}

// Flip switches the group of rows s0..s0+3 (cells: 4 rows of s0+5)
// between the cells form (each cell holds its C, S1, S2, S3) and the lanes
// form: at each j the four cells of the group, (row s0+l, j) for l =
// 0..3, are a 4 x 4 matrix (row l: C, S1, S2, S3), which the lanes form
// holds transposed, so that the cell (s0+l, j) holds component l (C, S1,
// S2 or S3) of the four rows: one vector of four lanes, one lane a row.
// The flip is its own inverse.
func Flip(cells []Cell, s0 int) {
	rl := s0 + 5
	r0, r1, r2, r3 := cells[:rl], cells[rl:2*rl], cells[2*rl:3*rl], cells[3*rl:4*rl]
	for j := range r0 {
		a, b, c, d := &r0[j], &r1[j], &r2[j], &r3[j]
		a.S1, b.C = b.C, a.S1
		a.S2, c.C = c.C, a.S2
		a.S3, d.C = d.C, a.S3
		b.S2, c.S1 = c.S1, b.S2
		b.S3, d.S1 = d.S1, b.S3
		c.S3, d.S2 = d.S2, c.S3
	}
}

// Part holds the partial sums of one (step, lag) cell of incris-ld's pass
// over the current chunk: of X_k (SX), B_k (SB), D_k (SD), (D_k - cd)^2
// (SS), and the lanes of (X_k - cx)^2 in Gemv's order.
type Part struct {
	SX, SB, SD, SS float64
	Lanes
}

// Lanes are the two lanes and the odd last product of a dot product in
// the order of gonum's amd64 Gemv, which incris-ld's first implementation
// called: L0 and L1 take the products at even and odd positions of a
// chunk, Last the last product of a chunk of odd width.
type Lanes struct {
	L0, L1, Last float64
}

// AddRow1 adds one trajectory's terms at step t = len(row)-1 (reward
// r != 0, ratios rho[0..t-1], tda[j] = W_j - aref_j) to the row's cells
// j = 0..t: X = r rho[j] ... rho[t-1], d = X - c, and (A - aref_j) d with
// A = W_j.
//
// AddRow1, add4 and AddRow4 must round alike (the result may not depend on
// the blocking): every product is rounded on its own (float64(...) forbids
// fusing it into an FMA, which some architectures would do).
func AddRow1(row []Cell, r float64, rho, tda []float64) {
	t := len(row) - 1
	rho = rho[:t]
	tda = tda[:t+1]
	x := r
	cl := &row[t]
	d := x - cl.C
	cl.S1 += d
	cl.S2 += float64(d * d)
	cl.S3 += float64(tda[t] * d)
	for j := t - 1; j >= 0; j-- {
		x *= rho[j]
		cl := &row[j]
		d := x - cl.C
		cl.S1 += d
		cl.S2 += float64(d * d)
		cl.S3 += float64(tda[j] * d)
	}
}

// AddRow4 is AddRow1 for four trajectories at once, each cell's sums taking
// the four terms in trajectory order (so the result is that of four
// AddRow1 calls). The rho slices have length >= t = len(row)-1.
func AddRow4(row []Cell, r0, r1, r2, r3 float64, rho0, rho1, rho2, rho3, da0, da1, da2, da3 []float64) {
	t := len(row) - 1
	rho0, rho1, rho2, rho3 = rho0[:t], rho1[:t], rho2[:t], rho3[:t]
	da0, da1, da2, da3 = da0[:t+1], da1[:t+1], da2[:t+1], da3[:t+1]
	x0, x1, x2, x3 := r0, r1, r2, r3
	add4(&row[t], x0, x1, x2, x3, da0[t], da1[t], da2[t], da3[t])
	for j := t - 1; j >= 0; j-- {
		x0 *= rho0[j]
		x1 *= rho1[j]
		x2 *= rho2[j]
		x3 *= rho3[j]
		// add4, inlined by hand (the hot loop)
		cl := &row[j]
		c := cl.C
		d0, d1, d2, d3 := x0-c, x1-c, x2-c, x3-c
		s1 := cl.S1 + d0
		s1 += d1
		s1 += d2
		s1 += d3
		s3 := cl.S3 + float64(da0[j]*d0)
		s3 += float64(da1[j] * d1)
		s3 += float64(da2[j] * d2)
		s3 += float64(da3[j] * d3)
		d0 = float64(d0 * d0)
		d1 = float64(d1 * d1)
		d2 = float64(d2 * d2)
		d3 = float64(d3 * d3)
		s2 := cl.S2 + d0
		s2 += d1
		s2 += d2
		s2 += d3
		cl.S1, cl.S2, cl.S3 = s1, s2, s3
	}
}

// add4 adds four trajectories' terms x (X) and a (A - aref_j), in order, to
// one cell.
func add4(cl *Cell, x0, x1, x2, x3, a0, a1, a2, a3 float64) {
	c := cl.C
	d0, d1, d2, d3 := x0-c, x1-c, x2-c, x3-c
	s1 := cl.S1 + d0
	s1 += d1
	s1 += d2
	s1 += d3
	s3 := cl.S3 + float64(a0*d0)
	s3 += float64(a1 * d1)
	s3 += float64(a2 * d2)
	s3 += float64(a3 * d3)
	s2 := cl.S2 + float64(d0*d0)
	s2 += float64(d1 * d1)
	s2 += float64(d2 * d2)
	s2 += float64(d3 * d3)
	cl.S1, cl.S2, cl.S3 = s1, s2, s3
}
