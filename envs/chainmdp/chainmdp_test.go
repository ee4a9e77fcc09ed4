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

// TestObsID: with H = 3 the ids are x_1, x_2, x_3, x_4 = 0, 1, 2, 3 and
// y_1, y_2, y_3 = 4, 5, 6 (H+i), 2H+1 = 7 in all. a1 a2 a1 visits x_1,
// x_2, then falls to y_2 (id 5) and moves on to y_3 (id 6); with an
// absorbing bottom it stays in y_2 (id 5).
func TestObsID(t *testing.T) {
	for _, tc := range []struct {
		absorbing bool
		want      []int // ids before each step, then after the last
	}{
		{false, []int{0, 1, 5, 6}},
		{true, []int{0, 1, 5, 5}},
	} {
		env, _ := New(3, tc.absorbing)
		if env.States() != 7 {
			t.Errorf("States() = %d, want 2H+1 = 7", env.States())
		}
		env.Reset()
		got := []int{env.ObsID()}
		for _, a := range []int{A1, A2, A1} {
			env.Step(a)
			got = append(got, env.ObsID())
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("absorbing %v: ids %v, want %v", tc.absorbing, got, tc.want)
				break
			}
		}
	}
	env, _ := New(3, false)
	env.Reset()
	for range 3 {
		env.Step(A1)
	}
	if id := env.ObsID(); id != 3 {
		t.Errorf("x_4 after a1 a1 a1: id %d, want H = 3", id)
	}
}
