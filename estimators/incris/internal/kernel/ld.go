package kernel

// The inner loops of incris-ld's passes (SPEC 1b) over a run of active
// trajectories: plain Go with a fixed order of operations, so that every
// build gives the same bits. Every product that feeds an addition is
// rounded first (the float64 conversions: the Go spec lets a compiler
// fuse x*y + z, even across statements, and the arm64 one does). Only
// Lag4's inner loop (Pairs4) may be assembly, doing the same operations
// in the same order.

import (
	"math"

	"github.com/ope-lab/longhorizon/estimators/internal/weights"
)

// ldCell is one (trajectory, lag) cell of the pass: X = B r, D = (rho - 1)
// X, D and X shifted, and B times rho.
func ldCell(b, f, r, cx, cd float64) (x, d, dd, a, nb float64) {
	x = float64(b * r)
	d = float64((f - 1) * x)
	dd = d - cd
	a = x - cx
	nb = float64(b * f)
	return
}

// Lag is the inner loop of the pass for one lag over a run of active
// trajectories, without counts or checks: with rho = rho_{t-k} (fm = rho -
// 1), r = rw[j] and B_k = bk[j], it adds X_k, D_k, (D_k - cd)^2 and (X_k
// - cx)^2 (into Gemv's lanes by the parity of the position in the chunk;
// odd: the run starts at an odd position; lastOdd: its last trajectory is
// the last of a chunk of odd width) to p and moves bk[j] on to B_{k+1}.
// (The sums of B_k wait for k*: bsums.)
func Lag(rho, fm, rw, bk []float64, cx, cd float64, p *Part, odd, lastOdd bool) {
	n := len(rho)
	fm, rw, bk = fm[:n], rw[:n], bk[:n]
	sx, sd, ss, l0, l1 := p.SX, p.SD, p.SS, p.L0, p.L1
	j := 0
	if odd && n > 0 {
		x, d, dd, a, nb := ldCell(bk[0], rho[0], rw[0], cx, cd)
		sx += x
		sd += d
		ss += float64(dd * dd)
		l1 += float64(a * a)
		bk[0] = nb
		j = 1
	}
	end := n
	if lastOdd {
		end--
	}
	for ; j+1 < end; j += 2 {
		b0, b1 := bk[j], bk[j+1]
		x0 := float64(b0 * rw[j])
		d0 := float64(fm[j] * x0)
		sx += x0
		sd += d0
		dd0 := d0 - cd
		ss += float64(dd0 * dd0)
		a0 := x0 - cx
		l0 += float64(a0 * a0)
		bk[j] = float64(b0 * rho[j])
		x1 := float64(b1 * rw[j+1])
		d1 := float64(fm[j+1] * x1)
		sx += x1
		sd += d1
		dd1 := d1 - cd
		ss += float64(dd1 * dd1)
		a1 := x1 - cx
		l1 += float64(a1 * a1)
		bk[j+1] = float64(b1 * rho[j+1])
	}
	if j < end {
		x, d, dd, a, nb := ldCell(bk[j], rho[j], rw[j], cx, cd)
		sx += x
		sd += d
		ss += float64(dd * dd)
		l0 += float64(a * a)
		bk[j] = nb
		j++
	}
	if lastOdd && j < n {
		x, d, dd, a, nb := ldCell(bk[j], rho[j], rw[j], cx, cd)
		sx += x
		sd += d
		ss += float64(dd * dd)
		p.Last = float64(a * a)
		bk[j] = nb
	}
	p.SX, p.SD, p.SS, p.L0, p.L1 = sx, sd, ss, l0, l1
}

