package modelbased

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// BenchmarkAdaptive: one adaptive estimate from n sub-episode trajectories
// of H = 100 (50 sub-episodes), workspace warm: the cost the issue asks
// for at n = 10^4, H = 100. v2: the data without ids (version 2's
// windows); v3: the same kind of data with ids and pi_e
// (subepisodeIDBatch), so version 3 runs (two model fits, two passes).
func BenchmarkAdaptive(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, v := range []string{"v2", "v3"} {
			b.Run(v+"/n="+strconv.Itoa(n), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(2017, uint64(n)))
				batch := subepisodeBatch(rng, n, 50)
				want := 2
				if v == "v3" {
					batch, want = subepisodeIDBatch(rng, n, 50), 3
				}
				e := NewAdaptiveBlend()
				if _, err := e.Estimate(batch); err != nil {
					b.Fatal(err)
				}
				if e.Version() != want {
					b.Fatalf("version %d, want %d", e.Version(), want)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := e.Estimate(batch); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// subepisodeIDBatch is subepisodeBatch with the states as observation ids
// (s1 = 0, s2 = 1, s3 = 2), the actions as ids (a1 = 0, a2 = 1), pi_b =
// 1/2 and pi_e = 3/4 for a1 (the ratios 1.5 and 0.5).
func subepisodeIDBatch(rng *rand.Rand, n, subepisodes int) *trajectory.Batch {
	var b trajectory.Batch
	b.Grow(n, n*2*subepisodes)
	pe := [2]float64{0.75, 0.25}
	add := func(r float64, o, a int) {
		b.Add(r, pe[a]/0.5)
		b.AddIDs(int32(o), int32(a))
		b.AddProbs(0.5, pe[a])
	}
	for range n {
		eps := 0.0
		for range subepisodes {
			a := rng.IntN(2)
			if a == 0 { // s1 -> s2, r = +1
				eps += 0.01
				add(1, 0, 0)
				add(-2+eps, 1, rng.IntN(2))
			} else { // s1 -> s3, r = -1
				add(-1, 0, 1)
				add(2, 2, rng.IntN(2))
			}
			b.MarkSplit()
		}
		b.End()
	}
	return &b
}
