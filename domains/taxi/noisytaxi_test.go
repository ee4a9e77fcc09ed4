package taxi

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

func taxiDomainFor(t *testing.T, m int) (domains.Domain, float64) {
	t.Helper()
	d, p, err := domains.New("noisytaxi", map[string]float64{"option_length": float64(m), "mc_episodes": 0})
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := domains.Lookup("noisytaxi")
	truth, err := spec.Truth(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d, truth.Value
}

// TestTaxiOptionsPDISm1EqualsPDIS: with m = 1 every step is a one-step
// option whose option ratio is the action ratio, so options-PDIS and PDIS
// are the same computation (Theorem 3 with J = 1).
func TestTaxiOptionsPDISm1EqualsPDIS(t *testing.T) {
	d, _ := taxiDomainFor(t, 1)
	var b trajectory.Batch
	d.Collect(&b, 500, rand.New(rand.NewPCG(1, 1)))
	pd, _ := estimators.New("pdis")
	op, _ := estimators.New("options-pdis")
	x, err1 := pd.Estimate(&b)
	y, err2 := op.Estimate(&b)
	if err1 != nil || err2 != nil || x != y {
		t.Fatalf("pdis %v (%v), options-pdis %v (%v): want identical", x, err1, y, err2)
	}
}

// TestTaxiUnbiased: the mean over 1500 data sets of n = 40 episodes of each
// unbiased estimator is within 4 standard errors (sample sd / sqrt(T)) of
// the exact DP value of the evaluation policy (eps 0.05): PDIS and
// partitioned PDIS for m = 1 (Theorem 4: the passenger's pickup location,
// where the taxi stands after pickup, is uniform whatever the policy),
// options-PDIS for m = 2, 3 (Theorem 3).
func TestTaxiUnbiased(t *testing.T) {
	for _, tc := range []struct {
		m   int
		est string
	}{{1, "pdis"}, {1, "partitioned-pdis"}, {2, "options-pdis"}, {3, "options-pdis"}} {
		d, truth := taxiDomainFor(t, tc.m)
		e, _ := estimators.New(tc.est)
		rng := rand.New(rand.NewPCG(uint64(tc.m), 7))
		var b trajectory.Batch
		const trials = 1500
		est := make([]float64, trials)
		for i := range est {
			b.Reset()
			d.Collect(&b, 40, rng)
			v, err := e.Estimate(&b)
			if err != nil {
				t.Fatal(err)
			}
			est[i] = v
		}
		mean, sd := stat.MeanStdDev(est, nil)
		se := sd / math.Sqrt(trials)
		if math.Abs(mean-truth) > 4*se {
			t.Errorf("m=%d %s: mean %v, exact V %v, |diff| > 4 se = %v", tc.m, tc.est, mean, truth, 4*se)
		}
	}
}

// TestTaxiOptionsWeightsEverywhere: on options data (m = 3) every estimator
// weights by the per-step factors (option ratio on an option's first step,
// 1 later), so pdis and options-pdis are the same number, and WIS's final
// weights are products of option ratios only: (0.95/0.7)^a (0.05/0.3)^b.
func TestTaxiOptionsWeightsEverywhere(t *testing.T) {
	d, _ := taxiDomainFor(t, 3)
	var b trajectory.Batch
	d.Collect(&b, 300, rand.New(rand.NewPCG(2, 2)))
	pd, _ := estimators.New("pdis")
	op, _ := estimators.New("options-pdis")
	x, _ := pd.Estimate(&b)
	y, _ := op.Estimate(&b)
	if x != y {
		t.Errorf("pdis %v != options-pdis %v on options data", x, y)
	}
	f := b.Factors(nil)
	epsB, epsE := 0.3, 0.05 // float64 arithmetic, as the policy computes them
	optimal, random := (1-epsE)/(1-epsB), epsE/epsB
	for s, r := range b.Ratio {
		if r != 1 {
			t.Fatalf("step %d: action ratio %v inside an unchanged option, want 1", s, r)
		}
		if o := b.OptionRatio[s]; f[s] != o || (o != 1 && o != optimal && o != random) {
			t.Fatalf("step %d: factor %v, option ratio %v", s, f[s], o)
		}
	}
	for _, name := range []string{"wis", "cwpdis", "incris", "incris-ld"} {
		e, _ := estimators.New(name)
		if v, err := e.Estimate(&b); err != nil || math.IsNaN(v) {
			t.Errorf("%s on options data: %v, %v", name, v, err)
		}
	}
}
