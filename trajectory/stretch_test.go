package trajectory

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestStretch: a batch built through a Stretch (flushed whenever full, so
// episodes of more than 256 steps cross flushes) equals the one built by
// Add, AddIDs and MarkSplit step by step, with and without the ids.
func TestStretch(t *testing.T) {
	for _, ids := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(7, 11))
		var want, got Batch
		var st Stretch
		for _, steps := range []int{0, 1, 255, 256, 257, 600} {
			for s := range steps {
				r, rho := rng.NormFloat64(), rng.Float64()
				obs, act := int32(rng.IntN(9)), int32(rng.IntN(3))
				split := s%7 == 3
				want.Add(r, rho)
				if ids {
					want.AddIDs(obs, act)
				}
				if split {
					want.MarkSplit()
				}
				if st.Full() {
					st.Flush(&got, ids)
				}
				st.Add(r, rho, obs, act)
				if split {
					st.MarkSplit()
				}
			}
			want.End()
			st.Flush(&got, ids)
			got.End()
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("ids = %v: the stretch's batch differs from Add's", ids)
		}
	}
}
