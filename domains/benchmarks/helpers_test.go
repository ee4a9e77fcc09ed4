package benchmarks

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/trajectory"
)

// build returns domain name with set, as a ModelDomain and a
// ProbRecorder, its spec and resolved parameters.
func build(t *testing.T, name string, set map[string]float64) (domains.ModelDomain, *domains.Spec, domains.Params) {
	t.Helper()
	d, p, err := domains.New(name, set)
	if err != nil {
		t.Fatalf("%s %v: %v", name, set, err)
	}
	spec, _ := domains.Lookup(name)
	return d.(domains.ModelDomain), spec, p
}

// collect draws n episodes of name with set from the stream (seed, 1),
// recording ids, the exact model and the probabilities.
func collect(t *testing.T, name string, set map[string]float64, n int, seed uint64) *trajectory.Batch {
	t.Helper()
	d, _, _ := build(t, name, set)
	d.Record(true, true)
	if err := d.(domains.ProbRecorder).RecordProbs(true); err != nil {
		t.Fatal(err)
	}
	var b trajectory.Batch
	d.Collect(&b, n, rand.New(rand.NewPCG(seed, 1)))
	return &b
}

// truth returns the adapter's exact V(pi_e) of name with set.
func truth(t *testing.T, name string, set map[string]float64) domains.Truth {
	t.Helper()
	_, spec, p := build(t, name, set)
	tr, err := spec.Truth(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// returns returns each episode's discounted return sum_t gamma^(t-1) r_t
// and, when weighted, times its importance weight prod_t ratio_t (every
// step's ratio, the last included).
func returns(b *trajectory.Batch, gamma float64, weighted bool) []float64 {
	g := make([]float64, b.N())
	for i := range g {
		w, disc := 1.0, 1.0
		for k := b.Offsets[i]; k < b.Offsets[i+1]; k++ {
			g[i] += disc * b.Reward[k]
			disc *= gamma
			w *= b.Ratio[k]
		}
		if weighted {
			g[i] *= w
		}
	}
	return g
}

// meanSE returns the mean of x and its standard error (sample standard
// deviation, denominator n-1, over sqrt(n)).
func meanSE(x []float64) (mean, se float64) {
	n := float64(len(x))
	for _, v := range x {
		mean += v
	}
	mean /= n
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / (n - 1) / n)
}

// varSE returns the sample variance of x (denominator n-1) and its
// standard error sqrt((m4 - var^2) / n), m4 the sample's fourth central
// moment: the large-n standard deviation of a sample variance, whatever
// the law.
func varSE(x []float64) (variance, se float64) {
	n := float64(len(x))
	mean, _ := meanSE(x)
	var m2, m4 float64
	for _, v := range x {
		d := (v - mean) * (v - mean)
		m2 += d
		m4 += d * d
	}
	m2, m4 = m2/n, m4/n
	return m2 * n / (n - 1), math.Sqrt((m4 - m2*m2) / n)
}