// LagGeneral is Lag with the counts of nonzero and of negative
// increments and, with check set, bad = some product of ratios left the
// normal float64 range (overflow, or a subnormal or zero product of
// nonzero factors).
func LagGeneral(rho, rw, bk []float64, cx, cd float64, p *Part, odd, lastOdd, check bool) (cn, ng int, bad bool) {
	n := len(rho)
	rw, bk = rw[:n], bk[:n]
	sx, sd, ss := p.SX, p.SD, p.SS
	lane := [2]float64{p.L0, p.L1}
	par := 0
	if odd {
		par = 1
	}
	for j, f := range rho {
		b := bk[j]
		x, d, dd, a, nb := ldCell(b, f, rw[j], cx, cd)
		sx += x
		sd += d
		ss += float64(dd * dd)
		if lastOdd && j == n-1 {
			p.Last = float64(a * a)
		} else {
			lane[par] += float64(a * a)
		}
		par ^= 1
		if d != 0 {
			cn++
			ng += int(math.Float64bits(d) >> 63)
		}
		if check && weights.LeftNormal(nb, f, b) {
			bad = true
		}
		bk[j] = nb
	}
	p.SX, p.SD, p.SS, p.L0, p.L1 = sx, sd, ss, lane[0], lane[1]
	return cn, ng, bad
}

// Top is the pass's last lag, k = t: it adds X_t and (X_t - cx)^2.
func Top(rw, bk []float64, cx float64, p *Part, odd, lastOdd bool) {
	n := len(bk)
	rw = rw[:n]
	sx := p.SX
	lane := [2]float64{p.L0, p.L1}
	par := 0
	if odd {
		par = 1
	}
	for j, b := range bk {
		x := float64(b * rw[j])
		sx += x
		a := x - cx
		if lastOdd && j == n-1 {
			p.Last = float64(a * a)
		} else {
			lane[par] += float64(a * a)
		}
		par ^= 1
	}
	p.SX, p.L0, p.L1 = sx, lane[0], lane[1]
}

// Means adds X_k and D_k of a run to *sx and *sd (the shifts' sums) and
// moves bk on to B_{k+1}.
func Means(rho, rw, bk []float64, sx, sd *float64) {
	n := len(rho)
	rw, bk = rw[:n], bk[:n]
	x0, d0 := *sx, *sd
	for j, f := range rho {
		bj := bk[j]
		x := float64(bj * rw[j])
		x0 += x
		d0 += float64((f - 1) * x)
		bk[j] = float64(bj * f)
	}
	*sx, *sd = x0, d0
}

// means4Go is Means4 in Go: Means for four lags at once, trajectory by
// trajectory, B carried through the four lags.
func means4Go(rho0, rho1, rho2, rho3, rw, bk []float64, sx, sd []float64) {
	n := len(bk)
	rho0, rho1, rho2, rho3, rw = rho0[:n], rho1[:n], rho2[:n], rho3[:n], rw[:n]
	sx, sd = sx[:4], sd[:4]
	x0, x1, x2, x3 := sx[0], sx[1], sx[2], sx[3]
	d0, d1, d2, d3 := sd[0], sd[1], sd[2], sd[3]
	for j, bj := range bk {
		r := rw[j]
		f := rho0[j]
		x := float64(bj * r)
		x0 += x
		d0 += float64((f - 1) * x)
		bj = float64(bj * f)
		f = rho1[j]
		x = float64(bj * r)
		x1 += x
		d1 += float64((f - 1) * x)
		bj = float64(bj * f)
		f = rho2[j]
		x = float64(bj * r)
		x2 += x
		d2 += float64((f - 1) * x)
		bj = float64(bj * f)
		f = rho3[j]
		x = float64(bj * r)
		x3 += x
		d3 += float64((f - 1) * x)
		bk[j] = float64(bj * f)
	}
	sx[0], sx[1], sx[2], sx[3] = x0, x1, x2, x3
	sd[0], sd[1], sd[2], sd[3] = d0, d1, d2, d3
}

// BSum4 adds B_k .. B_{k+3} of a run to *s0 .. *s3, B_{k+q} = B_{k+q-1}
// rho_q (bk holds B_{k-1}, and B_{k+3} after).
func BSum4(r0, r1, r2, r3, bk []float64, s0, s1, s2, s3 *float64) {
	n := len(bk)
	r0, r1, r2, r3 = r0[:n], r1[:n], r2[:n], r3[:n]
	a0, a1, a2, a3 := *s0, *s1, *s2, *s3
	for j, b := range bk {
		b = float64(b * r0[j])
		a0 += b
		b = float64(b * r1[j])
		a1 += b
		b = float64(b * r2[j])
		a2 += b
		b = float64(b * r3[j])
		a3 += b
		bk[j] = b
	}
	*s0, *s1, *s2, *s3 = a0, a1, a2, a3
}

