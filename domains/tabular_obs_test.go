package domains

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/envs/tabular"
	"github.com/ope-lab/longhorizon/trajectory"
)

// observedTabular is testTabular with an observation map: states 0 and 1
// look alike (observation 0), state 2 is observation 1; testTabular's
// policies do not depend on the state, so they act on the observation.
// ids replaces the map when not nil; edit, when not nil, changes the
// built policies.
func observedTabular(ids []int, edit func(b, e *tabular.Policy)) TabularSpec {
	ts := testTabular
	ts.Name = "tabularobserved"
	ts.Observe = func(Params) ([]int, error) {
		if ids != nil {
			return ids, nil
		}
		return []int{0, 0, 1}, nil
	}
	build := testTabular.Build
	ts.Build = func(p Params) (*tabular.MDP, *tabular.Policy, *tabular.Policy, error) {
		m, b, e, err := build(p)
		if err == nil && edit != nil {
			edit(b, e)
		}
		return m, b, e, err
	}
	return ts
}

// TestTabularOptions: Gamma replaces the gamma parameter (its default,
// range and doc) and NoInstance leaves instance out; a Gamma named
// otherwise panics when the Spec is made (a programming error).
func TestTabularOptions(t *testing.T) {
	ts := testTabular
	ts.Gamma = ParamSpec{Name: "gamma", Kind: Float, Default: 0.98, Min: 0, Max: 1, Interp: true, Doc: "discounted"}
	ts.NoInstance = true
	spec := ts.Spec()
	var names []string
	for _, ps := range spec.Params {
		names = append(names, ps.Name)
	}
	if !slices.Equal(names, []string{"end", "broken", "gamma"}) {
		t.Errorf("parameters %v, want [end broken gamma]", names)
	}
	if g, _ := spec.Defaults().Gamma(); g != 0.98 {
		t.Errorf("default gamma %v, want 0.98", g)
	}
	if _, err := spec.Resolve(map[string]float64{"instance": 2}); err == nil {
		t.Error("instance accepted without an instance parameter")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `TabularSpec.Gamma named "discount", want gamma`) {
			t.Errorf("panic %v", r)
		}
	}()
	ts.Gamma.Name = "discount"
	ts.Spec()
}

// TestTabularObserved: under an observation map the space has 2
// observations with pi_e(.|o) the policy's (0.8, 0.2); on the same stream
// the batch is that of the fully observed domain bit for bit (offsets,
// rewards, ratios, actions, probabilities and the exact model at the
// latent state) except the observation ids, which are the map's of the
// fully observed run's states (0, 1 -> 0; 2 -> 1).
func TestTabularObserved(t *testing.T) {
	collect := func(ts TabularSpec) trajectory.Batch {
		spec := ts.Spec()
		p, err := spec.Resolve(map[string]float64{"gamma": 0.9})
		if err != nil {
			t.Fatal(err)
		}
		d, err := spec.New(p)
		if err != nil {
			t.Fatal(err)
		}
		td := d.(*tabularDomain)
		td.Record(true, true)
		if err := td.RecordProbs(true); err != nil {
			t.Fatal(err)
		}
		var b trajectory.Batch
		td.Collect(&b, 1000, rand.New(rand.NewPCG(8, 9)))
		return b
	}
	full, seen := collect(testTabular), collect(observedTabular(nil, nil))
	if !slices.Equal(full.Offsets, seen.Offsets) || !slices.Equal(full.Reward, seen.Reward) || !slices.Equal(full.Ratio, seen.Ratio) ||
		!slices.Equal(full.Action, seen.Action) || !slices.Equal(full.QHat, seen.QHat) || !slices.Equal(full.VHat, seen.VHat) ||
		!slices.Equal(full.PiB, seen.PiB) || !slices.Equal(full.PiE, seen.PiE) {
		t.Fatal("the observation map changed the trajectories or the exact model")
	}
	alias := [3]int32{0, 0, 1}
	for k, s := range full.Obs {
		if seen.Obs[k] != alias[s] {
			t.Fatalf("step %d: state %d observed as %d, want %d", k, s, seen.Obs[k], alias[s])
		}
	}
	spec := observedTabular(nil, nil).Spec()
	dom, err := spec.New(spec.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	sp := dom.(ModelDomain).Space()
	pi := make([]float64, 2)
	sp.PiE(1, pi)
	if sp.Obs != 2 || sp.Actions != 2 || sp.Horizon != 3 || pi[0] != 0.8 || pi[1] != 0.2 {
		t.Errorf("space %+v, pi_e(.|1) = %v; want 2 observations, 2 actions, horizon 3, (0.8, 0.2)", sp, pi)
	}
}

// TestTabularObservedRefuses: an observation map of the wrong length,
// with an id out of range or a gap, an Observe error, or a policy that
// differs between states sharing an observation is refused, with the
// domain's name and what is wrong; a nil map is the identity.
func TestTabularObservedRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		ts   TabularSpec
		want string
	}{
		{"length", observedTabular([]int{0, 1}, nil), "tabularobserved: observations: 2 ids, want one per state (3)"},
		{"range", observedTabular([]int{0, 3, 1}, nil), "state 1: id 3, want one in [0, 3) (states)"},
		{"negative", observedTabular([]int{0, -1, 1}, nil), "state 1: id -1"},
		{"gap", observedTabular([]int{0, 2, 2}, nil), "id 1 is no state's observation, though 2 is"},
		{"behavior", observedTabular(nil, func(b, _ *tabular.Policy) { b.Pi[2], b.Pi[3] = 0.4, 0.6 }),
			"the behavior policy differs between states 0 and 1, which share observation 0"},
		{"evaluation", observedTabular([]int{1, 0, 1}, func(_, e *tabular.Policy) { e.Pi[4], e.Pi[5] = 0.6, 0.4 }),
			"the evaluation policy differs between states 0 and 2, which share observation 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.ts.Spec()
			if _, err := spec.New(spec.Defaults()); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
			if spec.MaxSteps(spec.Defaults()) != 1 {
				t.Error("MaxSteps of refused parameters is not 1")
			}
		})
	}
	ts := observedTabular(nil, nil)
	ts.Observe = func(Params) ([]int, error) { return nil, errors.New("no map") }
	if _, err := ts.Spec().New(ts.Spec().Defaults()); err == nil || !strings.Contains(err.Error(), "tabularobserved: observations: no map") {
		t.Errorf("Observe's error: %v", err)
	}
	ts.Observe = func(Params) ([]int, error) { return nil, nil }
	d, err := ts.Spec().New(ts.Spec().Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if sp := d.(ModelDomain).Space(); sp.Obs != 3 {
		t.Errorf("nil map: %d observations, want 3 (the states)", sp.Obs)
	}
}
