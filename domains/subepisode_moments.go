package domains

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/envs/subepisode"
	"github.com/ope-lab/longhorizon/trajectory"
)

// SubepisodeMomentsMax is the largest number of sub-episodes for which the
// sub-episode domain supplies exact moments (trajectory.StepMoments, for
// incris-oracle): the dynamic program takes O(H^2 subepisodes) time and
// its tables 16 (H (H+3)/2 + 3 H (subepisodes+2)) bytes: 33 MB at 512
// sub-episodes (H = 1024, the long-horizon run's scale).
const SubepisodeMomentsMax = 512

// SubepisodeMomentParams are what the exact moments of the sub-episode MDP
// depend on: the dynamics, both policies (a1 with probability PB under
// pi_b in every state, PE under pi_e in S1 and, unless DifferS1Only, in S2
// and S3 too; with DifferS1Only pi_e = pi_b there) and the discount
// factor.
type SubepisodeMomentParams struct {
	subepisode.Params
	PB, PE       float64
	DifferS1Only bool
	Gamma        float64
}

// piE returns pi_e(a1 | s).
func (p SubepisodeMomentParams) piE(s int) float64 {
	if p.DifferS1Only && s != subepisode.S1 {
		return p.PB
	}
	return p.PE
}

// stepMoment2 returns sum_a pi_e(a|s)^2 / pi_b(a) (an action pi_b never
// takes counts 0: pi_e never takes it either), E_b[rho^2] in state s.
func (p SubepisodeMomentParams) stepMoment2(s int) float64 {
	pe := p.piE(s)
	return sq2(pe, p.PB) + sq2(1-pe, 1-p.PB)
}

// sq2 returns e^2/b, 0 when b = 0.
func sq2(e, b float64) float64 {
	if b == 0 {
		return 0
	}
	return e * e / b
}

// SubepisodeWeightMoment returns E_b[W_H^2], the second moment of the full
// importance weight: every odd step is taken in S1 and every even step in
// S2 or S3, where E_b[rho^2] is the same, so
//
//	E_b[W_H^2] = m2(S1)^S m2(S2)^S,  m2(s) = sum_a pi_e(a|s)^2 / pi_b(a),
//
// S the number of sub-episodes (m2(S2) = 1 with DifferS1Only). It may be
// +Inf (beyond the float64 range).
func SubepisodeWeightMoment(p SubepisodeMomentParams) float64 {
	s := float64(p.Subepisodes)
	return math.Pow(p.stepMoment2(subepisode.S1), s) * math.Pow(p.stepMoment2(subepisode.S2), s)
}

// SubepisodeMoments returns the exact moments of the kept products of the
// sub-episode MDP (trajectory.StepMoments), for every step t = 1..H and
// k = 0..t:
//
//	mean(t, k)   = E_b[B_k g^(t-1) r_t],  second(t, k) = E_b[(B_k g^(t-1) r_t)^2],
//
// built on first use by subepisodeMomentsDP.
func SubepisodeMoments(p SubepisodeMomentParams) *trajectory.StepMoments {
	return trajectory.NewStepMoments(p.Horizon(), p.Gamma, func(mean, second []float64) {
		subepisodeMomentsDP(p, mean, second)
	})
}

