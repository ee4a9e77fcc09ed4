package kernel

// incris-ld's small pure helpers: Gemv's order for the covariances' dot
// products, the Lepski comparison, and rule 3's sums over the inactive
// trajectories.

import (
	"math"
	"math/bits"

	"github.com/ope-lab/longhorizon/estimators/internal/weights"
)

// LepskiZ is z_L, the Lepski comparison's multiple of the standard error
// (SPEC 1b, rule 2): part of incris-ld's definition, not a tuning knob.
const LepskiZ = 2.0

// Fails is incris-ld's Lepski comparison (SPEC 1b, rule 2) of lags k and
// k2: their means mk and mk2 differ by more than LepskiZ standard errors
// of their difference, with S_kk, S_k2k2 and S_kk2 as given, over nf
// (< 2^60) trajectories.
func Fails(skk, s22, s12, mk, mk2, nf float64) bool {
	v := max(skk+s22-2*s12, 0)
	d := math.Abs(mk2 - mk)
	// The comparison is d > 2 sqrt(q) (LepskiZ = 2), q = v/nf, both
	// rounded; without the division and the square root where v is
	// clearly on one side of nf (d/2)^2, else as written. With h = d/2 and
	// t = (h h) nf rounded, t = h^2 nf (1 +- u)^2, u = 2^-53 (h^2 > 2^-1010
	// is normal, and h = d/2 exact, when t > 2^-950 and nf < 2^60: nf
	// counts trajectories): v < t (1 - 2^-40) gives q < h^2 (1 - 2^-42),
	// so sqrt(q) rounded < h; v > t (1 + 2^-40) gives q > h^2 (1 + 2^-42),
	// so sqrt(q) rounded > h. TestLDFailsFast (package incris) checks it
	// against the expression at and around the margins.
	h := d * 0.5
	if t := float64(h*h) * nf; t > 0x1p-950 && t < 0x1p990 {
		if v < float64(t*(1-0x1p-40)) {
			return true
		}
		if v > float64(t*(1+0x1p-40)) {
			return false
		}
	}
	return d > LepskiZ*math.Sqrt(v/nf)
}

// Combine is Gemv's (gonum's amd64 GemvN) dot product of one row from
// its two lanes (even and odd columns) and, when the number of columns is
// odd, the last column's product: added after the lanes are summed, or,
// in the one-row tail of the call (tail), to the even lane first.
func Combine(l0, l1, last float64, odd, tail bool) float64 {
	if !odd {
		return l0 + l1
	}
	if tail {
		return (l0 + last) + l1
	}
	return (l0 + l1) + last
}

// GemvY is Gemv's y = beta y + alpha dot with beta = 0 for the first
// chunk (c = 0: y cleared, then 0*0 + alpha dot) and 1 after.
func GemvY(y float64, c int, alpha, dot float64) float64 {
	ad := float64(alpha * dot)
	if c == 0 {
		return 0 + ad
	}
	return y + ad
}

// Gather returns row[idx[j]] in buf.
func Gather(row []float64, idx []int, buf []float64) []float64 {
	buf = buf[:len(idx)]
	for j, i := range idx {
		buf[j] = row[i]
	}
	return buf
}

// InactiveB returns sum_i B^i_k at step index s over the inactive
// trajectories among the first n of a batch (trajectory i's steps at
// off[i] .. off[i+1]-1 of reward and ratio; nact of them are active:
// still running, with a nonzero reward), ratios 1 after a trajectory's end, in
// trajectory order, each product multiplied from rho_t backwards (incris-ld,
// SPEC 1b, rule 3). It reports false when a product leaves the normal
// float64 range.
func InactiveB(off []int, reward, ratio []float64, n, nact, s, k int) (float64, bool) {
	if k == 0 {
		return float64(n - nact), true
	}
	sum := 0.0
	off = off[:n+1]
	for i := range n {
		start, end := off[i], off[i+1]
		l := end - start
		if s < l && reward[start+s] != 0 {
			continue // active
		}
		// Past a trajectory's end its ratios are 1, and bj*1 == bj
		// exactly (bj stays normal, or the loop has returned), so the
		// product starts at its last real ratio: the same bits.
		bj := 1.0
		for q := min(s, l-1); q > s-k; q-- {
			f := ratio[start+q]
			nb := bj * f
			if weights.LeftNormal(nb, f, bj) {
				return 0, false
			}
			bj = nb
		}
		sum += bj
	}
	return sum, true
}

// Run describes the next run of incris-ld's sweeps: l active trajectories
// from position pos on, within one chunk of ldChunk (c, at offset off, of
// width cw; nact active in all) and
// not past position cut. lastOdd: the run's last trajectory is the last
// of a chunk of odd width, or of a prefix's last chunk of odd width (at
// cut).
func Run(pos, left, nact, cut, ldChunk int) (l, c int, odd, ends, lastOdd, atCut bool) {
	c = pos / ldChunk
	off := pos - c*ldChunk
	cw := min(ldChunk, nact-c*ldChunk)
	l = min(left, cw-off, cut-pos)
	ends = off+l == cw
	atCut = pos+l == cut
	return l, c, off%2 == 1, ends, (off+l)%2 == 1 && (ends || atCut), atCut
}

