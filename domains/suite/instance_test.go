package suite

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/ope-lab/longhorizon/envs/tabular"
)

// TestDirichlet: symmetric Dirichlet(alpha) draws over k = 4 outcomes sum
// to 1 and have the closed-form moments of each component, E = 1/k and
// Var = (k - 1) / (k^2 (k alpha + 1)), within 4 standard errors (the
// variance's standard error from the sample fourth central moment), for
// alpha below, at and above 1.
func TestDirichlet(t *testing.T) {
	const k, n = 4, 100000
	for _, alpha := range []float64{0.2, 1, 5} {
		rng := rand.New(rand.NewPCG(11, uint64(alpha*10)))
		x := make([]float64, n)
		row := make([]float64, k)
		for i := range x {
			dirichlet(row, alpha, rng)
			sum := 0.0
			for _, v := range row {
				if !(v >= 0) {
					t.Fatalf("alpha %v: component %v", alpha, v)
				}
				sum += v
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Fatalf("alpha %v: sum %v", alpha, sum)
			}
			x[i] = row[i%k]
		}
		mean, se := meanSE(x)
		var m2, m4 float64
		for _, v := range x {
			d := (v - mean) * (v - mean)
			m2 += d
			m4 += d * d
		}
		m2, m4 = m2/n, m4/n
		wantVar := float64(k-1) / (k * k * (k*alpha + 1))
		if math.Abs(mean-1.0/k) > 4*se || math.Abs(m2-wantVar) > 4*math.Sqrt((m4-m2*m2)/n) {
			t.Errorf("alpha %v: mean %v +- %v (want 0.25), variance %v (want %v)", alpha, mean, se, m2, wantVar)
		}
	}
}

// TestSoftmaxPolicy: every row is a distribution; temperature 100 is near
// uniform (scores within a few / 100 of each other) and 0.01 nearly
// deterministic (the largest probability above 0.99 in most rows: two
// normal draws within 0.05 of each other are rare).
func TestSoftmaxPolicy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	hot := softmaxPolicy(50, 3, 100, rng)
	cold := softmaxPolicy(50, 3, 0.01, rng)
	m := &tabular.MDP{States: 50, Actions: 3}
	if err := m.CheckPolicy(hot); err != nil {
		t.Fatal(err)
	}
	if err := m.CheckPolicy(cold); err != nil {
		t.Fatal(err)
	}
	sure := 0
	for s := range 50 {
		if slices.Max(hot.Pi[s*3:s*3+3]) > 0.4 {
			t.Errorf("temperature 100, state %d: %v, want near uniform", s, hot.Pi[s*3:s*3+3])
		}
		if slices.Max(cold.Pi[s*3:s*3+3]) > 0.99 {
			sure++
		}
	}
	if sure < 40 {
		t.Errorf("temperature 0.01: %d of 50 rows above 0.99, want most", sure)
	}
}

// meanSE returns the mean of x and its standard error (sample standard
// deviation, denominator n-1, over sqrt(n)).
func meanSE(x []float64) (mean, se float64) {
	mean, sd := stat.MeanStdDev(x, nil)
	return mean, sd / math.Sqrt(float64(len(x)))
}
