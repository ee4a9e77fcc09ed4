package noisytaxi

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// PCGRand draws from a *rand.PCG exactly what rand.New(src) would: each of
// its methods consumes the same Uint64 values of src, in the same order, and
// returns the same result as the *rand.Rand method of the same name (the
// algorithms are those of math/rand/v2). The difference is speed: a
// *rand.Rand calls its source through the rand.Source interface for every
// value, PCGRand calls the concrete (*rand.PCG).Uint64, which the compiler
// inlines. Interleaving draws from a PCGRand and from a *rand.Rand over the
// same PCG is allowed and keeps one stream.
type PCGRand struct{ src *rand.PCG }

// NewPCGRand returns the stream that draws from src.
func NewPCGRand(src *rand.PCG) PCGRand { return PCGRand{src} }

// Source returns the generator r draws from.
func (r PCGRand) Source() *rand.PCG { return r.src }

// Uint64 is (*rand.Rand).Uint64.
func (r PCGRand) Uint64() uint64 { return r.src.Uint64() }

// Float64 is (*rand.Rand).Float64: a uniform draw from [0, 1), k/2^53 for
// the low 53 bits k of one Uint64.
func (r PCGRand) Float64() float64 { return float64(r.src.Uint64()<<11>>11) / (1 << 53) }

// IntN is (*rand.Rand).IntN: a uniform draw from [0, n), by Lemire's
// multiply-and-reject method on Uint64 values. It panics if n <= 0.
func (r PCGRand) IntN(n int) int {
	if n <= 0 {
		panic("invalid argument to IntN")
	}
	return r.IntNFrom(r.src.Uint64(), n)
}

// IntNFrom returns what IntN(n) returns when its first Uint64 draw is x,
// drawing more from r only in the rare case (probability below n/2^64) in
// which Lemire's method rejects x: IntN(n) is IntNFrom(r.Uint64(), n) for
// n > 0. A caller that draws x inline can then accept x itself in the
// common case: for n > 0 not a power of two, with hi, lo = bits.Mul64(x,
// n), IntNFrom returns hi whenever lo >= n. It panics if n <= 0.
//
// This is math/rand/v2's (*Rand).uint64n. On 32-bit platforms that calls
// uint32n for a 32-bit n, which math/rand/v2 keeps equal to this 64-bit
// computation value for value (same draws, same results), so one version
// serves every platform.
func (r PCGRand) IntNFrom(x uint64, n int) int {
	if n <= 0 {
		panic("invalid argument to IntN")
	}
	u := uint64(n)
	if u&(u-1) == 0 { // a power of two: mask
		return int(x & (u - 1))
	}
	hi, lo := bits.Mul64(x, u)
	if lo < u {
		thresh := -u % u
		for lo < thresh {
			hi, lo = bits.Mul64(r.src.Uint64(), u)
		}
	}
	return int(hi)
}

// Float64Threshold returns the t in [0, 2^53] for which a Float64 draw u =
// k/2^53 (k the low 53 bits of one Uint64) is below p exactly when k < t:
// the comparison u < p done on integers, with the same outcome for every k
// and every p (NaN included: t = 0, never below). It holds because k/2^53
// and p*2^53 are exact in float64 (scaling by a power of two), so u < p if
// and only if k < p*2^53, which for an integer k means k < ceil(p*2^53).
func Float64Threshold(p float64) uint64 {
	x := math.Ceil(p * (1 << 53))
	switch {
	case !(x > 0): // p <= 0 or NaN: u < p never holds
		return 0
	case x >= 1<<53: // p >= 1 (after rounding up): always holds
		return 1 << 53
	}
	return uint64(x)
}

// low53 returns the bits of a Uint64 that Float64 uses: Float64 returns
// low53(x)/2^53.
func low53(x uint64) uint64 { return x << 11 >> 11 }
