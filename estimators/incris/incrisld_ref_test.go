package incris

// The incris-ld implementation as committed before issue 13 (O(n H^3): the
// whole covariance matrix S by a rank-n update per step), kept verbatim
// apart from its names as the reference the rewritten INCRISLD must match
// bit for bit (TestINCRISLDBitIdentical).

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Constants of incris-ld (SPEC 1b). They are part of the estimator's
// definition, not tuning knobs.
const (
	// ldRefAlpha is the level spent over the adjacent-increment tests.
	ldRefAlpha = 0.05
	// ldRefZL is the Lepski comparison's multiple of the standard error.
	ldRefZL = 2.0
	// ldRefChunk is the number of trajectories per rank-ldRefChunk update of the
	// covariance matrix: the chunk of centred values (t+1 rows of ldRefChunk)
	// stays in cache while BLAS works on it.
	ldRefChunk = 512
)

// ldRefEst is `incris-ld` (SPEC 1b): INCRIS's idea of dropping old ratios
// when that costs no bias, with the bias tested one dropped ratio at a time
// and a Lepski comparison between the candidate k.
//
// At step t, with X_k = B_k r_t for k = 0..t (k = number of most recent
// ratios kept), it keeps lag k if the adjacent increment
// D_k = X_{k+1} - X_k = (rho_{t-k} - 1) X_k has a significant mean
// (|delta_k| > z_k se_k with z_k = Phi^{-1}(1 - alpha/(2(k+1)(k+2)))), or,
// with Guard set, if that test had no power and the nonzero D_k share one
// sign; k_D = 1 + the largest kept lag. The Lepski step takes k_L = the
// smallest k whose mean X_k is within z_L standard errors of every mean
// X_{k'}, k' > k, with the standard errors from the sample covariance
// matrix S of (X_0..X_t). Then k* = max(k_D, k_L) and
// r_hat_t = sum_i X^i_{k*} / sum_i B^i_{k*} (0/0 := 0); the estimate is
// sum_t r_hat_t. Trajectories shorter than the horizon are padded with
// r = 0 and rho = 1, and every sum runs over all n.
//
// Cost: O(n H^3) for S, computed per t as a symmetric rank-n update on
// the upper triangle (ldRefSyrkUpper: Syrk's multiply-adds, done by BLAS Gemv
// row by row) of the X values centred at a provisional mean (that of the
// first chunk of trajectories), one update per chunk of ldRefChunk
// trajectories, then rank-1 updates (BLAS Syr) for the trajectories with
// r_t = 0 (X = 0 at every lag, so they need no pass) and for the move from
// the provisional to the sample mean (the shifted-data algorithm: as
// accurate as two-pass centring, and exactly it when one chunk holds every
// trajectory). The rest is O(n H^2), in one pass over the data per t.
// Workspace: O(n H) (the ratios, transposed to step-major order) plus
// O(H^2 + ldRefChunk H). An ldRefEst reuses its workspace: once warm,
// Estimate does not allocate. It is not safe for concurrent use.
type ldRefEst struct {
	// Guard enables rule 1(b), keeping powerless lags whose nonzero
	// increments share one sign (key "incris-ld"; without it
	// "incris-ld-noguard").
	Guard bool

	view weights.View

	z     []float64 // z_k, k = 0..len-1, grown as horizons grow
	kstar []int
	// check: some product of ratios may leave the normal float64 range,
	// so the inner loop checks every one.
	check bool

	// rt[s*n+i] is rho of trajectory i at step index s, 1 after its end.
	rt []float64
	// At the current step: trajectories with r_t != 0 (active) and the
	// others (inactive: X = D = 0 at every lag).
	act, ina []int
	rw       []float64 // r_t of the active trajectories
	bk       []float64 // running B_k, per active or inactive trajectory

	// Per lag k = 0..t: sums over the active trajectories.
	sumX, sumB, sumD, ssD, mean, delta []float64
	cnt, neg                           []int
	cx, cd, dm                         []float64 // shifts of X_k and D_k, mean - shift

	a  []float64 // chunk of centred X: row k holds lag k, stride ldRefChunk
	rc []float64 // the chunk's ratios at one step, when gathered
	s  []float64 // S, upper triangle, (t+1) x (t+1), stride t+1
}

