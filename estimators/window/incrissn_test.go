package window

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
	"gonum.org/v1/gonum/stat"
)

// TestINCRISSNHand: one step, the arithmetic written out (docs/incris-sn.md
// section 1; step{r, rho}).
func TestINCRISSNHand(t *testing.T) {
	for _, tc := range []struct {
		name  string
		b     *trajectory.Batch
		want  float64
		kstar int
		how   string
	}{
		{
			name: "normalised window wins", want: 12.0 / 7, kstar: 1,
			b: batchOf([]step{{1, 2}}, []step{{2, 1}}, []step{{4, 0.5}}),
			how: "k=0: m = 7/3, A = W_1 = (2, 1, 1/2), C_0 = [(5/6)(-4/3) + (-1/6)(-1/3) + (-2/3)(5/3)]/2 = -13/12, " +
				"V_0 = (16 + 1 + 25)/9 / 3^2 = 14/27, MSE_0 = 169/144 + 14/27 = 1.69; " +
				"k=1: B = (2, 1, 1/2), X = (2, 2, 2), m = 6/3.5 = 12/7, C_1 = 0 (A = 1), " +
				"X - m B = (-10/7, 2/7, 8/7), V_1 = (168/49) / 3.5^2 = 96/343 = 0.28: k* = 1, estimate 12/7 (INCRIS: mean X = 2)",
		},
		{
			name: "zero normaliser is no candidate", want: 2, kstar: 0,
			b:   batchOf([]step{{1, 0}}, []step{{3, 0}}),
			how: "k=1: B = (0, 0), sum 0: not a candidate (CWPDIS would give 0/0 := 0); k=0: m = (1 + 3)/2 = 2",
		},
		{
			name: "plain mean wins", want: 0.5, kstar: 0,
			b: batchOf([]step{{2, 1.5}}, []step{{2, 0.5}}, []step{{-1, 1.5}}, []step{{-1, 0.5}}),
			how: "k=0: m = 1/2, A = (1.5, .5, 1.5, .5) independent of r: C_0 = (.75 - .75 - .75 + .75)/3 = 0, " +
				"V_0 = 4 (1.5^2)/4^2 = 0.5625; k=1: X = (3, 1, -1.5, -.5), m = 2/4, X - m B = (2.25, .75, -2.25, -.75), " +
				"V_1 = 11.25/16 = 0.703 > V_0: k* = 0, estimate 1/2",
		},
		{
			name: "tie to the larger k", want: 2, kstar: 1,
			b:   batchOf([]step{{2, 1}}, []step{{2, 1}}),
			how: "every ratio 1: both windows have m = 2, C = 0, V = 0: the tie goes to k = 1",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewINCRISSN()
			got, err := e.Estimate(tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if !near(got, tc.want, 1e-14) || e.KStar()[0] != tc.kstar {
				t.Errorf("estimate %v k* %v, want %v k* %d (%s)", got, e.KStar(), tc.want, tc.kstar, tc.how)
			}
		})
	}
}

// TestINCRISSNErrors: n = 1 is too few (C_k), and a weight beyond the
// float64 range is an error, not an Inf.
func TestINCRISSNErrors(t *testing.T) {
	if _, err := NewINCRISSN().Estimate(batchOf([]step{{1, 1}})); !errors.Is(err, estimators.ErrTooFew) {
		t.Errorf("n = 1: %v, want ErrTooFew", err)
	}
	huge := batchOf([]step{{1, 1e200}, {1, 1e200}}, []step{{1, 1}, {1, 1}})
	if _, err := NewINCRISSN().Estimate(huge); !errors.Is(err, estimators.ErrNotRepresentable) {
		t.Errorf("W_2 = 1e400: %v, want ErrNotRepresentable", err)
	}
}

