package estimators_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/incris"
	"github.com/ope-lab/longhorizon/trajectory"
)

// gridEstimators are the estimators that must implement GridEstimator.
var gridEstimators = []string{"is", "pdis", "wis", "cwpdis", "options-pdis", "partitioned-pdis", "incris", "incris-printed", "mis"}

func TestGridEstimatorImplemented(t *testing.T) {
	for _, name := range gridEstimators {
		e, err := estimators.New(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := e.(estimators.GridEstimator); !ok {
			t.Errorf("%s does not implement GridEstimator", name)
		}
	}
}

// perPrefix returns e's Estimate (and k*) on each prefix b.Prefix(grid[j])
// with a fresh estimator, as the runner computed nested data before
// EstimateGrid.
func perPrefix(t *testing.T, name string, b *trajectory.Batch, grid []int) ([]float64, [][]float64, []error) {
	t.Helper()
	vals := make([]float64, len(grid))
	ks := make([][]float64, len(grid))
	errs := make([]error, len(grid))
	for j, n := range grid {
		e, _ := estimators.New(name)
		p := b.Prefix(n)
		vals[j], errs[j] = e.Estimate(&p)
		if kr, ok := e.(estimators.Reporter); ok {
			ks[j] = kr.AppendDiagnostic(nil, 0)
		}
	}
	return vals, ks, errs
}

// checkGridMatches runs EstimateGrid for every registered estimator (a
// reused estimator, twice, to catch stale workspace) and requires results
// bit-identical to per-prefix Estimate, and the same k*.
func checkGridMatches(t *testing.T, label string, b *trajectory.Batch, grid []int) {
	t.Helper()
	for _, name := range estimators.Names() {
		want, wantK, wantErr := perPrefix(t, name, b, grid)
		e, _ := estimators.New(name)
		for rep := range 2 {
			out := make([]float64, len(grid))
			ks := make([][]float64, len(grid))
			err := estimators.EstimateGrid(e, b, grid, out, [][][]float64{ks})
			firstErr := -1
			for j := range grid {
				if wantErr[j] != nil {
					firstErr = j
					break
				}
			}
			if firstErr >= 0 {
				if err == nil || !strings.Contains(err.Error(), wantErr[firstErr].Error()) {
					t.Errorf("%s %s rep %d: error %v, want one naming %q", label, name, rep, err, wantErr[firstErr])
				}
				continue
			}
			if err != nil {
				t.Errorf("%s %s rep %d: %v", label, name, rep, err)
				continue
			}
			for j, n := range grid {
				if !sameFloat(out[j], want[j]) {
					t.Errorf("%s %s rep %d n=%d: grid %v, per-prefix %v", label, name, rep, n, out[j], want[j])
				}
				if wantK[j] != nil && !slices.Equal(ks[j], wantK[j]) {
					t.Errorf("%s %s rep %d n=%d: grid k* %v, per-prefix %v", label, name, rep, n, ks[j], wantK[j])
				}
			}
		}
	}
}

func TestEstimateGridMatchesPrefixes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 30 {
		n := 2 + rng.IntN(60)
		var b *trajectory.Batch
		switch trial % 3 {
		case 0:
			b = randomBatch(rng, n, 1+rng.IntN(10))
		case 1:
			b = optionBatch(rng, n, 1+rng.IntN(10))
		default:
			b = subepisodeBatch(rng, n, 1+rng.IntN(5))
		}
		// a random strictly increasing grid over 2..n, always ending at n
		var grid []int
		for m := 2; m < n; m++ {
			if rng.IntN(4) == 0 {
				grid = append(grid, m)
			}
		}
		grid = append(grid, n)
		checkGridMatches(t, "trial "+string(rune('A'+trial)), b, grid)
	}
}

// TestEstimateGridFig4 uses configs/fig4.yaml's grid on sub-episode data.
func TestEstimateGridFig4(t *testing.T) {
	n := 2000
	grid := []int{10, 20, 50, 100, 200, 500, 1000, 2000}
	if testing.Short() {
		n, grid = 200, grid[:5]
	}
	checkGridMatches(t, "fig4", subepisodeBatch(rand.New(rand.NewPCG(9, 10)), n, 50), grid)
}

// TestEstimateGridScaled: weights leave the normal float64 range from the
// 5th trajectory on; the grid points after it fall back to the scaled path
// (or, for INCRIS, fail as Estimate does).
func TestEstimateGridScaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var b trajectory.Batch
	for i := range 12 {
		for s := range 40 {
			rho := 0.5 + rng.Float64()
			if i >= 4 && i%2 == 0 {
				rho = 1e30 // 1e30^40 overflows
			}
			if i >= 4 && i%2 == 1 && s > 20 {
				rho = 1e-30 // underflows
			}
			b.Add(rng.NormFloat64(), rho)
			if s == 10 {
				b.MarkSplit()
			}
		}
		b.End()
	}
	checkGridMatches(t, "scaled", &b, []int{2, 3, 4, 5, 8, 12})
	// the fast path fails inside a segment that also holds a grid point
	// with representable weights
	checkGridMatches(t, "scaled2", &b, []int{3, 6, 12})
}

