package taxi

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestTaxiGammaParam: noisytaxi declares gamma as the brief of SPEC 1c
// asks (a number in [0, 1], default 1, the paper's undiscounted setting),
// New refuses 0, and the truth refuses it too.
func TestTaxiGammaParam(t *testing.T) {
	spec, _ := domains.Lookup("noisytaxi")
	ps, ok := spec.Param("gamma")
	want := domains.ParamSpec{Name: "gamma", Kind: domains.Float, Default: 1, Min: 0, Max: 1,
		Doc: "discount factor: the reward of 1-based primitive step t counts gamma^(t-1) (SPEC 1c; 1 = the paper's undiscounted setting)"}
	if !ok || ps != want {
		t.Errorf("gamma parameter %+v, want %+v", ps, want)
	}
	for _, g := range []float64{1, 0.5, 1e-9} {
		if _, _, err := domains.New("noisytaxi", map[string]float64{"gamma": g}); err != nil {
			t.Errorf("gamma %v: %v", g, err)
		}
	}
	_, _, err := domains.New("noisytaxi", map[string]float64{"gamma": 0})
	if err == nil || err.Error() != "gamma = 0, want a value in (0, 1]" {
		t.Errorf("gamma 0: error %v, want \"gamma = 0, want a value in (0, 1]\"", err)
	}
	p := spec.Defaults()
	p["gamma"] = 0
	if _, err := taxiTruth(p, nil); err == nil {
		t.Error("the truth accepted gamma 0")
	}
	if _, _, err := domains.New("noisytaxi", map[string]float64{"gamma": 1.5}); err == nil {
		t.Error("gamma 1.5 accepted")
	}
}

// The committed truths of results/fig2/meta.json (git revision
// d5197acad44a, before gamma existed): at gamma = 1 every number and the
// method must stay as they are, bit for bit (the shortest decimal form of
// a float64 parses back to it exactly).
const taxiMethodFig2 = "exact: finite-horizon dynamic programming over (hidden state, option state, steps left), observation noise averaged per hidden state (SPEC 2.3); Monte Carlo cross-check with 1000000 episodes"

var taxiTruthsFig2 = map[int]map[string]float64{
	1: {
		"behavior_cap_prob": 5.0891930394963935e-14, "behavior_exact_value": -22.52498326468273, "behavior_mc_cap_prob": 0,
		"behavior_mc_mean_length": 22.86659, "behavior_mc_se": 0.025337707800133523, "behavior_mc_value": -22.551316999999987,
		"behavior_mean_length": 22.850703797096404, "eval_cap_prob": 2.9786334446129454e-26, "eval_mc_cap_prob": 0,
		"eval_mc_mean_length": 16.24232, "eval_mc_se": 0.010298336165945825, "eval_mc_value": 0.9763299999999998,
		"eval_mean_length": 16.238041446735693, "exact_value": 0.9914792869246901, "mc_episodes": 1000000,
	},
	2: {
		"behavior_cap_prob": 4.828366362929502e-13, "behavior_exact_value": -22.901592308585634,
		"behavior_mean_length": 22.775844238127423, "eval_cap_prob": 1.5764388747421139e-25,
		"eval_mean_length": 16.243633305923662, "exact_value": 0.9038753840690203,
	},
	3: {
		"behavior_cap_prob": 3.1978304393025737e-12, "behavior_exact_value": -23.337385680727596,
		"behavior_mean_length": 22.7593772475668, "eval_cap_prob": 1.0613938004787014e-24,
		"eval_mean_length": 16.251395743409233, "exact_value": 0.8175962556279567,
	},
}

