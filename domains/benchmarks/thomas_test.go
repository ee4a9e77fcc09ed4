package benchmarks

import (
	"math"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/models"
)

// TestThomasClosedForms: the adapter's exact dynamic program equals B2's
// closed forms (ModelWinValue, ModelFailValue) within 1e-12, for V(pi_e)
// and V(pi_b), over p_e in {0, 0.12, 0.27, 0.5, 1} and gamma in {1, 0.9,
// 0.5} (p_b = 0.5). Hand anchors at the defaults and gamma = 1: ModelWin
// q = 0.4 x 0.27 + 0.6 x 0.73 = 0.546, V = 10 (2q - 1) = 0.92 (V(pi_b):
// q = 0.4 x 0.73 + 0.6 x 0.27 = 0.454, -0.92); ModelFail V = 2 x 0.12 - 1
// = -0.76 (V(pi_b) = 2 x 0.88 - 1 = 0.76).
func TestThomasClosedForms(t *testing.T) {
	for _, pe := range []float64{0, 0.12, 0.27, 0.5, 1} {
		for _, gamma := range []float64{1, 0.9, 0.5} {
			set := map[string]float64{"p_e": pe, "p_b": 0.5, "gamma": gamma}
			for name, value := range map[string]func(pe, gamma float64) float64{"modelwin": ModelWinValue, "modelfail": ModelFailValue} {
				tr := truth(t, name, set)
				if !close(tr.Value, value(pe, gamma), 1e-12) || !close(tr.Extra["behavior_value"], value(0.5, gamma), 1e-12) {
					t.Errorf("%s %v: dynamic program V(pi_e) %v, V(pi_b) %v; closed form %v, %v", name, set, tr.Value, tr.Extra["behavior_value"], value(pe, gamma), value(0.5, gamma))
				}
			}
		}
	}
	for _, tc := range []struct {
		name        string
		value, vBeh float64
	}{{"modelwin", 0.92, -0.92}, {"modelfail", -0.76, 0.76}} {
		if tr := truth(t, tc.name, nil); !close(tr.Value, tc.value, 1e-12) || !close(tr.Extra["behavior_value"], tc.vBeh, 1e-12) {
			t.Errorf("%s defaults: V(pi_e) %v, V(pi_b) %v; want %v, %v", tc.name, tr.Value, tr.Extra["behavior_value"], tc.value, tc.vBeh)
		}
	}
}

// TestThomasMonteCarlo: at the defaults and at gamma 0.9, the importance-
// weighted mean return (the weight the product of every step's ratio)
// and the on-policy mean return (p_b = p_e) are within 4 standard errors
// of the closed forms, over n = 20,000 episodes each.
func TestThomasMonteCarlo(t *testing.T) {
	for i, tc := range []struct {
		name string
		set  map[string]float64
	}{
		{"modelwin", nil}, {"modelwin", map[string]float64{"gamma": 0.9, "p_b": 0.4, "p_e": 0.4}},
		{"modelfail", nil}, {"modelfail", map[string]float64{"gamma": 0.9, "p_b": 0.3, "p_e": 0.3}},
	} {
		const n = 20000
		b := collect(t, tc.name, tc.set, n, uint64(20+i))
		_, _, p := build(t, tc.name, tc.set)
		gamma, _ := p.Gamma()
		want := ModelWinValue(p["p_e"], gamma)
		if tc.name == "modelfail" {
			want = ModelFailValue(p["p_e"], gamma)
		}
		if mean, se := meanSE(returns(b, gamma, true)); math.Abs(mean-want) > 4*se || se == 0 {
			t.Errorf("%s %v: Monte Carlo %v +- %v, closed form %v", tc.name, tc.set, mean, se, want)
		}
	}
}

// TestModelWinDynamics reads B2's ModelWin off the data (defaults, 5,000
// episodes): 20 steps each, in s1 at the odd 1-based steps and in s2 or s3
// at the even ones; a step from s1 pays +1 when it enters s2 and -1 when
// it enters s3, a step back pays 0; the ratio is p_e/p_b of the action at
// s1 (0.27/0.73 or 0.73/0.27) and exactly 1 at s2 and s3.
func TestModelWinDynamics(t *testing.T) {
	b := collect(t, "modelwin", nil, 5000, 4)
	pb, pe := 0.73, 0.27
	for i := range b.N() {
		lo := b.Offsets[i]
		if b.Len(i) != modelWinHorizon {
			t.Fatalf("episode %d: %d steps, want 20", i, b.Len(i))
		}
		for k := lo; k < lo+modelWinHorizon; k++ {
			step, s, a := k-lo+1, b.Obs[k], b.Action[k]
			want, ratio := 0.0, 1.0
			switch {
			case step%2 == 1 && s != 0, step%2 == 0 && s == 0:
				t.Fatalf("episode %d, step %d in state %d", i, step, s)
			case s == 0:
				ratio = [2]float64{pe / pb, (1 - pe) / (1 - pb)}[a]
				want = map[int32]float64{1: 1, 2: -1}[b.Obs[k+1]]
			}
			if b.Reward[k] != want || b.Ratio[k] != ratio {
				t.Fatalf("episode %d, step %d, state %d, action %d: reward %v, ratio %v; want %v, %v", i, step, s, a, b.Reward[k], b.Ratio[k], want, ratio)
			}
		}
	}
}

