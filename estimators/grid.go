package estimators

import (
	"fmt"

	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// GridEstimator computes estimates at several prefix sizes in one pass: the
// nested-data protocol of SPEC 3 estimates at each n of a grid from the
// first n trajectories of one draw.
//
// The paper's estimators (IS, PDIS and its options and partitioned forms,
// WIS, CWPDIS, INCRIS) implement it; their results
// are bit-identical to Estimate on each prefix (b.Prefix(grid[j])),
// errors included. The package-level EstimateGrid serves any Estimator.
type GridEstimator interface {
	// EstimateGrid sets out[j] to the estimate from the first grid[j]
	// trajectories of b (grid strictly increasing, grid[len-1] <= b.N(),
	// len(out) >= len(grid)). If Estimate fails on a prefix, it returns
	// that error for the smallest failing n, as "n = 50: <error>" (wrapped:
	// errors.Is sees ErrTooFew, ErrNotRepresentable); out is then partial.
	EstimateGrid(b *trajectory.Batch, grid []int, out []float64) error
}

// GridReporter is implemented by GridEstimators that also report their
// diagnostics at every grid point (INCRIS).
type GridReporter interface {
	// AppendGridDiagnostic appends diagnostic d at grid point j of the
	// last EstimateGrid call to dst and returns the extended slice.
	AppendGridDiagnostic(dst []float64, d, j int) []float64
}

// EstimateGrid sets out[j] to e's estimate from the first grid[j]
// trajectories of b, in one pass when e is a GridEstimator and by
// b.Prefix + Estimate otherwise. When diags is not nil and e reports
// diagnostics (Reporter), diags[d][j] is set to diagnostic d at grid[j]
// for d < len(diags), reusing diags[d][j]'s memory (len(diags[d]) >=
// len(grid)). Errors name the n at which the estimate failed, as
// GridEstimator's do.
func EstimateGrid(e Estimator, b *trajectory.Batch, grid []int, out []float64, diags [][][]float64) error {
	if err := CheckGrid(b, grid, out); err != nil {
		return err
	}
	for d := range diags {
		if len(diags[d]) < len(grid) {
			return fmt.Errorf("estimators: %d slots for diagnostic %d, for a grid of %d", len(diags[d]), d, len(grid))
		}
	}
	rep, reports := e.(Reporter)
	if !reports {
		diags = nil
	}
	if g, ok := e.(GridEstimator); ok {
		gr, gridReports := e.(GridReporter)
		if !reports || gridReports {
			if err := g.EstimateGrid(b, grid, out); err != nil {
				return err
			}
			for d := range diags {
				for j := range grid {
					diags[d][j] = gr.AppendGridDiagnostic(diags[d][j][:0], d, j)
				}
			}
			return nil
		}
	}
	for j, n := range grid {
		p := b.Prefix(n)
		v, err := e.Estimate(&p)
		if err != nil {
			return GridError(n, err)
		}
		out[j] = v
		for d := range diags {
			diags[d][j] = rep.AppendDiagnostic(diags[d][j][:0], d)
		}
	}
	return nil
}

// CheckGrid validates the arguments of an EstimateGrid call (of this
// package or of a GridEstimator): a non-empty, strictly increasing,
// non-negative grid within the batch, and an output slot for each point.
func CheckGrid(b *trajectory.Batch, grid []int, out []float64) error {
	if len(grid) == 0 {
		return fmt.Errorf("estimators: empty grid")
	}
	if len(out) < len(grid) {
		return fmt.Errorf("estimators: %d outputs for a grid of %d", len(out), len(grid))
	}
	for j, n := range grid {
		if n < 0 || (j > 0 && n <= grid[j-1]) {
			return fmt.Errorf("estimators: grid %v is not strictly increasing and non-negative", grid)
		}
	}
	if last := grid[len(grid)-1]; last > b.N() {
		return fmt.Errorf("estimators: grid point n = %d exceeds the batch's %d trajectories", last, b.N())
	}
	return nil
}

// sumsGrid is EstimateGrid for the estimators built on weights.Sums: it
// streams the fast-path sums (only the final ones when totals is set: IS,
// WIS) trajectory by trajectory and calls at(n, h) at each grid point (the estimate from the first n trajectories, of horizon h).
// If a weight leaves the normal float64 range, the remaining grid points
// fall back to Estimate on each prefix (the scaled path).
func sumsGrid(e Estimator, s *weights.Sums, b *trajectory.Batch, totals, restart bool, grid []int, out []float64, at func(n, h int) (float64, error)) error {
	if err := CheckGrid(b, grid, out); err != nil {
		return err
	}
	s.Reset(b.N(), b.Horizon())
	fast := true
	prev, hn := 0, 0
	for j, n := range grid {
		if fast {
			if totals {
				fast = s.AddTotals(b, prev, n)
			} else {
				fast = s.AddFast(b, prev, n, restart)
			}
			fast = fast && s.Finite()
		}
		if !fast {
			p := b.Prefix(n)
			v, err := e.Estimate(&p)
			if err != nil {
				return GridError(n, err)
			}
			out[j] = v
			continue
		}
		for i := prev; i < n; i++ {
			hn = max(hn, b.Len(i))
		}
		prev = n
		if n == 0 {
			return GridError(n, ErrTooFew)
		}
		v, err := at(n, hn)
		if err != nil {
			return GridError(n, err)
		}
		out[j] = v
	}
	return nil
}

// GridError names the grid point n at which an estimate failed, as
// GridEstimator's errors do: "n = 50: <err>", wrapping err.
func GridError(n int, err error) error { return fmt.Errorf("n = %d: %w", n, err) }