// newLDRef returns an incris-ld estimator; guard selects rule 1(b).
func newLDRef(guard bool) *ldRefEst { return &ldRefEst{Guard: guard} }

// Name returns "incris-ld" or "incris-ld-noguard".
func (e *ldRefEst) Name() string {
	if e.Guard {
		return "incris-ld"
	}
	return "incris-ld-noguard"
}

// KStar returns, for each step t (index t-1), the number of most recent
// ratios kept by the last Estimate call.
func (e *ldRefEst) KStar() []int { return e.kstar }

// AppendDiagnostic implements Reporter: diagnostic 0 is k* (KStar).
func (e *ldRefEst) AppendDiagnostic(dst []float64, d int) []float64 { return appendInts(dst, e.kstar) }

// ldZ returns z_k = Phi^{-1}(1 - alpha/(2(k+1)(k+2))), computed as
// -Phi^{-1}(alpha/(2(k+1)(k+2))) so that it stays accurate for large k.
func ldRefZ(k int) float64 {
	p := ldRefAlpha / (2 * float64(k+1) * float64(k+2))
	return -distuv.UnitNormal.Quantile(p)
}

// grow sizes the workspace for n trajectories and horizon h; it allocates
// only when n or h exceeds every size seen before.
func (e *ldRefEst) grow(n, h int) {
	for k := len(e.z); k < h; k++ {
		e.z = append(e.z, ldRefZ(k))
	}
	if cap(e.kstar) < h {
		e.kstar = make([]int, h)
		m := h + 1
		e.sumX = make([]float64, m)
		e.sumB = make([]float64, m)
		e.sumD = make([]float64, m)
		e.ssD = make([]float64, m)
		e.mean = make([]float64, m)
		e.delta = make([]float64, m)
		e.cx = make([]float64, m)
		e.cd = make([]float64, m)
		e.dm = make([]float64, m)
		e.cnt = make([]int, m)
		e.neg = make([]int, m)
		e.a = make([]float64, m*ldRefChunk)
		e.rc = make([]float64, ldRefChunk)
		e.s = make([]float64, m*m)
	}
	e.kstar = e.kstar[:h]
	if cap(e.rt) < n*h {
		e.rt = make([]float64, n*h)
	}
	e.rt = e.rt[:n*h]
	if cap(e.act) < n {
		e.act = make([]int, 0, n)
		e.ina = make([]int, 0, n)
		e.rw = make([]float64, n)
		e.bk = make([]float64, n)
	}
}

// Estimate returns the incris-ld estimate from b. It needs n >= 2.
func (e *ldRefEst) Estimate(b *trajectory.Batch) (float64, error) {
	b = e.view.Of(b)
	n, h := b.N(), b.Horizon()
	if n < 2 {
		return 0, fmt.Errorf("%s: %w: n = %d, needs n >= 2 for sample variances", e.Name(), estimators.ErrTooFew, n)
	}
	e.prepare(b)
	total := 0.0
	for s := 0; s < h; s++ {
		r, err := e.step(b, s)
		if err != nil {
			return 0, err
		}
		total += r
	}
	return estimators.Finite(e.Name(), total)
}

