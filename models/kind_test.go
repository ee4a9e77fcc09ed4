package models

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// TestKindsComplete: every registry entry names its data and documents
// itself; a learner has a memory bound with its formula, a kind without
// one has none; the registry is sorted and holds exact, fitted and
// fitted-t (SPEC 1d's and issue 24's), and Get refuses an unknown kind
// naming the known ones.
func TestKindsComplete(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) {
		t.Errorf("Names() = %v, not sorted", names)
	}
	for _, want := range []string{"exact", "fitted", "fitted-t"} {
		if !slices.Contains(names, want) {
			t.Errorf("Names() = %v, without %s", names, want)
		}
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
	want := `unknown model "fqe-typo" (known: ` + strings.Join(names, ", ") + ")"
	if _, err := Get("fqe-typo"); err == nil || err.Error() != want {
		t.Errorf("Get(unknown): %v, want %s", err, want)
	}
	if k, err := Get(Default); err != nil || !k.Learned() {
		t.Errorf("the default %q: %v, learned %v", Default, err, k.Learned())
	}
	// Kinds is a copy: changing it changes nothing in the registry.
	ks := Kinds()
	ks[0].Name = "x"
	if Names()[0] == "x" {
		t.Error("Kinds() shares the registry's memory")
	}
}

// TestLearnersContract: what every learner of the registry promises
// (models.Learner), checked on each without naming it, so that a new kind
// is covered by this test as soon as it registers: on random batches with
// trajectories that end early and reach the horizon, at gamma 1 and 0.9,
//   - FitTo(b, b) writes one finite q_hat and v_hat per step of b;
//   - a warm learner gives the bits of a fresh one, after a different
//     batch (no stale state), and allocates nothing;
//   - fitted on b and read on a copy of b (cross-fitting's path), the
//     columns equal those of FitTo(b, b) bit for bit;
//   - a cold fit allocates at most Kind.Bytes, the columns included.
func TestLearnersContract(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const obs, actions, h = 20, 3, 15
	x := randomBatch(rng, 300, h, obs, actions)
	y := randomBatch(rng, 200, h, obs, actions)
	sp := Space{Obs: obs, Actions: actions, Horizon: h, PiE: uniform(actions)}
	for _, k := range Kinds() {
		if !k.Learned() {
			continue
		}
		for _, gamma := range []float64{1, 0.9} {
			fresh := clone(x)
			if err := k.New().FitTo(fresh, fresh, sp, gamma); err != nil {
				t.Fatalf("%s: %v", k.Name, err)
			}
			if len(fresh.QHat) != x.Steps() || len(fresh.VHat) != x.Steps() {
				t.Fatalf("%s: %d and %d values for %d steps", k.Name, len(fresh.QHat), len(fresh.VHat), x.Steps())
			}
			for s := range fresh.QHat {
				if math.IsNaN(fresh.QHat[s]) || math.IsInf(fresh.QHat[s], 0) || math.IsNaN(fresh.VHat[s]) || math.IsInf(fresh.VHat[s], 0) {
					t.Fatalf("%s: step %d: q_hat %v, v_hat %v", k.Name, s, fresh.QHat[s], fresh.VHat[s])
				}
			}
			l := k.New()
			warm, other := clone(x), clone(y)
			if err := l.FitTo(other, other, sp, gamma); err != nil {
				t.Fatal(err)
			}
			if err := l.FitTo(warm, warm, sp, gamma); err != nil {
				t.Fatal(err)
			}
			if !bitsEqual(warm.QHat, fresh.QHat) || !bitsEqual(warm.VHat, fresh.VHat) {
				t.Errorf("%s, gamma %v: a warm learner differs from a fresh one", k.Name, gamma)
			}
			if a := testing.AllocsPerRun(5, func() { l.FitTo(warm, warm, sp, gamma) }); a != 0 {
				t.Errorf("%s: %v allocations a fit once warm, want 0", k.Name, a)
			}
			apply := clone(x)
			if err := k.New().FitTo(x, apply, sp, gamma); err != nil {
				t.Fatal(err)
			}
			if !bitsEqual(apply.QHat, fresh.QHat) || !bitsEqual(apply.VHat, fresh.VHat) {
				t.Errorf("%s, gamma %v: fitted on b and read on a copy of b differs from FitTo(b, b)", k.Name, gamma)
			}
		}
		got := allocated(func() {
			c := clone(x)
			k.New().FitTo(c, c, sp, 1)
		}) - allocated(func() { clone(x) })
		if bound := k.Bytes(float64(x.Steps()), obs, actions, h); got > bound {
			t.Errorf("%s: a cold fit allocated %.0f bytes, Kind.Bytes says at most %.0f", k.Name, got, bound)
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
