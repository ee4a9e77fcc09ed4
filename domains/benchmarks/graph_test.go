package benchmarks

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
)

// pe12 is Voloshin et al.'s evaluation policy of Tables 12 and 13,
// 0.1 x 9^0.1 = 0.12457309396155175, graph's default p_e.
var pe12 = 0.1 * math.Pow(9, 0.1)

// TestGraphClosedForm: the adapter's exact dynamic program equals B1's
// closed form (GraphValue), V(pi_e) and V(pi_b) (the truth's
// behavior_value), within 1e-12 relative, over every combination of T in
// {2, 3, 10}, slip in {0, 0.25, 0.5, 1}, dense and sparse, gamma in {1,
// 0.98, 0.5} and p_e in {0, 0.1246, 0.9, 1} (p_b = 0.5), and at T = 100
// and 200; reward noise and observation blocks leave the truth bit for
// bit the same. Hand anchors at the defaults (Table 12's setting): e = 2
// x 0.1 x 9^0.1 - 1 = -0.7508538, S = (1 - 0.98^10)/0.02 = 9.1463597,
// dense V = e S = -6.867579; sparse V = e 0.98^9 = -0.6260227.
func TestGraphClosedForm(t *testing.T) {
	type row struct {
		h               int
		slip, gamma, pe float64
		sparse          bool
	}
	var rows []row
	for _, h := range []int{2, 3, 10} {
		for _, slip := range []float64{0, 0.25, 0.5, 1} {
			for _, sparse := range []bool{false, true} {
				for _, gamma := range []float64{1, 0.98, 0.5} {
					for _, pe := range []float64{0, pe12, 0.9, 1} {
						rows = append(rows, row{h, slip, gamma, pe, sparse})
					}
				}
			}
		}
	}
	rows = append(rows, row{100, 0, 0.98, pe12, false}, row{100, 0.25, 1, 0.9, true}, row{200, 0.1, 0.99, 0.3, false})
	for _, r := range rows {
		set := map[string]float64{"horizon": float64(r.h), "slip": r.slip, "gamma": r.gamma, "p_e": r.pe, "p_b": 0.5, "sparse": b2f(r.sparse)}
		tr := truth(t, "graph", set)
		want, wantB := GraphValue(r.h, r.pe, r.slip, r.gamma, r.sparse), GraphValue(r.h, 0.5, r.slip, r.gamma, r.sparse)
		if !close(tr.Value, want, 1e-12) || !close(tr.Extra["behavior_value"], wantB, 1e-12) {
			t.Errorf("%+v: dynamic program V(pi_e) %v, V(pi_b) %v; closed form %v, %v", r, tr.Value, tr.Extra["behavior_value"], want, wantB)
		}
		set["reward_noise"], set["obs_blocks"] = 1.5, float64(min(3, 2*r.h-2))
		if got := truth(t, "graph", set); got.Value != tr.Value {
			t.Errorf("%+v: noise and blocks changed the truth: %v, want %v", r, got.Value, tr.Value)
		}
	}
	for _, tc := range []struct {
		sparse bool
		want   float64
	}{{false, -6.867579}, {true, -0.6260227}} {
		if got := truth(t, "graph", map[string]float64{"sparse": b2f(tc.sparse)}).Value; math.Abs(got-tc.want) > 5e-7 {
			t.Errorf("defaults, sparse %v: V = %v, want %v", tc.sparse, got, tc.want)
		}
	}
}

// TestGraphMonteCarlo: the mean discounted return of on-policy episodes
// (p_b = p_e), and the importance-weighted mean of off-policy ones (the
// weight the product of all T ratios), are within 4 standard errors of
// GraphValue (n = 20,000 episodes each; a false alarm per case about 6e-5
// under the normal approximation).
func TestGraphMonteCarlo(t *testing.T) {
	for i, set := range []map[string]float64{
		{"horizon": 10, "slip": 0.25, "reward_noise": 1, "gamma": 0.98, "p_b": 0.3, "p_e": 0.3},
		{"horizon": 16, "obs_blocks": 5, "sparse": 1, "slip": 0.1, "gamma": 1, "p_b": 0.7, "p_e": 0.7},
		{"horizon": 2, "p_b": 0.9, "p_e": 0.9},
		{"horizon": 5, "slip": 0.25, "gamma": 0.9, "p_b": 0.5, "p_e": 0.8},
		{"horizon": 4, "sparse": 1, "reward_noise": 0.5, "p_b": 0.6, "p_e": 0.2},
	} {
		const n = 20000
		b := collect(t, "graph", set, n, uint64(10+i))
		_, _, p := build(t, "graph", set)
		gamma, _ := p.Gamma()
		mean, se := meanSE(returns(b, gamma, true))
		want := GraphValue(p.Int("horizon"), p["p_e"], p["slip"], gamma, p.Bool("sparse"))
		if math.Abs(mean-want) > 4*se || se == 0 {
			t.Errorf("%v: Monte Carlo %v +- %v, closed form %v", set, mean, se, want)
		}
	}
}

