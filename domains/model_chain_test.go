package domains

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/envs/subepisode"
	"github.com/ope-lab/longhorizon/trajectory"
)

// modelDomain builds domain name with set and returns it as a ModelDomain.
func modelDomain(t *testing.T, name string, set map[string]float64) (ModelDomain, Params) {
	t.Helper()
	d, p, err := New(name, set)
	if err != nil {
		t.Fatal(err)
	}
	md, ok := d.(ModelDomain)
	if !ok {
		t.Fatalf("%s is not a ModelDomain", name)
	}
	return md, p
}

// TestModelsDeclared: chainmdp and subepisode can always supply the model
// columns (Spec.Models returns nil) and their domains are ModelDomains;
// optionschain is options data, never (Models nil, no ModelDomain).
func TestModelsDeclared(t *testing.T) {
	for _, name := range []string{"chainmdp", "subepisode"} {
		spec, _ := Lookup(name)
		if spec.Models == nil {
			t.Errorf("%s: Models nil, want a func returning nil", name)
		} else if err := spec.Models(spec.Defaults()); err != nil {
			t.Errorf("%s: Models: %v, want nil", name, err)
		}
		modelDomain(t, name, nil)
	}
	spec, _ := Lookup("optionschain")
	d, _ := spec.New(spec.Defaults())
	if _, ok := d.(ModelDomain); spec.Models != nil || ok {
		t.Error("optionschain offers model columns on options data")
	}
}

// TestModelSpace: the chain has 2H+1 observation ids (x_1..x_{H+1},
// y_1..y_H), the sub-episode MDP 3 (s1, s2, s3); both 2 actions; pi_e is
// (p_e, 1 - p_e) whatever the observation; the horizon is H, or
// 2 x subepisodes.
func TestModelSpace(t *testing.T) {
	for _, tc := range []struct {
		name         string
		set          map[string]float64
		obs, horizon int
	}{
		{"chainmdp", map[string]float64{"horizon": 6, "p_e": 0.8}, 13, 6},
		{"subepisode", map[string]float64{"subepisodes": 4, "p_e": 0.8}, 3, 8},
	} {
		md, _ := modelDomain(t, tc.name, tc.set)
		sp := md.Space()
		if sp.Obs != tc.obs || sp.Actions != 2 || sp.Horizon != tc.horizon {
			t.Errorf("%s: space %+v, want %d observations, 2 actions, horizon %d", tc.name, sp, tc.obs, tc.horizon)
		}
		dst := make([]float64, 2)
		pe := tc.set["p_e"] // 1 - pe rounded as float64, as pi_e's ratios are
		for o := range sp.Obs {
			sp.PiE(o, dst)
			if dst[0] != pe || dst[1] != 1-pe {
				t.Errorf("%s: pi_e(.|%d) = %v, want [%v %v]", tc.name, o, dst, pe, 1-pe)
			}
		}
	}
}

// TestRecordSameTrajectories: recording ids and/or the exact model draws
// no random number: on the same stream every setting gives the same
// offsets, rewards, ratios and splits as recording nothing, bit for bit.
// With ids, Obs lies in [0, Space().Obs) and Action in {0, 1}, the
// action agreeing with the recorded ratio (p_e/p_b for a1, (1-p_e)/(1-p_b)
// for a2); the columns are present exactly when asked for, and going back
// to Record(false, false) records nothing more.
func TestRecordSameTrajectories(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  map[string]float64
	}{
		{"chainmdp", map[string]float64{"horizon": 7, "p_e": 0.8, "p_b": 0.4, "gamma": 0.9}},
		{"chainmdp", map[string]float64{"horizon": 5, "p_e": 0.6, "bottom_absorbing": 1}},
		{"subepisode", map[string]float64{"subepisodes": 6, "p_e": 0.7, "gamma": 0.95}},
	} {
		var base trajectory.Batch
		plain, p := modelDomain(t, tc.name, tc.set)
		plain.Collect(&base, 300, rand.New(rand.NewPCG(5, 6)))
		for _, rec := range [][2]bool{{true, false}, {false, true}, {true, true}, {false, false}} {
			t.Run(fmt.Sprint(tc.name, tc.set, rec), func(t *testing.T) {
				md, _ := modelDomain(t, tc.name, tc.set)
				md.Record(true, true)
				md.Record(rec[0], rec[1])
				var b trajectory.Batch
				md.Collect(&b, 300, rand.New(rand.NewPCG(5, 6)))
				if !slices.Equal(b.Offsets, base.Offsets) || !slices.Equal(b.Reward, base.Reward) ||
					!slices.Equal(b.Ratio, base.Ratio) || !slices.Equal(b.OptionRatio, base.OptionRatio) ||
					!slices.Equal(b.Split, base.Split) || !slices.Equal(b.Changed, base.Changed) {
					t.Fatal("recording changed the trajectories")
				}
				if b.HasIDs() != rec[0] || b.HasModel() != rec[1] || b.Validate() != nil {
					t.Fatalf("ids %v model %v (%v), want %v %v", b.HasIDs(), b.HasModel(), b.Validate(), rec[0], rec[1])
				}
				if !rec[0] {
					return
				}
				nobs := int32(md.Space().Obs)
				pe, pb := p["p_e"], p["p_b"]
				for s := range b.Steps() {
					o, a := b.Obs[s], b.Action[s]
					want := pe / pb
					if a == 1 {
						want = (1 - pe) / (1 - pb)
					}
					if o < 0 || o >= nobs || (a != 0 && a != 1) || b.Ratio[s] != want {
						t.Fatalf("step %d: obs %d action %d ratio %v; want obs in [0, %d), action 0 or 1, ratio %v", s, o, a, b.Ratio[s], nobs, want)
					}
				}
			})
		}
	}
}

