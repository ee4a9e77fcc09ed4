package kernel

// incris-ld's bounds on its data (SPEC 1b), which choose the passes' paths
// (none changes a bit).

import "math"

// Bounds counts the active trajectories (nonzero reward) of every step of
// a batch of n trajectories of horizon h (trajectory i's steps at off[i]
// .. off[i+1]-1 of reward and ratio) into nact (len h, cleared first) and
// reports check: some product of at most h nonzero ratios may leave the
// normal float64 range, so the pass must check every one; clean: every
// value is finite and the products of ratios, rewards and ratios minus 1
// are far from underflow and overflow, so that the increment D^i_k is
// nonzero exactly when rho^i_{t-k} != 1 and no ratio kept so far is 0,
// with the sign of (rho - 1) r (the counts of rule 1(b) can come from bit
// masks); dense: every trajectory runs the whole horizon with a nonzero
// reward at every step. window returns the binades of the batch's
// windows of ratios (weights.WindowBounds), called only where the bound
// from the extreme ratios is too loose.
func Bounds(off []int, reward, ratio []float64, h int, nact []int, window func() (lo, hi int)) (check, clean, dense bool) {
	n := max(len(off)-1, 0)
	nact = nact[:h]
	clear(nact)
	lo, hi := 1.0, 1.0 // smallest nonzero and largest ratio
	// For clean: the smallest nonzero and largest |r| and |rho - 1|.
	rlo, rhi, flo, fhi := math.Inf(1), 0.0, math.Inf(1), 0.0
	finiteAll := true
	for i := range n {
		start, end := off[i], off[i+1]
		for s, f := range ratio[start:end] {
			if f > hi {
				hi = f
			}
			if f < lo && f != 0 {
				lo = f
			}
			if !(f >= 0 && f <= math.MaxFloat64) {
				finiteAll = false
			}
			if fm := math.Abs(f - 1); fm != 0 {
				flo, fhi = min(flo, fm), max(fhi, fm)
			}
			r := reward[start+s]
			if r != 0 {
				nact[s]++
				a := math.Abs(r)
				if !(a <= math.MaxFloat64) {
					finiteAll = false
				}
				rlo, rhi = min(rlo, a), max(rhi, a)
			}
		}
	}
	dense = n > 0 && off[0] == 0 && off[n] == n*h // every trajectory of length h
	for _, c := range nact {
		dense = dense && c == n
	}
	// Every nonzero ratio is in [2^(el-1), 2^eh), so a product of at most
	// h of them is in [2^(h(el-1)), 2^(h eh)).
	_, eh := math.Frexp(hi)
	_, el := math.Frexp(lo)
	check = math.IsInf(hi, 0) || h*max(eh, 1-el) > 1020
	// |B| in [2^bl, 2^bh] (B_0 = 1 included; one more binade for the
	// roundings).
	bl := min(0, int(math.Floor(float64(h)*math.Log2(lo)))-1)
	bh := max(0, int(math.Ceil(float64(h)*math.Log2(hi)))+1)
	if !finiteAll {
		return check, false, dense
	}
	if math.IsInf(rlo, 1) { // no nonzero reward: no step is active
		rlo, rhi = 1, 1
	}
	if math.IsInf(flo, 1) {
		flo, fhi = 1, 1
	}
	// |r| in [2^(erl-1), 2^erh), |rho - 1| in [2^(efl-1), 2^efh): |D| =
	// |(rho-1) B r| is at least 2^(bl+erl+efl-2) and |X|, |D| at most
	// 2^(bh+erh+efh).
	_, erl := math.Frexp(rlo)
	_, erh := math.Frexp(rhi)
	_, efl := math.Frexp(flo)
	_, efh := math.Frexp(fhi)
	ok := func(bl, bh int) bool { return bl+erl+efl-2 >= -1060 && bh+erh+max(efh, 0) <= 1000 }
	if check || !ok(bl, bh) {
		// The bound h log2(ratio) assumes every ratio of a window at its
		// extreme; the data's own windows are usually far inside it (on
		// configs/horizon.yaml's A_ld at H = 1000 it fails, the windows
		// reach a few dozen binades), and with them the pass can take its
		// fast path. Neither bound changes a bit: check only adds tests
		// that fail nowhere inside them, and clean picks the masks that
		// count exactly what the inner loop would.
		wlo, whi := window()
		bl, bh = max(bl, wlo), min(bh, whi)
		check = check && (whi > 1020 || wlo < -1020)
	}
	return check, !check && ok(bl, bh), dense
}
