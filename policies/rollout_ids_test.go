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

// hookLog is a StepHook that records what it hears, into preallocated
// slices, and the batch's length when it is called.
type hookLog struct {
	t, obs, a, steps []int
}

func (h *hookLog) AfterStep(b *trajectory.Batch, t, obs, a int) {
	h.t = append(h.t, t)
	h.obs = append(h.obs, obs)
	h.a = append(h.a, a)
	h.steps = append(h.steps, b.Steps())
}

// TestCollectWith: CollectWith draws the same trajectories as Collect on
// the same stream (bit-identical rewards, ratios, splits, offsets), and
// calls the hook once per step, right after the step's Add (the batch then
// holds exactly s+1 steps for the s-th call, 0-based), with the 1-based
// step t = 1, 2, the observation before the step (10, then 20 + the first
// action) and the action drawn (the reward of twoStep is the action).
func TestCollectWith(t *testing.T) {
	b, _ := TwoAction(0.5)
	e, _ := TwoAction(0.8)
	pair, err := NewPair(b, e)
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	var plain, hooked trajectory.Batch
	pair.Collect(&twoStep{}, &plain, n, rand.New(rand.NewPCG(1, 2)))
	log := &hookLog{}
	pair.CollectWith(&obsTwoStep{}, &hooked, n, rand.New(rand.NewPCG(1, 2)), log)
	if !slices.Equal(plain.Offsets, hooked.Offsets) || !slices.Equal(plain.Reward, hooked.Reward) ||
		!slices.Equal(plain.Ratio, hooked.Ratio) || !slices.Equal(plain.Split, hooked.Split) {
		t.Fatal("CollectWith drew other trajectories than Collect on the same stream")
	}
	if len(log.t) != 2*n {
		t.Fatalf("hook called %d times, want one per step, 2n = %d", len(log.t), 2*n)
	}
	for s := range log.t {
		a := int(hooked.Reward[s])
		wantT, wantObs := 1, 10
		if s%2 == 1 {
			wantT, wantObs = 2, 20+int(hooked.Reward[s-1])
		}
		if log.t[s] != wantT || log.obs[s] != wantObs || log.a[s] != a || log.steps[s] != s+1 {
			t.Fatalf("call %d: t %d obs %d a %d after %d steps; want %d %d %d %d",
				s, log.t[s], log.obs[s], log.a[s], log.steps[s], wantT, wantObs, a, s+1)
		}
	}

	// A nil hook is Collect.
	var nilHook trajectory.Batch
	pair.CollectWith(&obsTwoStep{}, &nilHook, n, rand.New(rand.NewPCG(1, 2)), nil)
	if !slices.Equal(plain.Reward, nilHook.Reward) || !slices.Equal(plain.Split, nilHook.Split) {
		t.Error("CollectWith with a nil hook differs from Collect")
	}

	// No allocation once the batch and the hook's slices have grown.
	env := &obsTwoStep{}
	rng := rand.New(rand.NewPCG(3, 4))
	if a := testing.AllocsPerRun(5, func() {
		hooked.Reset()
		log.t, log.obs, log.a, log.steps = log.t[:0], log.obs[:0], log.a[:0], log.steps[:0]
		pair.CollectWith(env, &hooked, n, rng, log)
	}); a != 0 {
		t.Errorf("%v allocations per CollectWith into a grown batch", a)
	}
}