// referenceINCRISSN is incris-sn written directly from docs/incris-sn.md
// section 1 on dense, padded matrices: every product multiplied out, C_k
// from gonum's two-pass covariance, V_k summed from its definition.
func referenceINCRISSN(b *trajectory.Batch) (float64, []int) {
	n, h := b.N(), b.Horizon()
	factors := b.Factors(nil)
	rho := make([][]float64, n)
	rew := make([][]float64, n)
	for i := range n {
		rho[i] = make([]float64, h)
		rew[i] = make([]float64, h)
		for s := range h {
			rho[i][s] = 1
			if s < b.Len(i) {
				rho[i][s] = factors[b.Offsets[i]+s]
				rew[i][s] = b.Reward[b.Offsets[i]+s]
			}
		}
	}
	prod := func(i, from, to int) float64 { // rho_j for 1-based j in [from, to]
		p := 1.0
		for j := from; j <= to; j++ {
			p *= rho[i][j-1]
		}
		return p
	}
	total, kstar := 0.0, make([]int, h)
	A, B, X := make([]float64, n), make([]float64, n), make([]float64, n)
	for t := 1; t <= h; t++ {
		best, bestK, bestM := math.Inf(1), 0, 0.0
		for k := 0; k <= t; k++ {
			sb, sx := 0.0, 0.0
			for i := range n {
				A[i], B[i] = prod(i, 1, t-k), prod(i, t-k+1, t)
				X[i] = B[i] * rew[i][t-1]
				sb += B[i]
				sx += X[i]
			}
			if sb == 0 {
				break // no candidate, nor any wider window
			}
			m, v := sx/sb, 0.0
			for i := range n {
				v += (X[i] - m*B[i]) * (X[i] - m*B[i])
			}
			c := stat.Covariance(A, X, nil)
			if mse := c*c + v/(sb*sb); mse <= best {
				best, bestK, bestM = mse, k, m
			}
		}
		kstar[t-1] = bestK
		total += bestM
	}
	return total, kstar
}

// TestINCRISSNMatchesReference: random data (padding, zero ratios and
// rewards, blocks of four and a remainder), sub-episode data and options
// data, to 1e-9 relative with the same k* at every step.
func TestINCRISSNMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 2))
	sets := []*trajectory.Batch{subepisodeBatch(rng, 203, 6), optionBatch(rng, 150, 10), randomBatch(rng, 2, 5), randomBatch(rng, 3, 4)}
	for range 20 {
		sets = append(sets, randomBatch(rng, 5+rng.IntN(60), 1+rng.IntN(10)))
	}
	e := NewINCRISSN()
	for j, b := range sets {
		got, err := e.Estimate(b)
		if err != nil {
			t.Fatal(err)
		}
		want, wantK := referenceINCRISSN(b)
		if !near(got, want, 1e-9) || !slices.Equal(e.KStar(), wantK) {
			t.Errorf("set %d: %v k* %v, reference %v %v", j, got, e.KStar(), want, wantK)
		}
	}
}

// TestINCRISSNNoAllocs: a warm estimator allocates nothing, on a batch of
// its first horizon or a shorter one.
func TestINCRISSNNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	long, short := subepisodeBatch(rng, 501, 10), randomBatch(rng, 300, 12)
	e := NewINCRISSN()
	if _, err := e.Estimate(long); err != nil {
		t.Fatal(err)
	}
	for _, b := range []*trajectory.Batch{long, short} {
		if a := testing.AllocsPerRun(5, func() { _, _ = e.Estimate(b) }); a != 0 {
			t.Errorf("warm Estimate allocates %v times", a)
		}
	}
}

// BenchmarkINCRISSN: BenchmarkINCRIS's data (H = 100, every reward
// nonzero, ratios 1.5 and 0.5): both passes visit every (t, k) cell of
// every trajectory.
func BenchmarkINCRISSN(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1000, 10000} {
		batch := subepisodeBatch(rng, n, 50)
		e := NewINCRISSN()
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			if _, err := e.Estimate(batch); err != nil { // the workspace
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Estimate(batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