// subepisodeMomentsDP fills the tables of SubepisodeMoments by a dynamic
// program over (step, state, c), c the number of entries into S2 so far
// (eps is EpsStep times a function of c: the S2 reward after c entries,
// the current one included, is r2(c) = -2 + EpsStep (c - 1 + [eps grows
// before the reward])).
//
// Forward: P_m(s, c), the distribution of (state, c) before step m+1 under
// pi_b, m = 0..H-1 (P_0 = S1 with c = 0).
//
// Backward, per t: B_k r_t with k >= 1 kept ratios is, by the change of
// measure over the last k steps, E_b[B_k f(r_t)] = sum_{s,c} P_{t-k}(s, c)
// F_k(s, c), where F_k runs steps t-k+1..t from (s, c) under the measure
// mu: F_1(s, c) = sum_a mu(a|s) f(r(s, c, a)) and F_{k+1}(s, c) =
// sum_a mu(a|s) F_k(next(s, c, a)). For the mean mu = pi_e and f(r) =
// g^(t-1) r; for the second moment mu(a|s) = pi_e(a|s)^2 / pi_b(a) (the
// unnormalised measure of B_k^2) and f(r) = (g^(t-1) r)^2. k = 0 keeps no
// ratio: sum P_{t-1}(s, c) sum_a pi_b(a) f(r(s, c, a)). The factor
// g^(t-1) is math.Pow(g, t-1), as trajectory.Discounted rounds it.
//
// Before step j (1-based) at most j/2 entries into S2 happened (one per
// odd step), so each sweep runs c = 0..min(j/2, S): O(H^2 S) in all.
func subepisodeMomentsDP(p SubepisodeMomentParams, mean, second []float64) {
	h, ns := p.Horizon(), p.Subepisodes
	w := ns + 2 // c = 0..S+1 per state (c+1 read at the edge)
	cb := 0.0
	if p.EpsBeforeReward {
		cb = 1
	}
	r2 := func(c int) float64 { return -2 + p.EpsStep*(float64(c)-1+cb) }
	cmax := func(j int) int { return min(j/2, ns) } // before 1-based step j
	at := func(s, c int) int { return s*w + c }

	// forward: fw[m] = P_m, before step m+1
	fw := make([][]float64, h)
	cur := make([]float64, 3*w)
	cur[at(subepisode.S1, 0)] = 1
	for m := 0; m < h; m++ {
		fw[m] = cur
		if m == h-1 {
			break
		}
		next := make([]float64, 3*w)
		pb := p.PB
		for c := 0; c <= cmax(m+1); c++ {
			if q := cur[at(subepisode.S1, c)]; q != 0 {
				next[at(subepisode.S2, c+1)] += pb * q
				next[at(subepisode.S3, c)] += (1 - pb) * q
			}
			next[at(subepisode.S1, c)] += cur[at(subepisode.S2, c)] + cur[at(subepisode.S3, c)]
		}
		cur = next
	}

	mu1 := [3][2]float64{} // pi_e(a|s)
	mu2 := [3][2]float64{} // pi_e(a|s)^2 / pi_b(a)
	muB := [2]float64{p.PB, 1 - p.PB}
	for s := range 3 {
		pe := p.piE(s)
		mu1[s] = [2]float64{pe, 1 - pe}
		mu2[s] = [2]float64{sq2(pe, p.PB), sq2(1-pe, 1-p.PB)}
	}
	g1, g2 := make([]float64, 3*w), make([]float64, 3*w)
	n1, n2 := make([]float64, 3*w), make([]float64, 3*w)
	dot := func(pm, g []float64, j int) float64 {
		sum := 0.0
		for s := range 3 {
			for c := 0; c <= cmax(j); c++ {
				if q := pm[at(s, c)]; q != 0 { // 0 * Inf is no term
					sum += q * g[at(s, c)]
				}
			}
		}
		return sum
	}
	for t := 1; t <= h; t++ {
		d := math.Pow(p.Gamma, float64(t-1))
		lo := trajectory.MomentIndex(t, 0)
		row1, row2 := mean[lo:lo+t+1], second[lo:lo+t+1]
		// F_1 at the states before step t, and k = 0
		clear(g1)
		clear(g2)
		k0m, k0s := 0.0, 0.0
		pm := fw[t-1]
		for c := 0; c <= cmax(t); c++ {
			// S1: a1 pays +1, a2 pays -1; S2 pays r2(c), S3 pays 2, whatever the action
			rs := [3][2]float64{{d, -d}, {d * r2(c), d * r2(c)}, {2 * d, 2 * d}}
			for s := range 3 {
				i := at(s, c)
				r := rs[s]
				g1[i] = mu1[s][0]*r[0] + mu1[s][1]*r[1]
				g2[i] = mu2[s][0]*r[0]*r[0] + mu2[s][1]*r[1]*r[1]
				if q := pm[i]; q != 0 {
					k0m += q * (muB[0]*r[0] + muB[1]*r[1])
					k0s += q * (muB[0]*r[0]*r[0] + muB[1]*r[1]*r[1])
				}
			}
		}
		row1[0], row2[0] = k0m, k0s
		row1[1], row2[1] = dot(pm, g1, t), dot(pm, g2, t)
		// F_{k+1} before step t-k from F_k before step t-k+1
		for k := 2; k <= t; k++ {
			j := t - k + 1 // the step F_k starts at
			for c := 0; c <= cmax(j); c++ {
				// S1: a1 -> (S2, c+1), a2 -> (S3, c); S2, S3 -> (S1, c)
				a1, a2 := at(subepisode.S2, c+1), at(subepisode.S3, c)
				n1[at(subepisode.S1, c)] = mu1[0][0]*g1[a1] + mu1[0][1]*g1[a2]
				n2[at(subepisode.S1, c)] = mu2[0][0]*g2[a1] + mu2[0][1]*g2[a2]
				b := at(subepisode.S1, c)
				for s := subepisode.S2; s <= subepisode.S3; s++ {
					n1[at(s, c)] = (mu1[s][0] + mu1[s][1]) * g1[b]
					n2[at(s, c)] = (mu2[s][0] + mu2[s][1]) * g2[b]
				}
			}
			// entries beyond cmax(j) are never read from a P_{j-1}
			// that is 0 there, but clear them of the previous sweep
			for c := cmax(j) + 1; c < w; c++ {
				for s := range 3 {
					n1[at(s, c)], n2[at(s, c)] = 0, 0
				}
			}
			g1, n1 = n1, g1
			g2, n2 = n2, g2
			row1[k], row2[k] = dot(fw[j-1], g1, j), dot(fw[j-1], g2, j)
		}
	}
}

// subepisodeMomentsCheck says whether the domain with parameters p can
// supply exact moments (domains.Spec.Moments).
func subepisodeMomentsCheck(p Params) error {
	if s := p.Int("subepisodes"); s > SubepisodeMomentsMax {
		return fmt.Errorf("exact moments are computed for subepisodes <= %d (O(H^2 subepisodes) time, O(H^2) memory), not %d", SubepisodeMomentsMax, s)
	}
	return nil
}
