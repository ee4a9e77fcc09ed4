package estimatortest

import (
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/ope-lab/longhorizon/trajectory"
)

// Step is one step of a hand-built primitive trajectory: {reward, action
// ratio}.
type Step [2]float64

// Of builds a primitive batch from per-trajectory steps.
func Of(trajs ...[]Step) *trajectory.Batch {
	var b trajectory.Batch
	for _, tr := range trajs {
		for _, s := range tr {
			b.Add(s[0], s[1])
		}
		b.End()
	}
	return &b
}

// Hand is the hand-computed data set: two trajectories of different
// lengths (H = 3).
//
//	traj 1: (r=1, rho=2), (r=0, rho=0.5), (r=3, rho=1): W = 2, 1, 1; G = 4
//	traj 2: (r=2, rho=0.5):                              W = 0.5;   G = 2
//
// traj 2 is padded with (r=0, rho=1), so its weight stays 0.5 at t = 2, 3.
func Hand() *trajectory.Batch {
	return Of(
		[]Step{{1, 2}, {0, 0.5}, {3, 1}},
		[]Step{{2, 0.5}},
	)
}

// Random draws n trajectories of random length in [1, h] with ratios
// in {0, 0.5, 1.5, 2} and rewards that depend on the ratios (so that
// covariances are not zero).
func Random(rng *rand.Rand, n, h int) *trajectory.Batch {
	var b trajectory.Batch
	ratios := []float64{0, 0.5, 1.5, 2}
	for range n {
		l := 1 + rng.IntN(h)
		for range l {
			rho := ratios[rng.IntN(len(ratios))]
			r := 0.0
			if rng.Float64() < 0.7 {
				r = rho + rng.NormFloat64()
			}
			b.Add(r, rho)
		}
		b.End()
	}
	return &b
}

// Subepisode draws n trajectories shaped like the sub-episode MDP of
// SPEC 2.2 (H = 2 x subepisodes, every reward nonzero) under a uniform
// behavior policy, with the ratios of p_e = 0.75: 1.5 for a1, 0.5 for a2.
// Split points mark the ends of sub-episodes.
func Subepisode(rng *rand.Rand, n, subepisodes int) *trajectory.Batch {
	var b trajectory.Batch
	b.Grow(n, n*2*subepisodes)
	ratio := [2]float64{1.5, 0.5}
	for range n {
		eps := 0.0
		for range subepisodes {
			a := rng.IntN(2)
			if a == 0 { // s1 -> s2, r = +1
				eps += 0.01
				b.Add(1, ratio[0])
				b.Add(-2+eps, ratio[rng.IntN(2)])
			} else { // s1 -> s3, r = -1
				b.Add(-1, ratio[1])
				b.Add(2, ratio[rng.IntN(2)])
			}
			b.MarkSplit()
		}
		b.End()
	}
	return &b
}

// Options draws n trajectories of random length in [1, h] with option
// ratios, changed options, split points, zero ratios and zero rewards.
func Options(rng *rand.Rand, n, h int) *trajectory.Batch {
	var b trajectory.Batch
	ratios := []float64{0, 0.5, 1, 1.5, 2, 3}
	for range n {
		l := 1 + rng.IntN(h)
		for s := range l {
			rho := ratios[rng.IntN(len(ratios))]
			opt := 1.0
			if s%3 == 0 {
				opt = ratios[1+rng.IntN(len(ratios)-1)]
			}
			r := 0.0
			if rng.Float64() < 0.6 {
				r = rho + rng.NormFloat64()
			}
			b.AddOption(r, rho, opt, rng.IntN(2) == 0)
			if rng.Float64() < 0.1 {
				b.MarkSplit()
			}
		}
		b.End()
	}
	return &b
}

// ChainAllA1 is the chain MDP of SPEC 2.1 with H = 1100 and p_e = 1: the
// all-a1 trajectory has weight 2^1100, which overflows a float64 (max about
// 2^1024), and reward 1 at step H; the other trajectory takes a2 at step 1
// (ratio 0) and earns nothing.
func ChainAllA1(h int) *trajectory.Batch {
	var b trajectory.Batch
	for t := 1; t <= h; t++ {
		r := 0.0
		if t == h {
			r = 1
		}
		b.Add(r, 2)
	}
	b.End()
	for range h {
		b.Add(0, 0)
	}
	b.End()
	return &b
}

// WithIDs returns a copy of b with random observation ids in [0, nObs),
// action ids in [0, nAct), and probabilities pi_b = pi_e = 1/nAct (not
// the ratios': only for workspace and allocation tests).
func WithIDs(rng *rand.Rand, b *trajectory.Batch, nObs, nAct int) *trajectory.Batch {
	c := *b
	c.Obs, c.Action = make([]int32, b.Steps()), make([]int32, b.Steps())
	c.PiB, c.PiE = make([]float64, b.Steps()), make([]float64, b.Steps())
	for s := range c.Obs {
		c.Obs[s], c.Action[s] = int32(rng.IntN(nObs)), int32(rng.IntN(nAct))
		c.PiB[s], c.PiE[s] = 1/float64(nAct), 1/float64(nAct)
	}
	return &c
}

// WithModelColumns returns a copy of b (primitive or options data) with
// model columns: q_hat = r + N(0, 1) and v_hat = q_hat + N(0, 1), so that
// every term of dr, wdr and magic is nonzero. The memory test of every
// registry entry runs the estimators that Need the model on such copies.
func WithModelColumns(rng *rand.Rand, b *trajectory.Batch) *trajectory.Batch {
	c := *b
	c.QHat, c.VHat = make([]float64, b.Steps()), make([]float64, b.Steps())
	for s, r := range b.Reward {
		c.QHat[s] = r + rng.NormFloat64()
		c.VHat[s] = c.QHat[s] + rng.NormFloat64()
	}
	return &c
}

// SyntheticMoments returns moments of horizon h, mean(t, k) = 1 - 0.01 k
// and second(t, k) = 2 + k, built on first use (so that their tables are
// allocated inside the first Estimate).
func SyntheticMoments(h int) *trajectory.StepMoments {
	return trajectory.NewStepMoments(h, 1, func(m, s []float64) {
		for t := 1; t <= h; t++ {
			for k := 0; k <= t; k++ {
				m[trajectory.MomentIndex(t, k)], s[trajectory.MomentIndex(t, k)] = 1-0.01*float64(k), 2+float64(k)
			}
		}
	})
}

// WithMoments returns a shallow copy of b carrying m.
func WithMoments(b *trajectory.Batch, m *trajectory.StepMoments) *trajectory.Batch {
	c := *b
	c.Moments = m
	return &c
}

// Allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc,
// which counts every allocation whether or not it was collected since).
func Allocated(f func()) float64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc - before.TotalAlloc)
}

// Near reports whether a is within tol of b, relative to max(1, |b|).
func Near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

// RelErr is |got - want| / |want| (0 when both are 0, +Inf when only want is).
func RelErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / math.Abs(want)
}

// RelNear reports whether got is within tol of want, relative to |want|.
func RelNear(got, want, tol float64) bool { return RelErr(got, want) <= tol }

// SameFloat is bit-identity (estimators return errors, never NaN).
func SameFloat(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
