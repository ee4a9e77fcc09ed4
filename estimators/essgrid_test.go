package estimators_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestESSGrid checks ESSGrid against WeightStatsOf on each prefix (the
// direct, one-n-at-a-time computation), on random data of variable
// lengths, options data, weights beyond float64's range and all-zero
// weights. The tolerance, a relative 1e-13, allows for summing segment by
// segment where WeightStatsOf sums in one pass (a few roundings of
// relative size 2^-53 each).
func TestESSGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	var wild trajectory.Batch // weights 1e400, 1e-400, 0, 1e400, 1, ...
	for i := range 12 {
		f := []float64{1e200, 1e-200, 0, 1e200, 1, 3}[i%6]
		wild.Add(1, f)
		wild.Add(1, f)
		wild.End()
	}
	var zero trajectory.Batch
	for range 4 {
		zero.Add(1, 0)
		zero.End()
	}
	cases := []struct {
		name string
		b    *trajectory.Batch
		grid []int
	}{
		{"random", randomBatch(rng, 200, 30), []int{1, 2, 10, 50, 200}},
		{"random one point", randomBatch(rng, 50, 20), []int{50}},
		{"subepisodes", subepisodeBatch(rng, 100, 8), []int{5, 40, 99}},
		{"options", optionBatch(rng, 80, 25), []int{10, 80}},
		{"beyond float64", &wild, []int{1, 2, 3, 6, 12}},
		{"all zero", &zero, []int{1, 4}},
		{"n = 0", &zero, []int{0, 2}},
	}
	var g estimators.ESSGrid
	for _, c := range cases {
		ess := make([]float64, len(c.grid))
		minStep := make([]float64, len(c.grid))
		if err := g.Compute(c.b, c.grid, ess, minStep); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for j, n := range c.grid {
			p := c.b.Prefix(n)
			want := estimators.WeightStatsOf(&p)
			if !close13(ess[j], want.ESS) || !close13(minStep[j], want.MinStepESS) {
				t.Errorf("%s, n = %d: ESS %v, min step %v; WeightStatsOf %v, %v", c.name, n, ess[j], minStep[j], want.ESS, want.MinStepESS)
			}
		}
	}
}

func close13(a, b float64) bool { return a == b || math.Abs(a-b) <= 1e-13*math.Abs(b) }

// TestESSGridRefuses checks the grid's preconditions and that a warm call
// allocates nothing.
func TestESSGridRefuses(t *testing.T) {
	b := randomBatch(rand.New(rand.NewPCG(1, 2)), 20, 10)
	var g estimators.ESSGrid
	out := make([]float64, 2)
	for _, grid := range [][]int{{5, 5}, {10, 5}, {-1, 3}, {5, 21}} {
		if err := g.Compute(b, grid, out, out); err == nil {
			t.Errorf("grid %v: no error", grid)
		}
	}
	if err := g.Compute(b, []int{5}, out, out); err == nil {
		t.Error("one grid point, two outputs: no error")
	}
	ess, minStep := make([]float64, 2), make([]float64, 2)
	grid := []int{10, 20}
	if a := testing.AllocsPerRun(10, func() { g.Compute(b, grid, ess, minStep) }); a != 0 {
		t.Errorf("warm Compute allocates %v times", a)
	}
}

// BenchmarkESSGrid measures the per-unit cost the harness adds for
// curve.csv's ess columns, at the horizon run's shape.
func BenchmarkESSGrid(b *testing.B) {
	for _, s := range []struct{ n, h int }{{1000, 100}, {1000, 3000}, {10000, 100}} {
		batch := randomBatch(rand.New(rand.NewPCG(3, 4)), s.n, s.h)
		grid := []int{s.n / 10, s.n}
		ess, minStep := make([]float64, 2), make([]float64, 2)
		var g estimators.ESSGrid
		b.Run(fmt.Sprintf("n=%d,H=%d", s.n, s.h), func(b *testing.B) {
			for b.Loop() {
				g.Compute(batch, grid, ess, minStep)
			}
		})
	}
}

// TestESSGridKeepsBatches: a batch without changed options lends its own
// OptionRatio as its factors (Batch.Factors); a later call on options data
// must not multiply the factors out into that borrowed slice.
func TestESSGridKeepsBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	plain := randomBatch(rng, 60, 20)
	before := slices.Clone(plain.OptionRatio)
	opts := optionBatch(rng, 10, 10)
	var g estimators.ESSGrid
	out := make([]float64, 1)
	for _, b := range []*trajectory.Batch{plain, opts, plain} {
		if err := g.Compute(b, []int{b.N()}, out, out[:1:1]); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(plain.OptionRatio, before) {
		t.Error("a batch's OptionRatio changed under ESSGrid")
	}
}
