package incris

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/incris/internal/kernel"
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ldCase is a data set for the bit-identity tests.
type ldCase struct {
	name string
	b    *trajectory.Batch
}

// ldScaledBatch draws trajectories of random length in [minLen, h] with
// ratios from ratios and rewards scale * N(0, 1) (zero with probability
// pz).
func ldScaledBatch(rng *rand.Rand, n, minLen, h int, ratios []float64, scale, pz float64) *trajectory.Batch {
	var b trajectory.Batch
	for range n {
		l := minLen + rng.IntN(h-minLen+1)
		for range l {
			r := 0.0
			if rng.Float64() >= pz {
				r = scale * rng.NormFloat64()
			}
			b.Add(r, ratios[rng.IntN(len(ratios))])
		}
		b.End()
	}
	return &b
}

// ldChainBatch is chain-MDP-like data: uniform behaviour over two actions
// (ratios 2 and 0 for p_e = 1), reward 1 at the last of h steps only on
// the all-a1 trajectories, which are planted with probability p.
func ldChainBatch(rng *rand.Rand, n, h int, p float64) *trajectory.Batch {
	var b trajectory.Batch
	for range n {
		all := rng.Float64() < p
		for s := range h {
			rho := 2.0
			if !all && rng.IntN(2) == 0 {
				rho = 0
			}
			r := 0.0
			if s == h-1 && rho == 2 && all {
				r = 1
			}
			b.Add(r, rho)
		}
		b.End()
	}
	return &b
}

// ldBitCases returns the data sets: the shapes of the harness's domains at
// several n (chunk boundaries, odd last chunks, blocks of trajectories) and
// H, and data that takes the slow paths (zero and unit ratios, ended
// trajectories, zero rewards, tiny and huge values, products that leave
// the float64 range).
//
// The last two, the sub-episode shape over three groups of steps (H = 260,
// groups of 125, 125 and 10 steps) and random data over three chunks and
// blocks of 512 trajectories, the last partial (n = 1100), were n = 3000,
// H = 300 and n = 2500, H = 120, run only without -short: 25 of the
// test's 30 s, most of it the reference's O(n H^3). At the smaller sizes
// they keep that structure, and they added no case: the test's coverage
// profile (go test -coverpkg ./... of this package and package kernel) is
// the same with them and without them, so the larger sizes added
// arithmetic, not paths.
func ldBitCases() []ldCase {
	rng := rand.New(rand.NewPCG(13, 13))
	var cs []ldCase
	add := func(name string, b *trajectory.Batch) {
		cs = append(cs, ldCase{fmt.Sprintf("%s/n=%d,H=%d", name, b.N(), b.Horizon()), b})
	}
	for _, n := range []int{2, 3, 7, 64, 511, 512, 513, 1025, 1537} {
		add("random", ldRandomBatch(rng, n, 1+rng.IntN(30), rng.Float64()))
	}
	for _, c := range [][2]int{{2, 5}, {9, 20}, {100, 50}, {511, 8}, {513, 30}, {1023, 25}, {1200, 60}, {2100, 100}} {
		add("subepisode", subepisodeBatch(rng, c[0], c[1]))
	}
	add("chain", ldChainBatch(rng, 700, 8, 0.05))
	add("chain", ldChainBatch(rng, 1500, 12, 0.01))
	add("options", optionBatch(rng, 600, 40))
	add("ends+zeros", ldScaledBatch(rng, 1400, 1, 45, []float64{0.5, 1, 1.5, 2}, 1, 0.4))
	add("tiny-rewards", ldScaledBatch(rng, 800, 20, 30, []float64{0.5, 1.5}, 1e-300, 0.1))
	add("huge-rewards", ldScaledBatch(rng, 300, 20, 30, []float64{0.5, 1.5}, 1e290, 0.1))
	add("near-one", ldScaledBatch(rng, 700, 30, 30, []float64{1 - 0x1p-52, 1, 1 + 0x1p-52, 0.75}, 1, 0))
	add("wide", ldScaledBatch(rng, 600, 25, 40, []float64{1e-9, 1e9, 0.5, 3}, 1, 0.2))
	add("overflow", ldScaledBatch(rng, 200, 40, 40, []float64{1e10, 1e9}, 1, 0))
	add("mixed-sign-ratios", ldScaledBatch(rng, 300, 10, 12, []float64{0.5, 1.5, -0.5}, 1, 0.2))
	add("underflow", ldScaledBatch(rng, 50, 6, 6, []float64{1e-200, 1e-150}, 1, 0))
	add("mean-overflow", ldScaledBatch(rng, 50, 8, 8, []float64{1e10, 1e9}, 1e300, 0))
	add("no-rewards", ldScaledBatch(rng, 20, 3, 9, []float64{0.5, 2}, 1, 1))
	add("one", ldScaledBatch(rng, 1, 3, 9, []float64{0.5, 2}, 1, 0))
	add("loose-bound", ldLooseBatch(rng))
	add("subepisode", subepisodeBatch(rng, 130, 130))
	add("random", ldRandomBatch(rng, 1100, 120, 0.7))
	return cs
}