// TestModelFailIsAliasedGraph: modelfail is graph with horizon 2, sparse
// rewards, one observation block, no slip or noise and gamma 1: on the
// same stream every column (offsets, rewards, ratios, probabilities,
// observation and action ids, exact q_hat and v_hat) is the same bit for
// bit; its space has one observation; every episode has 2 steps, both of
// whose ratios are p_e/p_b of the action (0.12/0.88 or 0.88/0.12: the
// policy acts on the one observation, so the second action counts too).
func TestModelFailIsAliasedGraph(t *testing.T) {
	const n = 3000
	set := map[string]float64{"p_b": 0.88, "p_e": 0.12}
	mf := collect(t, "modelfail", set, n, 6)
	set["horizon"], set["sparse"], set["obs_blocks"], set["gamma"] = 2, 1, 1, 1
	g := collect(t, "graph", set, n, 6)
	if !slices.Equal(mf.Offsets, g.Offsets) || !slices.Equal(mf.Reward, g.Reward) || !slices.Equal(mf.Ratio, g.Ratio) ||
		!slices.Equal(mf.PiB, g.PiB) || !slices.Equal(mf.PiE, g.PiE) || !slices.Equal(mf.Obs, g.Obs) ||
		!slices.Equal(mf.Action, g.Action) || !slices.Equal(mf.QHat, g.QHat) || !slices.Equal(mf.VHat, g.VHat) {
		t.Error("modelfail differs from graph {horizon 2, sparse, obs_blocks 1, gamma 1}")
	}
	d, _, _ := build(t, "modelfail", nil)
	if sp := d.Space(); sp.Obs != 1 || sp.Horizon != 2 {
		t.Errorf("space %+v, want 1 observation, horizon 2", sp)
	}
	pb, pe := 0.88, 0.12 // variables: 1 - p rounds as the domain's does
	for k, a := range mf.Action {
		if want := [2]float64{pe / pb, (1 - pe) / (1 - pb)}[a]; mf.Ratio[k] != want || mf.Obs[k] != 0 {
			t.Fatalf("step %d, action %d: ratio %v, observation %d; want %v, 0", k, a, mf.Ratio[k], mf.Obs[k], want)
		}
	}
	if mf.Horizon() != 2 || mf.Steps() != 2*n {
		t.Errorf("%d steps, horizon %d; want %d, 2", mf.Steps(), mf.Horizon(), 2*n)
	}
}

// TestModelFailFittedModelsFail is ModelFail's point (Thomas & Brunskill
// 2016): a model learned from the one observation is wrong whatever the
// data. Fitted on n = 20,000 behavior episodes, dm (the mean v_hat of the
// first step) of both learned kinds is within 0.02 (about 4 standard
// errors of a step-2 reward mean, sqrt(1 - 0.76^2)/sqrt(20,000) = 0.0046)
// of 2 p_b - 1 = +0.76, the behavior's value: fitted-t's step-2 reward
// model is E_b[r_2 | a_2] = 2 p_b - 1 whatever a_2 (r_2 follows a_1, which
// the observation does not show), and step 1 pays 0 and always continues;
// fitted's reward per pair is the mean over both steps, (0 + 0.76)/2 =
// 0.38, paid twice. The truth is 2 p_e - 1 = -0.76, which the exact model
// (q at the latent state) gives at step 1 exactly.
func TestModelFailFittedModelsFail(t *testing.T) {
	const n = 20000
	for _, kind := range []string{"fitted", "fitted-t"} {
		b := collect(t, "modelfail", nil, n, 9)
		for i := range n {
			if v := b.VHat[b.Offsets[i]]; !close(v, -0.76, 1e-12) {
				t.Fatalf("exact v_hat at step 1 is %v, want -0.76", v)
			}
		}
		k, err := models.Get(kind)
		if err != nil {
			t.Fatal(err)
		}
		d, _, _ := build(t, "modelfail", nil)
		if err := k.New().FitTo(b, b, d.Space(), 1); err != nil {
			t.Fatal(err)
		}
		dm := 0.0
		for i := range n {
			dm += b.VHat[b.Offsets[i]] / n
		}
		t.Logf("%s: dm %.4f, truth -0.76", kind, dm)
		if math.Abs(dm-0.76) > 0.02 {
			t.Errorf("%s: dm = %v, want 2 p_b - 1 = 0.76 within 0.02 (the truth is -0.76)", kind, dm)
		}
	}
}

// TestThomasSpecs: modelwin's and modelfail's parameters are p_b, p_e
// (defaults 0.73, 0.27 and 0.88, 0.12, marked (interp.)) and gamma
// (default 1), without instance; MaxSteps is 20 and 2.
func TestThomasSpecs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pb, pe  float64
		horizon int
	}{{"modelwin", 0.73, 0.27, 20}, {"modelfail", 0.88, 0.12, 2}} {
		spec, _ := domains.Lookup(tc.name)
		var names []string
		for _, ps := range spec.Params {
			names = append(names, ps.Name)
		}
		if !slices.Equal(names, []string{"p_b", "p_e", "gamma"}) {
			t.Errorf("%s: parameters %v, want [p_b p_e gamma]", tc.name, names)
		}
		pb, _ := spec.Param("p_b")
		pe, _ := spec.Param("p_e")
		g, _ := spec.Param("gamma")
		if pb.Default != tc.pb || pe.Default != tc.pe || !pb.Interp || !pe.Interp || g.Default != 1 {
			t.Errorf("%s: p_b %+v, p_e %+v, gamma %+v", tc.name, pb, pe, g)
		}
		if got := spec.MaxSteps(spec.Defaults()); got != tc.horizon {
			t.Errorf("%s: MaxSteps %d, want %d", tc.name, got, tc.horizon)
		}
	}
}
