package domains_test

// The tests of every registered domain kind: the paper's (this package),
// the NoisyTaxi (domains/taxi), the tabular suite (domains/suite) and the
// field's benchmarks (domains/benchmarks), as experiments/config
// registers them.

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	_ "github.com/ope-lab/longhorizon/domains/benchmarks" // graph, modelwin, modelfail
	_ "github.com/ope-lab/longhorizon/domains/suite"      // the tabular suite
	_ "github.com/ope-lab/longhorizon/domains/taxi"       // noisytaxi
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestSpecsDocumented: every domain and parameter carries the text its
// help and docs/reference.md are generated from.
func TestSpecsDocumented(t *testing.T) {
	for _, name := range domains.Names() {
		s, _ := domains.Lookup(name)
		if s.Doc == "" || s.TruthDoc == "" || s.Splits == "" || s.New == nil || s.Truth == nil {
			t.Errorf("domain %s: missing doc, truth or constructor", name)
		}
		for _, p := range s.Params {
			if p.Doc == "" || (p.Kind != domains.Bool && (p.Default < p.Min || p.Default > p.Max)) {
				t.Errorf("domain %s parameter %s: doc %q, default %v outside [%v, %v]", name, p.Name, p.Doc, p.Default, p.Min, p.Max)
			}
		}
		if _, _, err := domains.New(name, nil); err != nil {
			t.Errorf("domain %s at its defaults: %v", name, err)
		}
	}
}

// TestMaxStepsBoundsTrajectories draws trajectories from every domain at
// its defaults and at a short setting, and checks that none is longer than
// MaxSteps: run.NeedOf sizes memory from it.
func TestMaxStepsBoundsTrajectories(t *testing.T) {
	short := map[string]map[string]float64{
		"chainmdp":     {"horizon": 3},
		"optionschain": {"horizon": 4, "option_length": 2},
		"subepisode":   {"subepisodes": 2},
		"noisytaxi":    {"cap": 5, "mc_episodes": 0},
		"graph":        {"horizon": 2, "obs_blocks": 1, "reward_noise": 1},
	}
	for _, name := range domains.Names() {
		spec, _ := domains.Lookup(name)
		if spec.MaxSteps == nil {
			t.Errorf("%s: no MaxSteps", name)
			continue
		}
		for _, set := range []map[string]float64{nil, short[name]} {
			d, p, err := domains.New(name, set)
			if err != nil {
				t.Fatalf("%s %v: %v", name, set, err)
			}
			var b trajectory.Batch
			d.Collect(&b, 500, rand.New(rand.NewPCG(1, 2)))
			h := spec.MaxSteps(p)
			if got := b.Horizon(); got > h || got < 1 {
				t.Errorf("%s %v: longest trajectory %d steps, MaxSteps %d", name, set, got, h)
			}
			// The batch's real memory (capacities, bytes per element)
			// stays within trajectory.Size for n trajectories of h steps.
			real := 8*(cap(b.Reward)+cap(b.Ratio)+cap(b.OptionRatio)+cap(b.Offsets)) + cap(b.Changed) + cap(b.Split)
			if bound := trajectory.Size(500, float64(500*h)); float64(real) > bound {
				t.Errorf("%s %v: batch holds %d bytes, trajectory.Size bounds it by %v", name, set, real, bound)
			}
		}
	}
}