// TestRecordAllocates nothing: Collect with ids and the exact model into
// a batch that has grown allocates nothing (Domain's contract).
func TestRecordAllocatesNothing(t *testing.T) {
	for _, name := range []string{"chainmdp", "subepisode"} {
		md, _ := modelDomain(t, name, map[string]float64{"gamma": 0.9})
		md.Record(true, true)
		var b trajectory.Batch
		rng := rand.New(rand.NewPCG(1, 2))
		md.Collect(&b, 200, rng)
		if a := testing.AllocsPerRun(5, func() {
			b.Reset()
			md.Collect(&b, 200, rng)
		}); a != 0 {
			t.Errorf("%s: %v allocations per Collect into a grown batch", name, a)
		}
	}
}

// TestChainExactQ checks the chain's exact model step by step. Backward
// from step H (SPEC 2.1: the only reward is 1 for a1 in x_H; a2 in the top
// chain leads to the bottom chain, where nothing is ever paid):
//
//	q(x_H, a1) = 1, v(x_H) = p_e,
//	q(x_t, a1) = 0 + gamma v(x_{t+1}) = gamma^(H-t) p_e^(H-t),
//	v(x_t) = p_e q(x_t, a1) + (1 - p_e) 0 = gamma^(H-t) p_e^(H-t+1),
//
// and q = v = 0 in the bottom chain (ids H+1..2H) and for a2. In the top
// chain the agent is in x_t at step t, id t-1. v(x_1) = gamma^(H-1) p_e^H
// is the true value, bit for bit: dm with the exact model is exact.
func TestChainExactQ(t *testing.T) {
	for _, tc := range []struct {
		h         int
		pe, gamma float64
		absorbing float64
	}{{6, 0.8, 0.9, 0}, {6, 0.8, 1, 1}, {1, 0.5, 0.7, 0}, {9, 1, 0.5, 0}} {
		md, p := modelDomain(t, "chainmdp", map[string]float64{"horizon": float64(tc.h), "p_e": tc.pe,
			"gamma": tc.gamma, "bottom_absorbing": tc.absorbing})
		spec, _ := Lookup("chainmdp")
		truth, _ := spec.Truth(p, nil)
		md.Record(true, true)
		var b trajectory.Batch
		md.Collect(&b, 300, rand.New(rand.NewPCG(3, uint64(tc.h))))
		lastA1 := 0
		for i := range b.N() {
			lo := b.Offsets[i]
			if b.VHat[lo] != truth.Value {
				t.Errorf("%+v: v_hat_1 = %v, true value %v", tc, b.VHat[lo], truth.Value)
			}
			for s := lo; s < b.Offsets[i+1]; s++ {
				step := s - lo + 1
				o, a := int(b.Obs[s]), int(b.Action[s])
				var q, v float64
				switch {
				case o < tc.h: // top chain: x_t at step t
					if o != step-1 {
						t.Fatalf("%+v: step %d in x_%d", tc, step, o+1)
					}
					left := float64(tc.h - step)
					v = math.Pow(tc.gamma, left) * math.Pow(tc.pe, left+1)
					if a == 0 {
						q = math.Pow(tc.gamma, left) * math.Pow(tc.pe, left)
					}
				case o > tc.h && o <= 2*tc.h: // bottom chain
				default:
					t.Fatalf("%+v: step %d observes id %d, outside the chain's 2H+1", tc, step, o)
				}
				if step == tc.h && o == tc.h-1 && a == 0 {
					lastA1++
					if b.QHat[s] != 1 || b.VHat[s] != tc.pe {
						t.Errorf("%+v: a1 in x_H: q %v v %v, want 1 and p_e", tc, b.QHat[s], b.VHat[s])
					}
				}
				if math.Abs(b.QHat[s]-q) > 1e-15*q || math.Abs(b.VHat[s]-v) > 1e-15*v {
					t.Errorf("%+v step %d obs %d a %d: q %v v %v, want %v %v", tc, step, o, a, b.QHat[s], b.VHat[s], q, v)
				}
			}
		}
		if lastA1 == 0 && tc.h <= 6 {
			t.Errorf("%+v: no trajectory reached x_H", tc)
		}
	}
}

