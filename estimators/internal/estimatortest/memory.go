package estimatortest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	_ "github.com/ope-lab/longhorizon/domains/suite" // registers randommdp, gridworld, ...
	_ "github.com/ope-lab/longhorizon/domains/taxi"  // registers noisytaxi
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Within reports whether got bytes allocated are within a workspace bound
// of bound bytes, with Go's allocator's allowance: size classes round an
// allocation up by at most 1/8, large ones to whole 8 KiB pages, plus 16
// KiB of small fixed objects.
func Within(got, bound float64) bool { return got <= 1.125*bound+16<<10+8<<10 }

// LooseMin is the smallest bound that a "not loose" check holds to
// allocating at least half of it: below 256 KiB a bound is too small to
// matter to a run's memory, whatever its ratio.
const LooseMin = 256 << 10

// Loose reports whether a bound of at least LooseMin bytes is more than
// twice the got bytes allocated.
func Loose(got, bound float64) bool { return bound >= LooseMin && got < bound/2 }

// Typical is a data set drawn from one of the harness's domains with the
// parameters of a committed config, recording what its estimators read:
// the data that a bound must not be loose on.
type Typical struct {
	// Name says which config's series the data are typical of.
	Name   string
	Domain string
	Set    map[string]float64
	N      int
}

// TypicalSets are the data sets the families' "not loose" checks run on,
// one for each kind of data the committed configs draw: why each is
// representative is its Name.
func TypicalSets() []Typical {
	return []Typical{
		{"subepisode of fig4, regimes and long (S = 100: H = 200, fixed length)", "subepisode", map[string]float64{"subepisodes": 100}, 500},
		{"NoisyTaxi of fig2/fig3 m1, baselines and suite (primitive, episodes of about 24 steps under a cap of 200)", "noisytaxi",
			map[string]float64{"eps_b": 0.3, "eps_e": 0.05, "option_length": 1}, 2000},
		{"NoisyTaxi with 2-step options of fig2 m2 and sweep_taxi (options data, no changed option)", "noisytaxi",
			map[string]float64{"eps_b": 0.3, "eps_e": 0.05, "option_length": 2}, 2000},
		{"options chain ostar_J3 of theory (options data with changed options)", "optionschain",
			map[string]float64{"option_length": 3, "horizon": 30, "p_b": 1, "p_e": 1, "changed": 1, "inner_p_b": 0.5, "inner_p_e": 1}, 2000},
		{"randommdp A of horizon at H = 300 (10 states, no early end)", "randommdp", map[string]float64{"horizon": 300, "end_prob": 0, "mix": 0.2}, 300},
		{"chain D of horizon at H = 300 (601 observations)", "chainmdp", map[string]float64{"horizon": 300, "p_b": 0.99, "p_e": 1}, 300},
		{"gridworld of suite", "gridworld", nil, 2000},
	}
}

// Draw draws the data set of ty with a fixed seed, recording every column
// its domain supplies: the observation and action ids and the exact
// model's columns (domains.ModelDomain, on primitive data), the
// probabilities (domains.ProbRecorder), the exact moments where the
// domain has them (subepisode: built on first use).
func (ty Typical) Draw() (*trajectory.Batch, error) {
	d, p, err := domains.New(ty.Domain, ty.Set)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ty.Name, err)
	}
	spec, _ := domains.Lookup(ty.Domain)
	options := false
	if or, ok := d.(domains.OptionsRecorder); ok {
		options, _ = or.OptionColumns()
	}
	if md, ok := d.(domains.ModelDomain); ok && !options {
		md.Record(true, spec.Models != nil && spec.Models(p) == nil)
	}
	if pr, ok := d.(domains.ProbRecorder); ok {
		if err := pr.RecordProbs(true); err != nil {
			return nil, fmt.Errorf("%s: %w", ty.Name, err)
		}
	}
	var b trajectory.Batch
	d.Collect(&b, ty.N, rand.New(rand.NewPCG(29, 1)))
	return &b, nil
}

