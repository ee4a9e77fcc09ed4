package estimators_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestMemoryBoundsWorkspace: every registry entry's Memory(n, H) bounds
// what a fresh estimator allocates for its first estimate, on primitive
// data and on options data with changed options (where the per-step
// factors are materialised). Allowance: Go's size classes round an
// allocation up by at most 1/8, large ones to 8 KiB pages, plus 16 KiB of
// small fixed objects. INCRIS's bound is also not loose: its co-moment
// cells, 16 H (H+3) bytes, are really allocated.
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
		n, h := tc.b.N(), tc.b.Horizon()
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
			bound := info.Memory(n, h)
			if got > 1.125*bound+16<<10+8<<10 {
				t.Errorf("%s on %s (n = %d, H = %d): allocated %.0f bytes, Memory says at most %.0f (%s)",
					info.Name, tc.name, n, h, got, bound, info.MemoryDoc())
			}
			if info.Name == "incris" && got < 16*float64(h*(h+3)) {
				t.Errorf("incris on %s: allocated %.0f bytes, less than its cells' 16 H (H+3) = %d", tc.name, got, 16*h*(h+3))
			}
		}
	}
}
