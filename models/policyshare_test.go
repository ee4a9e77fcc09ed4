package models

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// skewed is a pi_e other than uniform: pi_e(a|o) proportional to
// 1 + (o + a + shift) mod 3.
func skewed(actions, shift int) func(int, []float64) {
	return func(o int, dst []float64) {
		sum := 0.0
		for a := range dst {
			dst[a] = float64(1 + (o+a+shift)%3)
			sum += dst[a]
		}
		for a := range dst {
			dst[a] /= sum
		}
	}
}

// TestRefittersContract: a kind's Refits says that its learner is a
// Refitter, and a Refitter's Refit under another pi_e and gamma gives the
// bits of a fresh FitTo under them, read on the train batch itself and on
// another, allocating nothing; Refit without a fit before, over a space
// of other sizes or on a batch of other sizes is an error. Every kind is
// checked without naming it; `fitted` must refit (runexp estimate's
// candidate policies share its counts).
func TestRefittersContract(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const obs, actions, h = 20, 3, 15
	x := randomBatch(rng, 300, h, obs, actions)
	y := randomBatch(rng, 200, h, obs, actions)
	sp1 := Space{Obs: obs, Actions: actions, Horizon: h, PiE: uniform(actions)}
	sp2 := sp1
	sp2.PiE = skewed(actions, 1)
	if k, _ := Lookup("fitted"); !k.Refits {
		t.Error("fitted does not refit")
	}
	for _, k := range Kinds() {
		if !k.Learned() {
			if k.Refits {
				t.Errorf("%s: refits without a learner", k.Name)
			}
			continue
		}
		r, ok := k.New().(Refitter)
		if ok != k.Refits {
			t.Errorf("%s: Refits %v, its learner a Refitter %v", k.Name, k.Refits, ok)
		}
		if !ok {
			continue
		}
		if err := r.Refit(clone(x), sp2, 1); err == nil || !strings.Contains(err.Error(), "without a successful FitTo") {
			t.Errorf("%s: Refit on a cold learner: %v", k.Name, err)
		}
		for _, other := range []bool{false, true} {
			for _, gamma := range []float64{1, 0.9} {
				train, apply := clone(x), clone(x)
				wantApply := clone(x)
				if other {
					apply, wantApply = clone(y), clone(y)
				} else {
					apply, wantApply = train, clone(x)
				}
				wantTrain := clone(x)
				if !other {
					wantTrain = wantApply
				}
				if err := k.New().FitTo(wantTrain, wantApply, sp2, gamma); err != nil {
					t.Fatal(err)
				}
				l := k.New().(Refitter)
				if err := l.FitTo(train, apply, sp1, 1); err != nil {
					t.Fatal(err)
				}
				// a view of apply with its own columns, as a policy's
				view := *apply
				view.QHat, view.VHat = nil, nil
				if err := l.Refit(&view, sp2, gamma); err != nil {
					t.Fatalf("%s: %v", k.Name, err)
				}
				if !bitsEqual(view.QHat, wantApply.QHat) || !bitsEqual(view.VHat, wantApply.VHat) {
					t.Errorf("%s, other %v, gamma %v: Refit differs from a fresh FitTo", k.Name, other, gamma)
				}
				if a := testing.AllocsPerRun(5, func() { _ = l.Refit(&view, sp2, gamma) }); a != 0 {
					t.Errorf("%s: %v allocations a warm Refit, want 0", k.Name, a)
				}
				small := sp2
				small.Obs++
				if err := l.Refit(&view, small, gamma); err == nil || !strings.Contains(err.Error(), "the fit was over") {
					t.Errorf("%s: Refit over another space: %v", k.Name, err)
				}
				short := view
				short.Reward = short.Reward[:len(short.Reward)-1]
				if err := l.Refit(&short, sp2, gamma); err == nil || !strings.Contains(err.Error(), "the fit was read on") {
					t.Errorf("%s: Refit on fewer steps: %v", k.Name, err)
				}
			}
		}
	}
}