// TestGraphDynamics reads B1's rules off the data (T = 6, noise 0, fully
// observed): every episode has exactly T steps; step 1 is taken in state
// 0 and step t >= 2 in layer t-1 (state 2t-3 or 2t-2); with slip 0 the
// state entered is the row aimed at (odd for action 0), with slip 0.25 the
// other row within 4 standard errors of 25% of the 5 x 20,000 entries;
// dense rewards are the sign of the state entered (+1 odd, -1 even) and
// the last step's the sign of its own state, sparse ones 0 until that
// last step; and every step, the last included, carries ratio pi_e/pi_b
// of its action with those probabilities recorded.
func TestGraphDynamics(t *testing.T) {
	const n, h = 20000, 6
	pb, pe := 0.4, 0.7 // variables: 1 - pe rounds as the domain's does
	for _, tc := range []struct {
		slip   float64
		sparse bool
	}{{0, false}, {0, true}, {0.25, false}} {
		set := map[string]float64{"horizon": h, "slip": tc.slip, "sparse": b2f(tc.sparse), "p_b": pb, "p_e": pe}
		b := collect(t, "graph", set, n, 3)
		slips := 0
		for i := range b.N() {
			lo := b.Offsets[i]
			if b.Len(i) != h || b.Obs[lo] != 0 {
				t.Fatalf("%+v: episode %d of %d steps from state %d, want %d from 0", tc, i, b.Len(i), b.Obs[lo], h)
			}
			for k := lo; k < lo+h; k++ {
				step, s, a := k-lo+1, int(b.Obs[k]), int(b.Action[k])
				if step >= 2 && s != 2*step-3 && s != 2*step-2 {
					t.Fatalf("%+v: step %d in state %d, want %d or %d", tc, step, s, 2*step-3, 2*step-2)
				}
				wantPB, wantPE := [2]float64{pb, 1 - pb}[a], [2]float64{pe, 1 - pe}[a]
				if b.PiB[k] != wantPB || b.PiE[k] != wantPE || b.Ratio[k] != wantPE/wantPB {
					t.Fatalf("%+v: step %d, action %d: pi_b %v, pi_e %v, ratio %v", tc, step, a, b.PiB[k], b.PiE[k], b.Ratio[k])
				}
				var want float64
				if step == h {
					want = rowSign(s)
				} else {
					next := int(b.Obs[k+1])
					if aimed := next%2 == 1 == (a == 0); !aimed {
						slips++
					}
					if !tc.sparse {
						want = rowSign(next)
					}
				}
				if b.Reward[k] != want {
					t.Fatalf("%+v: step %d in state %d: reward %v, want %v", tc, step, s, b.Reward[k], want)
				}
			}
		}
		entries := float64(n * (h - 1))
		se := math.Sqrt(tc.slip * (1 - tc.slip) / entries)
		if frac := float64(slips) / entries; math.Abs(frac-tc.slip) > 4*se || (tc.slip == 0 && slips != 0) {
			t.Errorf("%+v: %v of the entries slipped, want %v +- 4 x %v", tc, frac, tc.slip, se)
		}
	}
}

