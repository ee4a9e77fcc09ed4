package experiments

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

func taxiDomainFor(t *testing.T, m int) (Domain, float64) {
	t.Helper()
	d, p, err := NewDomain("noisytaxi", map[string]float64{"option_length": float64(m), "mc_episodes": 0})
	if err != nil {
		t.Fatal(err)
	}
	truth, err := domains["noisytaxi"].Truth(p, nil)
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

// TestTaxiWorkersDoNotChangeResults: a small NoisyTaxi config gives
// byte-identical curve.csv with 1 and 4 workers.
func TestTaxiWorkersDoNotChangeResults(t *testing.T) {
	cfg := `name: taxi
trials: 6
n: [5, 30]
series:
  - name: m1
    domain: noisytaxi
    params: {option_length: 1, mc_episodes: 1000}
    estimators: [pdis, partitioned-pdis, incris]
  - name: m3
    domain: noisytaxi
    params: {option_length: 3, mc_episodes: 0}
    estimators: [options-pdis]
`
	r, err := ParseConfig([]byte(cfg), "taxi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if one, four := runCSV(t, r, 1), runCSV(t, r, 4); !bytes.Equal(one, four) {
		t.Error("-workers 1 and -workers 4 differ")
	}
}

// TestTruthCache: a second computation of the same truth reads the cache
// and returns the identical value and extras.
func TestTruthCache(t *testing.T) {
	spec, _ := LookupDomain("noisytaxi")
	p := spec.Defaults()
	p["mc_episodes"] = 2000
	a, err := spec.Truth(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := spec.Truth(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Value != b.Value || a.Extra["eval_mc_value"] != b.Extra["eval_mc_value"] {
		t.Errorf("cached truth differs: %+v vs %+v", a, b)
	}
	if k1, k2 := truthKey("noisytaxi", p), truthKey("noisytaxi", Params{"eps_e": 0.05}); k1 == k2 {
		t.Error("different parameters share a cache key")
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
