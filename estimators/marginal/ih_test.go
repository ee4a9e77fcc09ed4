package marginal

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ope-lab/longhorizon/trajectory"
)

// ihStep is one logged step: observation id, reward, ratio (action id 0).
type ihStep struct {
	o      int32
	r, rho float64
}

// ihBatch builds a batch with ids and ratios from trajectories.
func ihBatch(trajs ...[]ihStep) *trajectory.Batch {
	var b trajectory.Batch
	for _, tr := range trajs {
		for _, s := range tr {
			b.Add(s.r, s.rho)
			b.AddIDs(s.o, 0)
		}
		b.End()
	}
	return &b
}

// TestIHHand: ih on hand data sets (docs/estimators-ih.md), each
// expected value computed from the definitions:
//
// "layered": o0 at t = 1, o1 at t = 2, gamma = 1, rho_1 = 2 and rho_2 = 1/2
// in both trajectories (rewards 1, 3 and 0, 2). N = (2, 2), T(o0, o1) =
// 2 + 2 = 4, c = (0, 1/2 + 1/2 = 1) (at gamma 1 only the ends restart),
// d_1 = (1, 0): Ghat = [[-2, 4], [1, -2]], whose columns say -2 w0 + w1 = 0,
// 4 w0 - 2 w1 = 0: w = (1, 2) exactly. Both trajectories last H = 2:
// Lhat = 1 + 1 = 2. IH = 2 (1 (2*1 + 2*0) + 2 (1/2*3 + 1/2*2)) /
// (1 (2 + 2) + 2 (1/2 + 1/2)) = 2 * 7/6 = 7/3.
//
// "layered, least squares": the same with rho_2 = 1: c = (0, 2),
// Ghat = [[-2, 4], [2, -2]], inconsistent; A = Ghat Ghat^T = [[20, -12],
// [-12, 8]] (det 16), w = A^{-1} N = (1/16) [[8, 12], [12, 20]] (2, 2) =
// (5, 8)/2 (the ridge, 1e-10 of the mean diagonal 14, moves it by 1e-9 at
// most). IH = 2 (5 (2*1 + 2*0) + 8 (3 + 2)) / (5 (2 + 2) + 8 (1 + 1)) =
// 2 * 50/36 = 25/9.
//
// "one observation": any w (A = 0); lengths 2 and 1, so p_1 = (1 + 1) /
// (1 + 1) = 1 and p_2 = W^1_1 / (W^1_1 + W^2_1) = 2 / (2 + 1/2) = 0.8. At
// gamma 1: Lhat = 1.8, IH = 1.8 (2*1 + 1/2*3 + 1/2*2) / (2 + 1/2 + 1/2) =
// 1.8 * 4.5 / 3 = 2.7; at gamma 1/2: Lhat = 1 + 1/2 * 0.8 = 1.4, the
// discounted rewards give 2*1 + 1/2 * (1/2 * 3) + 1/2 * 2 = 15/4 and the
// weights 2 + 1/2 * 1/2 + 1/2 = 11/4: IH = 1.4 * 15/11 = 21/11.
func TestIHHand(t *testing.T) {
	layered := ihBatch([]ihStep{{0, 1, 2}, {1, 3, 0.5}}, []ihStep{{0, 0, 2}, {1, 2, 0.5}})
	lsq := ihBatch([]ihStep{{0, 1, 2}, {1, 3, 1}}, []ihStep{{0, 0, 2}, {1, 2, 1}})
	one := ihBatch([]ihStep{{0, 1, 2}, {0, 3, 0.5}}, []ihStep{{0, 2, 0.5}})
	var d trajectory.Discounted
	for _, tc := range []struct {
		name        string
		b           *trajectory.Batch
		gamma, want float64
	}{
		{"layered", layered, 1, 7.0 / 3},
		{"layered, least squares", lsq, 1, 25.0 / 9},
		{"one observation", one, 1, 2.7},
		{"one observation, gamma 1/2", one, 0.5, 21.0 / 11},
	} {
		got, err := NewIH().Estimate(d.Of(tc.b, tc.gamma))
		if err != nil || math.Abs(got-tc.want) > 1e-8*tc.want {
			t.Errorf("%s: ih = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

// refIH is the direct implementation of ih from its definition: dense
// Ghat indexed by the sorted observations, every power of gamma by
// math.Pow, A = Ghat Ghat^T by a matrix product and (A + lambda I) w = N
// solved by LU (gonum mat), not Cholesky.
func refIH(b *trajectory.Batch, gamma float64) float64 {
	ids := slices.Clone(b.Obs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	m := len(ids)
	at := func(o int32) int { k, _ := slices.BinarySearch(ids, o); return k }
	g := mat.NewDense(m, m, nil)
	nDep, c := make([]float64, m), make([]float64, m)
	d1 := make([]float64, m)
	n := float64(b.N())
	for i := range b.N() {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		d1[at(b.Obs[lo])] += 1 / n
		for s := lo; s < hi; s++ {
			t := float64(s - lo + 1)
			o := at(b.Obs[s])
			nDep[o] += math.Pow(gamma, t-1)
			c[o] += (1 - gamma) * math.Pow(gamma, t-1)
			if s+1 < hi {
				j := at(b.Obs[s+1])
				g.Set(o, j, g.At(o, j)+math.Pow(gamma, t)*b.Ratio[s])
			} else {
				c[o] += math.Pow(gamma, t) * b.Ratio[s]
			}
		}
	}
	for s := range m {
		for j := range m {
			g.Set(s, j, g.At(s, j)+c[s]*d1[j])
		}
		g.Set(s, s, g.At(s, s)-nDep[s])
	}
	var a mat.Dense
	a.Mul(g, g.T())
	lambda := 1e-10 * mat.Trace(&a) / float64(m)
	for s := range m {
		a.Set(s, s, a.At(s, s)+lambda)
	}
	var w mat.VecDense
	if err := w.SolveVec(&a, mat.NewVecDense(m, nDep)); err != nil {
		panic(err)
	}
	num, den := 0.0, 0.0
	for i := range b.N() {
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			pow := math.Pow(gamma, float64(s-b.Offsets[i]))
			num += w.AtVec(at(b.Obs[s])) * b.Ratio[s] * pow * b.Reward[s]
			den += w.AtVec(at(b.Obs[s])) * b.Ratio[s] * pow
		}
	}
	// Lhat: p_t from the products W^i_k of each trajectory's first k ratios.
	h := b.Horizon()
	prod := func(i, k int) float64 {
		p := 1.0
		for s := b.Offsets[i]; s < b.Offsets[i]+k; s++ {
			p *= b.Ratio[s]
		}
		return p
	}
	length := 0.0
	for t := 1; t <= h; t++ {
		reach, all := 0.0, 0.0
		for i := range b.N() {
			l := b.Offsets[i+1] - b.Offsets[i]
			if l >= t {
				reach += prod(i, t-1)
			}
			all += prod(i, min(t-1, l))
		}
		length += math.Pow(gamma, float64(t-1)) * reach / all
	}
	return length * num / den
}

// walkBatch draws n trajectories of up to h steps, a random walk over obs
// observations (from o to o, o+1 or o+2), ending with probability 1/h a
// step, with ratios drawn from {0.5, 1, 2} (or 1: onPolicy) and rewards
// N(o/obs, 1).
func walkBatch(rng *rand.Rand, n, h, obs int, onPolicy bool) *trajectory.Batch {
	var b trajectory.Batch
	ratios := []float64{0.5, 1, 2}
	for range n {
		o := rng.IntN(3)
		for range h {
			rho := 1.0
			if !onPolicy {
				rho = ratios[rng.IntN(3)]
			}
			b.Add(rng.NormFloat64()+float64(o)/float64(obs), rho)
			b.AddIDs(int32(o), int32(rng.IntN(2)))
			if rng.IntN(h) == 0 {
				break
			}
			o = (o + rng.IntN(3)) % obs
		}
		b.End()
	}
	return &b
}

// TestIHReference: ih equals its direct implementation (refIH) on random
// walks off-policy, at gamma 1 and 0.9, within 1e-12 relative (another
// order of sums, LU against Cholesky on a well-conditioned A: measured
// 3e-15 at most); and a warm IH allocates nothing.
func TestIHReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	var d trajectory.Discounted
	for _, gamma := range []float64{1, 0.9} {
		for _, obs := range []int{4, 12} {
			b := walkBatch(rng, 300, 15, obs, false)
			e := NewIH()
			got, err := e.Estimate(d.Of(b, gamma))
			if err != nil {
				t.Fatal(err)
			}
			want := refIH(b, gamma)
			if math.Abs(got-want) > 1e-12*math.Abs(want) {
				t.Errorf("gamma %v, %d observations: ih = %v, direct %v", gamma, obs, got, want)
			}
			v := d.Of(b, gamma)
			if a := testing.AllocsPerRun(5, func() { e.Estimate(v) }); a != 0 {
				t.Errorf("gamma %v: %v allocations once warm", gamma, a)
			}
		}
	}
}

// TestIHOnPolicy: on on-policy data (every ratio 1) w = 1 solves the
// stationary equations exactly and ih is the mean return, naive's,
// at gamma 1 and 0.9: within 1e-9 relative (measured 2e-11 and 6e-11: the
// ridge, 1e-10 of A's mean eigenvalue, moves w off the null vector by
// that over A's smallest positive eigenvalue).
func TestIHOnPolicy(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	var d trajectory.Discounted
	for _, gamma := range []float64{1, 0.9} {
		b := d.Of(walkBatch(rng, 500, 20, 10, true), gamma)
		got := estimate(t, "ih", b)
		want := estimate(t, "naive", b)
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("gamma %v: ih = %v, naive %v", gamma, got, want)
		}
	}
}
