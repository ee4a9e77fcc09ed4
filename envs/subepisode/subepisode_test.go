package subepisode

import "testing"

// TestRewardsAndDrift plays SPEC 2.2's MDP by hand with 3 sub-episodes and
// eps_step 0.25: a1 in s1 pays +1 and enters s2, where eps grows first
// (eps before the reward) so s2 pays -2 + 0.25, then -2 + 0.5; a2 in s1
// pays -1 and s3 pays +2. Every second step ends a sub-episode.
func TestRewardsAndDrift(t *testing.T) {
	for _, tc := range []struct {
		before  bool
		actions []int
		rewards []float64
	}{
		{true, []int{A1, A2, A1, A1, A2, A1}, []float64{1, -1.75, 1, -1.5, -1, 2}},
		// eps after the reward: the first s2 visit pays -2, the second -1.75
		{false, []int{A1, A1, A1, A2, A2, A2}, []float64{1, -2, 1, -1.75, -1, 2}},
	} {
		env, err := New(Params{Subepisodes: 3, EpsStep: 0.25, EpsBeforeReward: tc.before})
		if err != nil {
			t.Fatal(err)
		}
		env.Reset()
		for i, a := range tc.actions {
			r, done := env.Step(a)
			if r != tc.rewards[i] || done != (i == 5) || env.SubEnded() != (i%2 == 1) {
				t.Errorf("before=%v step %d: reward %v done %v sub-end %v, want %v %v %v",
					tc.before, i+1, r, done, env.SubEnded(), tc.rewards[i], i == 5, i%2 == 1)
			}
		}
	}
	if _, err := New(Params{Subepisodes: 0}); err == nil {
		t.Error("0 sub-episodes accepted")
	}
	if h := DefaultParams().Horizon(); h != 100 {
		t.Errorf("default horizon %d, want 2 x 50", h)
	}
}

// TestObsID: the id is the state, s1, s2, s3 = 0, 1, 2: a1 from s1 leads
// to s2, a2 to s3, and either returns to s1.
func TestObsID(t *testing.T) {
	env, _ := New(Params{Subepisodes: 2, EpsStep: 0.5, EpsBeforeReward: true})
	env.Reset()
	var got []int
	for _, a := range []int{A1, A2, A2, A1} {
		got = append(got, env.ObsID())
		env.Step(a)
	}
	if want := []int{S1, S2, S1, S3}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Errorf("ids %v, want %v (0 1 0 2)", got, want)
	}
}
