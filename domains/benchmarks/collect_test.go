package benchmarks

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/trajectory"
)

// collectCases are the settings the allocation test and the benchmark
// draw from: every domain, graph with noise and observation blocks.
var collectCases = []struct {
	name, domain string
	set          map[string]float64
}{
	{"graph/H=100", "graph", map[string]float64{"horizon": 100}},
	{"graph-pomdp/H=100", "graph", map[string]float64{"horizon": 100, "obs_blocks": 5, "reward_noise": 1, "slip": 0.25}},
	{"modelwin/H=20", "modelwin", nil},
	{"modelfail/H=2", "modelfail", nil},
}

// TestCollectNoAlloc: once the batch has grown, Collect allocates
// nothing, recording ids, the exact model and the probabilities (the
// noise's Draw and the observation map included).
func TestCollectNoAlloc(t *testing.T) {
	for _, tc := range collectCases {
		d, _, _ := build(t, tc.domain, tc.set)
		d.Record(true, true)
		if err := d.(domains.ProbRecorder).RecordProbs(true); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		var b trajectory.Batch
		d.Collect(&b, 100, rng)
		if allocs := testing.AllocsPerRun(10, func() {
			b.Reset()
			d.Collect(&b, 100, rng)
		}); allocs != 0 {
			t.Errorf("%s: Collect allocates %v times, want 0", tc.name, allocs)
		}
	}
}

// BenchmarkCollect measures drawing n = 10^4 episodes into a reused batch
// with ids and the exact model recorded, and reports steps per second.
func BenchmarkCollect(b *testing.B) {
	for _, tc := range collectCases {
		d, _, err := domains.New(tc.domain, tc.set)
		if err != nil {
			b.Fatal(err)
		}
		md := d.(domains.ModelDomain)
		md.Record(true, true)
		b.Run(tc.name+"/n=10000", func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			var batch trajectory.Batch
			steps := 0
			b.ReportAllocs()
			for b.Loop() {
				batch.Reset()
				md.Collect(&batch, 10000, rng)
				steps += batch.Steps()
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}