// TestGraphRewardNoise: noise s = 2 leaves the truth unchanged and adds s^2
// = 4 to the variance of every step's reward and s^2 sum_{t<T}
// gamma^(2t) to the return's. Without noise (T = 6, gamma = 0.9, p = 0.7
// on-policy, slip 0.25) each row is entered independently, odd with
// probability 0.7 x 0.75 + 0.3 x 0.25 = 0.6, so an entering reward has
// mean m = 0.2 and variance v = 1 - m^2 = 0.96; the last reward repeats
// the last entering one, so dense Var(G) = v (sum_{t<T-2} gamma^(2t) +
// (gamma^(T-2) + gamma^(T-1))^2) and sparse Var(G) = v gamma^(2(T-1)),
// each step's variance v (dense) or 0 before the last (sparse). Sample
// variances over n = 40,000 episodes must lie within 4 of their standard
// errors (from the sample's fourth moment) of these.
func TestGraphRewardNoise(t *testing.T) {
	const n, h, gamma, s, v = 40000, 6, 0.9, 2.0, 0.96
	noise := 0.0
	for k := range h {
		noise += s * s * math.Pow(gamma, float64(2*k))
	}
	for _, sparse := range []bool{false, true} {
		set := map[string]float64{"horizon": h, "gamma": gamma, "slip": 0.25, "p_b": 0.7, "p_e": 0.7, "sparse": b2f(sparse)}
		clean := truth(t, "graph", set).Value
		set["reward_noise"] = s
		if got := truth(t, "graph", set).Value; got != clean {
			t.Errorf("sparse %v: noise changed the truth from %v to %v", sparse, clean, got)
		}
		b := collect(t, "graph", set, n, 5)
		varG := v * math.Pow(gamma, 2*(h-1))
		if !sparse {
			varG = 0
			for k := range h - 2 {
				varG += v * math.Pow(gamma, float64(2*k))
			}
			varG += v * math.Pow(math.Pow(gamma, h-2)+math.Pow(gamma, h-1), 2)
		}
		if got, se := varSE(returns(b, gamma, false)); math.Abs(got-(varG+noise)) > 4*se {
			t.Errorf("sparse %v: Var(G) = %v +- %v, want %v + %v", sparse, got, se, varG, noise)
		}
		for step := range h {
			r := make([]float64, n)
			for i := range r {
				r[i] = b.Reward[b.Offsets[i]+step]
			}
			want := v + s*s
			if sparse && step < h-1 {
				want = s * s
			}
			if got, se := varSE(r); math.Abs(got-want) > 4*se {
				t.Errorf("sparse %v, step %d: reward variance %v +- %v, want %v", sparse, step+1, got, se, want)
			}
		}
	}
}

// TestBlockSizes: BlockSizes is numpy.array_split's: n = q k + r items
// cut into k blocks, the first r of size q + 1. By hand, for the latent
// states 1..2T-2 of graph: T = 16, K = 5: 30 = 6 x 5 + 0, five 6s; T = 2,
// K = 1: 2 = 2 x 1 + 0, [2]; T = 10, K = 4: 18 = 4 x 4 + 2, [5 5 4 4];
// T = 3, K = 3: 4 = 1 x 3 + 1, [2 1 1]; T = 100, K = 5: 198 = 39 x 5 + 3,
// [40 40 40 39 39]; T = 4, K = 6: 6 = 1 x 6, six 1s; T = 10, K = 7: 18 =
// 2 x 7 + 4, [3 3 3 3 2 2 2].
func TestBlockSizes(t *testing.T) {
	for _, tc := range []struct {
		h, k int
		want []int
	}{
		{16, 5, []int{6, 6, 6, 6, 6}},
		{2, 1, []int{2}},
		{10, 4, []int{5, 5, 4, 4}},
		{3, 3, []int{2, 1, 1}},
		{100, 5, []int{40, 40, 40, 39, 39}},
		{4, 6, []int{1, 1, 1, 1, 1, 1}},
		{10, 7, []int{3, 3, 3, 3, 2, 2, 2}},
	} {
		if got := BlockSizes(2*tc.h-2, tc.k); !slices.Equal(got, tc.want) {
			t.Errorf("T = %d, K = %d: sizes %v, want %v", tc.h, tc.k, got, tc.want)
		}
	}
}