// TestTaxiTruthGammaOneUnchanged: at gamma = 1 (explicit, or absent as in
// parameters written before it existed) the truth is the committed one:
// the exact values of m = 1, 2, 3 bit for bit and the method string, and
// for m = 1 with gamma explicit and the default 1e6-episode cross-check
// every extra.
func TestTaxiTruthGammaOneUnchanged(t *testing.T) {
	spec, _ := domains.Lookup("noisytaxi")
	for _, m := range []int{1, 2, 3} {
		want := taxiTruthsFig2[m]
		p := spec.Defaults()
		p["option_length"] = float64(m)
		if m != 1 || testing.Short() {
			p["mc_episodes"] = 0 // the DP only: the cross-check takes a second or two
		}
		for _, absent := range []bool{false, true} {
			q := domains.Params{}
			for k, v := range p {
				q[k] = v
			}
			if absent {
				delete(q, "gamma")
				q["mc_episodes"] = 0 // the cross-check is checked once, below
			} else if q["gamma"] != 1 {
				t.Fatalf("default gamma %v, want 1", q["gamma"])
			}
			got, err := taxiTruth(q, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Value != want["exact_value"] {
				t.Errorf("m %d (gamma absent %v): value %v, committed %v", m, absent, got.Value, want["exact_value"])
			}
			for k, v := range want {
				if x, ok := got.Extra[k]; (ok || q.Int("mc_episodes") > 0) && x != v {
					t.Errorf("m %d (gamma absent %v): %s = %v, committed %v", m, absent, k, x, v)
				}
			}
			wantMethod := taxiMethodFig2
			if q.Int("mc_episodes") == 0 {
				wantMethod, _, _ = strings.Cut(taxiMethodFig2, "; Monte Carlo")
			}
			if got.Method != wantMethod {
				t.Errorf("m %d (gamma absent %v): method %q, want %q", m, absent, got.Method, wantMethod)
			}
		}
	}
}

// TestTaxiTruthDiscounted: under gamma = 0.9 the truth is the discounted
// DP (ExactValue with gamma), far from the undiscounted one;
// the Monte Carlo cross-check sums discounted returns, so it agrees within
// 4 standard errors for both policies; the episode statistics are not
// discounted (those of gamma = 1); the method says gamma.
func TestTaxiTruthDiscounted(t *testing.T) {
	spec, _ := domains.Lookup("noisytaxi")
	p := spec.Defaults()
	p["mc_episodes"] = 20 * 4096
	one, err := taxiTruth(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	p["gamma"] = 0.9
	got, err := taxiTruth(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	ex, _ := ExactValue(taxiParams(p), 0.05, 1, 0.9, nil)
	if got.Value != ex.Value || got.Extra["exact_value"] != ex.Value {
		t.Errorf("value %v, extra %v, discounted DP %v", got.Value, got.Extra["exact_value"], ex.Value)
	}
	for _, who := range []string{"eval", "behavior"} {
		key := strings.TrimPrefix(who+"_exact_value", "eval_") // exact_value, behavior_exact_value
		exact := got.Extra[key]
		mc, se := got.Extra[who+"_mc_value"], got.Extra[who+"_mc_se"]
		if math.Abs(mc-exact) > 4*se {
			t.Errorf("%s: Monte Carlo %v +- %v, exact %v", who, mc, se, exact)
		}
		if oneV := one.Extra[key]; math.Abs(oneV-exact) < 10*se {
			t.Errorf("%s: gamma 0.9 value %v within 10 se of gamma 1's %v", who, exact, oneV)
		}
		for _, k := range []string{"_mean_length", "_cap_prob", "_mc_mean_length", "_mc_cap_prob"} {
			if got.Extra[who+k] != one.Extra[who+k] {
				t.Errorf("%s%s: %v under gamma 0.9, %v under 1", who, k, got.Extra[who+k], one.Extra[who+k])
			}
		}
	}
	if want := one.Method + "; discounted by gamma = 0.9 (SPEC 1c)"; got.Method != want {
		t.Errorf("method %q, want %q", got.Method, want)
	}
}

// TestTaxiGammaRewardsUndiscounted: gamma changes no trajectory: rewards
// stay undiscounted in the batch (the harness discounts them, SPEC 1c), so
// the batches of gamma 1 and 0.9 are identical, and rewards are the
// environment's -1, -10 and +20 only.
func TestTaxiGammaRewardsUndiscounted(t *testing.T) {
	var batches [2]trajectory.Batch
	for i, g := range []float64{1, 0.9} {
		d, _, err := domains.New("noisytaxi", map[string]float64{"gamma": g})
		if err != nil {
			t.Fatal(err)
		}
		d.Collect(&batches[i], 300, rand.New(rand.NewPCG(4, 4)))
	}
	a, b := &batches[0], &batches[1]
	if !slices.Equal(a.Offsets, b.Offsets) || !slices.Equal(a.Reward, b.Reward) || !slices.Equal(a.Ratio, b.Ratio) || !slices.Equal(a.Split, b.Split) {
		t.Error("gamma 0.9 collects other trajectories than gamma 1")
	}
	for s, r := range b.Reward {
		if r != -1 && r != -10 && r != 20 {
			t.Fatalf("step %d: reward %v, want -1, -10 or 20", s, r)
		}
	}
}