// TestPolicyShareFit: the share's fits of a batch and of a view of it
// under another pi_e give the bits of fresh fits, and the second is a
// Refit: the share recognises the data by its slices (the owner's
// promise), so rewards changed in place behind its back leave its counts
// as they were (the view's columns are those of the original rewards),
// while a copy (other slices) is counted afresh. A kind that does not
// refit is refused.
func TestPolicyShareFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	const obs, actions, h = 15, 3, 12
	b := randomBatch(rng, 200, h, obs, actions)
	sp1 := Space{Obs: obs, Actions: actions, Horizon: h, PiE: uniform(actions)}
	sp2 := sp1
	sp2.PiE = skewed(actions, 2)
	k, _ := Lookup("fitted")
	fresh := func(b *trajectory.Batch, sp Space) *trajectory.Batch {
		c := clone(b)
		if err := k.New().FitTo(c, c, sp, 0.9); err != nil {
			t.Fatal(err)
		}
		return c
	}
	want1, want2 := fresh(b, sp1), fresh(b, sp2)
	var s PolicyShare
	v1, v2 := *b, *b
	if err := s.Fit(k, &v1, sp1, 0.9); err != nil {
		t.Fatal(err)
	}
	orig := slices.Clone(b.Reward)
	for i := range b.Reward {
		b.Reward[i] += 10 // behind the share's back: the promise broken
	}
	if err := s.Fit(k, &v2, sp2, 0.9); err != nil {
		t.Fatal(err)
	}
	if !bitsEqual(v1.QHat, want1.QHat) || !bitsEqual(v1.VHat, want1.VHat) || !bitsEqual(v2.QHat, want2.QHat) || !bitsEqual(v2.VHat, want2.VHat) {
		t.Error("the share's fits differ from fresh fits of the original data")
	}
	c := clone(b)
	if err := s.Fit(k, c, sp2, 0.9); err != nil {
		t.Fatal(err)
	}
	if want := fresh(b, sp2); !bitsEqual(c.QHat, want.QHat) || bitsEqual(c.QHat, v2.QHat) {
		t.Error("a copy with other rewards was not counted afresh")
	}
	copy(b.Reward, orig)
	if q, _ := Lookup("q-reg"); !q.Refits {
		if err := s.Fit(q, c, sp2, 0.9); err == nil || !strings.Contains(err.Error(), "does not refit") {
			t.Errorf("share.Fit of q-reg: %v", err)
		}
	}
}

// TestCrossFitPolicies: a CrossFit given a PolicyShare, fitted on a batch
// and then on views of it with other pi_e and ratios (as runexp
// estimate's candidate policies), gives every fold's columns, ratios and
// pi_e table of a fresh CrossFit on each view, bit for bit, for fitted
// (which refits) and fitted-t (which fits again); data in other slices is
// fitted afresh.
func TestCrossFitPolicies(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	const obs, actions, h = 10, 3, 12
	base := randomBatch(rng, 150, h, obs, actions)
	base.Gamma = 0.9
	// views: pi_b uniform, pi_e of policy k skewed by k
	view := func(b *trajectory.Batch, k int) trajectory.Batch {
		v := *b
		v.PiB, v.PiE, v.Ratio = make([]float64, b.Steps()), make([]float64, b.Steps()), make([]float64, b.Steps())
		pi := make([]float64, actions)
		for s := range b.Steps() {
			skewed(actions, k)(int(b.Obs[s]), pi)
			v.PiB[s], v.PiE[s] = 1.0/actions, pi[b.Action[s]]
			v.Ratio[s] = v.PiE[s] / v.PiB[s]
		}
		return v
	}
	views := []trajectory.Batch{view(base, 0), view(base, 1), view(base, 2)}
	for _, kind := range []string{"", "fitted-t"} {
		shared := CrossFit{Kind: kind, Policies: new(PolicyShare)}
		for round, k := range []int{0, 1, 2, 1} {
			if _, err := shared.Fit(&views[k]); err != nil {
				t.Fatal(err)
			}
			fresh := CrossFit{Kind: kind}
			if _, err := fresh.Fit(&views[k]); err != nil {
				t.Fatal(err)
			}
			for f := range 2 {
				g, w := shared.Fold(f), fresh.Fold(f)
				if !bitsEqual(g.QHat, w.QHat) || !bitsEqual(g.VHat, w.VHat) || !bitsEqual(g.Ratio, w.Ratio) || !bitsEqual(g.Reward, w.Reward) {
					t.Errorf("kind %q, round %d (policy %d), fold %d: differs from a fresh CrossFit", kind, round, k, f)
				}
			}
			gp, gna := shared.PiE()
			wp, wna := fresh.PiE()
			if gna != wna || !bitsEqual(gp, wp) {
				t.Errorf("kind %q, round %d: pi_e table differs", kind, round)
			}
		}
		// other slices, other data: fitted afresh
		other := randomBatch(rng, 150, h, obs, actions)
		other.Gamma = base.Gamma
		o := view(other, 1)
		if _, err := shared.Fit(&o); err != nil {
			t.Fatal(err)
		}
		fresh := CrossFit{Kind: kind}
		if _, err := fresh.Fit(&o); err != nil {
			t.Fatal(err)
		}
		if !bitsEqual(shared.Fold(0).QHat, fresh.Fold(0).QHat) {
			t.Errorf("kind %q: other data was not fitted afresh", kind)
		}
	}
}
