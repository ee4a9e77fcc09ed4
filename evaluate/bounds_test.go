package evaluate

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestTBoundHand: the t bound on hand-computed data sets, with t quantiles
// of TestStudentQuantile.
func TestTBoundHand(t *testing.T) {
	ones := func(xs ...float64) *trajectory.Batch { // one-step trajectories, X = r (ratio 1)
		var b trajectory.Batch
		for _, x := range xs {
			b.Add(x, 1)
			b.End()
		}
		return &b
	}
	// three two-step trajectories (r, rho): pdis terms 2*1 + 1*1 = 3,
	// 0.5*0 + 1*2 = 2, 1*1 = 1; is terms W_H G = 1*2, 1*2, 1*1
	three := batchOf([]step{{1, 2}, {1, 0.5}}, []step{{0, 0.5}, {2, 2}}, []step{{1, 1}})
	half := make([]float64, 30) // 15 zeros, 15 twos
	for i := 15; i < 30; i++ {
		half[i] = 2
	}
	for _, tc := range []struct {
		name, est string
		b         *trajectory.Batch
		delta     float64
		want      float64
		how       string
	}{
		{"n=2", "is", ones(0, 2), 0.05, 1 - 6.313751514675043,
			"mean 1, s = sqrt(2), s/sqrt(2) = 1: 1 - t_{0.95,1}"},
		{"n=10", "is", ones(0, 0, 0, 0, 0, 2, 2, 2, 2, 2), 0.05, 1 - 1.833112932656237/3,
			"mean 1, s^2 = 10/9, s/sqrt(10) = 1/3: 1 - t_{0.95,9}/3"},
		{"n=30 delta=0.025", "is", ones(half...), 0.025, 1 - 2.045229642132704/math.Sqrt(29),
			"mean 1, s^2 = 30/29, s/sqrt(30) = 1/sqrt(29): 1 - t_{0.975,29}/sqrt(29)"},
		{"pdis", "pdis", three, 0.05, 2 - 2.919985580353726/math.Sqrt(3),
			"X = 3, 2, 1: mean 2, s = 1: 2 - t_{0.95,2}/sqrt(3)"},
		{"is two-step", "is", three, 0.05, (5 - 2.919985580353726) / 3,
			"X = 2, 2, 1: mean 5/3, s^2 = (1/9 + 1/9 + 4/9)/2 = 1/3, s/sqrt(3) = 1/3: 5/3 - t_{0.95,2}/3"},
		{"dr", "dr", modelHandBatch(), 0.05, 5.5 - 2*6.313751514675043,
			"X = 7.5, 3.5 (TestModelHand's per-trajectory sums): mean 5.5, s = 4/sqrt(2), s/sqrt(2) = 2"},
		{"identical", "is", ones(3, 3, 3), 0.05, 3, "s = 0: the mean"},
		{"beyond float64 sums", "is", ones(1.5e308, 1.5e308), 0.05, 1.5e308,
			"mean 1.5e308 (the plain sum overflows), s = 0"},
		{"weight beyond float64", "is", overflowBatch(), 0.05,
			math.Ldexp(1, 929) + 1.0/2 - 6.313751514675043*(math.Ldexp(1, 930)-1)/2,
			"X = 2^930, 1: mean 2^929 + 1/2, s/sqrt(2) = |2^930 - 1|/2"},
	} {
		got, err := boundOf(tc.est, confidence.T, tc.b, tc.delta, 0, 0)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if math.Abs(got-tc.want) > 1e-13*math.Max(1, math.Abs(tc.want)) {
			t.Errorf("%s: %s t bound %.15g, want %.15g (%s)", tc.name, tc.est, got, tc.want, tc.how)
		}
	}
}

