package confidence

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestStudentQuantile checks studentT, gonum's distuv.StudentsT quantile,
// against published values of t_{p, nu}: standard t tables give 6.314,
// 1.833, 2.045, 2.132, 2.920 and 1.646 (R: qt(0.95, 1) = 6.313752, ...);
// the 13 digits are those of R's qt(p, nu) printed with digits = 16, equal
// to a root of the t CDF (through the regularised incomplete beta
// function) found in 40-digit arithmetic.
func TestStudentQuantile(t *testing.T) {
	for _, tc := range []struct {
		p, nu, want float64
	}{
		{0.95, 1, 6.313751514675043},
		{0.95, 2, 2.919985580353726},
		{0.95, 4, 2.131846786326650},
		{0.95, 9, 1.833112932656237},
		{0.975, 29, 2.045229642132704},
		{0.95, 1000, 1.646378817285465},
	} {
		if got := studentT(tc.p, tc.nu); math.Abs(got-tc.want) > 1e-11*tc.want {
			t.Errorf("t_{%v, %v} = %.15f, want %.15f", tc.p, tc.nu, got, tc.want)
		}
	}
}

// TestBCaLevels checks the adjusted levels against the formula evaluated
// in 40-digit arithmetic (Phi and Phi^{-1} from the error function):
// z0 = 0.1, a = 0.05, alpha = 0.1: alpha1 = Phi(0.1 + (0.1 - 1.644854) /
// (1 + 0.05 * 1.544854)) = 0.0910886004202327, alpha2 = 0.9778704853869033;
// z0 = 0.5, a = 1: alpha1 = Phi(0.5 - 1.144854 / 2.144854) =
// 0.4865311890855945, and 1 - a (z0 + z_{0.95}) = -1.14 <= 0 gives the
// limit alpha2 = 1. z0 = a = 0 gives alpha/2 and 1 - alpha/2.
func TestBCaLevels(t *testing.T) {
	for _, tc := range []struct {
		z0, a, alpha float64
		a1, a2       float64
	}{
		{0.1, 0.05, 0.1, 0.091088600420232671, 0.97787048538690329},
		{0.5, 1, 0.1, 0.48653118908559453, 1},
		{0, 0, 0.1, 0.05, 0.95},
		{0, 0, 0.05, 0.025, 0.975},
		{-0.5, -1, 0.1, 0, 1 - 0.48653118908559453}, // the mirror image of the second case
	} {
		a1, a2 := bcaLevels(tc.z0, tc.a, tc.alpha)
		if math.Abs(a1-tc.a1) > 1e-14 || math.Abs(a2-tc.a2) > 1e-14 {
			t.Errorf("z0 %v, a %v, alpha %v: levels %.17g, %.17g; want %.17g, %.17g", tc.z0, tc.a, tc.alpha, a1, a2, tc.a1, tc.a2)
		}
	}
}

// TestAcceleration: jackknife values 1, 2, 4: thetabar = 7/3, d = 4/3,
// 1/3, -5/3; sum d^3 = (64 + 1 - 125)/27 = -20/9, sum d^2 = 42/9 = 14/3;
// a = (-20/9) / (6 (14/3)^{3/2}). Failed values (NaN) are left out; no
// spread, or fewer than two values, is no acceleration.
func TestAcceleration(t *testing.T) {
	want := (-20.0 / 9) / (6 * math.Pow(14.0/3, 1.5))
	for _, jack := range [][]float64{{1, 2, 4}, {4, math.NaN(), 1, 2}, {1e300, 2e300, 4e300}} {
		a, ok := acceleration(slices.Clone(jack))
		if !ok || math.Abs(a-want) > 1e-15 {
			t.Errorf("%v: a = %v, %v; want %v", jack, a, ok, want)
		}
	}
	for _, jack := range [][]float64{{3, 3, 3}, {2, math.NaN()}, {math.NaN(), math.NaN()}} {
		if a, ok := acceleration(jack); ok {
			t.Errorf("%v: a = %v, want none", jack, a)
		}
	}
}

// TestQuantileInterval: the order statistics of ten sorted replicates
// 1..10: levels 0.2 and 0.8 give the floor(10*0.2) = 2nd smallest and the
// floor(10*0.2) = 2nd largest; levels below 1/m clamp to the extremes.
func TestQuantileInterval(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tc := range []struct{ a1, a2, lo, hi float64 }{
		{0.2, 0.8, 2, 9},
		{0.05, 0.95, 1, 10},
		{0.35, 0.99, 3, 10},
		{0, 1, 1, 10},
		{1, 1, 10, 10},
		{0, 0, 1, 1},
	} {
		lo, hi := quantileInterval(v, tc.a1, tc.a2)
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("levels %v, %v: [%v, %v], want [%v, %v]", tc.a1, tc.a2, lo, hi, tc.lo, tc.hi)
		}
	}
}