// TestDRExactModel: with the exact model both domains' data are
// deterministic given the hidden state and action (deterministic rewards
// and moves), so q_t = r_t + gamma v_{t+1} and SPEC 1d's doubly robust
// sum, on the discounted view (trajectory.Discounted: step t's r, q_hat,
// v_hat scaled by gamma^(t-1)),
//
//	sum_t [W_t r_t - (W_t q_t - W_{t-1} v_t)]
//	  = sum_t gamma^(t-1) [W_{t-1} v_t - W_t gamma v_{t+1}] = v_1,
//
// telescopes to v_hat_1, the true value, on every trajectory (off-policy,
// p_b = 0.5): checked per trajectory to 1e-9 relative, and its mean (dr)
// and the mean of v_hat_1 (dm) within 4 standard errors of the truth (the
// standard error being 0 here, to 1e-12 relative).
func TestDRExactModel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   map[string]float64
		gamma float64
	}{
		{"chainmdp", map[string]float64{"horizon": 8, "p_e": 0.9}, 0.9},
		{"chainmdp", map[string]float64{"horizon": 8, "p_e": 1}, 1},
		{"subepisode", map[string]float64{"subepisodes": 10, "eps_step": 0.3}, 0.95},
		{"subepisode", map[string]float64{"subepisodes": 10, "eps_step": 0.3, "eps_before_reward": 0}, 1},
		{"subepisode", map[string]float64{}, 0.99},
	} {
		set := map[string]float64{"gamma": tc.gamma}
		for k, v := range tc.set {
			set[k] = v
		}
		md, p := modelDomain(t, tc.name, set)
		spec, _ := Lookup(tc.name)
		truth, _ := spec.Truth(p, nil)
		md.Record(false, true)
		var b trajectory.Batch
		md.Collect(&b, 2000, rand.New(rand.NewPCG(9, 9)))
		var disc trajectory.Discounted
		view := disc.Of(&b, tc.gamma)
		tol := 1e-9 * math.Max(1, math.Abs(truth.Value))
		var dr, dm []float64
		for i := range view.N() {
			lo, hi := view.Offsets[i], view.Offsets[i+1]
			sum, w := 0.0, 1.0
			for s := lo; s < hi; s++ {
				wPrev := w
				w *= view.Ratio[s]
				sum += w*view.Reward[s] - (w*view.QHat[s] - wPrev*view.VHat[s])
			}
			if math.Abs(sum-truth.Value) > tol {
				t.Fatalf("%s %v trajectory %d: DR term %v, true value %v", tc.name, set, i, sum, truth.Value)
			}
			dr = append(dr, sum)
			dm = append(dm, view.VHat[lo])
		}
		for _, x := range []struct {
			name string
			v    []float64
		}{{"dr", dr}, {"dm", dm}} {
			mean, sd := meanSD(x.v)
			if lim := math.Max(4*sd/math.Sqrt(float64(len(x.v))), 1e-12*math.Max(1, math.Abs(truth.Value))); math.Abs(mean-truth.Value) > lim {
				t.Errorf("%s %v: %s = %v, true value %v (limit %v)", tc.name, set, x.name, mean, truth.Value, lim)
			}
		}
	}
}

// meanSD returns the mean and sample standard deviation (denominator
// n - 1) of x.
func meanSD(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)-1))
}

// TestSubepisodeObsIDs: the sub-episode MDP's recorded ids follow its
// dynamics: odd steps in s1 (id 0), even steps in s2 (1) after a1 and in
// s3 (2) after a2; rewards +1 for a1 and -1 for a2 in s1, +2 in s3 (SPEC
// 2.2).
func TestSubepisodeObsIDs(t *testing.T) {
	md, _ := modelDomain(t, "subepisode", map[string]float64{"subepisodes": 5})
	md.Record(true, false)
	var b trajectory.Batch
	md.Collect(&b, 100, rand.New(rand.NewPCG(4, 4)))
	for i := range b.N() {
		lo := b.Offsets[i]
		for s := lo; s < b.Offsets[i+1]; s++ {
			o, a, r := b.Obs[s], b.Action[s], b.Reward[s]
			var ok bool
			switch (s - lo) % 2 {
			case 0:
				ok = o == subepisode.S1 && ((a == subepisode.A1 && r == 1) || (a == subepisode.A2 && r == -1))
			default:
				prev := b.Action[s-1]
				ok = (prev == subepisode.A1 && o == subepisode.S2) || (prev == subepisode.A2 && o == subepisode.S3 && r == 2)
			}
			if !ok {
				t.Fatalf("trajectory %d step %d: obs %d action %d reward %v", i, s-lo+1, o, a, r)
			}
		}
	}
}