// TestLowerBoundErrors: bad requests, too few trajectories, overflowing
// terms, returns outside the range, bad ranges.
func TestLowerBoundErrors(t *testing.T) {
	unit := batchOf([]step{{0.5, 1}}, []step{{1, 1}}, []step{{0, 1}})
	out := batchOf([]step{{0.5, 1}}, []step{{0.5, 1}}, []step{{0.25, 2}, {1, 1}}, []step{{0, 1}})
	two := batchOf([]step{{0.5, 1}}, []step{{1, 1}})
	for _, tc := range []struct {
		name, est, kind string
		b               *trajectory.Batch
		delta, lo, hi   float64
		is              error  // errors.Is target, or nil
		says            string // in the message
	}{
		{"unknown bound", "is", "z", unit, 0.05, 0, 1, nil, `unknown bound "z"`},
		{"unknown estimator", "nope", confidence.T, unit, 0.05, 0, 1, nil, `unknown estimator "nope"`},
		{"unsupported", "wis", confidence.T, unit, 0.05, 0, 1, nil, "wis has no t lower bound"},
		{"hcope of pdis", "pdis", confidence.HCOPE, unit, 0.05, 0, 1, nil, "pdis has no hcope lower bound"},
		{"delta 0", "is", confidence.T, unit, 0, 0, 1, nil, "delta 0"},
		{"delta 1", "is", confidence.T, unit, 1, 0, 1, nil, "delta 1"},
		{"delta NaN", "is", confidence.T, unit, math.NaN(), 0, 1, nil, "delta NaN"},
		{"t n=1", "is", confidence.T, batchOf([]step{{1, 1}}), 0.05, 0, 0, estimators.ErrTooFew, "needs n >= 2"},
		{"hcope n=2", "is", confidence.HCOPE, two, 0.05, 0, 1, estimators.ErrTooFew, "needs n >= 3"},
		{"t overflow", "is", confidence.T, chainAllA1(1100), 0.05, 0, 0, estimators.ErrNotRepresentable, "trajectory 0"},
		{"pdis overflow", "pdis", confidence.T, chainAllA1(1100), 0.05, 0, 0, estimators.ErrNotRepresentable, "trajectory 0"},
		{"hcope overflow", "is", confidence.HCOPE, batchOf(slices.Repeat([]step{{0, 2}}, 1100), []step{{1, 2}}, []step{{0, 1}}),
			0.05, -1, 1, estimators.ErrNotRepresentable, "trajectory 0"},
		{"dr without model", "dr", confidence.T, unit, 0.05, 0, 0, ErrNoModel, "no model columns"},
		{"return above", "is", confidence.HCOPE, out, 0.05, 0, 1, estimators.ErrOutOfRange, "trajectory 2 (0-based): return 1.25 outside [0, 1]"},
		{"return below", "is", confidence.HCOPE, unit, 0.05, 0.25, 1, estimators.ErrOutOfRange, "trajectory 2 (0-based): return 0 outside [0.25, 1]"},
		{"lo = hi", "is", confidence.HCOPE, unit, 0.05, 1, 1, nil, "want finite g_lo < g_hi"},
		{"lo > hi", "is", confidence.HCOPE, unit, 0.05, 1, 0, nil, "want finite g_lo < g_hi"},
		{"hi Inf", "is", confidence.HCOPE, unit, 0.05, 0, math.Inf(1), nil, "want finite g_lo < g_hi"},
		{"lo NaN", "is", confidence.HCOPE, unit, 0.05, math.NaN(), 1, nil, "want finite g_lo < g_hi"},
		{"too wide", "is", confidence.HCOPE, unit, 0.05, -1e308, 1e308, nil, "beyond the float64 range"},
	} {
		v, err := boundOf(tc.est, tc.kind, tc.b, tc.delta, tc.lo, tc.hi)
		switch {
		case err == nil:
			t.Errorf("%s: %v, no error", tc.name, v)
		case tc.is != nil && !errors.Is(err, tc.is):
			t.Errorf("%s: %v, want an error wrapping %v", tc.name, err, tc.is)
		case !strings.Contains(err.Error(), tc.says):
			t.Errorf("%s: %q does not say %q", tc.name, err, tc.says)
		case tc.is != estimators.ErrOutOfRange && errors.Is(err, estimators.ErrOutOfRange):
			t.Errorf("%s: %v wraps estimators.ErrOutOfRange", tc.name, err)
		}
	}
	// a range is ignored by t: the same call with any range
	a, _ := boundOf("is", confidence.T, unit, 0.05, 0, 0)
	b, _ := boundOf("is", confidence.T, unit, 0.05, 5, -5)
	if a != b || math.IsNaN(a) {
		t.Errorf("t bound depends on the range: %v, %v", a, b)
	}
}