// regenGo is Regen in Go: one lag of the pass over a run regenerated,
// a[j] = X_k - cx with X_k = B_k r, and bk[j] moved on to B_{k+1} (unless
// rho is nil: the last lag), with the products of Lag.
func regenGo(rho, rw, bk []float64, cx float64, a []float64) {
	n := len(bk)
	rw, a = rw[:n], a[:n]
	if rho == nil {
		for j, b := range bk {
			x := float64(b * rw[j])
			a[j] = x - cx
		}
		return
	}
	rho = rho[:n]
	for j, b := range bk {
		x := float64(b * rw[j])
		a[j] = x - cx
		bk[j] = float64(b * rho[j])
	}
}

// chain2Go is Chain2 in Go: bk moved on by two lags, B_{k+2} = (B_k
// rho0) rho1.
func chain2Go(rho0, rho1, bk []float64) {
	n := len(bk)
	rho0, rho1 = rho0[:n], rho1[:n]
	for j, b := range bk {
		bk[j] = b * rho0[j] * rho1[j]
	}
}

// regen2Go is Regen2 in Go: regenGo for two lags at once.
func regen2Go(rho0, rho1, rw, bk []float64, cx0, cx1 float64, a0, a1 []float64) {
	n := len(bk)
	rho0, rho1, rw, a0, a1 = rho0[:n], rho1[:n], rw[:n], a0[:n], a1[:n]
	for j, b := range bk {
		r := rw[j]
		x := float64(b * r)
		a0[j] = x - cx0
		b = float64(b * rho0[j])
		x = float64(b * r)
		a1[j] = x - cx1
		bk[j] = float64(b * rho1[j])
	}
}

// DotLanes adds the products x[j] * a[j] of a run to the lanes of en by
// the parity of their positions (see Lag for odd and lastOdd).
func DotLanes(x, a []float64, en *Lanes, odd, lastOdd bool) {
	n := len(x)
	a = a[:n]
	l0, l1 := en.L0, en.L1
	j := 0
	if odd && n > 0 {
		l1 += float64(a[0] * x[0])
		j = 1
	}
	end := n
	if lastOdd {
		end--
	}
	for ; j+1 < end; j += 2 {
		l0 += float64(a[j] * x[j])
		l1 += float64(a[j+1] * x[j+1])
	}
	if j < end {
		l0 += float64(a[j] * x[j])
		j++
	}
	if lastOdd && j < n {
		en.Last = float64(a[j] * x[j])
	}
	en.L0, en.L1 = l0, l1
}

// DotLanes4 is DotLanes for four entries with the same row x.
func DotLanes4(x, a0, a1, a2, a3 []float64, e0, e1, e2, e3 *Lanes, odd, lastOdd bool) {
	n := len(x)
	a0, a1, a2, a3 = a0[:n], a1[:n], a2[:n], a3[:n]
	p0, p1, p2, p3 := e0.L0, e1.L0, e2.L0, e3.L0
	q0, q1, q2, q3 := e0.L1, e1.L1, e2.L1, e3.L1
	j := 0
	if odd && n > 0 {
		q0 += float64(a0[0] * x[0])
		q1 += float64(a1[0] * x[0])
		q2 += float64(a2[0] * x[0])
		q3 += float64(a3[0] * x[0])
		j = 1
	}
	end := n
	if lastOdd {
		end--
	}
	for ; j+1 < end; j += 2 {
		x0, x1 := x[j], x[j+1]
		p0 += float64(a0[j] * x0)
		q0 += float64(a0[j+1] * x1)
		p1 += float64(a1[j] * x0)
		q1 += float64(a1[j+1] * x1)
		p2 += float64(a2[j] * x0)
		q2 += float64(a2[j+1] * x1)
		p3 += float64(a3[j] * x0)
		q3 += float64(a3[j+1] * x1)
	}
	if j < end {
		p0 += float64(a0[j] * x[j])
		p1 += float64(a1[j] * x[j])
		p2 += float64(a2[j] * x[j])
		p3 += float64(a3[j] * x[j])
		j++
	}
	if lastOdd && j < n {
		e0.Last = float64(a0[j] * x[j])
		e1.Last = float64(a1[j] * x[j])
		e2.Last = float64(a2[j] * x[j])
		e3.Last = float64(a3[j] * x[j])
	}
	e0.L0, e1.L0, e2.L0, e3.L0 = p0, p1, p2, p3
	e0.L1, e1.L1, e2.L1, e3.L1 = q0, q1, q2, q3
}

