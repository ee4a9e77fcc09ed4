package policies

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// twoStep is an Env of two steps whose reward is the action taken, with a
// sub-episode end after the first step.
type twoStep struct {
	step   int
	subEnd bool
}

func (e *twoStep) Reset() { e.step = 0 }
func (e *twoStep) Step(a int) (float64, bool) {
	e.step++
	e.subEnd = e.step == 1
	return float64(a), e.step == 2
}
func (e *twoStep) SubEndFlag() *bool { return &e.subEnd }

// TestPairCollect: every step records the reward and pi_e(a)/pi_b(a) of
// the action drawn (0.8/0.5 for a1, 0.2/0.5 for a2), one Float64 per step,
// a split after the sub-episode end that is not the episode's last step.
func TestPairCollect(t *testing.T) {
	b, _ := TwoAction(0.5)
	e, _ := TwoAction(0.8)
	pair, err := NewPair(b, e)
	if err != nil {
		t.Fatal(err)
	}
	var batch trajectory.Batch
	pair.Collect(&twoStep{}, &batch, 50, rand.New(rand.NewPCG(1, 2)))
	replay := rand.New(rand.NewPCG(1, 2))
	if batch.N() != 50 || batch.Steps() != 100 {
		t.Fatalf("%d episodes, %d steps; want 50, 100", batch.N(), batch.Steps())
	}
	for s := range batch.Steps() {
		a := b.Pick(replay.Float64())
		want := e.Prob(a) / b.Prob(a) // 0.8/0.5 for a1, (1-0.8)/0.5 for a2
		if batch.Reward[s] != float64(a) || batch.Ratio[s] != want || batch.Split[s] != (s%2 == 0) {
			t.Fatalf("step %d: reward %v ratio %v split %v; want %v %v %v", s, batch.Reward[s], batch.Ratio[s], batch.Split[s], a, want, s%2 == 0)
		}
	}
	if a := testing.AllocsPerRun(5, func() {
		batch.Reset()
		pair.Collect(&twoStep{}, &batch, 50, replay)
	}); a > 1 { // the env value escapes; the batch is reused
		t.Errorf("%v allocations per Collect into a grown batch", a)
	}
}

// longSteps is an Env whose episodes last len steps, paying the action
// plus the step's index, with a sub-episode end every 7 steps: episodes
// longer than the rollout's stretch of held steps, split inside it and
// across its end.
type longSteps struct {
	len, step int
	subEnd    bool
}

func (e *longSteps) Reset() { e.step = 0 }
func (e *longSteps) Step(a int) (float64, bool) {
	e.step++
	e.subEnd = e.step%7 == 0
	return float64(a + 10*e.step), e.step == e.len
}
func (e *longSteps) SubEndFlag() *bool { return &e.subEnd }

// TestPairCollectLong: Collect gives the batch that adding each step in
// turn (Batch.Add, then MarkSplit after a sub-episode end that is not
// the episode's last step, Stationary.Sample drawing the action) gives on
// the same stream, column for column, for episodes of 1 to 600 steps (the
// rollout holds 256 steps before adding them), with a behavior of two
// actions (whose draw the rollout makes itself) and of three.
func TestPairCollectLong(t *testing.T) {
	b2, _ := TwoAction(0.3)
	e2, _ := TwoAction(0.6)
	b3, _ := NewStationary(0.2, 0.5, 0.3)
	e3, _ := NewStationary(0.6, 0.1, 0.3)
	for _, pol := range [][2]*Stationary{{b2, e2}, {b3, e3}} {
		pair, err := NewPair(pol[0], pol[1])
		if err != nil {
			t.Fatal(err)
		}
		for _, steps := range []int{1, 7, 255, 256, 257, 600} {
			var got, want trajectory.Batch
			pair.Collect(&longSteps{len: steps}, &got, 3, rand.New(rand.NewPCG(5, 6)))
			replay := rand.New(rand.NewPCG(5, 6))
			for range 3 {
				for s := 1; s <= steps; s++ {
					a := pol[0].Sample(replay)
					want.Add(float64(a+10*s), pair.Ratio(a))
					if s < steps && s%7 == 0 {
						want.MarkSplit()
					}
				}
				want.End()
			}
			if !slices.Equal(got.Offsets, want.Offsets) || !slices.Equal(got.Reward, want.Reward) ||
				!slices.Equal(got.Ratio, want.Ratio) || !slices.Equal(got.OptionRatio, want.OptionRatio) ||
				!slices.Equal(got.Changed, want.Changed) || !slices.Equal(got.Split, want.Split) {
				t.Errorf("%d actions, episodes of %d steps: Collect's batch differs from adding each step", pol[0].Actions(), steps)
			}
		}
	}
}

func TestNewPairCoverage(t *testing.T) {
	b, _ := NewStationary(1, 0)
	e, _ := NewStationary(0.5, 0.5)
	if _, err := NewPair(b, e); err == nil || !strings.Contains(err.Error(), "never takes action 1") {
		t.Errorf("uncovered action: %v", err)
	}
	three, _ := NewStationary(0.2, 0.3, 0.5)
	if _, err := NewPair(three, e); err == nil {
		t.Error("pair of policies over different actions accepted")
	}
	if p, err := NewPair(e, b); err != nil || p.Ratio(0) != 2 || p.Ratio(1) != 0 {
		t.Errorf("covered pair: %v, ratios %v %v; want 1/0.5 = 2 and 0", err, p.Ratio(0), p.Ratio(1))
	}
}

func TestChainOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		o    ChainOptions
		want string
	}{
		{ChainOptions{H: 7, J: 2, PB: 0.5, PE: 1}, "not a multiple"},
		{ChainOptions{H: 6, J: 0, PB: 0.5, PE: 1}, "want both >= 1"},
		{ChainOptions{H: 6, J: 2, PB: 0.5, PE: 1, Changed: 4}, "want 0..3"},
		{ChainOptions{H: 6, J: 2, PB: 0.5, PE: 1, Changed: -2}, "want 0..3"},
		{ChainOptions{H: 6, J: 2, PB: 0, PE: 1}, "no support"},
		{ChainOptions{H: 6, J: 2, PB: 1.5, PE: 1}, "want a probability"},
		{ChainOptions{H: 6, J: 2, PB: 1, PE: 1, Changed: 1, InnerPB: 0, InnerPE: 1}, "no support"},
	} {
		if err := tc.o.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.o, err, tc.want)
		}
	}
	if o := (ChainOptions{H: 6, J: 2, PB: 0.5, PE: 1, Changed: -1}); o.Validate() != nil || o.ChangedSegments() != 3 || o.Options() != 3 {
		t.Errorf("changed -1: %v, %d segments of %d options; want all 3", o.Validate(), o.ChangedSegments(), o.Options())
	}
}
