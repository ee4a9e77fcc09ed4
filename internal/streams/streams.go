// Package streams derives independent random streams from integer keys:
// the one place where a seed becomes the state of a generator.
//
// Every random stream of the project (a (series, trial) unit of a run, a
// bootstrap replicate, a chunk of a Monte Carlo cross-check) is a PCG
// generator whose state comes from SplitMix64 of small integers, so that
// nearby seeds and indices get unrelated states and a stream depends on its
// key and index alone, never on scheduling.
package streams

import "math/rand/v2"

// golden is 2^64 / phi, SplitMix64's increment.
const golden = 0x9e3779b97f4a7c15

// Mix is the SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijection
// of uint64 that spreads nearby integers over unrelated 64-bit values.
func Mix(x uint64) uint64 {
	x += golden
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// New returns stream index of the family key: a PCG generator seeded with
// (Mix(key), Mix(index + golden)).
func New(key, index uint64) *rand.Rand {
	return rand.New(rand.NewPCG(Mix(key), Mix(index+golden)))
}

// Seed sets p to the start of stream index of the family key: the source
// New wraps, so that a generator reseeded in a loop draws exactly what
// New's would, without allocating.
func Seed(p *rand.PCG, key, index uint64) { p.Seed(Mix(key), Mix(index+golden)) }
