package streams

import (
	"math/rand/v2"
	"testing"
)

// TestMixKnownValues: SplitMix64 of 0 and 1, as the reference
// implementation (Vigna, splitmix64.c, with state x and one call of next())
// prints them.
func TestMixKnownValues(t *testing.T) {
	for _, tc := range []struct{ in, want uint64 }{
		{0, 0xe220a8397b1dcdaf},
		{1, 0x910a2dec89025cc1},
	} {
		if got := Mix(tc.in); got != tc.want {
			t.Errorf("Mix(%d) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

// TestNewIsPCGOfMixedKey: New is exactly the documented PCG seeding, and
// different indices give different streams.
func TestNewIsPCGOfMixedKey(t *testing.T) {
	a := New(7, 3)
	b := rand.New(rand.NewPCG(Mix(7), Mix(3+golden)))
	for i := range 5 {
		if x, y := a.Uint64(), b.Uint64(); x != y {
			t.Fatalf("draw %d: %#x, want %#x", i, x, y)
		}
	}
	if New(7, 3).Uint64() == New(7, 4).Uint64() {
		t.Error("indices 3 and 4 gave the same first draw")
	}
}
