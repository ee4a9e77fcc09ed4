package kernel

// Eight lags of incris-ld's pass at a time (Lag8): the pass's sums need
// every cell's trajectories in order, so the lags, not the trajectories,
// share a vector; Pairs8 (AVX-512 where the CPU has it) multiplies B along
// eight trajectories a vector and transposes it to one trajectory's eight
// lags a vector.

// Pairs8Func is the inner loop of Lag8: the m trajectories j0 .. j0+m-1
// (m a multiple of 8), in pairs whose first goes to lane L0 and second to
// L1, each through the eight lags (rows[L][j] = rho_{t-k-L} of trajectory
// j), B^j carried from lag to lag (bk[j] ends at B_{k+8}), with the eight
// cells' sums and shifts in acc: Pairs8, or its Go twin. (rows and acc
// escape through the function value: the caller keeps them.)
type Pairs8Func func(rows *[8][]float64, j0, m int, rw, bk []float64, acc *Acc8)

// Acc8 holds the eight cells' partial sums as vectors, one lag per lane:
// sx, sd, ss, l0, l1, then the shifts cx and cd (8 values each).
type Acc8 [56]float64

// pairs8Go is Pairs8 in Go, trajectory by trajectory, every product
// rounded on its own: the operations Lag does for each of the eight lags,
// in the same order.
func pairs8Go(rows *[8][]float64, j0, m int, rw, bk []float64, acc *Acc8) {
	for j := j0; j < j0+m; j++ {
		b := bk[j]
		r := rw[j]
		for L := range 8 {
			f := rows[L][j]
			x := float64(b * r)
			d := float64((f - 1) * x)
			acc[L] += x
			acc[8+L] += d
			dd := d - acc[48+L]
			acc[16+L] += float64(dd * dd)
			a := x - acc[40+L]
			acc[24+8*((j-j0)&1)+L] += float64(a * a)
			b = float64(b * f)
		}
		bk[j] = b
	}
}

// Lag8 is Lag for the eight lags k..k+7 of one run at once, bit for bit,
// as Lag4 is for four: rho[L] = rho_{t-k-L} of the run's trajectories, cx,
// cd and p the shifts and partial sums of the eight cells. The first and
// last cells of a run (the odd and lastOdd ends) go through ldEdge4, the
// pairs between them through pairs8 in multiples of 8 trajectories and
// the last pairs through pairs4 (lags k..k+3, then k+4..k+7: B^j carried
// through bk), with acc and acc4 as their scratch.
func Lag8(pairs8 Pairs8Func, pairs4 Pairs4Func, acc *Acc8, acc4 *Acc4, rho *[8][]float64, rw, bk []float64, cx, cd []float64, p []Part, odd, lastOdd bool) {
	n := len(bk)
	rw = rw[:n]
	for L := range rho {
		rho[L] = rho[L][:n]
	}
	cx, cd, p = cx[:8], cd[:8], p[:8]
	lo, hi := (*[4][]float64)(rho[:4]), (*[4][]float64)(rho[4:])
	edge := func(j, lane int) {
		ldEdge4(lo, rw, bk, cx[:4], cd[:4], p[:4], j, lane)
		ldEdge4(hi, rw, bk, cx[4:], cd[4:], p[4:], j, lane)
	}
	j := 0
	if odd && n > 0 {
		edge(0, 1)
		j = 1
	}
	end := n
	if lastOdd {
		end--
	}
	m := (end - j) &^ 1
	if m8 := m &^ 7; m8 > 0 {
		for L := range 8 {
			acc[L], acc[8+L], acc[16+L], acc[24+L], acc[32+L] = p[L].SX, p[L].SD, p[L].SS, p[L].L0, p[L].L1
			acc[40+L], acc[48+L] = cx[L], cd[L]
		}
		pairs8(rho, j, m8, rw, bk, acc)
		for L := range 8 {
			p[L].SX, p[L].SD, p[L].SS, p[L].L0, p[L].L1 = acc[L], acc[8+L], acc[16+L], acc[24+L], acc[32+L]
		}
		j += m8
		m -= m8
	}
	if m > 0 {
		for h, rh := range []*[4][]float64{lo, hi} {
			q := p[4*h : 4*h+4]
			for L := range 4 {
				acc4[L], acc4[4+L], acc4[8+L], acc4[12+L], acc4[16+L] = q[L].SX, q[L].SD, q[L].SS, q[L].L0, q[L].L1
				acc4[20+L], acc4[24+L] = cx[4*h+L], cd[4*h+L]
			}
			pairs4(rh[0][j:], rh[1][j:], rh[2][j:], rh[3][j:], rw[j:], bk[j:], m, acc4)
			for L := range 4 {
				q[L].SX, q[L].SD, q[L].SS, q[L].L0, q[L].L1 = acc4[L], acc4[4+L], acc4[8+L], acc4[12+L], acc4[16+L]
			}
		}
		j += m
	}
	if j < end {
		edge(j, 0)
		j++
	}
	if lastOdd && j < n {
		edge(j, 2)
	}
}