// Measure returns what a fresh estimator of entry info allocates for its
// first estimate on b (over grid with EstimateGrid, when grid is not
// nil), and its bound at b's shape (estimators.ShapeOf, with the grid's
// points).
func Measure(info estimators.Info, b *trajectory.Batch, grid []int) (got, bound float64, err error) {
	got = Allocated(func() {
		e := info.New()
		if grid == nil {
			_, err = e.Estimate(b)
			return
		}
		err = estimators.EstimateGrid(e, b, grid, make([]float64, len(grid)), nil)
	})
	s := estimators.ShapeOf(b)
	if grid != nil {
		s.Points = float64(len(grid))
	}
	return got, info.Memory(s), err
}

// runsOn reports whether the estimator of info runs on b: b carries what
// it needs (the model's columns, ids and probabilities, exact moments).
func runsOn(info estimators.Info, b *trajectory.Batch) bool {
	switch {
	case info.Needs&estimators.Model != 0 && !b.HasModel():
		return false
	case info.Needs&(estimators.IDs|estimators.Probs) != 0 && !(b.HasIDs() && b.HasProbs()):
		return false
	case info.Needs&estimators.ExactMoments != 0 && b.Moments == nil:
		return false
	}
	return true
}

// Family returns the names of the registry entries whose estimators are
// types of the package pkg (its import path): a family's entries, however
// many it registers.
func Family(pkg string) []string {
	var names []string
	for _, info := range estimators.All() {
		t := reflect.TypeOf(info.New())
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.PkgPath() == pkg {
			names = append(names, info.Name)
		}
	}
	return names
}

// CheckTypical checks the bounds of the registry entries names on every
// typical data set (TypicalSets) each runs on, for its first estimate
// and, for a GridEstimator, over the grid of the committed configs up to
// the set's n (Grid125): that the bound holds (Within; for an entry
// needing exact moments the domain's dynamic program that builds them on
// first use adds its own workspace, so only the next check applies), and
// that a bound of at least LooseMin is not loose (Loose: allocation below
// half the bound). A bound below LooseMin on every set does not matter to
// a run's memory: it is logged. At least one entry must meet a bound of
// LooseMin, or the check says nothing of the family.
func CheckTypical(t *testing.T, names []string) {
	t.Helper()
	big := map[string]bool{}
	for _, ty := range TypicalSets() {
		b, err := ty.Draw()
		if err != nil {
			t.Fatal(err)
		}
		grid := Grid125(ty.N)
		for _, name := range names {
			info, ok := estimators.Lookup(name)
			if !ok {
				t.Fatalf("no registry entry %q", name)
			}
			if !runsOn(info, b) {
				continue
			}
			grids := [][]int{nil}
			if _, ok := info.New().(estimators.GridEstimator); ok {
				grids = append(grids, grid)
			}
			for _, g := range grids {
				got, bound, err := Measure(info, b, g)
				what := fmt.Sprintf("%s on %s (n = %d, %d steps, H = %d, grid of %d)", name, ty.Name, b.N(), b.Steps(), b.Horizon(), len(g))
				switch {
				case err != nil:
					t.Errorf("%s: %v", what, err)
				case info.Needs&estimators.ExactMoments == 0 && !Within(got, bound):
					t.Errorf("%s: allocated %.0f bytes, above its bound %.0f (%s)", what, got, bound, info.MemoryDoc())
				case Loose(got, bound):
					t.Errorf("%s: allocated %.0f bytes, less than half its bound %.0f (%s)", what, got, bound, info.MemoryDoc())
				}
				big[name] = big[name] || bound >= LooseMin
				t.Logf("%s: allocated %.0f, bound %.0f (ratio %.2f)", what, got, bound, bound/max(got, 1))
			}
		}
	}
	if len(big) == 0 {
		t.Errorf("%v: no typical data set makes a bound at least %d bytes: the check says nothing", names, LooseMin)
	}
	for _, name := range names {
		if !big[name] {
			t.Logf("%s: its bound stays below %d bytes on every typical data set", name, LooseMin)
		}
	}
}

// Grid125 returns the n grid of the committed configs up to n: 10, 20,
// 50, 100, 200, 500, ... below n, and n.
func Grid125(n int) []int {
	var g []int
	for d := 10; d < n; d *= 10 {
		for _, m := range []int{1, 2, 5} {
			if m*d < n {
				g = append(g, m*d)
			}
		}
	}
	return append(g, n)
}
