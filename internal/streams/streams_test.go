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

// TestSeedIsNew: a PCG reseeded by Seed draws New's stream, also after
// it has drawn from another one.
func TestSeedIsNew(t *testing.T) {
	var p rand.PCG
	r := rand.New(&p)
	for _, index := range []uint64{3, 0, 3} {
		Seed(&p, 7, index)
		want := New(7, index)
		for i := range 5 {
			if x, y := r.IntN(100), want.IntN(100); x != y {
				t.Fatalf("index %d, draw %d: %d, want %d", index, i, x, y)
			}
		}
	}
}
