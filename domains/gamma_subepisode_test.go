package domains

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/envs/subepisode"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestSubepisodeDPUndiscounted: at gamma = 1 the dynamic program equals
// SPEC 2.2's closed form S(1-2p) + p eps_step (c S + p S(S-1)/2) to 1e-12
// relative (absolute below 1), over p_e, eps_step (negative too),
// sub-episodes and both eps rules; and the domain's Truth at gamma = 1 is
// the closed form bit for bit with today's Method.
func TestSubepisodeDPUndiscounted(t *testing.T) {
	for _, pe := range []float64{0, 0.2, 0.5, 0.75, 1} {
		for _, eps := range []float64{0, 0.01, 0.5, -0.3} {
			for _, s := range []int{1, 2, 7, 50, 400} {
				for _, before := range []bool{true, false} {
					sp := subepisode.Params{Subepisodes: s, EpsStep: eps, EpsBeforeReward: before}
					got, want := SubepisodeValueGamma(sp, pe, 1), SubepisodeValue(sp, pe)
					if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
						t.Errorf("%+v p_e=%v: DP %v, closed form %v", sp, pe, got, want)
					}
				}
			}
		}
	}
	spec, _ := Lookup("subepisode")
	p := spec.Defaults()
	tr, err := spec.Truth(p, nil)
	// SPEC 2.2: V(0.75) = 50 - 99.5 0.75 + 12.25 0.75^2 = -17.734375
	if err != nil || tr.Value != SubepisodeValue(subepisode.DefaultParams(), 0.75) || math.Abs(tr.Value-(-17.734375)) > 1e-12 ||
		tr.Method != "closed form: S(1-2p) + p eps_step (c S + p S(S-1)/2); 50 - 99.5p + 12.25p^2 at SPEC 2.2's defaults" {
		t.Errorf("default truth %+v, %v; want today's closed form -17.734375", tr, err)
	}
}

// subepisodeBrute returns V(pi_e) of the sub-episode MDP under gamma by
// brute force: every one of the 2^(2S) action sequences is played through
// the env, with probability prod_t (p_e for a1, 1 - p_e for a2), and its
// return sum_t gamma^(t-1) r_t averaged with those probabilities.
func subepisodeBrute(sp subepisode.Params, pe, gamma float64) float64 {
	env, _ := subepisode.New(sp)
	h := sp.Horizon()
	v := 0.0
	for seq := 0; seq < 1<<h; seq++ {
		env.Reset()
		pr, ret, disc := 1.0, 0.0, 1.0
		for s := 0; s < h; s++ {
			a := (seq >> s) & 1
			if a == subepisode.A1 {
				pr *= pe
			} else {
				pr *= 1 - pe
			}
			r, _ := env.Step(a)
			ret += disc * r
			disc *= gamma
		}
		v += pr * ret
	}
	return v
}

// TestSubepisodeDPBruteForce: at gamma = 0.9 (and 0.5) the domain's truth
// (the dynamic program) equals brute force over every action sequence for
// 1, 2 and 3 sub-episodes, both eps rules, several p_e and eps_step; its
// Method names the dynamic program.
func TestSubepisodeDPBruteForce(t *testing.T) {
	spec, _ := Lookup("subepisode")
	for _, s := range []int{1, 2, 3} {
		for _, before := range []float64{1, 0} {
			for _, pe := range []float64{0.75, 0.3, 1} {
				for _, eps := range []float64{0.01, 0.7} {
					for _, gamma := range []float64{0.9, 0.5} {
						p, err := spec.Resolve(map[string]float64{"subepisodes": float64(s), "eps_before_reward": before,
							"p_e": pe, "eps_step": eps, "gamma": gamma})
						if err != nil {
							t.Fatal(err)
						}
						tr, err := spec.Truth(p, nil)
						if err != nil {
							t.Fatal(err)
						}
						want := subepisodeBrute(subepisodeParams(p), pe, gamma)
						if math.Abs(tr.Value-want) > 1e-12*math.Max(1, math.Abs(want)) {
							t.Errorf("%v: DP %v, brute force %v", p, tr.Value, want)
						}
						if tr.Method != "exact dynamic program with discounting (SPEC 1c)" {
							t.Errorf("method %q", tr.Method)
						}
					}
				}
			}
		}
	}
}

