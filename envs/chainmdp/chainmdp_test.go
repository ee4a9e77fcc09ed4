package chainmdp

import "testing"

// TestDynamics walks the chain of SPEC 2.1 by hand (H = 3): a1 a1 a1 stays
// in the top chain and is paid 1 at x_3; a1 a2 a1 falls to y_2 and moves on
// to y_3 (or stays in y_2 when the bottom is absorbing), paid nothing.
func TestDynamics(t *testing.T) {
	for _, tc := range []struct {
		actions   []int
		absorbing bool
		rewards   []float64
		top       bool
		pos       int
	}{
		{[]int{A1, A1, A1}, false, []float64{0, 0, 1}, true, 4},
		{[]int{A1, A2, A1}, false, []float64{0, 0, 0}, false, 3},
		{[]int{A1, A2, A1}, true, []float64{0, 0, 0}, false, 2},
		{[]int{A2, A1, A1}, false, []float64{0, 0, 0}, false, 3},
	} {
		env, err := New(3, tc.absorbing)
		if err != nil {
			t.Fatal(err)
		}
		env.Reset()
		for i, a := range tc.actions {
			r, done := env.Step(a)
			if r != tc.rewards[i] || done != (i == 2) {
				t.Errorf("%v step %d: reward %v done %v, want %v %v", tc.actions, i+1, r, done, tc.rewards[i], i == 2)
			}
		}
		if top, pos := env.State(); top != tc.top || pos != tc.pos || env.Top() != tc.top {
			t.Errorf("%v (absorbing %v): state (%v, %d), want (%v, %d)", tc.actions, tc.absorbing, top, pos, tc.top, tc.pos)
		}
	}
	if _, err := New(0, false); err == nil {
		t.Error("horizon 0 accepted")
	}
}
