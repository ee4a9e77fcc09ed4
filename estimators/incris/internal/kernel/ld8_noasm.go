//go:build noasm || gccgo || !amd64

package kernel

// The Lepski rounds' kernels without assembly: their Go twins.

// LD8Name is the instruction set of Chain2, Regen and Regen2, for the
// tests' and benchmarks' labels.
const LD8Name = "go"

// Chain2 moves bk on by two lags: B_{k+2} = (B_k rho0) rho1. Here its Go
// twin, chain2Go.
func Chain2(rho0, rho1, bk []float64) { chain2Go(rho0, rho1, bk) }

// Regen regenerates one lag of the pass over a run: a[j] = X_k - cx with
// X_k = B_k r, and moves bk[j] on to B_{k+1} (unless rho is nil: the last
// lag), with the products of Lag. Here its Go twin, regenGo.
func Regen(rho, rw, bk []float64, cx float64, a []float64) { regenGo(rho, rw, bk, cx, a) }

// Regen2 is Regen for two lags at once. Here its Go twin, regen2Go.
func Regen2(rho0, rho1, rw, bk []float64, cx0, cx1 float64, a0, a1 []float64) {
	regen2Go(rho0, rho1, rw, bk, cx0, cx1, a0, a1)
}

// Pairs8Name is the instruction set of Pairs8, for the tests' labels.
const Pairs8Name = "go"

// HasPairs8 reports whether Pairs8 runs here: always, without assembly.
func HasPairs8() bool { return true }

// Pairs8 is Lag8's inner loop (a Pairs8Func): here its Go twin, pairs8Go.
func Pairs8(rows *[8][]float64, j0, m int, rw, bk []float64, acc *Acc8) {
	pairs8Go(rows, j0, m, rw, bk, acc)
}

// dotPairs8 is DotLanes8's inner loop: here its Go twin, dotPairs8Go.
func dotPairs8(x, a *[8][]float64, j0, m int, acc *[16]float64) { dotPairs8Go(x, a, j0, m, acc) }

// Means8 is Means for eight lags at once (rho[L] = rho_{t-k-L}; sx, sd:
// theirs): here its Go twin, means8Go.
func Means8(rho *[8][]float64, rw, bk []float64, sx, sd []float64) { means8Go(rho, 0, rw, bk, sx, sd) }

// Steps8 adds the lags k..k+3 (k+3 <= s) of steps s..s+7 of the m
// trajectories of a chunk from its start (trajectory j's ratio and reward
// of step i at ratio[j*stride+i] and rw[j*stride+i]; B of step s+L at
// bk[8j+L], moved on to lag k+4) to acc, as Lag does cell by cell;
// lastOdd: the last trajectory ends a chunk of odd width. Here its Go
// twin, steps8Go.
func Steps8(ratio, rw []float64, stride, s, k, m int, bk []float64, acc *Steps8Acc, lastOdd bool) {
	checkSteps8(ratio, rw, stride, s, k, m, bk)
	steps8Go(ratio, rw, stride, s, k, 0, m, bk, acc, lastOdd)
}

// MeansSteps8 is Means for the lags k..k+3 (k+3 <= s) of steps s..s+7 of
// m trajectories, laid out as for Steps8. Here its Go twin,
// meansSteps8Go.
func MeansSteps8(ratio, rw []float64, stride, s, k, m int, bk []float64, acc *MeansSteps8Acc) {
	checkSteps8(ratio, rw, stride, s, k, m, bk)
	meansSteps8Go(ratio, rw, stride, s, k, 0, m, bk, acc)
}

// ScanClass classifies the comparisons of row p with the lags k2+i, i =
// 0 .. len(sd)-1 (S_k2k2 sd[i], sqrt(Y_k2k2) sq[i], mean[i], cx[i],
// dm[i]) as incris-ld's scanRow does, from Fails at the upper and the
// lower Cauchy-Schwarz bounds of S_kk2: it appends the undecided lags to
// unk and returns it, with the first i that fails at both bounds (-1 if
// none). Here its Go twin, scanClassGo.
func ScanClass(p *ScanRow, k2 int, sd, sq, mean, cx, dm []float64, unk []Unknown) ([]Unknown, int) {
	return scanClassGo(p, k2, sd, sq, mean, cx, dm, unk)
}

// countRun8 is countRunGo on all the block's mask words: false here (no
// assembly), so that countRunGo runs.
func countRun8(alive, rneg *[blockWords]uint64, eq1, lt1, zero []uint64, s int, cnt, neg []int) bool {
	return false
}