// ldLooseBatch is data on which the bound H log2(largest ratio) fails
// (100 x 11 > 1020 binades: ratio 1024 = 2^10, Frexp exponent 11) but the
// windows' own products stay within a few hundred binades (a random walk
// of +-10 binades per step over at most 100 steps), so that prepare's
// window bounds (weights.WindowBounds) put the pass on its fast path.
func ldLooseBatch(rng *rand.Rand) *trajectory.Batch {
	return ldScaledBatch(rng, 300, 60, 100, []float64{1.0 / 1024, 1, 1024}, 1, 0.2)
}

// TestLDWindowBounds: the window bounds of hand-computed trajectories, and
// the fast path on ldLooseBatch, which the loose bound alone refused.
func TestLDWindowBounds(t *testing.T) {
	for _, c := range []struct {
		name   string
		ratios [][]float64
		lo, hi int
	}{
		// log2: 1, 1, -2, 2 | 3: largest window 1+1 = 2 before the zero,
		// then 3; smallest -2 (1+1-2 = 0); widened by 2 binades.
		{"zero-splits", [][]float64{{2, 2, 0.25, 4, 0, 8}}, -4, 5},
		// log2 -1 three times: smallest -3; largest the empty window, 0.
		{"halves", [][]float64{{0.5, 0.5, 0.5}}, -5, 2},
		// both trajectories: the extremes of each.
		{"two", [][]float64{{2, 2, 0.25, 4, 0, 8}, {0.5, 0.5, 0.5}}, -5, 5},
		{"ones", [][]float64{{1, 1}}, -2, 2},
	} {
		var b trajectory.Batch
		for _, tr := range c.ratios {
			for _, f := range tr {
				b.Add(1, f)
			}
			b.End()
		}
		if lo, hi := weights.WindowBounds(&b); lo != c.lo || hi != c.hi {
			t.Errorf("%s: bounds [%d, %d], want [%d, %d]", c.name, lo, hi, c.lo, c.hi)
		}
	}
	e := NewINCRISLD(true)
	e.prepare(ldLooseBatch(rand.New(rand.NewPCG(1, 2))))
	if e.check || !e.clean {
		t.Errorf("loose-bound data: check %v, clean %v; want the fast path (false, true)", e.check, e.clean)
	}
}

// ldPath is a way incris-ld's pass can compute its sums (ldOptions).
type ldPath struct {
	name string
	o    ldOptions
}

