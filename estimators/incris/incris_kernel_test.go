package incris

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/incris/internal/kernel"
	"github.com/ope-lab/longhorizon/estimators/internal/estimatortest"
	"github.com/ope-lab/longhorizon/trajectory"
)

// incrisPath is a path INCRIS can add its sums on: its kernels, and
// whether they can run here.
type incrisPath struct {
	name        string
	k           incrisKernels
	unavailable bool
}

// incrisPathList returns the paths: the scalar path, and the wide path
// with the four-row kernel only (kernel.Group: AVX2, or its Go twin with
// -tags noasm) and with the kernel for pairs of groups (kernel.Pair:
// AVX-512, or the Go twin).
func incrisPathList() []incrisPath {
	return []incrisPath{
		{"scalar", incrisKernels{}, false},
		{"wide-" + kernel.GroupName, incrisKernels{group: kernel.Group}, !kernel.HasGroup()},
		{"wide-" + kernel.PairName, incrisKernels{group: kernel.Group, pair: kernel.Pair}, !kernel.HasPair()},
		// addTiles's tiles of one group (no pairs of groups) and of a few
		// (the lower groups several to a tile, the upper ones one).
		{"wide-" + kernel.PairName + "-tile1", incrisKernels{group: kernel.Group, pair: kernel.Pair, tile: 1}, !kernel.HasPair()},
		{"wide-" + kernel.PairName + "-tile4k", incrisKernels{group: kernel.Group, pair: kernel.Pair, tile: 4096}, !kernel.HasPair()},
	}
}

// incrisPaths runs f on each path that can run here, with newE making
// INCRIS estimators on that path.
func incrisPaths(t *testing.T, f func(t *testing.T, newE func(printed bool) *INCRIS)) {
	t.Helper()
	for _, p := range incrisPathList() {
		if p.unavailable {
			t.Logf("%s: not available on this CPU", p.name)
			continue
		}
		k := p.k
		t.Run(p.name, func(t *testing.T) {
			f(t, func(printed bool) *INCRIS { return newINCRISWith(printed, k) })
		})
	}
}

// incrisCase is a named data set for the bit-identity tests.
type incrisCase struct {
	name string
	b    *trajectory.Batch
}

// batchFrom builds a batch from per-trajectory rewards and ratios.
func batchFrom(rew, rho [][]float64) *trajectory.Batch {
	var b trajectory.Batch
	for i := range rew {
		for s := range rew[i] {
			b.Add(rew[i][s], rho[i][s])
		}
		b.End()
	}
	return &b
}

// drawBatch draws n trajectories of length in [minLen, h] (minLen may be
// 0: empty trajectories) with ratios from weights.Ratio(rng, s) and rewards from
// reward(rng, s).
func drawBatch(rng *rand.Rand, n, minLen, h int, ratio, reward func(*rand.Rand, int) float64) *trajectory.Batch {
	rew, rho := make([][]float64, n), make([][]float64, n)
	for i := range n {
		l := minLen + rng.IntN(h-minLen+1)
		for s := range l {
			rho[i] = append(rho[i], ratio(rng, s))
			rew[i] = append(rew[i], reward(rng, s))
		}
	}
	return batchFrom(rew, rho)
}