// TestSubepisodeDPTable checks every q and v of subepisodeDP (two
// coefficients per sub-episode) against the literal table of the dynamic
// program over (step t, state, k entries into S2 so far), written out here
// from the env's rules: backward from V(H+1, ., .) = 0,
//
//	S1: q(a1) = 1 + g V(t+1, S2, k+1), q(a2) = -1 + g V(t+1, S3, k),
//	    V = p_e q(a1) + (1 - p_e) q(a2);
//	S2: q = -2 + eps + g V(t+1, S1, k), eps = eps_step k (eps grown before
//	    the reward) or eps_step (k - 1) (after);
//	S3: q = 2 + g V(t+1, S1, k);
//
// at every reachable hidden state (odd t = 2j+1: S1 with k = 0..j; even
// t = 2j+2: S2 with k = 1..j+1, S3 with k = 0..j), to 1e-12.
func TestSubepisodeDPTable(t *testing.T) {
	for _, tc := range []struct {
		s       int
		pe, eps float64
		before  bool
		gamma   float64
	}{{20, 0.75, 0.5, true, 0.9}, {20, 0.3, -0.2, false, 0.95}, {9, 0.6, 0.01, true, 1}, {12, 0.5, 1.5, false, 0.7}} {
		sp := subepisode.Params{Subepisodes: tc.s, EpsStep: tc.eps, EpsBeforeReward: tc.before}
		dp := newSubepisodeDP(sp, tc.pe, tc.gamma)
		g := tc.gamma
		h := 2 * tc.s
		next := [3][]float64{make([]float64, tc.s+2), make([]float64, tc.s+2), make([]float64, tc.s+2)} // V(t+1, state, k)
		for step := h; step >= 1; step-- {
			var cur [3][]float64
			for st := range cur {
				cur[st] = make([]float64, tc.s+2)
			}
			for k := 0; k <= tc.s; k++ {
				qa1 := 1 + g*next[subepisode.S2][k+1]
				qa2 := -1 + g*next[subepisode.S3][k]
				cur[subepisode.S1][k] = tc.pe*qa1 + (1-tc.pe)*qa2
				eps := tc.eps * float64(k)
				if !tc.before {
					eps = tc.eps * float64(k-1)
				}
				q2 := -2 + eps + g*next[subepisode.S1][k]
				q3 := 2 + g*next[subepisode.S1][k]
				cur[subepisode.S2][k], cur[subepisode.S3][k] = q2, q3
				j := (step - 1) / 2
				type check struct {
					state, a int
					q, v     float64
				}
				var checks []check
				if step%2 == 1 && k <= j {
					checks = append(checks, check{subepisode.S1, subepisode.A1, qa1, cur[0][k]}, check{subepisode.S1, subepisode.A2, qa2, cur[0][k]})
				}
				if step%2 == 0 && k >= 1 && k <= j+1 {
					checks = append(checks, check{subepisode.S2, subepisode.A1, q2, q2}, check{subepisode.S2, subepisode.A2, q2, q2})
				}
				if step%2 == 0 && k <= j {
					checks = append(checks, check{subepisode.S3, subepisode.A2, q3, q3})
				}
				for _, c := range checks {
					q, v := dp.qv(step, c.state, k, c.a)
					if math.Abs(q-c.q) > 1e-12*math.Max(1, math.Abs(c.q)) || math.Abs(v-c.v) > 1e-12*math.Max(1, math.Abs(c.v)) {
						t.Errorf("%+v t=%d state %d k=%d a=%d: q, v = %v, %v; table %v, %v", tc, step, c.state, k, c.a, q, v, c.q, c.v)
					}
				}
			}
			next = cur
		}
		if v := dp.value(); math.Abs(v-next[subepisode.S1][0]) > 1e-12*math.Max(1, math.Abs(v)) {
			t.Errorf("%+v: value %v, table V(1, S1, 0) = %v", tc, v, next[subepisode.S1][0])
		}
	}
}