// ldPaths returns the pass lag by lag and, where kernel.Pairs4 runs (the
// AVX2 assembly, or its Go twin with -tags noasm), four lags at a time,
// and, where kernel.Pairs8 also runs (the AVX-512 assembly, or its Go
// twin), eight then four, without and with eight steps at a time on dense
// data (kernel.Steps8).
func ldPaths() []ldPath {
	ps := []ldPath{{"lag", ldOptions{}}}
	if kernel.HasPairs4() {
		ps = append(ps, ldPath{"four-" + kernel.Pairs4Name, ldOptions{pairs4: kernel.Pairs4}})
		if kernel.HasPairs8() {
			ps = append(ps, ldPath{"eight-" + kernel.Pairs8Name, ldOptions{pairs4: kernel.Pairs4, pairs8: kernel.Pairs8}},
				ldPath{"steps-" + kernel.LD8Name, ldOptions{pairs4: kernel.Pairs4, pairs8: kernel.Pairs8, steps8: true}})
		}
	}
	return ps
}

// TestINCRISLDBitIdentical: the rewritten incris-ld returns bit for bit the
// estimates, k* and errors of the first implementation (ldRefEst, kept in
// incrisld_ref_test.go), both variants, on every path of the pass (and
// with the default options), with one estimator reused across data sets
// of different sizes (workspace reuse). The two variants are independent
// subtests run in parallel.
func TestINCRISLDBitIdentical(t *testing.T) {
	cases := ldBitCases()
	for _, guard := range []bool{true, false} {
		t.Run(fmt.Sprintf("guard=%v", guard), func(t *testing.T) {
			t.Parallel()
			es := []*INCRISLD{NewINCRISLD(guard)}
			names := []string{"default"}
			for _, p := range ldPaths() {
				es = append(es, newINCRISLDWith(guard, p.o))
				names = append(names, p.name)
			}
			for _, c := range cases {
				ref := newLDRef(guard)
				want, werr := ref.Estimate(c.b)
				for i, e := range es {
					name := e.Name() + " " + names[i] + " " + c.name
					got, err := e.Estimate(c.b)
					if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
						t.Errorf("%s: error %v, reference %v", name, err, werr)
						continue
					}
					if err != nil {
						continue
					}
					if math.Float64bits(got) != math.Float64bits(want) {
						t.Errorf("%s: %v (%#x), reference %v (%#x)", name, got, math.Float64bits(got), want, math.Float64bits(want))
					}
					gk, wk := e.KStar(), ref.KStar()
					if len(gk) != len(wk) {
						t.Fatalf("%s: %d k*, reference %d", name, len(gk), len(wk))
					}
					for s := range gk {
						if gk[s] != wk[s] {
							t.Errorf("%s: k*[t=%d] = %d, reference %d", name, s+1, gk[s], wk[s])
							break
						}
					}
				}
			}
		})
	}
}

// TestINCRISLDBitIdenticalSteps compares, step by step, every value the
// first implementation computed and the rewrite keeps: the sums, the
// means, the increment statistics, the counts, the diagonal of S, and
// every entry of S the rewrite computed, bit for bit (the whole matrix
// for steps with t+1 <= ldFullM).
func TestINCRISLDBitIdenticalSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, b := range []*trajectory.Batch{
		ldRandomBatch(rng, 1300, 24, 0.5),
		subepisodeBatch(rng, 1100, 20),
		ldScaledBatch(rng, 900, 1, 22, []float64{0, 0.5, 1, 2}, 1, 0.3),
	} {
		n, h := b.N(), b.Horizon()
		e, ref := NewINCRISLD(true), newLDRef(true)
		e.prepare(b)
		ref.prepare(b)
		checked := 0
		for s := range h {
			got, err := e.step(b, s)
			want, werr := ref.step(b, s)
			if err != nil || werr != nil {
				t.Fatalf("s=%d: %v, reference %v", s, err, werr)
			}
			if math.Float64bits(got) != math.Float64bits(want) || e.kstar[s] != ref.kstar[s] {
				t.Errorf("n=%d s=%d: r_hat %v k* %d, reference %v k* %d", n, s, got, e.kstar[s], want, ref.kstar[s])
			}
			if len(ref.act) == 0 {
				continue
			}
			m := s + 2
			same := func(what string, k int, a, b float64) {
				if math.Float64bits(a) != math.Float64bits(b) {
					t.Errorf("n=%d t=%d k=%d: %s %v, reference %v", n, s+1, k, what, a, b)
				}
			}
			for k := range m {
				same("sum X", k, e.sumX[k], ref.sumX[k])
				same("sum B", k, e.sumB[k], ref.sumB[k])
				same("mean", k, e.mean[k], ref.mean[k])
				same("S_kk", k, e.s[k*m+k], ref.s[k*m+k])
				if k < m-1 {
					same("sum D", k, e.sumD[k], ref.sumD[k])
					same("ssD", k, e.ssD[k], ref.ssD[k])
					same("delta", k, e.delta[k], ref.delta[k])
					if e.cnt[k] != ref.cnt[k] || e.neg[k] != ref.neg[k] {
						t.Errorf("n=%d t=%d k=%d: counts %d %d, reference %d %d", n, s+1, k, e.cnt[k], e.neg[k], ref.cnt[k], ref.neg[k])
					}
				}
				if m <= ldFullM {
					for k2 := k + 1; k2 < m; k2++ {
						same(fmt.Sprintf("S_k,%d", k2), k, e.s[k*m+k2], ref.s[k*m+k2])
						checked++
					}
				}
			}
		}
		if checked == 0 {
			t.Errorf("n=%d: no off-diagonal entry compared", n)
		}
	}
}