// BSum adds B_k of a run to *s, B_k = B_{k-1} rho (bk holds B_{k-1}, and
// B_k after).
func BSum(rho, bk []float64, s *float64) {
	rho = rho[:len(bk)]
	sb := *s
	for j, b := range bk {
		b = float64(b * rho[j])
		sb += b
		bk[j] = b
	}
	*s = sb
}

// MarkRatio sets bit j of incris-ld's masks (eq1, lt1, zero: words of 64
// trajectories) for the ratio f >= 0 (or -0): f == 1, f < 1, f == 0.
func MarkRatio(eq1, lt1, zero []uint64, j int, f float64) {
	// Without branches: u is f's bits without the sign; f < 1 iff u <
	// one, f == 0 iff u == 0, f == 1 iff u == one.
	const one = 0x3ff0000000000000 << 1
	u := math.Float64bits(f) << 1
	sh := uint(j & 63)
	lt1[j>>6] |= (u - one) >> 63 << sh
	zero[j>>6] |= ((u|-u)>>63 ^ 1) << sh
	v := u ^ one
	eq1[j>>6] |= ((v|-v)>>63 ^ 1) << sh
}

// CountMasks returns the numbers of nonzero and of negative increments of
// one lag from the masks (MarkRatio) of its ratios and of the run's
// trajectories still alive (no zero ratio yet: cleared here for the next
// lag) and with a negative reward (rneg).
func CountMasks(alive, rneg, eq1, lt1, zero []uint64) (c, ng int) {
	for w, a := range alive {
		nz := a &^ eq1[w]
		c += bits.OnesCount64(nz)
		ng += bits.OnesCount64(nz & (lt1[w] ^ rneg[w]))
		alive[w] = a &^ zero[w]
	}
	return c, ng
}

// KeptLag is rule 1 of SPEC 1b for one lag of a step of n trajectories:
// the mean increment dk, the centred sum of squares ss of the
// increments, their numbers of nonzero (c) and negative (neg) values, and
// z = z_k. With guard, rule 1(b) also keeps a powerless lag whose
// nonzero increments share one sign.
func KeptLag(dk, ss, z float64, c, neg, n int, guard bool) bool {
	nf := float64(n)
	se := math.Sqrt(ss / (nf - 1) / nf)
	if math.Abs(dk) > z*se && dk != 0 {
		return true // (a) significant
	}
	if !guard {
		return false
	}
	// (b) no power: with c nonzero values out of n, |t| <= sqrt(c(n-1)/(n-c)).
	return c > 0 && c < n && math.Sqrt(float64(c)*(nf-1)/float64(n-c)) < z &&
		(neg == 0 || neg == c)
}

// ScanRow holds the values of one Lepski row k that scanRow (package
// incris) compares with every later lag k2: S_kk, rho sqrt(Y_kk) (the
// Cauchy-Schwarz factor), the mean of X_k, nf, and syr's factors of row k
// (0: no correction).
type ScanRow struct {
	Skk, Sqk, Mk, Nf, Tmp1, Tmp2 float64
}

// Unknown is an undecided Lepski comparison of a row k with lag K2, and
// its likelihood of failing (incris-ld's scanRow).
type Unknown struct {
	K2    int
	Score float64
}

// syr is scanRow's rank-1 corrections of row p applied to y, with the
// lag's cx and dm.
func (p *ScanRow) syr(y, cx, dm float64) float64 {
	if p.Tmp1 != 0 {
		y += float64(cx * p.Tmp1)
	}
	if p.Tmp2 != 0 {
		y += float64(dm * p.Tmp2)
	}
	return y
}

// scanClassGo is ScanClass in Go, lag by lag, as scanRow did it.
func scanClassGo(p *ScanRow, k2 int, sd, sq, mean, cx, dm []float64, unk []Unknown) ([]Unknown, int) {
	n := len(sd)
	sq, mean, cx, dm = sq[:n], mean[:n], cx[:n], dm[:n]
	for i := range n {
		bnd := float64(p.Sqk*sq[i]) + 0x1p-1000
		if !Fails(p.Skk, sd[i], p.syr(bnd, cx[i], dm[i]), p.Mk, mean[i], p.Nf) {
			continue // passes
		}
		if Fails(p.Skk, sd[i], p.syr(-bnd, cx[i], dm[i]), p.Mk, mean[i], p.Nf) {
			return unk, i
		}
		unk = append(unk, Unknown{K2: k2 + i})
	}
	return unk, -1
}