// prepare sizes the workspace for b and transposes its ratios into e.rt.
// It sets e.check unless every product of at most h nonzero ratios of b is
// bound to stay in the normal float64 range.
func (e *ldRefEst) prepare(b *trajectory.Batch) {
	n, h := b.N(), b.Horizon()
	e.grow(n, h)
	lo, hi := 1.0, 1.0 // smallest nonzero and largest ratio
	for i := 0; i < n; i++ {
		start, end := b.Offsets[i], b.Offsets[i+1]
		for s, f := range b.Ratio[start:end] {
			e.rt[s*n+i] = f
			if f > hi {
				hi = f
			}
			if f < lo && f != 0 {
				lo = f
			}
		}
		for s := end - start; s < h; s++ {
			e.rt[s*n+i] = 1
		}
	}
	// Every nonzero ratio is in [2^(el-1), 2^eh), so a product of at most
	// h of them is in [2^(h(el-1)), 2^(h eh)).
	_, eh := math.Frexp(hi)
	_, el := math.Frexp(lo)
	e.check = math.IsInf(hi, 0) || h*max(eh, 1-el) > 1020
}

// errWeights reports a product of ratios outside the normal float64 range.
func (e *ldRefEst) errWeights(s int) error {
	return fmt.Errorf("%s: step %d: a product of importance ratios leaves the normal float64 range, so the covariances are %w", e.Name(), s+1, estimators.ErrNotRepresentable)
}

// ldRefBadProduct reports whether nb = bk * f left the normal float64 range:
// overflow, or a subnormal or zero product of nonzero factors.
func ldRefBadProduct(nb, bk, f float64) bool {
	return weights.LeftNormal(nb, f, bk)
}

