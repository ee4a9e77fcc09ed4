package estimators_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestNaiveHand: naive on the hand data set (traj 1: rewards 1, 0, 3;
// traj 2: reward 2): (4 + 2) / 2 = 3, and under gamma = 1/2 (the view of
// SPEC 1c) (1 + 0 + 3/4 + 2) / 2 = 1.875; the ratios play no part (all
// set to 7: the same), and a batch without trajectories is refused.
func TestNaiveHand(t *testing.T) {
	var d trajectory.Discounted
	for _, tc := range []struct {
		gamma, want float64
	}{{1, 3}, {0.5, 1.875}} {
		b := d.Of(handBatch(), tc.gamma)
		e := estimators.NewNaive()
		if got, err := e.Estimate(b); err != nil || got != tc.want {
			t.Errorf("gamma %v: naive = %v, %v; want %v", tc.gamma, got, err, tc.want)
		}
		c := *b
		c.Ratio = slices.Repeat([]float64{7}, len(b.Ratio))
		c.OptionRatio = c.Ratio
		if got, _ := e.Estimate(&c); got != tc.want {
			t.Errorf("gamma %v, ratios 7: naive = %v, want %v", tc.gamma, got, tc.want)
		}
	}
	if _, err := estimators.NewNaive().Estimate(&trajectory.Batch{}); !errors.Is(err, estimators.ErrTooFew) {
		t.Errorf("no trajectories: %v, want ErrTooFew", err)
	}
}

// TestNaiveOnPolicy: with every ratio 1 (on-policy data) naive is the
// on-policy estimate: it equals pdis and is on random data, within 1e-12
// (their sums run in another order).
func TestNaiveOnPolicy(t *testing.T) {
	b := randomBatch(rand.New(rand.NewPCG(4, 5)), 300, 20)
	for s := range b.Ratio {
		b.Ratio[s], b.OptionRatio[s] = 1, 1 // primitive data: the factor is the option ratio too
	}
	got, err := estimators.NewNaive().Estimate(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pdis", "is"} {
		e, _ := estimators.New(name)
		want, err := e.Estimate(b)
		if err != nil || !near(got, want, 1e-12) {
			t.Errorf("naive %v, %s %v (%v)", got, name, want, err)
		}
	}
}