// TestHCOPEHand: the hcope bound through LowerBound on one-step
// trajectories of ratio 2, X = 2 (r - g_lo) / (g_hi - g_lo). delta = 2
// e^{-3/4} makes ln(2/delta) = 3/4, so that a = 7 (3/4) / (3 (m - 1)) =
// 1.75 / (m - 1) and v = 2 (3/4) / m = 1.5 / m.
func TestHCOPEHand(t *testing.T) {
	delta := 2 * math.Exp(-0.75)
	// n = 6: n1 = ceil(6/5) = 2 choose c among X = 1.5, 0.5 with m = 4
	// (a = 1.75/3, v = 0.375): c = 0.5: Y = (0.5, 0.5): 0.5 - 0.2917 =
	// 0.2083; c = 1.5: Y = (1.5, 0.5), mean 1, s^2 = 0.5: 1 - 0.875 -
	// sqrt(0.1875) < 0; so c = 0.5 (with n1 = 1 it would be 1.5). The other
	// X = 1, 2, 0.5, 0.25 give Y = 0.5, 0.5, 0.5, 0.25: mean 0.4375,
	// s^2 = (3 * 0.0625^2 + 0.1875^2) / 3 = 0.015625.
	l6 := 0.4375 - 1.75/3*0.5 - math.Sqrt(0.375*0.015625)
	for _, tc := range []struct {
		name   string
		b      *trajectory.Batch
		lo, hi float64
		want   float64
		how    string
	}{
		{"n=3", oneSteps(1, 1, 1), -1, 1, -1,
			"X = 2 each; n1 = 1 (c = 2), m = 2: a = 1.75 > 1 while mean(Y) <= c: L = 0, the bound is g_lo"},
		{"n=5", oneSteps(0.4, 0.4, 0.6, 0.8, 0.3), 0, 1,
			0.75 - 1.75/3*0.8 - math.Sqrt(0.375*0.01),
			"X = 0.8 | 0.8, 1.2, 1.6, 0.6; n1 = 1: c = 0.8; m = 4 (a = 1.75/3, v = 0.375): " +
				"Y = 0.8, 0.8, 0.8, 0.6, mean 0.75, s^2 = (3 * 0.05^2 + 0.15^2)/3 = 0.01"},
		{"n=6", oneSteps(0.75, 0.25, 0.5, 1, 0.25, 0.125), 0, 1, l6, "see l6"},
		{"n=6 range [-1, 3]", oneSteps(2, 0, 1, 3, 0, -0.5), -1, 3, -1 + 4*l6,
			"X = 2 (r + 1)/4: the same X as n=6; the bound is g_lo + (g_hi - g_lo) L"},
		{"first X all zero", batchOf([]step{{0, 2}}, []step{{1, 0}}, []step{{1, 2}}, []step{{1, 2}}, []step{{1, 2}},
			[]step{{1, 2}}, []step{{1, 2}}, []step{{1, 2}}, []step{{1, 2}}, []step{{1, 2}}), 0, 1, 0,
			"n = 10, n1 = 2: X = 0 (r = g_lo), 0 (ratio 0): no c, L = 0, although the other X are all 2"},
	} {
		got, err := boundOf("is", confidence.HCOPE, tc.b, delta, tc.lo, tc.hi)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: hcope %.15g, want %.15g (%s)", tc.name, got, tc.want, tc.how)
		}
	}
	if l6 <= 0 {
		t.Fatalf("l6 = %v: the n=6 case should not be vacuous", l6)
	}
}

// referenceHCOPE is SPEC 1e written out directly: for every distinct
// positive X of the first ceil(n/5), Y = min(X, c) and pred(c) by two-pass
// mean and variance; the largest pred, ties to the smaller c; L on the
// rest.
func referenceHCOPE(x []float64, delta float64) float64 {
	n := len(x)
	n1 := int(math.Ceil(float64(n) / 5))
	m := n - n1
	l := math.Log(2 / delta)
	expr := func(xs []float64, c float64) float64 {
		k := float64(len(xs))
		mean, ss := 0.0, 0.0
		for _, v := range xs {
			mean += min(v, c)
		}
		mean /= k
		for _, v := range xs {
			ss += (min(v, c) - mean) * (min(v, c) - mean)
		}
		s2 := 0.0
		if len(xs) > 1 {
			s2 = ss / (k - 1)
		}
		return mean - 7*c*l/(3*float64(m-1)) - math.Sqrt(2*l*s2/float64(m))
	}
	cands := slices.Clone(x[:n1])
	slices.Sort(cands)
	cands = slices.Compact(cands)
	best, c, found := 0.0, 0.0, false
	for _, cand := range cands {
		if cand <= 0 {
			continue
		}
		if p := expr(x[:n1], cand); !found || p > best {
			best, c, found = p, cand, true
		}
	}
	if !found {
		return 0
	}
	return max(0, expr(x[n1:], c))
}

