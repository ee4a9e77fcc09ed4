package taxi

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestPilotTaxi: the pilot of the NoisyTaxi of fig2, fig3 and suite
// (eps_b 0.3, eps_e 0.05) finds episodes of about 24 steps (Collect's
// estimate) under the cap of 200, with spread; sized from it, a data set
// of 10000 trajectories (fig2's n_max) holds at least the steps that each
// of 5 draws holds and at most 15% more, far below 10000 x 200; its
// longest trajectory is sized within 1.5 times the draws'.
func TestPilotTaxi(t *testing.T) {
	for _, m := range []float64{1, 3} {
		d, p, err := domains.New("noisytaxi", map[string]float64{"eps_b": 0.3, "eps_e": 0.05, "option_length": m})
		if err != nil {
			t.Fatal(err)
		}
		l := domains.Pilot(d, p.Int("cap"))
		if l.Mean < 18 || l.Mean > 30 || l.SD <= 0 || l.N < 500 {
			t.Fatalf("m = %v: pilot %+v, want a mean of about 24 steps with spread over about 500 episodes", m, l)
		}
		steps, h := l.Steps(10000, 200), l.Horizon(10000, 200)
		for seed := range uint64(5) {
			var b trajectory.Batch
			d.Collect(&b, 10000, rand.New(rand.NewPCG(seed, 3)))
			got, long := float64(b.Steps()), float64(b.Horizon())
			if got > steps || steps > 1.15*got {
				t.Errorf("m = %v, seed %d: %v steps, sized at %v (pilot %+v)", m, seed, got, steps, l)
			}
			if h > 1.5*long || long > 1.5*h {
				t.Errorf("m = %v, seed %d: the longest has %v steps, sized at %v (pilot %+v)", m, seed, long, h, l)
			}
		}
	}
}
