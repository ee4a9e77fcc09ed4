package suite

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestFittedDMCensored (issue 24, SPEC 1f's censoring): on randommdp
// without early ends (end_prob 0: every episode reaches the cap H = 20),
// the fitted model's dm (the mean v_hat of the first steps) is near the
// exact truth once the visits at t = H are censored; before, it learned
// P(end) = 1/H and undervalued every state (8.93 against 14.14).
func TestFittedDMCensored(t *testing.T) {
	set := map[string]float64{"end_prob": 0}
	md, p := modelDomain(t, "randommdp", set)
	spec, _ := domains.Lookup("randommdp")
	truth, err := spec.Truth(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	md.Record(true, false)
	sp := md.Space()
	var b trajectory.Batch
	var f models.Fitter
	rng := rand.New(rand.NewPCG(1, 2))
	const trials, n = 20, 2000
	sum := 0.0
	for range trials {
		b.Reset()
		md.Collect(&b, n, rng)
		if err := f.Fit(&b, sp, 1); err != nil {
			t.Fatal(err)
		}
		dm := 0.0
		for i := range b.N() {
			dm += b.VHat[b.Offsets[i]]
		}
		sum += dm / float64(b.N())
	}
	mean := sum / trials
	t.Logf("randommdp end_prob 0, H %d: fitted dm %.4f (mean of %d data sets of n = %d), truth %.4f", sp.Horizon, mean, trials, n, truth.Value)
	if math.Abs(mean-truth.Value) > 0.02*truth.Value {
		t.Errorf("fitted dm %.4f, truth %.4f: more than 2%% apart", mean, truth.Value)
	}
}

// modelDomain builds domain name with set and returns it as a
// domains.ModelDomain.
func modelDomain(t *testing.T, name string, set map[string]float64) (domains.ModelDomain, domains.Params) {
	t.Helper()
	d, p, err := domains.New(name, set)
	if err != nil {
		t.Fatal(err)
	}
	md, ok := d.(domains.ModelDomain)
	if !ok {
		t.Fatalf("%s is not a ModelDomain", name)
	}
	return md, p
}
