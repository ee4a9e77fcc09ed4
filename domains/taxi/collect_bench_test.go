package taxi

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/trajectory"
)

// BenchmarkCollect measures drawing NoisyTaxi episodes into a reused
// batch, primitive (m = 1) and with options (m = 3), and reports primitive
// steps per second (domains.BenchmarkCollect does the same for the other
// paper's domains).
func BenchmarkCollect(b *testing.B) {
	for _, m := range []int{1, 3} {
		d, _, err := domains.New("noisytaxi", map[string]float64{"option_length": float64(m)})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("noisytaxi/m="+strconv.Itoa(m), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			var batch trajectory.Batch
			const n = 1000
			steps := 0
			b.ReportAllocs()
			for b.Loop() {
				batch.Reset()
				d.Collect(&batch, n, rng)
				steps += batch.Steps()
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}