// Lag4 is Lag for the four lags k..k+3 of one run at once, bit
// for bit: rho[L] = rho_{t-k-L} of the run's trajectories, cx, cd and p
// the shifts and partial sums of the four cells. For each trajectory j it
// carries B^j through the four lags in turn (bk[j] ends at B_{k+4}), and
// every cell's sums take the trajectories in the same order, with the same
// operations, as four calls of Lag would. The first and last cells of
// a run (the odd and lastOdd ends) go through ldCell here; the pairs
// between them through pairs4 (Pairs4: the AVX2 kernel, one lag per vector
// lane, separate multiplies and adds, no FMA, or its Go twin), with acc
// as its scratch (kept by the caller: through a function value it
// escapes).
func Lag4(pairs4 Pairs4Func, acc *Acc4, rho *[4][]float64, rw, bk []float64, cx, cd []float64, p []Part, odd, lastOdd bool) {
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
			acc[L], acc[4+L], acc[8+L], acc[12+L], acc[16+L] = p[L].SX, p[L].SD, p[L].SS, p[L].L0, p[L].L1
			acc[20+L], acc[24+L] = cx[L], cd[L]
		}
		pairs4(rho[0][j:], rho[1][j:], rho[2][j:], rho[3][j:], rw[j:], bk[j:], m, acc)
		for L := range 4 {
			p[L].SX, p[L].SD, p[L].SS, p[L].L0, p[L].L1 = acc[L], acc[4+L], acc[8+L], acc[12+L], acc[16+L]
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

// Pairs4Func is the inner loop of Lag4: m (even) trajectories, in
// pairs whose first goes to lane l0 and second to l1, each through the
// four lags, B^j carried from lag to lag (bk[j] ends at B_{k+4}), with the
// four cells' sums and shifts in acc: Pairs4, or a test's reference.
type Pairs4Func func(rho0, rho1, rho2, rho3, rw, bk []float64, m int, acc *Acc4)

// Acc4 holds the four cells' partial sums as vectors, one lag per lane:
// sx, sd, ss, l0, l1, then the shifts cx and cd (4 values each).
type Acc4 [28]float64

// ldEdge4 adds trajectory j to the four cells as Lag does, its
// (X - cx)^2 into lane 0 (l0), 1 (l1) or 2 (last).
func ldEdge4(rho *[4][]float64, rw, bk []float64, cx, cd []float64, p []Part, j, lane int) {
	for L := range 4 {
		x, d, dd, a, nb := ldCell(bk[j], rho[L][j], rw[j], cx[L], cd[L])
		q := &p[L]
		q.SX += x
		q.SD += d
		q.SS += float64(dd * dd)
		switch lane {
		case 0:
			q.L0 += float64(a * a)
		case 1:
			q.L1 += float64(a * a)
		default:
			q.Last = float64(a * a)
		}
		bk[j] = nb
	}
}

// Chain moves bk on by one lag: B_{k+1} = B_k rho.
func Chain(rho, bk []float64) {
	rho = rho[:len(bk)]
	for j, b := range bk {
		bk[j] = b * rho[j]
	}
}
