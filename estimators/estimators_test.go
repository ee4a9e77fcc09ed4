package estimators_test

import (
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

func estimate(t *testing.T, name string, b *trajectory.Batch) float64 {
	t.Helper()
	e, err := estimators.New(name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Estimate(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

func TestHandComputed(t *testing.T) {
	for _, tc := range []struct {
		name string
		want float64
		how  string
	}{
		{"is", 2.5, "(1*4 + 0.5*2)/2 = 5/2"},
		{"pdis", 3, "((2*1 + 1*0 + 1*3) + 0.5*2)/2 = 6/2"},
		{"wis", 5 / 1.5, "(1*4 + 0.5*2)/(1 + 0.5)"},
		{"cwpdis", 3.2, "t=1: (2*1+0.5*2)/(2+0.5) = 1.2; t=2: 0/(1+0.5) = 0; t=3: (1*3)/(1+0.5) = 2 (padded weight 0.5 in the denominators)"},
		{"options-pdis", 3, "primitive data: option ratio = action ratio, so = pdis"},
		{"partitioned-pdis", 3, "no split points: = pdis"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := estimate(t, tc.name, handBatch()); !near(got, tc.want, 1e-15) {
				t.Errorf("%s = %v, want %v (%s)", tc.name, got, tc.want, tc.how)
			}
		})
	}
}

func TestPartitionedHand(t *testing.T) {
	b := handBatch()
	// Split after traj 1's first step: its weights restart at 1 on step 2:
	// W = 2, 0.5, 0.5. Sum = 2*1 + 0.5*0 + 0.5*3 = 3.5; traj 2: 0.5*2 = 1.
	b.Split[0] = true
	if got, want := estimate(t, "partitioned-pdis", b), (3.5+1)/2; !near(got, want, 1e-15) {
		t.Errorf("partitioned-pdis = %v, want %v", got, want)
	}
	if got := estimate(t, "pdis", b); !near(got, 3, 1e-15) {
		t.Errorf("pdis ignores splits: got %v, want 3", got)
	}
}

func TestOptionsPDISHand(t *testing.T) {
	var b trajectory.Batch
	// traj 1: option o1 (ratio 3, unchanged) for 2 steps, then o2 (ratio
	// 0.5, changed, action ratio 1): factors 3, 1, 0.5*1 -> W = 3, 3, 1.5.
	b.AddOption(1, 7, 3, false) // unchanged option: its action ratio 7 is ignored
	b.AddOption(0, 7, 1, false)
	b.AddOption(3, 1, 0.5, true)
	b.End()
	// traj 2: one changed option, ratio 2, action ratio 0.5: factor 1.
	b.AddOption(2, 0.5, 2, true)
	b.End()
	// (3*1 + 3*0 + 1.5*3 + 1*2) / 2 = 9.5 / 2
	if got, want := estimate(t, "options-pdis", &b), 9.5/2; !near(got, want, 1e-15) {
		t.Errorf("options-pdis = %v, want %v", got, want)
	}
}

func TestOptionsPDISPerDecisionInsideChangedOption(t *testing.T) {
	var b trajectory.Batch
	// one changed option of 3 steps, option ratio 2, action ratios 0.5, 4, 1:
	// per-decision (SPEC 1): w = 2 and rho_{t,b} = 0.5, 2, 2 at b = 1, 2, 3.
	// rewards 1, 1, 1: 2*0.5 + 2*2 + 2*2 = 9.
	b.AddOption(1, 0.5, 2, true)
	b.AddOption(1, 4, 1, true)
	b.AddOption(1, 1, 1, true)
	b.End()
	if got := estimate(t, "options-pdis", &b); !near(got, 9, 1e-15) {
		t.Errorf("options-pdis = %v, want 9", got)
	}
}

func TestZeroWeights(t *testing.T) {
	// every weight zero: weighted estimators return 0 (0/0 := 0, SPEC 1).
	b := batchOf([]step{{1, 0}, {1, 1}}, []step{{5, 0}})
	for _, name := range []string{"wis", "cwpdis", "is", "pdis"} {
		if got := estimate(t, name, b); got != 0 {
			t.Errorf("%s = %v, want 0", name, got)
		}
	}
}