// TestHCOPEMatchesReference: LowerBound's one-pass selection equals the
// direct formula on random heavy-tailed data (products of 1 to 6 ratios
// in {0, 0.5, 2, 4}, returns in [0, 3]), over n and delta.
func TestHCOPEMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 13))
	ratios := []float64{0, 0.5, 2, 4}
	nonzero := 0
	for trial := range 200 {
		n := 3 + rng.IntN(150)
		delta := []float64{0.05, 0.2, 0.5, 0.9}[trial%4]
		var b trajectory.Batch
		x := make([]float64, n)
		for i := range n {
			w, g := 1.0, 0.0
			for range 1 + rng.IntN(6) {
				rho, r := ratios[rng.IntN(4)], rng.Float64()/2
				b.Add(r, rho)
				w *= rho
				g += r
			}
			b.End()
			x[i] = w * (g - 0) / 3
		}
		got, err := boundOf("is", confidence.HCOPE, &b, delta, 0, 3)
		if err != nil {
			t.Fatal(err)
		}
		want := 3 * referenceHCOPE(x, delta)
		if math.Abs(got-want) > 1e-12*math.Max(1, want) {
			t.Errorf("trial %d (n = %d, delta %v): %v, reference %v", trial, n, delta, got, want)
		}
		if want > 0 {
			nonzero++
		}
	}
	if nonzero < 20 {
		t.Errorf("only %d of 200 bounds above g_lo: the comparison has no teeth", nonzero)
	}
}

// TestLowerBoundAllocs: an evaluation with a bound (the estimate and the
// bound on its data) allocates nothing once warm.
func TestLowerBoundAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	b := withModelColumns(rng, ratioBatch(rng, 300, 10))
	for _, tc := range []struct{ est, kind string }{{"is", confidence.T}, {"pdis", confidence.T}, {"dr", confidence.T}, {"is", confidence.HCOPE}} {
		m, err := Registry(tc.est)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := New(Request{Methods: []Method{m}, Model: Columns{}, Bounds: []string{tc.kind}, Delta: 0.05, Lo: -100, Hi: 100})
		if err != nil {
			t.Fatal(err)
		}
		res := ev.NewResult(1)
		grid := []int{b.N()}
		run := func() {
			if err := ev.Evaluate(b, grid, &res); err != nil {
				t.Fatal(err)
			}
		}
		run()
		if a := testing.AllocsPerRun(20, run); a != 0 {
			t.Errorf("%s %s: %v allocations per call", tc.est, tc.kind, a)
		}
	}
}

// coverageProblem is a short chain with known V(pi_e): H steps, action a1
// with probability pb under the behavior policy and pe under the
// evaluation policy (ratios pe/pb and (1-pe)/(1-pb)); reward returns the
// reward of step t (1-based) after action a1 (or not) given whether every
// action so far was a1.
type coverageProblem struct {
	name   string
	h      int
	pb, pe float64
	reward func(rng *rand.Rand, t, h int, a1, allA1 bool) float64
	v      float64 // V(pi_e)
	lo, hi float64 // a range holding every return
}

func (p coverageProblem) collect(b *trajectory.Batch, n int, rng *rand.Rand) {
	b.Reset()
	for range n {
		all := true
		for t := 1; t <= p.h; t++ {
			a1 := rng.Float64() < p.pb
			rho := (1 - p.pe) / (1 - p.pb)
			if a1 {
				rho = p.pe / p.pb
			}
			all = all && a1
			b.Add(p.reward(rng, t, p.h, a1, all), rho)
		}
		b.End()
	}
}