// step computes k* and r_hat_t for step index s = t-1.
func (e *ldRefEst) step(b *trajectory.Batch, s int) (float64, error) {
	n := b.N()
	t := s + 1
	m := t + 1
	nf := float64(n)
	rt := e.rt

	act, ina := e.act[:0], e.ina[:0]
	for i := 0; i < n; i++ {
		p := b.Offsets[i] + s
		if p < b.Offsets[i+1] && b.Reward[p] != 0 {
			e.rw[len(act)] = b.Reward[p]
			act = append(act, i)
		} else {
			ina = append(ina, i)
		}
	}
	e.act, e.ina = act, ina
	if len(act) == 0 {
		// Every X and D is 0: no lag is kept (delta = 0, c = 0), every
		// Lepski comparison is 0 <= 0, so k* = 0 and r_hat = 0/n.
		e.kstar[s] = 0
		return 0, nil
	}

	sumX, sumB, sumD, ssD := e.sumX[:m], e.sumB[:m], e.sumD[:m], e.ssD[:m]
	mean, delta := e.mean[:m], e.delta[:m]
	cnt, neg := e.cnt[:m], e.neg[:m]
	rw := e.rw[:len(act)]

	// Shift: the means of X_k and D_k over the first chunk of active
	// trajectories. The sums of squares and products below are taken about
	// it and corrected to the means by one rank-1 update at the end (the
	// shifted-data algorithm; exactly the two-pass centring when one chunk
	// holds every trajectory).
	cx, cd := e.cx[:m], e.cd[:m]
	e.chunkMeans(act[:min(len(act), ldRefChunk)], rw, s, n)

	// One pass, chunk by chunk: sums of X_k, B_k and D_k, counts of nonzero
	// and of negative D_k, the shifted X into e.a with one rank-cw update of
	// S per chunk, and the shifted sums of squares of D_k.
	clear(sumX)
	clear(sumB)
	clear(sumD)
	clear(ssD)
	clear(cnt)
	clear(neg)
	S := blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: m, Data: e.s[:m*m]}
	alpha := 1 / (nf - 1)
	for c0 := 0; c0 < len(act); c0 += ldRefChunk {
		c1 := min(len(act), c0+ldRefChunk)
		idx, rwc, bk := act[c0:c1], rw[c0:c1], e.bk[c0:c1]
		cw := len(idx)
		for j := range bk {
			bk[j] = 1
		}
		// The chunk's trajectories are a run of consecutive ones when every
		// r_t is nonzero; else their ratios are gathered into e.rc.
		run := idx[cw-1]-idx[0] == cw-1
		for k := 0; k < t; k++ {
			row := rt[(s-k)*n : (s-k+1)*n] // rho_{t-k}
			var rho []float64
			if run {
				rho = row[idx[0] : idx[0]+cw]
			} else {
				rho = e.rc[:cw]
				for j, i := range idx {
					rho[j] = row[i]
				}
			}
			arow := e.a[k*ldRefChunk : k*ldRefChunk+cw]
			sx, sb, sd, ss, cn, ng, ok := ldRefLag(rho, rwc, bk, arow, cx[k], cd[k], e.check)
			if !ok {
				return 0, e.errWeights(s)
			}
			sumX[k] += sx
			sumB[k] += sb
			sumD[k] += sd
			ssD[k] += ss
			cnt[k] += cn
			neg[k] += ng
		}
		arow := e.a[t*ldRefChunk : t*ldRefChunk+cw]
		var sx, sb float64
		for j, bj := range bk {
			x := float64(bj * rwc[j])
			sx += x
			sb += bj
			arow[j] = x - cx[t]
		}
		sumX[t] += sx
		sumB[t] += sb
		beta := 1.0
		if c0 == 0 {
			beta = 0
		}
		A := blas64.General{Rows: m, Cols: cw, Stride: ldRefChunk, Data: e.a[:(m-1)*ldRefChunk+cw]}
		ldRefSyrkUpper(alpha, A, beta, S)
	}
	for k := range mean {
		mean[k] = sumX[k] / nf
		delta[k] = sumD[k] / nf
		if math.IsInf(mean[k], 0) || math.IsNaN(mean[k]) || (k < t && (math.IsInf(delta[k], 0) || math.IsNaN(delta[k]))) {
			return 0, fmt.Errorf("%s: step %d: mean of X_%d or of its increment %w", e.Name(), t, k, estimators.ErrNotRepresentable)
		}
	}
	if z0 := len(ina); z0 > 0 {
		// Each inactive trajectory has X = D = 0: shifted, -cx and -cd.
		ldRefSyrUpper(float64(z0)*alpha, cx, S)
		for k := 0; k < t; k++ {
			ssD[k] += float64(float64(z0) * cd[k] * cd[k])
		}
	}
	// From the shift to the means: sum (x-c)(x-c)' - n (mean-c)(mean-c)'.
	dm := e.dm[:m]
	nonzero := false
	for k := range dm {
		dm[k] = mean[k] - cx[k]
		nonzero = nonzero || dm[k] != 0
		if k < t {
			dd := delta[k] - cd[k]
			ssD[k] = max(ssD[k]-float64(nf*dd*dd), 0)
		}
	}
	if nonzero {
		ldRefSyrUpper(-nf*alpha, dm, S)
	}
	sd := S.Data
	for k := 0; k < m; k++ {
		if v := sd[k*m+k]; math.IsInf(v, 0) || math.IsNaN(v) || (k < t && math.IsInf(ssD[k], 0)) {
			return 0, fmt.Errorf("%s: step %d, k = %d: sample variance %w", e.Name(), t, k, estimators.ErrNotRepresentable)
		}
	}

	// Rule 1: adjacent increments.
	kD := 0
	for k := t - 1; k >= 0; k-- {
		if e.keptLag(k, n) {
			kD = k + 1
			break
		}
	}
	// Rule 2: Lepski.
	kL := t
	for k := 0; k < t; k++ {
		ok := true
		skk := sd[k*m+k]
		for k2 := k + 1; k2 <= t; k2++ {
			v := max(skk+sd[k2*m+k2]-2*sd[k*m+k2], 0)
			if math.Abs(mean[k2]-mean[k]) > ldRefZL*math.Sqrt(v/nf) {
				ok = false
				break
			}
		}
		if ok {
			kL = k
			break
		}
	}
	// Rule 3.
	ks := max(kD, kL)
	e.kstar[s] = ks
	den, ok := e.inactiveB(s, ks)
	if !ok {
		return 0, e.errWeights(s)
	}
	return weights.Ratio(sumX[ks], sumB[ks]+den), nil
}