func TestEstimateGridErrors(t *testing.T) {
	b := subepisodeBatch(rand.New(rand.NewPCG(1, 1)), 10, 3)
	out := make([]float64, 3)
	for _, tc := range []struct {
		grid []int
		want string
	}{
		{[]int{}, "empty grid"},
		{[]int{3, 3}, "strictly increasing"},
		{[]int{5, 2}, "strictly increasing"},
		{[]int{2, 11}, "exceeds"},
		{[]int{1, 2, 3, 4}, "outputs"},
	} {
		for _, name := range gridEstimators {
			e, _ := estimators.New(name)
			if err := estimators.EstimateGrid(e, b, tc.grid, out, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s grid %v: %v, want an error containing %q", name, tc.grid, err, tc.want)
			}
		}
	}
	// INCRIS needs n >= 2: the error names the grid point and wraps ErrTooFew.
	err := estimators.EstimateGrid(incris.NewINCRIS(false), b, []int{1, 5}, out, nil)
	if !errors.Is(err, estimators.ErrTooFew) || !strings.HasPrefix(err.Error(), "n = 1: ") {
		t.Errorf("incris at n = 1: %v, want n = 1: ... ErrTooFew", err)
	}
	err = estimators.EstimateGrid(estimators.NewIS(), b, []int{0, 5}, out, nil)
	if !errors.Is(err, estimators.ErrTooFew) || !strings.HasPrefix(err.Error(), "n = 0: ") {
		t.Errorf("is at n = 0: %v, want n = 0: ... ErrTooFew", err)
	}
	// INCRIS fails where the weights leave the normal range, naming that n.
	big := chainAllA1(1100)
	err = estimators.EstimateGrid(incris.NewINCRIS(false), big, []int{1, 2}, out, nil)
	if !strings.HasPrefix(err.Error(), "n = 1: ") {
		t.Errorf("incris on 2^1100 weights: %v", err)
	}
	err = estimators.EstimateGrid(estimators.NewPDIS(), big, []int{1, 2}, out, nil)
	if !errors.Is(err, estimators.ErrNotRepresentable) || !strings.HasPrefix(err.Error(), "n = 1: ") {
		t.Errorf("pdis on 2^1100 weights: %v, want n = 1: ... ErrNotRepresentable", err)
	}
}

// TestEstimateGridFallback: an Estimator without EstimateGrid gets the
// per-prefix loop, k* included.
func TestEstimateGridFallback(t *testing.T) {
	b := randomBatch(rand.New(rand.NewPCG(2, 3)), 30, 6)
	grid := []int{2, 7, 30}
	e := onlyEstimate{incris.NewINCRIS(false)}
	out := make([]float64, len(grid))
	ks := make([][]float64, len(grid))
	if err := estimators.EstimateGrid(e, b, grid, out, [][][]float64{ks}); err != nil {
		t.Fatal(err)
	}
	want, wantK, _ := perPrefix(t, "incris", b, grid)
	for j := range grid {
		if !sameFloat(out[j], want[j]) || !slices.Equal(ks[j], wantK[j]) {
			t.Errorf("n=%d: %v %v, want %v %v", grid[j], out[j], ks[j], want[j], wantK[j])
		}
	}
}

// onlyEstimate hides every method but Estimator's and Reporter's.
type onlyEstimate struct{ e *incris.INCRIS }

func (o onlyEstimate) Name() string                                  { return o.e.Name() }
func (o onlyEstimate) Estimate(b *trajectory.Batch) (float64, error) { return o.e.Estimate(b) }
func (o onlyEstimate) AppendDiagnostic(dst []float64, d int) []float64 {
	return o.e.AppendDiagnostic(dst, d)
}

// TestEstimateGridNoAllocs: once the workspace exists, a grid pass
// allocates nothing (k* slots given with capacity).
func TestEstimateGridNoAllocs(t *testing.T) {
	b := subepisodeBatch(rand.New(rand.NewPCG(4, 4)), 300, 10)
	// ids for mis (the others ignore them): the sub-episode MDP's state
	// (s1 at odd steps, s2 or s3 after a1 or a2) and a made-up action
	b.Obs, b.Action = make([]int32, b.Steps()), make([]int32, b.Steps())
	for s := range b.Obs {
		b.Obs[s], b.Action[s] = int32(s%3), int32(s%2)
	}
	grid := []int{10, 20, 50, 100, 300}
	out := make([]float64, len(grid))
	ks := make([][]float64, len(grid))
	for j := range ks {
		ks[j] = make([]float64, 0, b.Horizon())
	}
	diags := [][][]float64{ks}
	for _, name := range gridEstimators {
		e, _ := estimators.New(name)
		if err := estimators.EstimateGrid(e, b, grid, out, diags); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(5, func() { estimators.EstimateGrid(e, b, grid, out, diags) }); a != 0 {
			t.Errorf("%s: %v allocations per EstimateGrid", name, a)
		}
	}
	e := incris.NewINCRIS(false)
	e.Estimate(b)
	if a := testing.AllocsPerRun(5, func() { e.Estimate(b) }); a != 0 {
		t.Errorf("incris Estimate: %v allocations per call", a)
	}
}
