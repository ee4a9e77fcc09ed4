package suite

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/envs/tabular"
)

func TestSparseInstances(t *testing.T) {
	// Same parameters: the same truth, bit for bit; instance 2 draws
	// another MDP, so another truth.
	v1 := suiteTruth(t, "sparse", nil)
	if again := suiteTruth(t, "sparse", nil); math.Float64bits(again) != math.Float64bits(v1) {
		t.Errorf("instance 1 twice: %v then %v", v1, again)
	}
	suiteBuild(t, "sparse", map[string]float64{"instance": 2})
	if v2 := suiteTruth(t, "sparse", map[string]float64{"instance": 2}); v2 == v1 {
		t.Errorf("instances 1 and 2 have the same truth %v", v1)
	}
}

func TestSparseBruteForce(t *testing.T) {
	// S = 2, A = 3, H = 3: the engine's dynamic program equals the
	// enumeration of every trajectory on the exact mean rewards.
	for _, tc := range []map[string]float64{
		{"states": 2, "horizon": 3},
		{"states": 2, "horizon": 3, "gamma": 0.9, "instance": 7, "alpha": 3, "rare_prob": 0.4},
		{"states": 3, "actions": 2, "horizon": 4, "temperature": 0.2, "mix": 0.1},
		{"states": 2, "horizon": 3, "temperature": 0.01},
	} {
		p, m, pb, pe := suiteBuild(t, "sparse", tc)
		want := enumerateValue(m, pe, p["gamma"])
		if got := suiteTruth(t, "sparse", tc); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%v: truth %v, enumeration %v", tc, got, want)
		}
		if got, want := m.Value(pb, p["gamma"]), enumerateValue(m, pb, p["gamma"]); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%v: V(pi_b) %v, enumeration %v", tc, got, want)
		}
	}
}

func TestSparseDraw(t *testing.T) {
	// Draw pays with probability q(s, a) = Mean / (alpha scale/(alpha-1))
	// and then a Pareto(alpha, scale) reward: never below scale, below
	// its median scale 2^(1/alpha) half the time. Both frequencies within
	// 4 binomial standard errors. rare_prob = 0.5 makes q(s, a) = U,
	// uniform on [0, 1).
	const draws = 100000
	p, m, _, _ := suiteBuild(t, "sparse", map[string]float64{"states": 2, "actions": 2, "rare_prob": 0.5, "alpha": 1.5, "scale": 10})
	k := m.At(0)
	payMean := 1.5 * 10 / 0.5 // alpha scale / (alpha - 1) = 30
	median := 10 * math.Pow(2, 1/1.5)
	rng := rand.New(rand.NewPCG(3, 4))
	for s := range 2 {
		for a := range 2 {
			q := k.Mean[s*2+a] / payMean
			paid, below := 0, 0
			for range draws {
				r := k.Draw(s, a, rng)
				switch {
				case r == 0:
					continue
				case r < p["scale"]:
					t.Fatalf("(%d, %d): reward %v below the scale", s, a, r)
				}
				paid++
				if r < median {
					below++
				}
			}
			if se := math.Sqrt(q * (1 - q) / draws); math.Abs(float64(paid)/draws-q) > 4*se+1e-12 {
				t.Errorf("(%d, %d): paid in %v of draws, want q = %v +- %v", s, a, float64(paid)/draws, q, 4*se)
			}
			if paid > 100 {
				if se := math.Sqrt(0.25 / float64(paid)); math.Abs(float64(below)/float64(paid)-0.5) > 4*se {
					t.Errorf("(%d, %d): %v of paid rewards below the median %v, want 0.5 +- %v", s, a, float64(below)/float64(paid), median, 4*se)
				}
			}
		}
	}
}

func TestSparseMonteCarlo(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo")
	}
	// At the defaults the return has infinite variance (alpha = 1.5), so
	// the check is on what has a finite variance: the number of paid
	// steps per episode under pi_e, whose exact mean is the value of the
	// same MDP with mean reward q(s, a) = Mean / 30 (a step pays with
	// probability q), within 4 standard errors. E_b[W^2] in the range
	// the Doc states.
	_, m, pb, pe := suiteBuild(t, "sparse", nil)
	k := m.At(0)
	q := &tabular.Kernel{P: k.P, Mean: make([]float64, len(k.Mean))}
	for i, x := range k.Mean {
		q.Mean[i] = x / 30
	}
	mq := *m
	mq.At = func(int) *tabular.Kernel { return q }
	want := mq.Value(pe, 1)
	e := suiteEpisodes(t, m, pe, 40000, rand.New(rand.NewPCG(5, 6)))
	if math.Abs(e.Hits-want) > 4*e.HitsSE {
		t.Errorf("paid steps per episode: Monte Carlo %v +- %v, exact %v", e.Hits, e.HitsSE, want)
	}
	if w2 := m.WeightMoment(pb, pe); w2 < 10 || w2 > 30 {
		t.Errorf("E_b[W^2] = %v, want within [10, 30]", w2)
	}
	t.Logf("truth %v, V(pi_b) %v, paid steps %v (exact %v), E_b[W^2] %v, MC return %v +- %v",
		m.Value(pe, 1), m.Value(pb, 1), e.Hits, want, m.WeightMoment(pb, pe), e.Mean, e.SE)
}
