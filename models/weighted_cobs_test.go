package models

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// graphBatch draws n episodes of COBS's Graph (BENCHMARKS B1: dense
// rewards, no slip, no noise, fully observed): T steps from state 0, a = 0
// enters the odd state of the next layer (reward +1), a = 1 the even one
// (-1), and step T is rewarded by the state it leaves (+1 odd, -1 even);
// pi(a = 0) = pb under the behaviour policy, pe under the evaluation one.
func graphBatch(rng *rand.Rand, n, T int, pb, pe float64) *trajectory.Batch {
	var b trajectory.Batch
	for range n {
		s := int32(0)
		for t := 1; t <= T; t++ {
			a, rho := int32(1), (1-pe)/(1-pb)
			if rng.Float64() < pb {
				a, rho = 0, pe/pb
			}
			r := 1 - 2*float64(a)
			if t == T {
				r = 1 - 2*float64(1-s%2) // odd states 2t-1: +1
			}
			b.Add(r, rho)
			b.AddIDs(s, a)
			s = int32(2*t-1) + a
		}
		b.End()
	}
	return &b
}

// cobsQReg is COBS's tabular Q-Reg (docs/models.md, "What COBS
// computes instead"): every weight gamma^(t-1) W_t plus alpha = 1 and a
// ridge of 1, Q(o, a) = sum (w + 1) G / (1 + sum (w + 1)) over the visits of
// (o, a), written into b's columns with V(o) = sum_a pi_e(a|o) Q(o, a).
func cobsQReg(b *trajectory.Batch, sp Space, gamma float64) {
	g, wq, _ := targets(b, gamma)
	na := sp.Actions
	num, den := make([]float64, sp.Obs*na), make([]float64, sp.Obs*na)
	for s := range b.Steps() {
		p := int(b.Obs[s])*na + int(b.Action[s])
		num[p] += (wq[s] + 1) * g[s]
		den[p] += wq[s] + 1
	}
	for p := range num {
		num[p] /= 1 + den[p]
	}
	writeTable(b, sp, num)
}

// cobsMRDR is COBS's tabular MRDR: per observation o the weighted least
// squares over x = Q(o, .) with the features D (pi_e on the diagonal),
// each visit's matrix c_t D Omega D + I (alpha = 1) and the target
// G_t e_{a_t}, plus a ridge of 1: (I + sum D M_i D) x = sum D M_i G_i e_{a_i},
// solved for 2 actions in closed form.
func cobsMRDR(b *trajectory.Batch, sp Space, gamma float64, pib []float64) {
	g, _, c := targets(b, gamma)
	pie := make([]float64, 2)
	lhs := make([][4]float64, sp.Obs)
	rhs := make([][2]float64, sp.Obs)
	for s := range b.Steps() {
		o, a := int(b.Obs[s]), int(b.Action[s])
		sp.PiE(o, pie)
		var m [2][2]float64 // c D Omega D + I, Omega = diag(1/pi_b) - 1 1^T
		for i := range 2 {
			for j := range 2 {
				om := -1.0
				if i == j {
					om += 1 / pib[i]
				}
				m[i][j] = c[s] * pie[i] * om * pie[j]
			}
			m[i][i]++
		}
		for i := range 2 {
			for j := range 2 {
				lhs[o][2*i+j] += pie[i] * m[i][j] * pie[j]
			}
			rhs[o][i] += pie[i] * m[i][a] * g[s]
		}
	}
	q := make([]float64, sp.Obs*2)
	for o := range sp.Obs {
		l := lhs[o]
		l[0]++
		l[3]++
		det := l[0]*l[3] - l[1]*l[2]
		q[2*o] = (l[3]*rhs[o][0] - l[1]*rhs[o][1]) / det
		q[2*o+1] = (l[0]*rhs[o][1] - l[2]*rhs[o][0]) / det
	}
	writeTable(b, sp, q)
}

// writeTable writes q_hat and v_hat of every step of b from the table q.
func writeTable(b *trajectory.Batch, sp Space, q []float64) {
	na := sp.Actions
	pie := make([]float64, na)
	b.QHat, b.VHat = make([]float64, b.Steps()), make([]float64, b.Steps())
	for s := range b.Steps() {
		o := int(b.Obs[s])
		sp.PiE(o, pie)
		for a := range na {
			b.VHat[s] += pie[a] * q[o*na+a]
		}
		b.QHat[s] = q[o*na+int(b.Action[s])]
	}
}

// directAndDR are SPEC 1d's dm and dr on b's columns (undiscounted, gamma
// explicit).
func directAndDR(b *trajectory.Batch, gamma float64) (dm, dr float64) {
	n := float64(b.N())
	for i := range b.N() {
		w, pow := 1.0, 1.0
		lo := b.Offsets[i]
		dm += b.VHat[lo] / n
		for s := lo; s < b.Offsets[i+1]; s++ {
			prev := w
			w *= b.Ratio[s]
			dr += pow * (w*b.Reward[s] - (w*b.QHat[s] - prev*b.VHat[s])) / n
			pow *= gamma
		}
	}
	return dm, dr
}

