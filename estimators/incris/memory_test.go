package incris

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/estimatortest"
)

// TestMemoryNotLoose: on data typical of the harness's domains
// (estimatortest.TypicalSets), every bound of the INCRIS family
// (estimatortest.Family) holds
// (incris-oracle's apart: the domain's dynamic program builds the
// moments inside its first estimate, beyond its tables) and, where it is
// large enough to matter, is not loose by more than 2, for one estimate
// and over a grid (estimatortest.CheckTypical). INCRIS's cells and
// incris-ld's ratio table are allocated whatever the data; the oracle's
// moments run only on the sub-episode MDP (H = 200: 325 KB of tables).
func TestMemoryNotLoose(t *testing.T) {
	estimatortest.CheckTypical(t, estimatortest.Family("github.com/ope-lab/longhorizon/estimators/incris"))
}

// TestINCRISLDGridMemory: incris-ld's bound holds over grids whose points
// pass ldChunk (their snapshots), on options data with changed options
// (the factors materialised) and on primitive data.
func TestINCRISLDGridMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	info, _ := estimators.Lookup("incris-ld")
	for _, tc := range []struct {
		name string
		opts bool
	}{{"primitive", false}, {"options", true}} {
		b := randomBatch(rng, 3000, 40)
		if tc.opts {
			b = optionBatch(rng, 3000, 40)
		}
		grid := []int{10, 100, 600, 1200, 2000, 3000}
		got, bound, err := estimatortest.Measure(info, b, grid)
		if err != nil {
			t.Fatal(err)
		}
		if !estimatortest.Within(got, bound) {
			t.Errorf("%s: a grid of %d points allocated %.0f bytes, Memory says at most %.0f", tc.name, len(grid), got, bound)
		}
	}
}
