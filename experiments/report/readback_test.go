package report

import "testing"

// TestStreamKeyIsClaimKey: the claims' stream keys are StreamKey's, so
// the two cannot drift apart.
func TestStreamKeyIsClaimKey(t *testing.T) {
	for _, seed := range []uint64{0, 2017, 1<<64 - 1} {
		for _, name := range []string{"", "c1", "m3-lowest"} {
			if got, want := StreamKey(seed, "claim:"+name), claimKey(seed, name); got != want {
				t.Errorf("StreamKey(%d, claim:%s) = %#x, claimKey %#x", seed, name, got, want)
			}
		}
	}
}
