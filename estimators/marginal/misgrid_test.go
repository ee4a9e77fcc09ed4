package marginal

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/estimatortest"
	"github.com/ope-lab/longhorizon/trajectory"
)

// referenceMIS is SPEC 1f's mis written per step, as mis computed it
// before its sufficient statistics: each step t, c^i = d_t(o^i_t)
// rho^i_t / n_t(o^i_t) is added times r^i_t to the estimate and to
// d_{t+1}(o^i_{t+1}), trajectory by trajectory (a map per step).
func referenceMIS(b *trajectory.Batch) float64 {
	n := b.N()
	d := map[int32]float64{}
	for i := range n {
		if b.Len(i) > 0 {
			d[b.Obs[b.Offsets[i]]] += 1 / float64(n)
		}
	}
	total := 0.0
	for t := 0; t < b.Horizon(); t++ {
		count := map[int32]int{}
		for i := range n {
			if t < b.Len(i) {
				count[b.Obs[b.Offsets[i]+t]]++
			}
		}
		dn := map[int32]float64{}
		for i := range n {
			if t >= b.Len(i) {
				continue
			}
			s := b.Offsets[i] + t
			c := d[b.Obs[s]] * b.Ratio[s] / float64(count[b.Obs[s]])
			total += c * b.Reward[s]
			if t+1 < b.Len(i) {
				dn[b.Obs[s+1]] += c
			}
		}
		d = dn
	}
	return total
}

// misIDBatch draws n trajectories of random length in [0, h] (some empty,
// some ended early), with observation ids in [0, nObs) that depend on the
// step and on the previous id (so that cells have several transitions),
// action ids in [0, 3), ratios in {0, 0.5, 1.5, 2} and rewards, zero or
// normal; when sparse, the ids are spread far apart (compactIDs's map).
func misIDBatch(rng *rand.Rand, n, h, nObs int, sparse bool) *trajectory.Batch {
	var b trajectory.Batch
	ratios := []float64{0, 0.5, 1.5, 2}
	for range n {
		l := rng.IntN(h + 1)
		if rng.IntN(8) != 0 {
			l = max(l, 1)
		}
		o := int32(rng.IntN(nObs))
		for range l {
			rho := ratios[rng.IntN(len(ratios))]
			r := 0.0
			if rng.Float64() < 0.7 {
				r = rho + rng.NormFloat64()
			}
			b.Add(r, rho)
			id := o
			if sparse {
				id = o*int32((1<<31-8)/nObs) + 7
			}
			b.AddIDs(id, int32(rng.IntN(3)))
			if rng.IntN(3) == 0 {
				o = int32(rng.IntN(nObs))
			} else {
				o = (o + 1 + int32(rng.IntN(2))) % int32(nObs)
			}
		}
		b.End()
	}
	return &b
}

// misPerPrefix is Estimate on each prefix with a fresh estimator.
func misPerPrefix(b *trajectory.Batch, grid []int) ([]float64, []error) {
	vals, errs := make([]float64, len(grid)), make([]error, len(grid))
	for j, n := range grid {
		p := b.Prefix(n)
		vals[j], errs[j] = NewMIS().Estimate(&p)
	}
	return vals, errs
}

