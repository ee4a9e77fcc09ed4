package domains

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// TestPilotFixedLength: the domains whose episodes all last their horizon
// (the chain, the sub-episode MDP, the options chain) give a pilot of
// mean H and no spread from its first 8 trajectories, so a run sizes
// their data sets at exactly n H steps and their longest at H.
func TestPilotFixedLength(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  map[string]float64
		h    int
	}{
		{"chainmdp", map[string]float64{"horizon": 20}, 20},
		{"subepisode", map[string]float64{"subepisodes": 50}, 100},
		{"optionschain", map[string]float64{"option_length": 3, "horizon": 30, "p_b": 1, "p_e": 1, "changed": 1, "inner_p_b": 0.5, "inner_p_e": 1}, 30},
	} {
		d, p, err := New(tc.name, tc.set)
		if err != nil {
			t.Fatal(err)
		}
		spec, _ := Lookup(tc.name)
		l := Pilot(d, spec.MaxSteps(p))
		h := float64(tc.h)
		if l.Mean != h || l.SD != 0 || l.Max != h || l.N != 8 {
			t.Errorf("%s: pilot %+v, want mean and longest %d, no spread, over its first 8 trajectories", tc.name, l, tc.h)
		}
		if s, hh := l.Steps(1000, h), l.Horizon(1000, h); s != 1000*h || hh != h {
			t.Errorf("%s: 1000 trajectories sized at %v steps, the longest %v; want %v and %v", tc.name, s, hh, 1000*h, h)
		}
	}
}

// TestLengthsArithmetic: Steps and Horizon on a pilot of mean 20, SD 10,
// longest 60 over 400 trajectories (the numbers worked by hand), capped
// by the domain's longest, and unmeasured lengths at the cap.
func TestLengthsArithmetic(t *testing.T) {
	l := Lengths{Mean: 20, SD: 10, Max: 60, N: 400}
	for _, tc := range []struct {
		what       string
		got, want  float64
		n, maxStep float64
	}{
		// 10000 (20 + 2 x 10/20) + 4 x 10 x 100
		{"steps of 10000", l.Steps(10000, 200), 214000, 10000, 200},
		// 10 x 21 + 4 x 10 x sqrt(10) = 336.5, above 10 x 25
		{"steps capped", l.Steps(10, 25), 250, 10, 25},
		// 60 + 10 ln(10000/400) = 92.2, rounded up
		{"longest of 10000", l.Horizon(10000, 200), 93, 10000, 200},
		// 60 + 10 ln(4/400) = 13.9: at least the mean
		{"longest of 4", l.Horizon(4, 200), 20, 4, 200},
		{"longest capped", l.Horizon(1e9, 200), 200, 1e9, 200},
		{"unmeasured steps", Lengths{}.Steps(7, 30), 210, 7, 30},
		{"unmeasured longest", Lengths{}.Horizon(7, 30), 30, 7, 30},
	} {
		if math.Abs(tc.got-tc.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", tc.what, tc.got, tc.want)
		}
	}
}

// geometric is a domain whose episodes end after each step with
// probability 1/20, at most 200 steps: the lengths of episodes that end
// at a constant rate, as NoisyTaxi's roughly do.
type geometric struct{}

func (geometric) Collect(b *trajectory.Batch, n int, rng *rand.Rand) {
	for range n {
		for s := 0; s < 200; s++ {
			b.Add(1, 1)
			if rng.IntN(20) == 0 {
				break
			}
		}
		b.End()
	}
}

// TestPilotVariableLength: on episodes of geometric lengths, the pilot's
// Steps for 5000 trajectories covers every one of 30 data sets of 5000
// and is within 20% of their steps; its Horizon covers at least 28 of
// their longest trajectories and is within 1.5 times each.
func TestPilotVariableLength(t *testing.T) {
	l := Pilot(geometric{}, 200)
	steps, h := l.Steps(5000, 200), l.Horizon(5000, 200)
	covered := 0
	for seed := range uint64(30) {
		var b trajectory.Batch
		geometric{}.Collect(&b, 5000, rand.New(rand.NewPCG(seed, 77)))
		got := float64(b.Steps())
		if got > steps || steps > 1.2*got {
			t.Errorf("seed %d: %v steps, sized at %v", seed, got, steps)
		}
		if long := float64(b.Horizon()); long <= h {
			covered++
		} else if h > 1.5*long || long > 1.5*h {
			t.Errorf("seed %d: the longest has %v steps, sized at %v", seed, long, h)
		}
	}
	if covered < 28 {
		t.Errorf("the longest trajectory was above %v (the pilot %+v) in %d of 30 data sets", h, l, 30-covered)
	}
}

// TestPilotTooLong: a domain whose episodes may be longer than 2^17 steps
// is not measured (the pilot would draw 8 of them), and sizing it without
// drawing allocates nothing of their size.
func TestPilotTooLong(t *testing.T) {
	d, p, err := New("chainmdp", map[string]float64{"horizon": 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := Lookup("chainmdp")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	l := Pilot(d, spec.MaxSteps(p))
	runtime.ReadMemStats(&after)
	if l != (Lengths{}) {
		t.Errorf("a chain of 2^20 steps: pilot %+v, want none", l)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("the pilot allocated %d bytes", grew)
	}
}
