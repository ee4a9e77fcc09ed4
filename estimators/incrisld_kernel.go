package estimators

// ldKernel4 is ldKernel for the four lags k..k+3 of one run at once, bit
// for bit: rho[L] = rho_{t-k-L} of the run's trajectories, cx, cd and p
// the shifts and partial sums of the four cells. For each trajectory j it
// carries B^j through the four lags in turn (bk[j] ends at B_{k+4}), and
// every cell's sums take the trajectories in the same order, with the same
// operations, as four calls of ldKernel would. The first and last cells of
// a run (the odd and lastOdd ends) go through ldCell here; the pairs
// between them through pairs4 (ldOptions: the AVX2 kernel ldPairs4, one
// lag per vector lane, separate multiplies and adds, no FMA; in the tests
// also ldPairs4Go), with acc as its scratch (kept by the caller: through
// a function value it escapes).
func ldKernel4(pairs4 ldPairs4Func, acc *ldAcc4, rho *[4][]float64, rw, bk []float64, cx, cd []float64, p []ldPart, odd, lastOdd bool) {
	n := len(bk)
	rw = rw[:n]
	for L := range rho {
		rho[L] = rho[L][:n]
	}
	cx, cd, p = cx[:4], cd[:4], p[:4]
	j := 0
	if odd && n > 0 {
		ldEdge4(rho, rw, bk, cx, cd, p, 0, 1)
		j = 1
	}
	end := n
	if lastOdd {
		end--
	}
	if m := (end - j) &^ 1; m > 0 {
		for L := range 4 {
			acc[L], acc[4+L], acc[8+L], acc[12+L], acc[16+L] = p[L].sx, p[L].sd, p[L].ss, p[L].l0, p[L].l1
			acc[20+L], acc[24+L] = cx[L], cd[L]
		}
		pairs4(rho[0][j:], rho[1][j:], rho[2][j:], rho[3][j:], rw[j:], bk[j:], m, acc)
		for L := range 4 {
			p[L].sx, p[L].sd, p[L].ss, p[L].l0, p[L].l1 = acc[L], acc[4+L], acc[8+L], acc[12+L], acc[16+L]
		}
		j += m
	}
	if j < end {
		ldEdge4(rho, rw, bk, cx, cd, p, j, 0)
		j++
	}
	if lastOdd && j < n {
		ldEdge4(rho, rw, bk, cx, cd, p, j, 2)
	}
}

// ldPairs4Func is the inner loop of ldKernel4: m (even) trajectories, in
// pairs whose first goes to lane l0 and second to l1, each through the
// four lags, B^j carried from lag to lag (bk[j] ends at B_{k+4}), with the
// four cells' sums and shifts in acc. Its reference is ldPairs4Go (in
// incrisld_kernel_test.go).
type ldPairs4Func func(rho0, rho1, rho2, rho3, rw, bk []float64, m int, acc *ldAcc4)

// ldAcc4 holds the four cells' partial sums as vectors, one lag per lane:
// sx, sd, ss, l0, l1, then the shifts cx and cd (4 values each).
type ldAcc4 [28]float64

// ldEdge4 adds trajectory j to the four cells as ldKernel does, its
// (X - cx)^2 into lane 0 (l0), 1 (l1) or 2 (last).
func ldEdge4(rho *[4][]float64, rw, bk []float64, cx, cd []float64, p []ldPart, j, lane int) {
	for L := range 4 {
		x, d, dd, a, nb := ldCell(bk[j], rho[L][j], rw[j], cx[L], cd[L])
		q := &p[L]
		q.sx += x
		q.sd += d
		q.ss += float64(dd * dd)
		switch lane {
		case 0:
			q.l0 += float64(a * a)
		case 1:
			q.l1 += float64(a * a)
		default:
			q.last = float64(a * a)
		}
		bk[j] = nb
	}
}
