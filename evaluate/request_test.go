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

// TestLoggedNeedShape: logged data's need is stated at the data's shape
// (estimators.ShapeOf): the workspaces of mis and drl at its steps and
// the ranges of its ids, not at n x H; the factors of every estimator
// only on options data with changed options; and a bootstrap worker's
// copy of the data with every column the data carries.
func TestLoggedNeedShape(t *testing.T) {
	// 200 episodes of 1 to 50 steps (5,100 steps, H = 50), ids below 7
	// and 3, probabilities 1/3
	var b trajectory.Batch
	for i := range 200 {
		for s := range 1 + i%50 {
			b.Add(1, 1)
			b.AddIDs(int32((i+s)%7), int32(s%3))
			b.AddProbs(1.0/3, 1.0/3)
		}
		b.End()
	}
	shape := estimators.ShapeOf(&b)
	if want := (estimators.Shape{N: 200, Steps: 5100, H: 50, Obs: 7, Actions: 3, Points: 1, IDs: true}); shape != want {
		t.Fatalf("ShapeOf = %+v, want %+v", shape, want)
	}
	work := func(l Logged) float64 {
		for _, p := range l.Need(&b).Parts {
			if p.By == ByMethods {
				return p.Bytes
			}
		}
		return 0
	}
	var l Logged
	want := 0.0
	for _, name := range []string{"mis", "drl"} {
		m, err := Registry(name)
		if err != nil {
			t.Fatal(err)
		}
		l.Methods = append(l.Methods, m)
		info, _ := estimators.Lookup(name)
		want += info.Memory(shape)
	}
	if got := work(l); got != want {
		t.Errorf("mis and drl: workspaces of %v bytes, want their bounds at the data's shape, %v", got, want)
	}
	if nh := (estimators.Shape{N: 200, Steps: 200 * 50, H: 50, Obs: 7, Actions: 3, IDs: true}); work(l) >= l.Methods[0].Caps().Memory(nh)+l.Methods[1].Caps().Memory(nh) {
		t.Errorf("the workspaces are not below those at n x H steps")
	}

	// the factors: only where an option changed
	pdis, err := Registry("pdis")
	if err != nil {
		t.Fatal(err)
	}
	lp := Logged{Request: Request{Methods: []Method{pdis}}}
	before := work(lp)
	b.Changed[7] = true
	if got := work(lp) - before; got != 8*5100 {
		t.Errorf("a changed option adds %v bytes to pdis's workspace, want the factors, 8 x 5100", got)
	}
	b.Changed[7] = false

	// a bootstrap copy: Size plus ids (8) and probabilities (16), doubled
	lp.Intervals = &Intervals{Replicates: 10, Confidence: 0.9, Workers: 1}
	var copyPart float64
	for _, p := range lp.Need(&b).Parts {
		if p.By == ByWorkers {
			copyPart = p.Bytes
		}
	}
	if want := trajectory.Size(200, 5100) + 2*24*5100 + 8*200 + before; copyPart != want {
		t.Errorf("a bootstrap worker takes %v bytes, want its copy with ids and probabilities, its index and pdis's workspace: %v", copyPart, want)
	}
}
