package policies

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// obsTwoStep is twoStep with an observation id: 10 before the first
// step, 20 + the first action before the second.
type obsTwoStep struct {
	twoStep
	obs int
}

func (e *obsTwoStep) Reset()     { e.twoStep.Reset(); e.obs = 10 }
func (e *obsTwoStep) ObsID() int { return e.obs }
func (e *obsTwoStep) Step(a int) (float64, bool) {
	e.obs = 20 + a
	return e.twoStep.Step(a)
}

// modelLog is a PairModel that records what it is asked, into
// preallocated slices, and returns q = 100 t + obs, v = a.
type modelLog struct {
	t, obs, a []int
}

func (h *modelLog) StepValues(t, obs, a int) (q, v float64) {
	h.t = append(h.t, t)
	h.obs = append(h.obs, obs)
	h.a = append(h.a, a)
	return float64(100*t + obs), float64(a)
}

// TestCollectRecord: CollectRecord draws the same trajectories as Collect
// on the same stream (bit-identical rewards, ratios, splits, offsets),
// whatever it records, and records one entry per step of each column asked
// for: the observation before the step (10, then 20 + the first action)
// and the action drawn (the reward of twoStep is the action); pi_b and
// pi_e of the action, whose quotient is the ratio; and the model's values,
// which it asks once per step in order, with the 1-based step t = 1, 2.
func TestCollectRecord(t *testing.T) {
	b, _ := TwoAction(0.5)
	e, _ := TwoAction(0.8)
	pair, err := NewPair(b, e)
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	var plain trajectory.Batch
	pair.Collect(&twoStep{}, &plain, n, rand.New(rand.NewPCG(1, 2)))
	for _, rec := range []PairRecord{{}, {IDs: true}, {Probs: true}, {Model: &modelLog{}}, {IDs: true, Probs: true, Model: &modelLog{}}} {
		var got trajectory.Batch
		pair.CollectRecord(&obsTwoStep{}, &got, n, rand.New(rand.NewPCG(1, 2)), rec)
		if !slices.Equal(plain.Offsets, got.Offsets) || !slices.Equal(plain.Reward, got.Reward) ||
			!slices.Equal(plain.Ratio, got.Ratio) || !slices.Equal(plain.Split, got.Split) {
			t.Fatalf("%+v: CollectRecord drew other trajectories than Collect on the same stream", rec)
		}
		if got.HasIDs() != rec.IDs || got.HasProbs() != rec.Probs || got.HasModel() != (rec.Model != nil) {
			t.Fatalf("%+v: HasIDs %v, HasProbs %v, HasModel %v", rec, got.HasIDs(), got.HasProbs(), got.HasModel())
		}
		for s := range got.Steps() {
			a := int(got.Reward[s])
			wantT, wantObs := 1, 10
			if s%2 == 1 {
				wantT, wantObs = 2, 20+int(got.Reward[s-1])
			}
			if rec.IDs && (got.Obs[s] != int32(wantObs) || got.Action[s] != int32(a)) {
				t.Fatalf("%+v step %d: ids (%d, %d), want (%d, %d)", rec, s, got.Obs[s], got.Action[s], wantObs, a)
			}
			if rec.Probs && got.PiE[s]/got.PiB[s] != got.Ratio[s] {
				t.Fatalf("%+v step %d: pi_e/pi_b = %v/%v, ratio %v", rec, s, got.PiE[s], got.PiB[s], got.Ratio[s])
			}
			if m, ok := rec.Model.(*modelLog); ok {
				if len(m.t) != got.Steps() || m.t[s] != wantT || m.obs[s] != wantObs || m.a[s] != a {
					t.Fatalf("%+v step %d: model asked %d times, (t %d, obs %d, a %d); want %d, (%d, %d, %d)",
						rec, s, len(m.t), m.t[s], m.obs[s], m.a[s], got.Steps(), wantT, wantObs, a)
				}
				if got.QHat[s] != float64(100*wantT+wantObs) || got.VHat[s] != float64(a) {
					t.Fatalf("%+v step %d: (q_hat, v_hat) = (%v, %v)", rec, s, got.QHat[s], got.VHat[s])
				}
			}
		}
	}

	// No allocation once the batch and the model's slices have grown.
	env := &obsTwoStep{}
	rng := rand.New(rand.NewPCG(3, 4))
	log := &modelLog{}
	rec := PairRecord{IDs: true, Probs: true, Model: log}
	var got trajectory.Batch
	pair.CollectRecord(env, &got, n, rng, rec)
	if a := testing.AllocsPerRun(5, func() {
		got.Reset()
		log.t, log.obs, log.a = log.t[:0], log.obs[:0], log.a[:0]
		pair.CollectRecord(env, &got, n, rng, rec)
	}); a != 0 {
		t.Errorf("%v allocations per CollectRecord into a grown batch", a)
	}
}
