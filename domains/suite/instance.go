package suite

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/tabular"
)

// instanceRand returns the random stream of a suite domain's instance:
// PCG seeded by the instance parameter and the domain's own fixed stream
// constant, so that the MDP is a deterministic function of the
// parameters.
func instanceRand(p domains.Params, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(p.Int("instance")), stream))
}

// gammaVariate draws from Gamma(shape, 1), shape > 0, by Marsaglia and
// Tsang's method (2000); a shape below 1 draws Gamma(shape+1) times
// U^(1/shape).
func gammaVariate(shape float64, rng *rand.Rand) float64 {
	boost := 1.0
	if shape < 1 {
		boost = math.Pow(1-rng.Float64(), 1/shape) // 1-U in (0, 1]
		shape++
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v * boost
		}
	}
}

// dirichlet fills dst with a draw from the symmetric Dirichlet(alpha)
// distribution over len(dst) outcomes: normalised Gamma(alpha) draws. A
// draw whose Gammas all underflow to 0 (tiny alpha) puts all its mass on
// one uniformly chosen outcome, the limit as alpha -> 0.
func dirichlet(dst []float64, alpha float64, rng *rand.Rand) {
	sum := 0.0
	for j := range dst {
		dst[j] = gammaVariate(alpha, rng)
		sum += dst[j]
	}
	if sum == 0 {
		dst[rng.IntN(len(dst))] = 1
		return
	}
	for j := range dst {
		dst[j] /= sum
	}
}

// softmaxPolicy returns the random softmax policy pi(a|s) proportional to
// exp(z(s, a) / temperature), z standard normal draws: near uniform at a
// high temperature, near deterministic at a low one.
func softmaxPolicy(states, actions int, temperature float64, rng *rand.Rand) *tabular.Policy {
	pi := &tabular.Policy{Actions: actions, Pi: make([]float64, states*actions)}
	for s := range states {
		row := pi.Pi[s*actions : (s+1)*actions]
		for a := range row {
			row[a] = rng.NormFloat64() / temperature
		}
		top := slices.Max(row)
		sum := 0.0
		for a := range row {
			row[a] = math.Exp(row[a] - top) // the largest is exp(0) = 1: no overflow
			sum += row[a]
		}
		for a := range row {
			row[a] /= sum
		}
	}
	return pi
}