// TestBCaSymmetricIsPercentile: replicates symmetric about the estimate
// (as many below as above, so z0 = Phi^{-1}(1/2) = 0 exactly) and a
// symmetric jackknife (sum d^3 = 0 exactly, a = 0): BCa's interval is the
// percentile interval, at several sizes and levels.
func TestBCaSymmetricIsPercentile(t *testing.T) {
	if z := distuv.UnitNormal.Quantile(0.5); z != 0 {
		t.Fatalf("Phi^{-1}(1/2) = %v, want 0", z)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for _, m := range []int{20, 200, 1000, 2001} {
		for _, conf := range []float64{0.5, 0.8, 0.9, 0.95, 0.99} {
			const theta = 3.0
			v := make([]float64, 0, m)
			for len(v)+1 < m {
				d := math.Ldexp(float64(1+rng.IntN(1000)), -6)
				v = append(v, theta-d, theta+d)
			}
			if len(v) < m {
				v = append(v, theta)
			}
			rng.Shuffle(len(v), func(i, j int) { v[i], v[j] = v[j], v[i] })
			jack := []float64{1, 5, 2, 4, 3}
			want := percentileInterval(slices.Clone(v), conf)
			got := bcaInterval(slices.Clone(v), jack, theta, conf)
			if got != want {
				t.Errorf("m %d, confidence %v: BCa %+v, percentile %+v", m, conf, got, want)
			}
		}
	}
}

// TestBCaDegenerate: the fallbacks to the percentile interval, by hand.
func TestBCaDegenerate(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	pct := percentileInterval(slices.Clone(v), 0.8) // k = 1: [1, 10]
	skew := []float64{1, 2, 10}                     // a != 0
	for _, tc := range []struct {
		name  string
		v     []float64
		jack  []float64
		theta float64
		want  Interval
	}{
		{"estimate failed", v, skew, math.NaN(), pct},
		{"every replicate below", v, skew, 11, pct},
		{"every replicate above", v, skew, 0.5, pct},
		{"no jackknife spread", v, []float64{2, 2, 2}, 4, pct},
		{"every replicate the estimate", []float64{3, 3, 3}, skew, 3, Interval{Low: 3, High: 3}},
		{"every replicate failed", []float64{math.NaN(), math.NaN()}, skew, 3, Interval{Failed: 2}},
	} {
		got := bcaInterval(slices.Clone(tc.v), slices.Clone(tc.jack), tc.theta, 0.8)
		same := got.Failed == tc.want.Failed &&
			(got.Low == tc.want.Low || math.IsNaN(got.Low) && tc.want.Failed == len(tc.v)) &&
			(got.High == tc.want.High || math.IsNaN(got.High) && tc.want.Failed == len(tc.v))
		if !same {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	// not degenerate: theta = 4 with this skewed jackknife moves the interval
	if got := bcaInterval(slices.Clone(v), slices.Clone(skew), 4, 0.8); got == pct {
		t.Errorf("theta 4, skewed jackknife: %+v, the percentile interval", got)
	}
}

// TestChooseC: the threshold of SPEC 1e by hand, through chooseC with
// chosen coefficients a and v of pred(c) = mean(Y) - a c - sqrt(v s^2(Y)),
// Y = min(X, c) (dyadic numbers where a tie is tested: exact arithmetic).
func TestChooseC(t *testing.T) {
	for _, tc := range []struct {
		name  string
		x     []float64
		a, v  float64
		c     float64
		found bool
		how   string
	}{
		{"tie", []float64{3, 1}, 0.25, 0.125, 1, true,
			"c=1: Y=(1,1), 1 - 0.25 - 0 = 0.75; c=3: Y=(1,3), mean 2, s^2 = 2, 2 - 0.75 - sqrt(0.25) = 0.75: a tie, the smaller c"},
		{"larger wins", []float64{3, 1}, 0.125, 0.125, 3, true,
			"c=1: 1 - 0.125 = 0.875; c=3: 2 - 0.375 - 0.5 = 1.125"},
		{"duplicates and zeros", []float64{0, 2, 0, 2}, 0.25, 0.125, 2, true,
			"the only distinct positive value"},
		{"one value", []float64{0.75}, 10, 10, 0.75, true, "n1 = 1: the only candidate, whatever pred"},
		{"three", []float64{4, 1, 2}, 0.125, 0.5, 2, true,
			"c=1: Y=(1,1,1): 1 - 0.125 = 0.875; c=2: Y=(2,1,2): mean 5/3, s^2 = 1/3, 5/3 - 0.25 - sqrt(1/6) = 1.0084; " +
				"c=4: Y=(4,1,2): mean 7/3, s^2 = 7/3, 7/3 - 0.5 - sqrt(7/6) = 0.7532"},
		{"all zero", []float64{0, 0, 0}, 0.25, 0.125, 0, false, "no positive value: no c"},
	} {
		c, ok := chooseC(slices.Clone(tc.x), tc.a, tc.v)
		if c != tc.c || ok != tc.found {
			t.Errorf("%s: c = %v, %v; want %v, %v (%s)", tc.name, c, ok, tc.c, tc.found, tc.how)
		}
	}
}

// TestBoundRegistry: the help order, the entries' fields and docs.
func TestBoundRegistry(t *testing.T) {
	if got := Names(); !slices.Equal(got, []string{T, HCOPE}) {
		t.Errorf("Names() = %v, want [t hcope]", got)
	}
	for _, tc := range []struct {
		name       string
		needsRange bool
		minN       int
		doc        []string // words its doc must say
	}{
		{T, false, 2, []string{"Approximate", "heavy-tailed", "n - 1"}},
		{HCOPE, true, 3, []string{"guarantee", "any importance weights", "ceil(n/5)", "g_lo", "taken as 0"}},
	} {
		bi, ok := Lookup(tc.name)
		if !ok || bi.Name != tc.name || bi.NeedsRange != tc.needsRange || bi.MinN != tc.minN {
			t.Errorf("Lookup(%q) = %+v, %v; want NeedsRange %v, MinN %d", tc.name, bi, ok, tc.needsRange, tc.minN)
		}
		for _, w := range tc.doc {
			if !strings.Contains(bi.Doc, w) {
				t.Errorf("%s: Doc does not say %q: %s", tc.name, w, bi.Doc)
			}
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Error(`Lookup("nope") found an entry`)
	}
}
