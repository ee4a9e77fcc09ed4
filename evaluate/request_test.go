package evaluate

import (
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestDataProblem: the check behind "an estimator that needs data the
// file does not have", on fake registry entries (it reads only Name and
// Needs): the model columns missing, the model on options data, and data
// it has.
func TestDataProblem(t *testing.T) {
	fake := Caps{Name: "fake-dr", Needs: estimators.Model}
	for _, tc := range []struct {
		c    Caps
		have estimators.Data
		want string // "" when it can run
	}{
		{fake, 0, "fake-dr needs the model columns q_hat and v_hat, which F does not have"},
		{fake, estimators.SplitPoints, "fake-dr needs the model columns q_hat and v_hat, which F does not have"},
		{fake, estimators.Model | estimators.Options, "fake-dr needs primitive data (one action ratio per step), and F has the option columns"},
		{fake, estimators.Model, ""},
		{fake, estimators.Model | estimators.SplitPoints, ""},
		{Caps{Name: "fake-split", Needs: estimators.SplitPoints}, estimators.Model, "fake-split needs a split column, which F does not have"},
		{Caps{Name: "fake-pdis"}, estimators.Options, ""},
		{Caps{Name: "fake-oracle", Needs: estimators.ExactMoments}, estimators.Model | estimators.SplitPoints,
			"fake-oracle needs the exact moments of the kept products B_k r_t (supplied only by a simulated domain that knows them, subepisode in a config; logged data never has them), which F does not have"},
	} {
		if got := DataProblem(tc.c, tc.have, "F"); got != tc.want {
			t.Errorf("%s on %v: %q, want %q", tc.c.Name, tc.have, got, tc.want)
		}
	}
}

// TestCheckBounds: each problem CheckBounds finds, in list order.
func TestCheckBounds(t *testing.T) {
	caps := func(names ...string) []Caps {
		var out []Caps
		for _, n := range names {
			inf, _ := estimators.Lookup(n)
			out = append(out, CapsOf(inf))
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		ests   []string
		bounds []string
		n      int
		want   BoundProblemKind // 0: none
		index  int
	}{
		{"fine", []string{"is", "pdis"}, []string{"t", "hcope"}, 10, 0, 0},
		{"unknown", []string{"is"}, []string{"t", "nope"}, 10, UnknownBound, 1},
		{"twice", []string{"is"}, []string{"t", "hcope", "t"}, 10, RepeatedBound, 2},
		{"no estimator has it", []string{"pdis", "wis"}, []string{"t", "hcope"}, 10, Unsupported, 1},
		{"n below t's MinN (2)", []string{"is"}, []string{"t"}, 1, TooFew, 0},
		{"n below hcope's MinN (3)", []string{"is"}, []string{"t", "hcope"}, 2, TooFew, 1},
	} {
		p := CheckBounds(caps(tc.ests...), tc.bounds, tc.n)
		switch {
		case tc.want == 0 && p != nil:
			t.Errorf("%s: %+v, want none", tc.name, *p)
		case tc.want != 0 && (p == nil || p.Kind != tc.want || p.Index != tc.index):
			t.Errorf("%s: %+v, want kind %d at %d", tc.name, p, tc.want, tc.index)
		}
	}
	if p := CheckBounds(caps("pdis"), []string{"hcope"}, 10); p == nil || strings.Join(p.Supporters, ",") != "is" {
		t.Errorf("hcope's supporters: %+v, want is (the registry's only estimator with it)", p)
	}
}

// uniformBatch is n one-step trajectories of reward 1 and ratio 1.
func uniformBatch(n int) *trajectory.Batch {
	var b trajectory.Batch
	for range n {
		b.Add(1, 1)
		b.End()
	}
	return &b
}

// TestLoggedNeed: the memory of logged data counts the BCa jackknife (n x
// estimators estimates: its reruns share the bootstrap workers) and the
// bounds' per-episode values (16 bytes per episode, one workspace that
// every pair reuses on the estimator's own instance).
func TestLoggedNeed(t *testing.T) {
	b := uniformBatch(300)
	names := []string{"is", "pdis", "wis"}
	logged := func(bca bool, workers int, reps int, bounds ...string) Logged {
		l := Logged{Request: Request{Bounds: bounds, Delta: 0.05, Workers: workers}, Intervals: &Intervals{Replicates: reps, Confidence: 0.9, BCa: bca, Workers: workers}}
		for _, n := range names {
			m, err := Registry(n)
			if err != nil {
				t.Fatal(err)
			}
			l.Methods = append(l.Methods, m)
		}
		return l
	}
	l0, lj, lb := logged(false, 2, 10), logged(true, 2, 10), logged(false, 2, 10, "t", "hcope")
	base, jack, bounds := l0.Need(b).Bytes, lj.Need(b).Bytes, lb.Need(b).Bytes
	if jack-base != 8*300*3 {
		t.Errorf("BCa adds %v bytes, want 8 x 300 episodes x 3 estimators", jack-base)
	}
	// pairs: is has t and hcope, pdis t, wis none: one workspace of 2 x 300 values
	if want := 16 * 300.0; bounds-base != want {
		t.Errorf("3 bound pairs add %v bytes, want 16 x 300 = %v", bounds-base, want)
	}
	// with one replicate and 300 episodes, 301 tasks share 1000 workers
	l := logged(true, 1000, 1)
	if what := l.Need(b).Largest().What; !strings.Contains(what, "301 bootstrap workers") {
		t.Errorf("largest part %q, want 301 workers for 1 replicate and 300 jackknife estimates", what)
	}
}