// TestINCRISLDGemvY: the first chunk's y is 0 + alpha dot, so a -0 product
// gives +0 as Gemv's does.
func TestINCRISLDGemvY(t *testing.T) {
	if y := kernel.GemvY(math.NaN(), 0, 0.5, math.Copysign(0, -1)); math.Float64bits(y) != 0 {
		t.Errorf("kernel.GemvY(NaN, first chunk, -0) = %v (%#x), want +0", y, math.Float64bits(y))
	}
	if y := kernel.GemvY(1, 1, 0.5, 2); y != 2 {
		t.Errorf("kernel.GemvY(1, 1, 0.5, 2) = %v, want 2", y)
	}
}

// TestINCRISLDGridBitIdentical: EstimateGrid (one pass shared by the
// prefixes of more than one chunk) returns, for every grid point, bit for
// bit the first implementation's estimate and k* on that prefix, and the
// error of the smallest failing prefix; one estimator serves every data
// set and grid, Estimate calls in between.
func TestINCRISLDGridBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	var cs []ldCase
	add := func(name string, b *trajectory.Batch) {
		cs = append(cs, ldCase{fmt.Sprintf("%s/n=%d,H=%d", name, b.N(), b.Horizon()), b})
	}
	add("subepisode", subepisodeBatch(rng, 2600, 30))
	add("random", ldRandomBatch(rng, 2300, 25, 0.6))
	add("ends+zeros", ldScaledBatch(rng, 2200, 1, 30, []float64{0, 0.5, 1, 1.5, 2}, 1, 0.5))
	add("sparse", ldScaledBatch(rng, 1800, 5, 20, []float64{0.5, 1.5}, 1, 0.97))
	add("chain", ldChainBatch(rng, 1600, 10, 0.02))
	add("options", optionBatch(rng, 1500, 25))
	add("tiny-rewards", ldScaledBatch(rng, 1400, 10, 15, []float64{0.5, 1.5}, 1e-300, 0.1))
	// Weights that leave the float64 range in some trajectories only.
	var over trajectory.Batch
	for i := range 1700 {
		for range 30 {
			rho := 0.5 + rng.Float64()
			if i == 900 || i == 1650 {
				rho = 1e25
			}
			over.Add(rng.NormFloat64(), rho)
		}
		over.End()
	}
	add("overflow-late", &over)
	var under trajectory.Batch
	for i := range 1300 {
		for range 12 {
			rho := 0.5 + rng.Float64()
			if i == 1200 {
				rho = 1e-200
			}
			under.Add(rng.NormFloat64(), rho)
		}
		under.End()
	}
	add("underflow-late", &under)
	grids := func(n int) [][]int {
		gs := [][]int{
			{10, 20, 50, 100, 200, 500, 1000, n},
			{2, 511, 512, 513, 514, 1024, 1025, 1100, n - 1, n},
			{n},
			{600, n},
		}
		var g []int
		for m := 2; m <= n; m++ {
			if m == n || rng.IntN(n/8) == 0 {
				g = append(g, m)
			}
		}
		return append(gs, g)
	}
	for _, guard := range []bool{true, false} {
		e := NewINCRISLD(guard)
		for _, c := range cs {
			n := c.b.N()
			// the reference on every prefix, once
			want := make(map[int]float64)
			wantK := make(map[int][]int)
			wantErr := make(map[int]error)
			refAt := func(m int) {
				if _, ok := want[m]; ok {
					return
				}
				p := c.b.Prefix(m)
				ref := newLDRef(guard)
				want[m], wantErr[m] = ref.Estimate(&p)
				wantK[m] = append([]int(nil), ref.KStar()...)
			}
			for _, grid := range grids(n) {
				for _, m := range grid {
					refAt(m)
				}
				out := make([]float64, len(grid))
				err := e.EstimateGrid(c.b, grid, out)
				first := -1
				for j, m := range grid {
					if wantErr[m] != nil {
						first = j
						break
					}
				}
				if first >= 0 {
					wantMsg := estimators.GridError(grid[first], wantErr[grid[first]]).Error()
					if err == nil || err.Error() != wantMsg {
						t.Errorf("%s %s grid %v: error %v, want %q", e.Name(), c.name, grid, err, wantMsg)
					}
				} else if err != nil {
					t.Errorf("%s %s grid %v: %v", e.Name(), c.name, grid, err)
					continue
				}
				for j, m := range grid {
					if first >= 0 && j >= first {
						break
					}
					if math.Float64bits(out[j]) != math.Float64bits(want[m]) {
						t.Errorf("%s %s grid %v n=%d: %v, reference %v", e.Name(), c.name, grid, m, out[j], want[m])
					}
					gk := e.AppendGridDiagnostic(nil, 0, j)
					if len(gk) != len(wantK[m]) {
						t.Errorf("%s %s n=%d: %d k*, reference %d", e.Name(), c.name, m, len(gk), len(wantK[m]))
						continue
					}
					for s := range gk {
						if int(gk[s]) != wantK[m][s] {
							t.Errorf("%s %s grid %v n=%d: k*[t=%d] = %v, reference %d", e.Name(), c.name, grid, m, s+1, gk[s], wantK[m][s])
							break
						}
					}
				}
				// Estimate in between must not disturb the next grid.
				if v, err := e.Estimate(c.b); (err == nil) != (wantErr[n] == nil) || (err == nil && math.Float64bits(v) != math.Float64bits(want[n])) {
					t.Errorf("%s %s: Estimate after the grid %v, %v; reference %v, %v", e.Name(), c.name, v, err, want[n], wantErr[n])
				}
			}
		}
	}
}

// TestINCRISLDGridNoAllocs: once warm, EstimateGrid (through the
// package's EstimateGrid, k* included) allocates nothing.
func TestINCRISLDGridNoAllocs(t *testing.T) {
	b := subepisodeBatch(rand.New(rand.NewPCG(4, 5)), 1500, 12)
	grid := []int{10, 20, 50, 100, 200, 500, 1000, 1500}
	out := make([]float64, len(grid))
	ks := make([][]float64, len(grid))
	for j := range ks {
		ks[j] = make([]float64, 0, b.Horizon())
	}
	diags := [][][]float64{ks}
	for _, guard := range []bool{true, false} {
		e := NewINCRISLD(guard)
		if err := estimators.EstimateGrid(e, b, grid, out, diags); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(3, func() { estimators.EstimateGrid(e, b, grid, out, diags) }); a != 0 {
			t.Errorf("%s: %v allocations per EstimateGrid", e.Name(), a)
		}
	}
}