// checkMISGrid requires EstimateGrid of e, run twice (stale workspace),
// to equal Estimate of a fresh mis on each prefix bit for bit, or to fail
// with the first failing prefix's error, naming its n.
func checkMISGrid(t *testing.T, label string, e *MIS, b *trajectory.Batch, grid []int) {
	t.Helper()
	want, wantErr := misPerPrefix(b, grid)
	firstErr := -1
	for j := range grid {
		if wantErr[j] != nil {
			firstErr = j
			break
		}
	}
	for rep := range 2 {
		out := make([]float64, len(grid))
		err := estimators.EstimateGrid(e, b, grid, out, nil)
		if firstErr >= 0 {
			if err == nil || !strings.Contains(err.Error(), wantErr[firstErr].Error()) ||
				!strings.HasPrefix(err.Error(), "n = "+strconv.Itoa(grid[firstErr])+": ") {
				t.Errorf("%s rep %d: error %v, want n = %d: %v", label, rep, err, grid[firstErr], wantErr[firstErr])
			}
			for j := range firstErr {
				if !sameFloat(out[j], want[j]) {
					t.Errorf("%s rep %d n=%d (before the error): grid %v, per-prefix %v", label, rep, grid[j], out[j], want[j])
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s rep %d: %v", label, rep, err)
			continue
		}
		for j, n := range grid {
			if !sameFloat(out[j], want[j]) {
				t.Errorf("%s rep %d n=%d: grid %v, per-prefix %v (differ by %g)", label, rep, n, out[j], want[j], out[j]-want[j])
			}
		}
	}
}

// randomGrid is a random strictly increasing grid over 1..n, always
// ending at n.
func randomGrid(rng *rand.Rand, n int) []int {
	var grid []int
	for m := 1; m < n; m++ {
		if rng.IntN(4) == 0 {
			grid = append(grid, m)
		}
	}
	return append(grid, n)
}

func TestMISImplementsGrid(t *testing.T) {
	e, _ := estimators.New("mis")
	if _, ok := e.(estimators.GridEstimator); !ok {
		t.Error("mis does not implement GridEstimator")
	}
}

// TestMISGridMatchesPrefixes: on random batches with ids (trajectories of
// different lengths, ended early, empty ones; dense and sparse ids; few
// and many observations) and their gamma = 0.9 discounted views, mis's
// EstimateGrid equals Estimate on each prefix bit for bit.
func TestMISGridMatchesPrefixes(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	e, eh := NewMIS(), NewMIS()
	eh.st.hashed = true
	var disc trajectory.Discounted
	for trial := range 60 {
		n := 1 + rng.IntN(80)
		nObs := []int{1, 2, 3, 7, 40, 1000}[trial%6]
		b := misIDBatch(rng, n, 1+rng.IntN(12), nObs, trial%3 == 2)
		grid := randomGrid(rng, n)
		label := "trial " + strconv.Itoa(trial)
		checkMISGrid(t, label, e, b, grid)
		checkMISGrid(t, label+" gamma 0.9", e, disc.Of(b, 0.9), grid)
		checkMISGrid(t, label+", hash tables", eh, b, grid)
		// warm estimators moved to another batch
		for _, x := range []*MIS{e, eh} {
			if _, err := x.Estimate(misIDBatch(rng, 5, 3, 2, false)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestMISGridLarge: the suite's grid on 5000 trajectories of up to 60
// steps over 50 observations, in segments of every size.
func TestMISGridLarge(t *testing.T) {
	n, grid := 5000, []int{10, 20, 50, 100, 200, 500, 1000, 2000, 5000}
	if testing.Short() {
		n, grid = 500, grid[:6]
	}
	rng := rand.New(rand.NewPCG(23, 24))
	b := misIDBatch(rng, n, 60, 50, false)
	checkMISGrid(t, "suite grid", NewMIS(), b, grid)
	var disc trajectory.Discounted
	checkMISGrid(t, "suite grid, gamma 0.9", NewMIS(), disc.Of(b, 0.9), grid)
	every := make([]int, n)
	for j := range every {
		every[j] = j + 1
	}
	every = every[:800]
	if testing.Short() {
		every = every[:200]
	}
	checkMISGrid(t, "every n", NewMIS(), b, every)
}

// TestMISMatchesReference: the sufficient statistics' mis is the per-step
// form (the code before them), up to rounding, on random batches and
// gamma 0.9 views.
func TestMISMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	e := NewMIS()
	var disc trajectory.Discounted
	for trial := range 100 {
		b := misIDBatch(rng, 1+rng.IntN(60), 1+rng.IntN(15), 1+rng.IntN(10), trial%4 == 3)
		for _, v := range []*trajectory.Batch{b, disc.Of(b, 0.9)} {
			got, err := e.Estimate(v)
			if err != nil {
				t.Fatal(err)
			}
			want := referenceMIS(v)
			if math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
				t.Errorf("trial %d gamma %v: mis %v, per-step reference %v", trial, v.Gamma, got, want)
			}
		}
	}
}

// TestMISGridErrors: without ids, with a negative id from some step on,
// and at n = 0, the grid fails at the first prefix Estimate fails on,
// naming it, after the values before it; a prefix without steps is 0.
func TestMISGridErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	e := NewMIS()
	// two empty trajectories first: prefixes 1 and 2 have no steps
	var b trajectory.Batch
	b.End()
	b.End()
	for range 10 {
		for range 1 + rng.IntN(4) {
			b.Add(rng.NormFloat64(), 1.5)
			b.AddIDs(int32(rng.IntN(3)), 0)
		}
		b.End()
	}
	grid := []int{1, 2, 3, 6, 12}
	checkMISGrid(t, "empty first", e, &b, grid)
	out := make([]float64, len(grid))
	if err := estimators.EstimateGrid(e, &b, grid, out, nil); err != nil || out[0] != 0 || out[1] != 0 {
		t.Errorf("empty prefixes: %v %v, want 0 0", out[:2], err)
	}
	// a negative id at trajectory 5 (0-based): n = 6 fails
	neg := b
	neg.Obs = append([]int32(nil), b.Obs...)
	neg.Obs[neg.Offsets[5]] = -1
	checkMISGrid(t, "negative id", e, &neg, grid)
	if err := estimators.EstimateGrid(e, &neg, grid, out, nil); err == nil || !strings.HasPrefix(err.Error(), "n = 6: ") {
		t.Errorf("negative id: %v, want n = 6: ...", err)
	}
	// no ids: the first prefix with steps fails with ErrNoIDs
	noIDs := b
	noIDs.Obs, noIDs.Action = nil, nil
	checkMISGrid(t, "no ids", e, &noIDs, grid)
	if err := estimators.EstimateGrid(e, &noIDs, grid, out, nil); !errors.Is(err, ErrNoIDs) || !strings.HasPrefix(err.Error(), "n = 3: ") {
		t.Errorf("no ids: %v, want n = 3: ... ErrNoIDs", err)
	}
	// n = 0: estimators.ErrTooFew
	if err := estimators.EstimateGrid(e, &b, []int{0, 4}, out, nil); !errors.Is(err, estimators.ErrTooFew) || !strings.HasPrefix(err.Error(), "n = 0: ") {
		t.Errorf("n = 0: %v, want n = 0: ... estimators.ErrTooFew", err)
	}
	// weights that overflow from trajectory 4 on: estimators.ErrNotRepresentable there
	var big trajectory.Batch
	for i := range 8 {
		for range 3 {
			rho := 1.5
			if i >= 3 {
				rho = 1e300
			}
			big.Add(1, rho)
			big.AddIDs(int32(i%2), 0)
		}
		big.End()
	}
	checkMISGrid(t, "overflow", e, &big, []int{1, 2, 3, 4, 8})
	if err := estimators.EstimateGrid(e, &big, []int{2, 4, 8}, out, nil); !errors.Is(err, estimators.ErrNotRepresentable) || !strings.HasPrefix(err.Error(), "n = 4: ") {
		t.Errorf("overflow: %v, want n = 4: ... estimators.ErrNotRepresentable", err)
	}
}

// TestMISGridNoAllocs: a warm mis allocates nothing, over a grid or once.
func TestMISGridNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	b := misIDBatch(rng, 2000, 40, 30, false)
	grid := []int{10, 20, 50, 100, 200, 500, 1000, 2000}
	out := make([]float64, len(grid))
	e := NewMIS()
	if err := estimators.EstimateGrid(e, b, grid, out, nil); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(5, func() { estimators.EstimateGrid(e, b, grid, out, nil) }); a != 0 {
		t.Errorf("mis EstimateGrid: %v allocations per call", a)
	}
	if a := testing.AllocsPerRun(5, func() { e.Estimate(b) }); a != 0 {
		t.Errorf("mis Estimate after EstimateGrid: %v allocations per call", a)
	}
	for _, c := range []struct {
		label string
		b     *trajectory.Batch
	}{
		{"sparse ids", misIDBatch(rng, 500, 20, 30, true)},
		{"many observations", misIDBatch(rng, 500, 20, 600, false)},
		{"more observations than steps", misIDBatch(rng, 500, 10, 100000, true)},
	} {
		e := NewMIS()
		e.Estimate(c.b)
		if a := testing.AllocsPerRun(5, func() { estimators.EstimateGrid(e, c.b, grid[:6], out, nil) }); a != 0 {
			t.Errorf("mis EstimateGrid, %s: %v allocations per call", c.label, a)
		}
		if a := testing.AllocsPerRun(5, func() { e.Estimate(c.b) }); a != 0 {
			t.Errorf("mis Estimate, %s: %v allocations per call", c.label, a)
		}
	}
}

// TestMISIndexModes: the tables of (t, o) and (t, o, o') are dense arrays
// or hash tables by the data's size; every combination gives the estimate
// of the others bit for bit (the hash tables forced), the per-step
// reference up to rounding, and a grid equal to the per-prefix estimates.
func TestMISIndexModes(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, tc := range []struct {
		label          string
		n, h, nObs     int
		dense, denseTr bool
	}{
		{"few observations", 300, 10, 6, true, true},
		{"many observations", 300, 10, 300, true, false},
		{"more observations than steps", 400, 10, 100000, false, false},
	} {
		for trial := range 4 {
			b := misIDBatch(rng, tc.n, tc.h, tc.nObs, trial%2 == 1)
			e := NewMIS()
			got, err := e.Estimate(b)
			if err != nil {
				t.Fatal(err)
			}
			if e.st.dense != tc.dense || e.st.denseTr != tc.denseTr {
				t.Fatalf("%s: dense tables %v, %v; want %v, %v", tc.label, e.st.dense, e.st.denseTr, tc.dense, tc.denseTr)
			}
			if want := referenceMIS(b); math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
				t.Errorf("%s: mis %v, per-step reference %v", tc.label, got, want)
			}
			h := NewMIS()
			h.st.hashed = true
			hv, err := h.Estimate(b)
			if err != nil {
				t.Fatal(err)
			}
			if h.st.dense || h.st.denseTr {
				t.Fatalf("%s: hash tables not forced", tc.label)
			}
			if !sameFloat(hv, got) {
				t.Errorf("%s: with hash tables %v, else %v", tc.label, hv, got)
			}
			grid := randomGrid(rng, tc.n)
			checkMISGrid(t, tc.label, e, b, grid)
			checkMISGrid(t, tc.label+", hash tables", h, b, grid)
		}
	}
}

// fullBatch is n trajectories of h steps each (n H steps, the most a
// Shape of n trajectories of horizon H holds), observation o(i, t) at step t of trajectory i,
// random ratios and rewards.
func fullBatch(rng *rand.Rand, n, h int, o func(i, t int) int32) *trajectory.Batch {
	var b trajectory.Batch
	for i := range n {
		for t := range h {
			b.Add(rng.NormFloat64(), 0.5+rng.Float64())
			b.AddIDs(o(i, t), 0)
		}
		b.End()
	}
	return &b
}

// TestMISMemoryWorstCases: a fresh mis allocates within its registry
// bound (estimatortest.Within), at the data's shape (its ids' range) and
// with its ids unknown, on n trajectories of H steps
// each, with the data its hash tables are for: every step its own
// observation (every (t, o) and (t, o, o') new), and many observations
// with many successors each; once, and over a grid.
func TestMISMemoryWorstCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	info, _ := estimators.Lookup("mis")
	const n, h = 3000, 40
	for _, c := range []struct {
		label          string
		b              *trajectory.Batch
		dense, denseTr bool
	}{
		{"own observations", fullBatch(rng, n, h, func(i, t int) int32 { return int32(i*h + t) }), false, false},
		{"many observations", fullBatch(rng, n, h, func(int, int) int32 { return int32(rng.IntN(2000)) }), true, false},
		{"few observations", fullBatch(rng, n, h, func(int, int) int32 { return int32(rng.IntN(5)) }), true, true},
	} {
		shape := estimators.ShapeOf(c.b)
		unknown := shape
		unknown.Obs, unknown.Actions = 0, 0
		var e *MIS
		got := allocated(func() {
			e = NewMIS()
			if _, err := e.Estimate(c.b); err != nil {
				t.Fatal(err)
			}
		})
		if e.st.dense != c.dense || e.st.denseTr != c.denseTr {
			t.Fatalf("%s: dense tables %v, %v; want %v, %v", c.label, e.st.dense, e.st.denseTr, c.dense, c.denseTr)
		}
		grid := []int{10, 20, 50, 100, 200, 500, 1000, 2000, n}
		out := make([]float64, len(grid))
		gotGrid := allocated(func() {
			if err := estimators.EstimateGrid(NewMIS(), c.b, grid, out, nil); err != nil {
				t.Fatal(err)
			}
		})
		for _, s := range []estimators.Shape{shape, unknown} {
			bound := info.Memory(s)
			s.Points = float64(len(grid))
			boundGrid := info.Memory(s)
			t.Logf("%s (n = %d, H = %d, %d steps, ids below %v): Estimate %.0f bytes, EstimateGrid %.0f, bounds %.0f and %.0f", c.label, n, h, c.b.Steps(), s.Obs, got, gotGrid, bound, boundGrid)
			if !estimatortest.Within(got, bound) || !estimatortest.Within(gotGrid, boundGrid) {
				t.Errorf("%s (ids below %v): allocated %.0f bytes (grid %.0f), Memory says at most %.0f (grid %.0f)", c.label, s.Obs, got, gotGrid, bound, boundGrid)
			}
		}
	}
}
