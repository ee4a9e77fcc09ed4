package estimators_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/internal/estimatortest"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestMemoryBoundsWorkspace: every registry entry's Memory bounds what a
// fresh estimator allocates for its first estimate, at the data's shape
// (estimators.ShapeOf) and with its ids unknown, on primitive data, on
// options data with changed options (where the per-step factors are
// materialised) and on sub-episode data, with the allocator's allowance
// (estimatortest.Within). INCRIS's bound is also not loose: its co-moment
// cells, 16 H (H+3) bytes and more, are really allocated.
func TestMemoryBoundsWorkspace(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, tc := range []struct {
		name string
		b    *trajectory.Batch
	}{
		{"primitive", randomBatch(rng, 400, 60)},
		{"options", optionBatch(rng, 400, 60)},
		{"subepisode", subepisodeBatch(rng, 300, 40)},
	} {
		h := tc.b.Horizon()
		for _, info := range estimators.All() {
			b := tc.b
			if info.Needs&estimators.Model != 0 {
				b = withModelColumns(rng, tc.b) // dm, dr, wdr, magic: ErrNoModel without
			}
			if info.Needs&(estimators.IDs|estimators.Probs) != 0 {
				if tc.name == "options" {
					continue // mis, drl: options data has no ids (refused by the data check)
				}
				b = withIDs(rng, tc.b, 5, 3)
			}
			if info.Needs&estimators.ExactMoments != 0 {
				b = withMoments(tc.b, syntheticMoments(h)) // incris-oracle: built inside Estimate
			}
			got := allocated(func() {
				e, _ := estimators.New(info.Name)
				if _, err := e.Estimate(b); err != nil {
					t.Fatalf("%s on %s: %v", info.Name, tc.name, err)
				}
			})
			known := estimators.ShapeOf(b)
			unknown := known
			unknown.Obs, unknown.Actions = 0, 0
			for _, s := range []estimators.Shape{known, unknown} {
				if bound := info.Memory(s); !within(got, bound) {
					t.Errorf("%s on %s (shape %+v): allocated %.0f bytes, Memory says at most %.0f (%s)",
						info.Name, tc.name, s, got, bound, info.MemoryDoc())
				}
			}
			if info.Name == "incris" && got < 16*float64(h*(h+3)) {
				t.Errorf("incris on %s: allocated %.0f bytes, less than its cells' 16 H (H+3) = %d", tc.name, got, 16*h*(h+3))
			}
		}
	}
}

// TestMemoryNotLoose: on data typical of the harness's domains
// (estimatortest.TypicalSets: a data set of each kind the committed
// configs draw), the bound of every estimator of the plain family holds
// and, where it is large enough to matter, is not loose by more than 2
// (estimatortest.CheckTypical; every entry of the family, Family). It is large only where the per-step
// factors are materialised, on the options chain with changed options
// (theory's ostar and allchanged series): elsewhere these estimators keep
// O(H) sums, 8 (6H+2) bytes, below 256 KiB for H < 5461.
func TestMemoryNotLoose(t *testing.T) {
	estimatortest.CheckTypical(t, estimatortest.Family("github.com/ope-lab/longhorizon/estimators"))
}