// TestWeightedGraphCOBS measures what COBS's regularisation (alpha = 1,
// a ridge of 1, and for MRDR D twice) does to Voloshin et al.'s Table 12
// (Graph, T = 10, N = 50, pb = 0.1, pe = 0.1 x 9^0.1, gamma = 0.98; the
// relative MSE over 10 seeds, BENCHMARKS B3), Direct and DR columns of
// the Q-Reg and MRDR rows: the median and 95% band over 200 repetitions
// of the 10-seed relative MSE, for our definitions and for COBS's.
// Measured (seed below), against the published Q-Reg 2.4e-3 / 4.3e-3 and
// MRDR 5.8e-3 / 8.9e-3:
//
//	q-reg       Direct 9.1e-4 [2.7e-4, 2.5e-3]  DR 9.3e-4 [2.7e-4, 2.6e-3]
//	q-reg COBS  Direct 1.3e-3 [4.4e-4, 2.8e-3]  DR 1.0e-3 [3.9e-4, 2.9e-3]
//	mrdr        Direct 1.0e-3 [4.0e-4, 2.6e-3]  DR 2.6e-2 [1.3e-2, 5.3e-2]
//	mrdr COBS   Direct 5.3e-3 [2.4e-3, 9.5e-3]  DR 4.1e-3 [1.8e-3, 9.4e-3]
//
// Unregularised, the tabular MRDR is fitted to the variance of the very
// data DR then averages: with about 5 visits of an odd state per data set
// its Q(o, a) carries the factor n(o, a) / (n(o) pi_b(a|o)) of a rare
// action, and DR's relative MSE is 28 times q-reg's; COBS's alpha = 1
// damps it 6-fold. The published MRDR cells lie in COBS's bands, not in
// ours: the definition explains them. (Q-Reg's published DR, 4.3e-3, lies
// in neither: not the model.) The test checks that q-reg's DR and Direct
// agree within a factor 2 (the weighted regression fitted in-sample makes
// DR's correction nearly vanish) and that the regularisation lowers
// MRDR's DR median at least 2-fold.
func TestWeightedGraphCOBS(t *testing.T) {
	if testing.Short() {
		t.Skip("a measurement of 2000 data sets")
	}
	const T, N, pb, gamma, reps = 10, 50, 0.1, 0.98, 200
	pe := 0.1 * math.Pow(9, 0.1)
	v := 0.0
	for k := range T {
		v += (2*pe - 1) * math.Pow(gamma, float64(k))
	}
	sp := Space{Obs: 2 * T, Actions: 2, Horizon: T, PiE: func(_ int, dst []float64) { dst[0], dst[1] = pe, 1-pe }}
	pib := []float64{pb, 1 - pb}
	rng := rand.New(rand.NewPCG(30, 12))
	names := []string{"q-reg", "q-reg COBS", "mrdr", "mrdr COBS"}
	var rel [4][2][]float64 // [variant][dm, dr] relative MSE of each 10-seed experiment
	for range reps {
		var se [4][2]float64
		for range 10 {
			b := graphBatch(rng, N, T, pb, pe)
			for k := range 4 {
				c := clone(b)
				switch k {
				case 0:
					if err := new(QReg).FitTo(c, c, sp, gamma); err != nil {
						t.Fatal(err)
					}
				case 1:
					cobsQReg(c, sp, gamma)
				case 2:
					if err := new(MRDR).FitTo(c, c, sp, gamma); err != nil {
						t.Fatal(err)
					}
				case 3:
					cobsMRDR(c, sp, gamma, pib)
				}
				dm, dr := directAndDR(c, gamma)
				se[k][0] += (dm - v) * (dm - v) / (v * v) / 10
				se[k][1] += (dr - v) * (dr - v) / (v * v) / 10
			}
		}
		for k := range 4 {
			for j := range 2 {
				rel[k][j] = append(rel[k][j], se[k][j])
			}
		}
	}
	var med [4][2]float64
	for k := range 4 {
		for j := range 2 {
			slices.Sort(rel[k][j])
			med[k][j] = rel[k][j][reps/2]
			if math.IsNaN(med[k][j]) || math.IsInf(med[k][j], 0) {
				t.Errorf("%s: median relative MSE %v", names[k], med[k][j])
			}
		}
		t.Logf("%-10s Direct %.2g [%.2g, %.2g], DR %.2g [%.2g, %.2g] (median [2.5%%, 97.5%%] of the 10-seed relative MSE)", names[k],
			med[k][0], rel[k][0][reps/40], rel[k][0][reps-reps/40-1], med[k][1], rel[k][1][reps/40], rel[k][1][reps-reps/40-1])
	}
	if r := med[0][1] / med[0][0]; r < 0.5 || r > 2 {
		t.Errorf("q-reg: DR's median relative MSE %v, Direct's %v: not within a factor 2", med[0][1], med[0][0])
	}
	if med[2][1] < 2*med[3][1] {
		t.Errorf("mrdr: DR's median relative MSE %v with ours, %v with COBS's alpha = 1: not lowered 2-fold", med[2][1], med[3][1])
	}
}