// incrisCases: data sets of many n and H (H = 1, n = 2, H not a multiple
// of 4, n not a multiple of the blocks), padding, empty trajectories, zero
// and negative-zero rewards (rows turning raw at every block position),
// zero ratios, huge and tiny weights (~1e+-100), nearly equal weights,
// weights or products that overflow or underflow (errors), and ratios or
// rewards that are not finite.
func incrisCases() []incrisCase {
	rng := rand.New(rand.NewPCG(13, 17))
	var cs []incrisCase
	add := func(name string, b *trajectory.Batch) { cs = append(cs, incrisCase{name, b}) }
	for _, nh := range [][2]int{{2, 1}, {2, 5}, {3, 1}, {9, 1}, {9, 4}, {10, 3}, {17, 4}, {18, 5}, {40, 7},
		{64, 3}, {101, 12}, {257, 33}, {600, 9}, {130, 1}} {
		add(fmt.Sprintf("random n=%d H=%d", nh[0], nh[1]), randomBatch(rng, nh[0], nh[1]))
	}
	add("subepisode n=203 H=12", subepisodeBatch(rng, 203, 6))
	add("subepisode n=77 H=100", subepisodeBatch(rng, 77, 50))
	add("options n=150 H=10", optionBatch(rng, 150, 10))
	for _, sc := range []float64{1e100, 1e-100, 1} {
		for _, short := range []bool{false, true} {
			add(fmt.Sprintf("nearly equal %g short=%v", sc, short),
				nearlyEqualWeights(rng, 50, 13, sc, 1e-7, func(r *rand.Rand) float64 { return 1 + 1e-5*(2*r.Float64()-1) }, short))
		}
	}
	normal := func(r *rand.Rand, _ int) float64 { return r.NormFloat64() }
	sparse := func(r *rand.Rand, _ int) float64 {
		switch r.IntN(5) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		}
		return r.NormFloat64()
	}
	add("huge weights 1e100", drawBatch(rng, 45, 1, 9, func(r *rand.Rand, s int) float64 {
		if s == 0 {
			return 1e100 * (1 + r.Float64())
		}
		return 0.5 + r.Float64()
	}, normal))
	add("huge ratios, sparse rewards, empty trajectories", drawBatch(rng, 61, 0, 11, func(r *rand.Rand, s int) float64 {
		return []float64{0, 1e-60, 1e60, 1, 0.5}[r.IntN(5)]
	}, sparse))
	add("negative ratios, sparse rewards", drawBatch(rng, 37, 1, 6, func(r *rand.Rand, s int) float64 {
		return []float64{0, -1.5, 2, -0.25}[r.IntN(4)]
	}, sparse))
	// every reward nonzero but one late zero per trajectory 20..27: rows
	// turn raw at every position of a wide block
	{
		rew, rho := make([][]float64, 40), make([][]float64, 40)
		for i := range rew {
			for s := range 9 {
				r := 1 + rng.Float64()
				if i >= 20 && i < 28 && s == i-20 {
					r = 0
				}
				rew[i] = append(rew[i], r)
				rho[i] = append(rho[i], 0.5+rng.Float64())
			}
		}
		add("rows turn raw inside a block", batchFrom(rew, rho))
	}
	// rewards 0 (or -0) in whole groups of four rows of whole wide
	// blocks (idle groups, which addWide skips), nonzero elsewhere, with
	// trajectory 0 nonzero everywhere (rows start shifted and turn raw at
	// a block's zeros), lengths 30 to 41 (padding rows)
	{
		rew, rho := make([][]float64, 75), make([][]float64, 75)
		for i := range rew {
			for s := range 30 + rng.IntN(12) {
				r := math.Copysign(0, float64(s%2)-0.5)
				if i == 0 || (s/4+i/8)%3 == 0 {
					r = rng.NormFloat64()
				}
				rew[i] = append(rew[i], r)
				rho[i] = append(rho[i], 0.5+rng.Float64())
			}
		}
		add("rewards 0 in whole groups of a block", batchFrom(rew, rho))
	}
	// overflow of W (2^1100) at trajectory 13: an error
	{
		b := chainAllA1(1100)
		var c trajectory.Batch
		for i := range 20 {
			src := 1 // no reward, ratio 0
			if i == 13 {
				src = 0 // weight 2^1100
			}
			c.AppendTrajectory(b, src)
		}
		add("W overflows at trajectory 13", &c)
	}
	add("chainAllA1 H=1100", chainAllA1(1100))
	add("all empty", drawBatch(rng, 20, 0, 0, nil, nil))
	add("long ratios near 1 n=40 H=150", drawBatch(rng, 40, 100, 150, func(r *rand.Rand, _ int) float64 {
		return 0.9 + 0.2*r.Float64()
	}, sparse))
	// W normal but B_k r_t overflows (1e-300 then 1e300s): an MSE error
	add("B_k overflows", drawBatch(rng, 30, 5, 5, func(r *rand.Rand, s int) float64 {
		if s == 0 {
			return 1e-300
		}
		return 1e150 * (1 + r.Float64())
	}, normal))
	// W underflows to subnormal at trajectory 11: an error
	add("W turns subnormal", drawBatch(rng, 30, 4, 4, func(r *rand.Rand, s int) float64 {
		return 1e-100
	}, normal))
	// not finite: +Inf after a 0 (W = NaN, not caught by weights), NaN
	// ratios and rewards, infinite rewards
	for _, bad := range []struct {
		name     string
		rho, rew float64
		at       int
	}{
		{"Inf ratio after 0", math.Inf(1), 1, 11},
		{"Inf ratio after 0, zero reward", math.Inf(1), 0, 12},
		{"NaN ratio", math.NaN(), 1, 14},
		{"NaN ratio, zero reward", math.NaN(), 0, 3},
		{"NaN reward", 1, math.NaN(), 16},
		{"Inf reward", 1, math.Inf(-1), 9},
	} {
		rew, rho := make([][]float64, 25), make([][]float64, 25)
		for i := range rew {
			for s := range 7 {
				f, r := 0.5+rng.Float64(), rng.NormFloat64()
				if rng.IntN(4) == 0 {
					r = 0
				}
				if i == bad.at && s == 2 {
					f = 0
				}
				if i == bad.at && s == 4 {
					f, r = bad.rho, bad.rew
				}
				rew[i] = append(rew[i], r)
				rho[i] = append(rho[i], f)
			}
		}
		add(bad.name, batchFrom(rew, rho))
		// the same in trajectory 0 (the shifts)
		rew[0], rew[bad.at] = rew[bad.at], rew[0]
		rho[0], rho[bad.at] = rho[bad.at], rho[0]
		add(bad.name+" in trajectory 0", batchFrom(rew, rho))
	}
	return cs
}