// DotLanes8 is DotLanes for eight entries at once, entry i with rows x[i]
// and a[i] (of one length) and lanes en[i]: every entry's products in its
// own order, as eight calls of DotLanes would; the pairs between the odd
// and lastOdd ends in multiples of 8 trajectories go through dotPairs8
// (AVX-512 where the CPU has it), with acc (L0 then L1 of the eight
// entries) as its scratch.
func DotLanes8(x, a *[8][]float64, en *[8]*Lanes, acc *[16]float64, odd, lastOdd bool) {
	n := len(x[0])
	for i := range 8 {
		x[i], a[i] = x[i][:n], a[i][:n]
	}
	j := 0
	if odd && n > 0 {
		for i, e := range en {
			e.L1 += float64(a[i][0] * x[i][0])
		}
		j = 1
	}
	end := n
	if lastOdd {
		end--
	}
	if m8 := (end - j) &^ 7; m8 > 0 {
		for i, e := range en {
			acc[i], acc[8+i] = e.L0, e.L1
		}
		dotPairs8(x, a, j, m8, acc)
		for i, e := range en {
			e.L0, e.L1 = acc[i], acc[8+i]
		}
		j += m8
	}
	for ; j+1 < end; j += 2 {
		for i, e := range en {
			e.L0 += float64(a[i][j] * x[i][j])
			e.L1 += float64(a[i][j+1] * x[i][j+1])
		}
	}
	if j < end {
		for i, e := range en {
			e.L0 += float64(a[i][j] * x[i][j])
		}
		j++
	}
	if lastOdd && j < n {
		for i, e := range en {
			e.Last = float64(a[i][j] * x[i][j])
		}
	}
}

// dotPairs8Go is dotPairs8 in Go: the products of the m trajectories j0
// .. j0+m-1 (m a multiple of 8) of the eight entries added to their lanes
// (acc[i]: L0, the even positions from j0; acc[8+i]: L1), in order.
func dotPairs8Go(x, a *[8][]float64, j0, m int, acc *[16]float64) {
	for j := j0; j < j0+m; j += 2 {
		for i := range 8 {
			acc[i] += float64(a[i][j] * x[i][j])
			acc[8+i] += float64(a[i][j+1] * x[i][j+1])
		}
	}
}

// means8Go is Means8 in Go: Means for eight lags at once (rho[L] =
// rho_{t-k-L}), trajectory by trajectory, B carried through the eight
// lags, from trajectory j0 on.
func means8Go(rho *[8][]float64, j0 int, rw, bk []float64, sx, sd []float64) {
	sx, sd = sx[:8], sd[:8]
	for j := j0; j < len(bk); j++ {
		b, r := bk[j], rw[j]
		for L := range 8 {
			f := rho[L][j]
			x := float64(b * r)
			sx[L] += x
			sd[L] += float64((f - 1) * x)
			b = float64(b * f)
		}
		bk[j] = b
	}
}
