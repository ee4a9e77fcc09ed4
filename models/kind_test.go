package models

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// TestKindsComplete: every registry entry names its data and documents
// itself; a learner has a memory bound with its formula, the exact model
// none; the registry lists exact, fitted and fitted-t, sorted, and Get
// refuses an unknown kind naming the known ones.
func TestKindsComplete(t *testing.T) {
	if got, want := Names(), []string{"exact", "fitted", "fitted-t"}; !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, k := range Kinds() {
		switch {
		case k.Doc == "" || k.Source == "":
			t.Errorf("%s: no Doc or Source", k.Name)
		case k.Needs == 0:
			t.Errorf("%s: needs nothing", k.Name)
		case k.Learned() != (k.Needs&IDs != 0):
			t.Errorf("%s: learner %v, but needs %v", k.Name, k.Learned(), k.Needs)
		case k.Learned() && (k.Bytes == nil || k.BytesDoc == ""):
			t.Errorf("%s: a learner without a memory bound", k.Name)
		}
	}
	if _, err := Get("fqe-typo"); err == nil || err.Error() != `unknown model "fqe-typo" (known: exact, fitted, fitted-t)` {
		t.Errorf("Get(unknown): %v", err)
	}
	if k, err := Get(Default); err != nil || !k.Learned() {
		t.Errorf("the default %q: %v, learned %v", Default, err, k.Learned())
	}
	// Kinds is a copy: changing it changes nothing in the registry.
	ks := Kinds()
	ks[0].Name = "x"
	if Names()[0] != "exact" {
		t.Error("Kinds() shares the registry's memory")
	}
}

// TestLearnersFitToSelf: every learner's FitTo(b, b) gives the bits of its
// own Fit on b (Fitter.Fit and TimeFitter.Fit are FitTo(b, b)), and a
// fresh learner from the registry gives the bits of the type's zero value.
func TestLearnersFitToSelf(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	b := randomBatch(rng, 300, 15, 20, 3)
	sp := Space{Obs: 20, Actions: 3, Horizon: 15, PiE: uniform(3)}
	direct := map[string]func(*trajectory.Batch) error{
		"fitted":   func(x *trajectory.Batch) error { var f Fitter; return f.Fit(x, sp, 0.95) },
		"fitted-t": func(x *trajectory.Batch) error { var f TimeFitter; return f.Fit(x, sp, 0.95) },
	}
	for _, k := range Kinds() {
		if !k.Learned() {
			continue
		}
		fit, ok := direct[k.Name]
		if !ok {
			t.Fatalf("%s: no direct fit in this test", k.Name)
		}
		x, y := clone(b), clone(b)
		if err := fit(x); err != nil {
			t.Fatal(err)
		}
		if err := k.New().FitTo(y, y, sp, 0.95); err != nil {
			t.Fatal(err)
		}
		if !bitsEqual(x.QHat, y.QHat) || !bitsEqual(x.VHat, y.VHat) {
			t.Errorf("%s: FitTo(b, b) differs from Fit(b)", k.Name)
		}
	}
}

// TestTimeFitToOther: the time-indexed model fitted on b and read on
// another batch gives, at each step (t, o, a) of the other batch, the
// q_hat and v_hat that Fit writes at b's visits of (t, o, a) (and v_hat of
// (t, o)); 0 where b has no visit of the pair (q_hat) or of o at step t
// (both). The other batch is b's first half, trajectories whose
// observations are shifted out of b's range at one step, and one b never
// reaches (t beyond b's longest trajectory).
func TestTimeFitToOther(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const obs, actions, h = 12, 3, 10
	b := randomBatch(rng, 200, h-2, obs, actions) // b's trajectories end by step 8
	sp := Space{Obs: 2 * obs, Actions: actions, Horizon: h, PiE: uniform(actions)}
	var to trajectory.Batch
	for i := range 100 {
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			o := b.Obs[s]
			if i%7 == 0 && s == b.Offsets[i] {
				o += obs // an observation b never visits
			}
			to.Add(0, 1)
			to.AddIDs(o, b.Action[s])
		}
		to.End()
	}
	for range h {
		to.Add(0, 1)
		to.AddIDs(1, 0)
	}
	to.End()
	var f TimeFitter
	if err := f.Fit(b, sp, 0.9); err != nil {
		t.Fatal(err)
	}
	type key struct{ t, o, a int32 }
	q := map[key]float64{}
	v := map[key]float64{}
	for i := range b.N() {
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			tt := int32(s - b.Offsets[i])
			q[key{tt, b.Obs[s], b.Action[s]}] = b.QHat[s]
			v[key{tt, b.Obs[s], -1}] = b.VHat[s]
		}
	}
	var g TimeFitter
	if err := g.FitTo(b, &to, sp, 0.9); err != nil {
		t.Fatal(err)
	}
	zeros := 0
	for i := range to.N() {
		for s := to.Offsets[i]; s < to.Offsets[i+1]; s++ {
			tt := int32(s - to.Offsets[i])
			wq := q[key{tt, to.Obs[s], to.Action[s]}] // 0 when b has no such visit
			wv := v[key{tt, to.Obs[s], -1}]
			if math.Float64bits(to.QHat[s]) != math.Float64bits(wq) || math.Float64bits(to.VHat[s]) != math.Float64bits(wv) {
				t.Fatalf("trajectory %d, t = %d, (o, a) = (%d, %d): q_hat, v_hat = %v, %v; want %v, %v", i, tt+1, to.Obs[s], to.Action[s], to.QHat[s], to.VHat[s], wq, wv)
			}
			if wq == 0 && wv == 0 {
				zeros++
			}
		}
	}
	if zeros < h {
		t.Errorf("only %d steps without a visit in b: the test does not reach its cases", zeros)
	}
}

func clone(b *trajectory.Batch) *trajectory.Batch {
	return &trajectory.Batch{Offsets: slices.Clone(b.Offsets), Reward: slices.Clone(b.Reward), Ratio: slices.Clone(b.Ratio),
		Obs: slices.Clone(b.Obs), Action: slices.Clone(b.Action)}
}

func bitsEqual(x, y []float64) bool {
	return slices.EqualFunc(x, y, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })
}
