package marginal_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators/marginal"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestDRLShareSameBits: drl and drl-mis reading their folds' models from
// one models.CrossFitShare (the second call of a generation reuses the
// first's fit) give the terms of estimators fitting their own, bit for
// bit, on four domains (the horizon run's randommdp, drift and chainmdp,
// and gridworld), at n = 2, 3, 41 (twice: new data in the same memory) and 200, over fitted and fitted-t,
// undiscounted and at gamma 0.9; and a batch rewritten in the same memory
// is refitted after Begin (the shared fit is not reused across
// generations). A warm shared pair of calls allocates nothing.
func TestDRLShareSameBits(t *testing.T) {
	for _, tc := range []struct {
		domain string
		set    map[string]float64
	}{
		{"randommdp", map[string]float64{"horizon": 30}},
		{"drift", map[string]float64{"subepisodes": 5}},
		{"chainmdp", map[string]float64{"horizon": 40, "p_b": 0.9, "p_e": 1}},
		{"gridworld", nil},
	} {
		d, _, err := domains.New(tc.domain, tc.set)
		if err != nil {
			t.Fatal(err)
		}
		d.(domains.ModelDomain).Record(true, false)
		if err := d.(domains.ProbRecorder).RecordProbs(true); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 6))
		for _, kind := range []string{"", "fitted-t"} {
			var share models.CrossFitShare
			shared := [2]*marginal.DRL{marginal.NewDRL(), marginal.NewDRLMIS()}
			for _, e := range shared {
				e.UseModel(kind)
				e.ShareCrossFit(&share)
			}
			var b trajectory.Batch
			var disc trajectory.Discounted
			var got, want []float64
			for _, gamma := range []float64{1, 0.9} {
				for _, n := range []int{2, 3, 41, 41, 200} { // 41 twice: new data in the same memory and lengths
					// the same memory each time: b and disc are reused
					b.Reset()
					d.Collect(&b, n, rng)
					view := disc.Of(&b, gamma)
					share.Begin()
					for _, e := range shared {
						own := marginal.NewDRL()
						if e.Name() == "drl-mis" {
							own = marginal.NewDRLMIS()
						}
						own.UseModel(kind)
						if got, err = e.Terms(view, got); err != nil {
							t.Fatal(err)
						}
						if want, err = own.Terms(view, want); err != nil {
							t.Fatal(err)
						}
						for i := range want {
							if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
								t.Fatalf("%s %s over %q, n = %d, gamma %v: shared term %d %v, own %v", tc.domain, e.Name(), kind, n, gamma, i, got[i], want[i])
							}
						}
					}
					if a := testing.AllocsPerRun(3, func() {
						for _, e := range shared {
							got, _ = e.Terms(view, got)
						}
					}); a != 0 {
						t.Errorf("%s over %q, n = %d: %v allocations a warm shared pair of calls", tc.domain, kind, n, a)
					}
				}
			}
		}
	}
}

// TestCrossFitShareReuse: within a generation, a second Fit of the same
// kind on the same batch returns the same CrossFit without refitting (the
// fold columns' memory is untouched: a marker written into them
// survives), another kind or another batch gets its own fit, and after
// Begin the same batch is refitted (the marker is overwritten). Before
// the first Begin nothing is reused.
func TestCrossFitShareReuse(t *testing.T) {
	d, _, err := domains.New("randommdp", map[string]float64{"horizon": 10})
	if err != nil {
		t.Fatal(err)
	}
	d.(domains.ModelDomain).Record(true, false)
	if err := d.(domains.ProbRecorder).RecordProbs(true); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var b trajectory.Batch
	d.Collect(&b, 20, rng)
	const marker = -12345.0
	var share models.CrossFitShare
	fit := func(kind string, b *trajectory.Batch) *models.CrossFit {
		t.Helper()
		cf, _, err := share.Fit(kind, b)
		if err != nil {
			t.Fatal(err)
		}
		return cf
	}
	cf := fit("", &b)
	cf.Fold(0).VHat[0] = marker
	if fit("", &b).Fold(0).VHat[0] == marker {
		t.Error("before Begin: the fit was reused")
	}
	share.Begin()
	cf = fit("", &b)
	cf.Fold(0).VHat[0] = marker
	if again := fit("", &b); again != cf || again.Fold(0).VHat[0] != marker {
		t.Error("the same batch in one generation: refitted")
	}
	if other := fit("fitted-t", &b); other == cf {
		t.Error("fitted-t got fitted's CrossFit")
	}
	pre := b.Prefix(10)
	if fit("", &pre).Fold(0).VHat[0] == marker {
		t.Error("a prefix (another batch) reused the whole batch's fit")
	}
	cf = fit("", &b)
	cf.Fold(0).VHat[0] = marker
	share.Begin()
	if fit("", &b).Fold(0).VHat[0] == marker {
		t.Error("after Begin: the fit was reused")
	}
	if a := testing.AllocsPerRun(5, func() { fit("", &b) }); a != 0 {
		t.Errorf("a reused fit: %v allocations", a)
	}
}
