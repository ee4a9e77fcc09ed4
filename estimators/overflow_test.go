package estimators_test

import (
	"errors"
	"math"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

func TestOverflowSelfNormalisedExact(t *testing.T) {
	b := chainAllA1(1100)
	// WIS = 2^1100 * 1 / (2^1100 + 0) = 1; CWPDIS: only t = H has a reward,
	// (2^1100 * 1)/(2^1100 + 0) = 1. Naive float64 products give Inf/Inf.
	for _, name := range []string{"wis", "cwpdis"} {
		if got := estimate(t, name, b); got != 1 {
			t.Errorf("%s = %v, want exactly 1", name, got)
		}
	}
}

func TestOverflowUnnormalisedIsAnError(t *testing.T) {
	b := chainAllA1(1100)
	// IS = PDIS = 2^1100 / 2 = 2^1099: not representable.
	for _, name := range []string{"is", "pdis", "options-pdis", "partitioned-pdis", "incris", "incris-printed"} {
		e, _ := estimators.New(name)
		v, err := e.Estimate(b)
		if !errors.Is(err, estimators.ErrNotRepresentable) {
			t.Errorf("%s = %v, %v; want ErrNotRepresentable", name, v, err)
		}
	}
}

func TestOverflowRepresentableResult(t *testing.T) {
	// A weight of 2^1030 overflows float64 products (max about 2^1024), but
	// times its reward 2^-100 and over n = 2 the estimate is 2^929, which is
	// representable: the scaled path must return it exactly.
	var b trajectory.Batch
	for t := 1; t <= 1030; t++ {
		r := 0.0
		if t == 1030 {
			r = math.Ldexp(1, -100)
		}
		b.Add(r, 2)
	}
	b.End()
	b.Add(0, 1)
	b.End()
	want := math.Ldexp(1, 929) // (2^1030 * 2^-100) / 2
	for _, name := range []string{"pdis", "is"} {
		if got := estimate(t, name, &b); got != want {
			t.Errorf("%s = %v, want 2^929 = %v", name, got, want)
		}
	}
}

func TestUnderflowSelfNormalised(t *testing.T) {
	// H = 1100, p_e = 0.9 style ratios: trajectory A has all ratios 0.2
	// (W_A = 0.2^1100, about 1e-769, below the smallest float64), trajectory
	// B the same but one ratio 0.6 (W_B = 3 W_A). Rewards at the last step:
	// 1 and 5. WIS = CWPDIS = (W_A*1 + 3 W_A*5)/(W_A + 3 W_A) = 16/4 = 4.
	// Naive products underflow to 0 and give 0/0 := 0.
	var b trajectory.Batch
	for _, tr := range []struct{ g, odd float64 }{{1, 0.2}, {5, 0.6}} {
		for t := 1; t <= 1100; t++ {
			rho, r := 0.2, 0.0
			if t == 1 {
				rho = tr.odd
			}
			if t == 1100 {
				r = tr.g
			}
			b.Add(r, rho)
		}
		b.End()
	}
	for _, name := range []string{"wis", "cwpdis"} {
		if got := estimate(t, name, &b); !near(got, 4, 1e-12) {
			t.Errorf("%s = %v, want 4", name, got)
		}
	}
	// PDIS = (W_A + 15 W_A)/2 = 8 * 0.2^1100 (about 1e-768): rounds to 0,
	// the nearest float64; no error, no NaN.
	if got := estimate(t, "pdis", &b); got != 0 {
		t.Errorf("pdis = %v, want 0 (underflow to the nearest float64)", got)
	}
}

// TestScaledKeepsSmallNumeratorTerms: a weight of 1e400 on a trajectory
// with no reward must not wipe out the reward of another trajectory. A has
// rewards (0, 0) and ratios (1e200, 1e200): weight 1e400, beyond float64;
// B has rewards (0, 0, 1) and ratios (1e-10, 1, 1). PDIS = IS =
// (0 + 1e-10 * 1) / 2 = 5e-11 exactly representable; scaling B's term by
// A's exponent (2^1329) would flush it to 0. WIS = 1e-10 / (1e400 + 1e-10)
// underflows to 0 legitimately; CWPDIS at t = 3: (1e-10 * 1) / (1e400 +
// 1e-10) likewise 0.
func TestScaledKeepsSmallNumeratorTerms(t *testing.T) {
	var b trajectory.Batch
	b.Add(0, 1e200)
	b.Add(0, 1e200)
	b.End()
	b.Add(0, 1e-10)
	b.Add(0, 1)
	b.Add(1, 1)
	b.End()
	for _, name := range []string{"pdis", "partitioned-pdis", "is"} {
		if got := estimate(t, name, &b); math.Abs(got-5e-11) > 1e-14*5e-11 {
			t.Errorf("%s = %v, want 5e-11", name, got)
		}
	}
	for _, name := range []string{"wis", "cwpdis"} {
		if got := estimate(t, name, &b); got != 0 {
			t.Errorf("%s = %v, want 0 (1e-10 / 1e400 underflows)", name, got)
		}
	}
}