// ldLag is the inner loop of one lag k over a chunk of trajectories: with
// rho = rho[j] (rho_{t-k}), r = rw[j] and B_k = bk[j], it adds up
// X_k = B_k r, B_k and D_k = (rho - 1) X_k, the squares of D_k - cd, the
// nonzero and the negative D_k, writes X_k - cx into a[j] and moves bk[j]
// on to B_{k+1}. With check set, ok is false when a product of ratios
// leaves the normal float64 range (overflow, or a subnormal or zero
// product of nonzero factors); without, the caller knows it cannot.
func ldRefLag(rho, rw, bk, a []float64, cx, cd float64, check bool) (sx, sb, sd, ss float64, cn, ng int, ok bool) {
	rw, bk, a = rw[:len(rho)], bk[:len(rho)], a[:len(rho)]
	var nz, neg uint64
	bad := false
	for j, f := range rho {
		bj := bk[j]
		x := float64(bj * rw[j])
		d := float64((f - 1) * x)
		sx += x
		sb += bj
		sd += d
		a[j] = x - cx
		dd := d - cd
		ss += float64(dd * dd)
		if d != 0 {
			nz++
			neg += math.Float64bits(d) >> 63
		}
		nb := bj * f
		if check && weights.LeftNormal(nb, f, bj) {
			bad = true
		}
		bk[j] = nb
	}
	return sx, sb, sd, ss, int(nz), int(neg), !bad
}

// ldRefSyrkUpper is the symmetric rank-k update S = alpha A A' + beta S of
// blas64.Syrk(blas.NoTrans, ...) on the upper triangle (beta 0 or 1),
// computed row by row: row k of the triangle, S[k, k:], is the
// matrix-vector product A[k:, :] A[k, :]', one Gemv call (ldRefGemvN). It
// does the same multiply-adds as Syrk; gonum's Dsyrk computes each entry
// with its own dot product, whose two accumulators make it latency-bound,
// while Dgemv's 4x4 kernel runs about a third faster on these shapes (H+1
// rows of ldRefChunk).
func ldRefSyrkUpper(alpha float64, a blas64.General, beta float64, s blas64.Symmetric) {
	for k := 0; k < a.Rows; k++ {
		row := a.Data[k*a.Stride : k*a.Stride+a.Cols]
		y := s.Data[k*s.Stride+k : k*s.Stride+s.N]
		ldRefGemvN(alpha, a.Data[k*a.Stride:], a.Stride, a.Rows-k, row, beta, y)
	}
}

// ldRefGemvN is y = alpha A x + beta y for the m rows of A (stride lda,
// len(x) columns) and beta 0 or 1, in the order of operations of gonum's
// amd64 GemvN (internal/asm/f64/gemvN_amd64.s), through which the first
// implementation computed S with blas64.Gemv: each row's dot product in
// two lanes, the even and the odd columns; with an odd number of columns,
// the last column's product added after the lanes are summed (HADDPD),
// except in the last row of an odd number of rows (the kernel's one-row
// tail), where it goes into the even lane first; then y = beta y + alpha
// dot, beta y = 0 when beta = 0 (Gemv clears y). Gemv itself sums in
// another order with -tags noasm and off amd64; this fixed-order loop
// gives the same bits on every build, and the explicit conversions keep
// compilers that fuse multiply-adds (arm64) from fusing them.
func ldRefGemvN(alpha float64, a []float64, lda, m int, x []float64, beta float64, y []float64) {
	n := len(x)
	for i := range m {
		row := a[i*lda : i*lda+n]
		var l0, l1 float64
		j := 0
		for ; j+1 < n; j += 2 {
			l0 += float64(row[j] * x[j])
			l1 += float64(row[j+1] * x[j+1])
		}
		var dot float64
		switch {
		case j == n:
			dot = l0 + l1
		case i == m-1 && m%2 == 1:
			l0 += float64(row[j] * x[j])
			dot = l0 + l1
		default:
			dot = float64(l0+l1) + float64(row[j]*x[j])
		}
		by := 0.0
		if beta != 0 {
			by = float64(beta * y[i])
		}
		y[i] = by + float64(alpha*dot)
	}
}