// coverageProblems: heavy-tailed weights.
//   - noisy: H = 4, pb = 0.2, pe = 0.6 (ratios 3 and 0.5: weight 81 with
//     probability 0.0016); each step pays 1 with probability 0.8 after a1
//     and 0.2 after a2: V = 4 (0.6 * 0.8 + 0.4 * 0.2) = 2.24; returns in
//     [0, 4].
//   - all-a1: the chain of SPEC 2.1, H = 5, pb = 0.5, pe = 0.9 (ratios 1.8
//     and 0.2): reward 1 on the last step if every action was a1, so X =
//     1.8^5 = 18.9 with probability 1/32 and 0 otherwise; V = 0.9^5 =
//     0.59049; returns in [0, 1].
//   - bandit: one step, pb = 0.5, pe = 0.7 (ratios 1.4 and 0.6), pays 1
//     with probability 0.8 after a1 and 0.2 after a2: V = 0.7 * 0.8 +
//     0.3 * 0.2 = 0.62; light weights, where hcope comes closest to V.
var coverageProblems = []coverageProblem{
	{"noisy", 4, 0.2, 0.6, func(rng *rand.Rand, _, _ int, a1, _ bool) float64 {
		p := 0.2
		if a1 {
			p = 0.8
		}
		if rng.Float64() < p {
			return 1
		}
		return 0
	}, 2.24, 0, 4},
	{"all-a1", 5, 0.5, 0.9, func(_ *rand.Rand, t, h int, _, all bool) float64 {
		if t == h && all {
			return 1
		}
		return 0
	}, 0.59049, 0, 1},
	{"bandit", 1, 0.5, 0.7, func(rng *rand.Rand, _, _ int, a1, _ bool) float64 {
		p := 0.2
		if a1 {
			p = 0.8
		}
		if rng.Float64() < p {
			return 1
		}
		return 0
	}, 0.62, 0, 1},
}

// TestHCOPECoverage: hcope is a guarantee, so over 2000 independent data
// sets in every cell (problem, n in {10, 50, 200}, delta in {0.05, 0.2})
// its coverage (the fraction of data sets whose bound is <= V) must be at
// least 1 - delta - 3 sqrt(delta (1 - delta) / 2000), three binomial
// standard errors below the nominal rate; a failure is a bug. So that the
// check has teeth, the noisy and bandit problems' bounds must be above
// g_lo (not vacuous) in most data sets at n = 200. The t bounds of is and pdis are
// approximate: their coverage is logged, not asserted.
func TestHCOPECoverage(t *testing.T) {
	const sets = 2000
	var b trajectory.Batch
	for _, p := range coverageProblems {
		for _, n := range []int{10, 50, 200} {
			for _, delta := range []float64{0.05, 0.2} {
				var covH, covTIS, covTPDIS, useful int
				sumH := 0.0
				rng := rand.New(rand.NewPCG(uint64(n), uint64(1000*delta)))
				for range sets {
					p.collect(&b, n, rng)
					h, err := boundOf("is", confidence.HCOPE, &b, delta, p.lo, p.hi)
					if err != nil {
						t.Fatal(err)
					}
					ti, err := boundOf("is", confidence.T, &b, delta, 0, 0)
					if err != nil {
						t.Fatal(err)
					}
					tp, err := boundOf("pdis", confidence.T, &b, delta, 0, 0)
					if err != nil {
						t.Fatal(err)
					}
					if h <= p.v {
						covH++
					}
					if h > p.lo {
						useful++
					}
					if ti <= p.v {
						covTIS++
					}
					if tp <= p.v {
						covTPDIS++
					}
					sumH += h
				}
				c := float64(covH) / sets
				floor := 1 - delta - 3*math.Sqrt(delta*(1-delta)/sets)
				t.Logf("%s n=%d delta=%v: hcope coverage %.4f (mean bound %.4f, above g_lo in %d; V = %v); t coverage: is %.4f, pdis %.4f",
					p.name, n, delta, c, sumH/sets, useful, p.v, float64(covTIS)/sets, float64(covTPDIS)/sets)
				if c < floor {
					t.Errorf("%s n=%d delta=%v: hcope coverage %.4f below %.4f", p.name, n, delta, c, floor)
				}
				if p.name != "all-a1" && n == 200 && useful < sets/2 {
					t.Errorf("%s n=%d delta=%v: hcope above g_lo in only %d of %d data sets", p.name, n, delta, useful, sets)
				}
			}
		}
	}
}

// oneSteps returns one-step trajectories with rewards r and ratio 2.
func oneSteps(r ...float64) *trajectory.Batch {
	var b trajectory.Batch
	for _, v := range r {
		b.Add(v, 2)
		b.End()
	}
	return &b
}

// overflowBatch: a weight of 2^1030 (beyond float64) on reward 2^-100 at
// the last of 1030 steps, beside a short trajectory: the estimators' and
// the terms' scaled paths. Model columns make DR's terms nonzero.
func overflowBatch() *trajectory.Batch {
	var b trajectory.Batch
	for t := 1; t <= 1030; t++ {
		r := 0.0
		if t == 1030 {
			r = math.Ldexp(1, -100)
		}
		b.Add(r, 2)
		b.AddModel(r/2, r/4)
	}
	b.End()
	b.Add(1, 1)
	b.AddModel(0.5, 0.25)
	b.End()
	return &b
}