// TestSubepisodeExactQMonteCarlo: on-policy (p_b = p_e, so the steps after
// t follow pi_e), the mean of the discounted return from step t,
// G_t = r_t + gamma r_{t+1} + ..., over the steps of a hidden state
// (t, state, k) and action matches the recorded q_hat within 4 standard
// errors (sd / sqrt(count)), and over the steps of a hidden state it
// matches v_hat. k, the entries into S2 so far, is counted here from the
// recorded ids (a1 in s1 enters s2). q_hat must be the same at every step
// of a group: it is a function of the hidden state and action. A group
// whose returns do not vary (sd 0: the last step, or every state after
// which nothing is random) must match to 1e-12. With eps_step 0.5 a wrong
// k moves q by at least 0.5 gamma^(H-1), far above the standard errors.
func TestSubepisodeExactQMonteCarlo(t *testing.T) {
	for _, before := range []float64{1, 0} {
		t.Run(fmt.Sprint("before=", before), func(t *testing.T) {
			const gamma, n = 0.9, 40000
			d, p, err := New("subepisode", map[string]float64{"subepisodes": 3, "p_e": 0.75, "p_b": 0.75,
				"eps_step": 0.5, "eps_before_reward": before, "gamma": gamma})
			if err != nil {
				t.Fatal(err)
			}
			md := d.(ModelDomain)
			md.Record(true, true)
			var b trajectory.Batch
			d.Collect(&b, n, rand.New(rand.NewPCG(7, uint64(before))))
			type key struct{ t, obs, k, a int } // a = -1: the state's group (v_hat)
			type group struct {
				sum, sum2, hat float64
				count          int
			}
			groups := map[key]*group{}
			add := func(k key, g, hat float64) {
				gr, ok := groups[k]
				if !ok {
					gr = &group{hat: hat}
					groups[k] = gr
				}
				if hat != gr.hat {
					t.Fatalf("%+v: recorded %v and %v in one group", k, gr.hat, hat)
				}
				gr.sum += g
				gr.sum2 += g * g
				gr.count++
			}
			for i := range b.N() {
				lo, hi := b.Offsets[i], b.Offsets[i+1]
				ret := make([]float64, hi-lo+1) // ret[s-lo] = G_t of step s
				for s := hi - 1; s >= lo; s-- {
					ret[s-lo] = b.Reward[s] + gamma*ret[s-lo+1]
				}
				k := 0
				for s := lo; s < hi; s++ {
					obs, a := int(b.Obs[s]), int(b.Action[s])
					add(key{s - lo + 1, obs, k, a}, ret[s-lo], b.QHat[s])
					add(key{s - lo + 1, obs, k, -1}, ret[s-lo], b.VHat[s])
					if obs == subepisode.S1 && a == subepisode.A1 {
						k++
					}
				}
			}
			checked := 0
			for k, gr := range groups {
				if gr.count < 50 {
					continue
				}
				mean := gr.sum / float64(gr.count)
				sd := math.Sqrt(math.Max(0, gr.sum2/float64(gr.count)-mean*mean))
				tol := 4 * sd / math.Sqrt(float64(gr.count))
				if sd < 1e-9 {
					tol = 1e-12 * math.Max(1, math.Abs(mean))
				}
				if math.Abs(mean-gr.hat) > tol {
					t.Errorf("%v %+v: mean return %v over %d steps, recorded %v (tol %v)", p, k, mean, gr.count, gr.hat, tol)
				}
				checked++
			}
			// 3 sub-episodes: 18 hidden states (1 + 2 + 2 + 4 + 3 + 6 over
			// t = 1..6), each with its v group and up to 2 q groups
			if checked < 40 {
				t.Errorf("only %d groups of >= 50 steps checked", checked)
			}
		})
	}
}
