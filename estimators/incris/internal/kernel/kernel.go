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