// sameBits reports whether a and b are the same float64, bit for bit (any
// NaN matching any NaN: NaN payloads are not part of the contract).
func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// sameErr reports whether two errors are both nil or have the same text.
func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}

// incrisGrid is a grid of prefixes of n: small, odd and block-straddling
// sizes, and n itself.
func incrisGrid(n int) []int {
	var g []int
	for _, m := range []int{2, 3, 9, 10, 11, 17, 26, 33, 34, 100, 257, 300} {
		if m < n {
			g = append(g, m)
		}
	}
	return append(g, n)
}

// TestINCRISBitIdentical: Estimate, k*, the co-moment cells and
// EstimateGrid (values, k* at every grid point, errors) are bit-identical
// to the reference (INCRIS before the vector kernel), on both paths, with
// fresh and reused workspaces.
func TestINCRISBitIdentical(t *testing.T) {
	cases := incrisCases()
	incrisPaths(t, func(t *testing.T, newE func(bool) *INCRIS) {
		for _, printed := range []bool{false, true} {
			reused := newE(printed)
			for _, tc := range cases {
				ref := newRefINCRIS(printed)
				want, wantErr := ref.Estimate(tc.b)
				for _, e := range []*INCRIS{newE(printed), reused} {
					got, err := e.Estimate(tc.b)
					if !sameErr(err, wantErr) {
						t.Errorf("%s printed=%v: error %v, reference %v", tc.name, printed, err, wantErr)
						continue
					}
					if err != nil {
						continue
					}
					if !sameBits(got, want) || !slices.Equal(e.KStar(), ref.KStar()) {
						t.Errorf("%s printed=%v: %v k* %v, reference %v %v", tc.name, printed, got, e.KStar(), want, ref.KStar())
					}
					compareCells(t, tc.name, e, ref)
				}

				grid := incrisGrid(tc.b.N())
				wantOut, gotOut := make([]float64, len(grid)), make([]float64, len(grid))
				wantErr = ref.EstimateGrid(tc.b, grid, wantOut)
				failN := math.MaxInt // grid points from failN on have no result
				if wantErr != nil {
					if _, err := fmt.Sscanf(wantErr.Error(), "n = %d:", &failN); err != nil {
						t.Fatalf("%s: grid error %q does not name n", tc.name, wantErr)
					}
				}
				for _, e := range []*INCRIS{newE(printed), reused} {
					clear(gotOut)
					err := e.EstimateGrid(tc.b, grid, gotOut)
					if !sameErr(err, wantErr) {
						t.Errorf("%s printed=%v: grid error %v, reference %v", tc.name, printed, err, wantErr)
						continue
					}
					for j := range grid {
						if grid[j] >= failN {
							break
						}
						if !sameBits(gotOut[j], wantOut[j]) || !slices.Equal(e.gridK[j], ref.gridK[j]) {
							t.Errorf("%s printed=%v: grid n = %d: %v k* %v, reference %v %v",
								tc.name, printed, grid[j], gotOut[j], e.gridK[j], wantOut[j], ref.gridK[j])
						}
					}
				}
			}
		}
	})
}

