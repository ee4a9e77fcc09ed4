package marginal

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// BenchmarkIH: one ih estimate, the workspace warm (allocs/op must be 0),
// under gamma = 0.99: n=10000,H=100 is walkBatch's random walk over 500
// observations (about 6.3 10^5 steps, m = 500: the Cholesky solve of a
// 500 x 500 A), taxi/n=10000 noisytaxi with ids (about 2.3 10^5 steps,
// 500 observations).
func BenchmarkIH(b *testing.B) {
	var d trajectory.Discounted
	walk := walkBatch(rand.New(rand.NewPCG(1, 2)), 10000, 100, 500, false)
	taxi := idDomainBatch(b, "noisytaxi", 10000)
	for _, c := range []struct {
		name  string
		batch *trajectory.Batch
	}{{"n=10000,H=100", walk}, {"taxi/n=10000", taxi}} {
		e := NewIH()
		v := d.Of(c.batch, 0.99)
		b.Run(c.name, func(b *testing.B) {
			if _, err := e.Estimate(v); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Estimate(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