// ldRefSyrUpper is blas64.Syr on the upper triangle of s (S += alpha x
// x'), with gonum's order of operations (Dsyr, incX = 1: row i adds x[j]
// (x[i] alpha) where x[i] alpha != 0), the products rounded before the
// additions on every GOARCH.
func ldRefSyrUpper(alpha float64, x []float64, s blas64.Symmetric) {
	if alpha == 0 {
		return
	}
	n := s.N
	for i := range n {
		tmp := x[i] * alpha
		if tmp == 0 {
			continue
		}
		row := s.Data[i*s.Stride+i : i*s.Stride+n]
		for j, v := range x[i:n] {
			row[j] += float64(v * tmp)
		}
	}
}

// chunkMeans sets e.cx[k] and e.cd[k] to the means of X_k and D_k over
// the active trajectories idx (rewards rw) at step index s, multiplying in
// the same order as the main pass.
func (e *ldRefEst) chunkMeans(idx []int, rw []float64, s, n int) {
	t := s + 1
	bk := e.bk[:len(idx)]
	for j := range bk {
		bk[j] = 1
	}
	cf := float64(len(idx))
	for k := 0; k < t; k++ {
		row := e.rt[(s-k)*n : (s-k+1)*n]
		var sx, sd float64
		for j, i := range idx {
			bj := bk[j]
			x := float64(bj * rw[j])
			f := row[i]
			sx += x
			sd += float64((f - 1) * x)
			bk[j] = bj * f
		}
		e.cx[k], e.cd[k] = sx/cf, sd/cf
	}
	var sx float64
	for j, bj := range bk {
		sx += float64(bj * rw[j])
	}
	e.cx[t] = sx / cf
}

// keptLag applies rule 1 of SPEC 1b to lag k with the sums of the current
// step.
func (e *ldRefEst) keptLag(k, n int) bool {
	nf := float64(n)
	dk := e.delta[k]
	se := math.Sqrt(e.ssD[k] / (nf - 1) / nf)
	z := e.z[k]
	if math.Abs(dk) > z*se && dk != 0 {
		return true // (a) significant
	}
	if !e.Guard {
		return false
	}
	c := e.cnt[k]
	// (b) no power: with c nonzero values out of n, |t| <= sqrt(c(n-1)/(n-c)).
	return c > 0 && c < n && math.Sqrt(float64(c)*(nf-1)/float64(n-c)) < z &&
		(e.neg[k] == 0 || e.neg[k] == c)
}

// inactiveB returns sum_i B^i_k at step index s over the inactive
// trajectories (ratios 1 after a trajectory's end), multiplying the ratios
// in the same order as pass 1. It reports false when a product leaves the
// normal float64 range.
func (e *ldRefEst) inactiveB(s, k int) (float64, bool) {
	ina := e.ina
	if k == 0 {
		return float64(len(ina)), true
	}
	n := len(e.act) + len(ina)
	bk := e.bk[:len(ina)]
	for j := range bk {
		bk[j] = 1
	}
	for l := 0; l < k; l++ {
		row := e.rt[(s-l)*n : (s-l+1)*n]
		bad := false
		for j, i := range ina {
			f := row[i]
			nb := bk[j] * f
			bad = bad || ldRefBadProduct(nb, bk[j], f)
			bk[j] = nb
		}
		if bad {
			return 0, false
		}
	}
	sum := 0.0
	for _, v := range bk {
		sum += v
	}
	return sum, true
}