// compareCells checks e's co-moment cells and da against ref's, bit for
// bit.
func compareCells(t *testing.T, name string, e *INCRIS, ref *refINCRIS) {
	t.Helper()
	for s := range ref.h {
		for j := 0; j <= s+1; j++ {
			got, want := e.cells[tri(s, j)], ref.cells[refTri(s, j)]
			if !sameBits(got.C, want.c) || !sameBits(got.S1, want.s1) || !sameBits(got.S2, want.s2) || !sameBits(got.S3, want.s3) {
				t.Errorf("%s: cell t=%d j=%d: %+v, reference %+v", name, s+1, j, got, want)
				return
			}
		}
	}
	for j := range ref.h + 1 {
		if !sameBits(e.da[j], ref.da[j]) {
			t.Errorf("%s: da[%d] = %v, reference %v", name, j, e.da[j], ref.da[j])
			return
		}
	}
}

// TestINCRISNoAllocs: neither Estimate nor EstimateGrid allocates once the
// workspace exists, on either path.
func TestINCRISNoAllocs(t *testing.T) {
	b := subepisodeBatch(rand.New(rand.NewPCG(3, 3)), 300, 10)
	grid := []int{10, 20, 50, 100, 300}
	out := make([]float64, len(grid))
	incrisPaths(t, func(t *testing.T, newE func(bool) *INCRIS) {
		e := newE(false)
		if err := e.EstimateGrid(b, grid, out); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(5, func() { _, _ = e.Estimate(b) }); a != 0 {
			t.Errorf("Estimate: %v allocations per call", a)
		}
		if a := testing.AllocsPerRun(5, func() { _ = e.EstimateGrid(b, grid, out) }); a != 0 {
			t.Errorf("EstimateGrid: %v allocations per call", a)
		}
	})
}

// TestINCRISMemoryPaths: on every path, a fresh INCRIS's first estimate
// allocates no more than its registry Memory bound (with the allowance of
// TestMemoryBoundsWorkspace), across horizons that leave the last group of
// rows partly padding.
func TestINCRISMemoryPaths(t *testing.T) {
	var info estimators.Info
	for _, i := range estimators.All() {
		if i.Name == "incris" {
			info = i
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	incrisPaths(t, func(t *testing.T, newE func(bool) *INCRIS) {
		for _, h := range []int{1, 2, 5, 13, 40, 61, 80, 101} {
			b := drawBatch(rng, 300, h, h, func(r *rand.Rand, _ int) float64 { return 0.5 + r.Float64() },
				func(r *rand.Rand, _ int) float64 { return r.NormFloat64() })
			got := allocated(func() {
				if _, err := newE(false).Estimate(b); err != nil {
					t.Fatal(err)
				}
			})
			bound := info.Memory(estimators.ShapeOf(b))
			if !estimatortest.Within(got, bound) {
				t.Errorf("H = %d: allocated %.0f bytes, Memory says at most %.0f", h, got, bound)
			}
		}
	})
}