// TestGraphObservations: with T = 16 and K = 5 (COBS's Graph-POMDP) the
// observation map is state 0 -> 0, states 1-6 -> 0, 7-12 -> 1, 13-18 -> 2,
// 19-24 -> 3, 25-30 -> 4, and (T, K) = (2, 1) puts all three states in
// observation 0 (ModelFail's aliasing); the domain's space has K
// observations; on the same stream, its data are the fully observed
// domain's bit for bit (rewards, ratios, the exact model at the latent
// state) but for the ids, which are the map's of the latent states; at
// the last step the exact q_hat is +1 or -1 within one observation (the
// aliased last row); and obs_blocks above 2T - 2 is refused.
func TestGraphObservations(t *testing.T) {
	want := []int{0}
	for block := range 5 {
		for range 6 {
			want = append(want, block)
		}
	}
	if got, err := blockObservations(16, 5); err != nil || !slices.Equal(got, want) {
		t.Errorf("T = 16, K = 5: map %v (%v), want %v", got, err, want)
	}
	if got, err := blockObservations(2, 1); err != nil || !slices.Equal(got, []int{0, 0, 0}) {
		t.Errorf("T = 2, K = 1: map %v (%v), want [0 0 0]", got, err)
	}
	set := map[string]float64{"horizon": 16, "slip": 0.25, "reward_noise": 1, "p_b": 0.6, "p_e": 0.3}
	d, _, _ := build(t, "graph", map[string]float64{"horizon": 16, "obs_blocks": 5})
	if sp := d.Space(); sp.Obs != 5 || sp.Actions != 2 || sp.Horizon != 16 {
		t.Errorf("space %+v, want 5 observations, 2 actions, horizon 16", sp)
	}
	full := collect(t, "graph", set, 2000, 7)
	set["obs_blocks"] = 5
	seen := collect(t, "graph", set, 2000, 7)
	if !slices.Equal(full.Reward, seen.Reward) || !slices.Equal(full.Ratio, seen.Ratio) || !slices.Equal(full.Action, seen.Action) ||
		!slices.Equal(full.QHat, seen.QHat) || !slices.Equal(full.VHat, seen.VHat) || !slices.Equal(full.Offsets, seen.Offsets) {
		t.Fatal("the observation blocks changed the data or the exact model")
	}
	last := map[float64]bool{}
	for k, s := range full.Obs {
		if int(seen.Obs[k]) != want[s] {
			t.Fatalf("step %d: latent state %d observed as %d, want %d", k, s, seen.Obs[k], want[s])
		}
		if (k+1)%16 == 0 {
			last[seen.QHat[k]] = seen.Obs[k] == 4
		}
	}
	if len(last) != 2 || !last[1] || !last[-1] {
		t.Errorf("last-step q_hat values %v, want +1 and -1, both in observation 4", last)
	}
	_, _, err := domains.New("graph", map[string]float64{"horizon": 3, "obs_blocks": 5})
	if err == nil || !strings.Contains(err.Error(), "graph: observations: obs_blocks = 5, want 1 to 2T - 2 = 4") {
		t.Errorf("obs_blocks 5 at T = 3: error %v", err)
	}
}

// TestGraphSpec: graph's parameters are B1's, with gamma's default 0.98
// marked (interp.) and no instance; MaxSteps is the horizon, and the
// exact model's memory that of T x (2T-1) x 2 Q values and T x (2T-1)
// values (T = 10: 8 x 380 + 24 x 10 + 8 x 190 = 4800 bytes).
func TestGraphSpec(t *testing.T) {
	spec, _ := domains.Lookup("graph")
	var names []string
	for _, ps := range spec.Params {
		names = append(names, ps.Name)
	}
	if want := []string{"horizon", "p_b", "p_e", "slip", "sparse", "reward_noise", "obs_blocks", "gamma"}; !slices.Equal(names, want) {
		t.Errorf("parameters %v, want %v", names, want)
	}
	if g, _ := spec.Param("gamma"); g.Default != 0.98 || !g.Interp {
		t.Errorf("gamma %+v, want default 0.98 (interp.)", g)
	}
	p := spec.Defaults()
	if spec.MaxSteps(p) != 10 || spec.ExactModelBytes(p) != 4800 || spec.Models(p) != nil {
		t.Errorf("MaxSteps %d, exact model %v bytes, models %v; want 10, 4800, nil", spec.MaxSteps(p), spec.ExactModelBytes(p), spec.Models(p))
	}
}

// b2f is a boolean parameter's value.
func b2f(x bool) float64 {
	if x {
		return 1
	}
	return 0
}

// close reports whether got is within tol of want, relative to max(1,
// |want|).
func close(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}
