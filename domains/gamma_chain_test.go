package domains

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/envs/chainmdp"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// chainValueBrute returns V(pi_e) of the chain under gamma by brute force:
// every one of the 2^H action sequences is played through the env, with
// probability prod_t (p_e for a1, 1 - p_e for a2), and its return
// sum_t gamma^(t-1) r_t (SPEC 1c) is averaged with those probabilities.
func chainValueBrute(h int, pe, gamma float64) float64 {
	env, _ := chainmdp.New(h, false)
	v := 0.0
	for seq := 0; seq < 1<<h; seq++ {
		env.Reset()
		pr, ret, disc := 1.0, 0.0, 1.0
		for s := 0; s < h; s++ {
			a := (seq >> s) & 1 // 0 = a1, 1 = a2
			if a == chainmdp.A1 {
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

// TestChainTruthGamma: the chain's true value under gamma is
// gamma^(H-1) p_e^H (SPEC 1c), equal to brute force over every action
// sequence; at gamma = 1 (given, or absent as in parameters written before
// gamma existed) it is today's p_e^H bit for bit, with today's Method.
func TestChainTruthGamma(t *testing.T) {
	spec, _ := Lookup("chainmdp")
	for _, tc := range []struct {
		h         int
		pe, gamma float64
	}{{1, 0.7, 0.5}, {4, 1, 0.9}, {6, 0.8, 0.9}, {7, 0.3, 0.25}, {5, 0.9, 1}, {8, 1, 1}} {
		p := spec.Defaults()
		p["horizon"], p["p_e"], p["gamma"] = float64(tc.h), tc.pe, tc.gamma
		tr, err := spec.Truth(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := chainValueBrute(tc.h, tc.pe, tc.gamma)
		if math.Abs(tr.Value-want) > 1e-12*math.Max(1e-300, want) {
			t.Errorf("H=%d p_e=%v gamma=%v: truth %v, brute force %v", tc.h, tc.pe, tc.gamma, tr.Value, want)
		}
		if tc.gamma != 1 {
			if tr.Method != "closed form: gamma^(H-1) p_e^H (SPEC 1c, 2.1)" {
				t.Errorf("gamma=%v: method %q", tc.gamma, tr.Method)
			}
			continue
		}
		delete(p, "gamma")
		old, _ := spec.Truth(p, nil)
		// today's code: math.Pow(p_e, H), "closed form: p_e^H (SPEC 2.1)"
		for _, got := range []Truth{tr, old} {
			if got.Value != math.Pow(tc.pe, float64(tc.h)) || got.Method != "closed form: p_e^H (SPEC 2.1)" {
				t.Errorf("gamma = 1: truth %+v, want p_e^H = %v bit for bit with today's method", got, math.Pow(tc.pe, float64(tc.h)))
			}
		}
	}
}

// TestChainClosedFormGamma enumerates every data set of n chain
// trajectories ((2^H)^n behavior action sequences), discounts it with
// trajectory.Discounted as the harness does (SPEC 1c), estimates it with
// every unweighted and self-normalized estimator of the registry that
// needs no model, and compares the exact mean, bias and variance with
// chainClosedForm under gamma: the unweighted ones are unbiased for
// gamma^(H-1) p_e^H with variance gamma^(2(H-1)) times the undiscounted
// one; with p_e = 1 the self-normalized ones are gamma^(H-1) times the
// indicator of an all-a1 trajectory in the data.
func TestChainClosedFormGamma(t *testing.T) {
	spec, _ := Lookup("chainmdp")
	for _, tc := range []struct {
		h, n          int
		pe, pb, gamma float64
	}{{3, 1, 0.8, 0.5, 0.9}, {3, 2, 1, 0.5, 0.9}, {4, 1, 1, 0.6, 0.5}, {2, 3, 1, 0.5, 0.7}, {4, 2, 0.6, 0.5, 0.8}} {
		p := spec.Defaults()
		p["horizon"], p["p_e"], p["p_b"], p["gamma"] = float64(tc.h), tc.pe, tc.pb, tc.gamma
		truth, _ := spec.Truth(p, nil)
		for _, info := range estimators.All() {
			if (info.Class != estimators.Unweighted && info.Class != estimators.SelfNormalized) || info.Needs&estimators.Model != 0 {
				continue
			}
			cf, ok := spec.ClosedForm(p, string(info.Class), tc.n)
			if !ok {
				if info.Class == estimators.SelfNormalized && tc.pe != 1 {
					continue // known only for p_e = 1
				}
				t.Fatalf("%s %+v: no closed form", info.Name, tc)
			}
			t.Run(fmt.Sprintf("%s/%+v", info.Name, tc), func(t *testing.T) {
				est, _ := estimators.New(info.Name)
				per := 1 << tc.h
				env, _ := chainmdp.New(tc.h, false)
				var b trajectory.Batch
				var disc trajectory.Discounted
				m1, m2, total := 0.0, 0.0, 0.0
				for code := 0; code < int(math.Pow(float64(per), float64(tc.n))); code++ {
					b.Reset()
					pr := 1.0
					c := code
					for range tc.n {
						seq := c % per
						c /= per
						env.Reset()
						for s := 0; s < tc.h; s++ {
							a := (seq >> s) & 1 // 0 = a1, 1 = a2
							r, _ := env.Step(a)
							rho := tc.pe / tc.pb
							pr *= tc.pb
							if a == chainmdp.A2 {
								rho = (1 - tc.pe) / (1 - tc.pb)
								pr *= (1 - tc.pb) / tc.pb
							}
							b.Add(r, rho)
						}
						b.End()
					}
					x, err := est.Estimate(disc.Of(&b, tc.gamma))
					if err != nil {
						t.Fatal(err)
					}
					m1 += pr * x
					m2 += pr * x * x
					total += pr
				}
				if math.Abs(total-1) > 1e-12 {
					t.Fatalf("probabilities sum to %v", total)
				}
				if math.Abs(m1-cf.Mean) > 1e-12 || math.Abs(m1-truth.Value-cf.Bias) > 1e-12 {
					t.Errorf("exact E = %v (bias %v), closed form %+v", m1, m1-truth.Value, cf)
				}
				if v := m2 - m1*m1; math.Abs(v-cf.Variance) > 1e-9*math.Max(1, v) {
					t.Errorf("exact Var = %v, closed form %v", v, cf.Variance)
				}
			})
		}
	}
}

// TestChainClosedFormGammaOne: at gamma = 1 the closed forms are today's
// formulas bit for bit, written out here as the code before discounting
// computed them: unweighted mean p_e^H, variance ((p_e^2/p_b)^H - p_e^{2H})/n;
// self-normalized (p_e = 1) mean 1 - miss, bias 0 - miss, variance
// (1 - miss) miss, with miss = exp(n log1p(-p_b^H)) = (1 - p_b^H)^n.
func TestChainClosedFormGammaOne(t *testing.T) {
	for _, tc := range []struct {
		h, n   int
		pe, pb float64
	}{{8, 10, 1, 0.5}, {20, 1000, 0.9, 0.5}, {5, 3, 0.3, 0.7}, {100, 50, 1, 0.5}} {
		for _, p := range []Params{
			{"horizon": float64(tc.h), "p_e": tc.pe, "p_b": tc.pb, "gamma": 1},
			{"horizon": float64(tc.h), "p_e": tc.pe, "p_b": tc.pb}, // written before gamma existed
		} {
			h := float64(tc.h)
			v := math.Pow(tc.pe, h)
			want := Moments{Mean: v, Bias: 0, Variance: (math.Pow(tc.pe*tc.pe/tc.pb, h) - v*v) / float64(tc.n)}
			if got, _ := chainClosedForm(p, ClassUnweighted, tc.n); got != want {
				t.Errorf("%v unweighted: %+v, want %+v bit for bit", p, got, want)
			}
			if tc.pe != 1 {
				continue
			}
			miss := math.Exp(float64(tc.n) * math.Log1p(-math.Pow(tc.pb, h)))
			want = Moments{Mean: 1 - miss, Bias: 0 - miss, Variance: (1 - miss) * miss}
			if got, _ := chainClosedForm(p, ClassSelfNormalized, tc.n); got != want {
				t.Errorf("%v self-normalized: %+v, want %+v bit for bit", p, got, want)
			}
		}
	}
}

// discountedReturn is a trajectory.Recorder summing gamma^(t-1) r_t over
// primitive steps t (SPEC 1c: on options data t counts primitive steps).
type discountedReturn struct {
	gamma, disc, ret float64
}

func (d *discountedReturn) AddOption(r, _, _ float64, _ bool) {
	d.ret += d.disc * r
	d.disc *= d.gamma
}
func (d *discountedReturn) MarkSplit() {}
func (d *discountedReturn) End()       {}

// TestOptionsChainTruthGamma: the options chain's true value under gamma
// is gamma^(H-1) times its closed form (the only reward is on step H),
// equal to brute force: with behavior = evaluation (PB = PE, InnerPB =
// InnerPE) every episode of mu_e is enumerated (enumerator) and
// its discounted return averaged with its probability. At gamma = 1 the
// truth is today's, value and Method.
func TestOptionsChainTruthGamma(t *testing.T) {
	spec, _ := Lookup("optionschain")
	for _, tc := range []map[string]float64{
		{"horizon": 4, "option_length": 2, "p_e": 0.7, "changed": 1, "inner_p_e": 0.6, "gamma": 0.9},
		{"horizon": 6, "option_length": 3, "p_e": 0.5, "changed": -1, "inner_p_e": 0.8, "gamma": 0.5},
		{"horizon": 6, "option_length": 2, "p_e": 0.9, "changed": 0, "gamma": 0.95},
		{"horizon": 3, "option_length": 1, "p_e": 0.6, "changed": 2, "inner_p_e": 0.3, "gamma": 1},
	} {
		p, err := spec.Resolve(tc)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := spec.Truth(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		o := chainOptions(p)
		o.PB, o.InnerPB = o.PE, o.InnerPE // roll out mu_e itself
		env, _ := chainmdp.New(o.H, false)
		var e enumerator
		want := 0.0
		for {
			ret := discountedReturn{gamma: p["gamma"], disc: 1}
			o.Episode(env, &e, &ret)
			want += e.Prob() * ret.ret
			if !e.Next() {
				break
			}
		}
		if math.Abs(tr.Value-want) > 1e-12*math.Max(1e-300, want) {
			t.Errorf("%v: truth %v, brute force %v", tc, tr.Value, want)
		}
		if p["gamma"] == 1 {
			if tr.Value != OptionsChainValue(chainOptions(p)) || tr.Method != "closed form: p_e^{H/J} inner_p_e^{cJ} (domains/optionschain.go)" {
				t.Errorf("gamma = 1: %+v, want today's value and method", tr)
			}
		} else if !strings.Contains(tr.Method, "gamma^(H-1)") {
			t.Errorf("gamma = %v: method %q", p["gamma"], tr.Method)
		}
	}
}

// TestOptionsChainClosedFormGamma enumerates every behavior episode of a
// small options chain, discounts it (trajectory.Discounted) and estimates
// it with options-pdis: the exact mean and variance at n = 1 are the
// closed form's under gamma, gamma^(H-1) V and gamma^(2(H-1)) n Var.
func TestOptionsChainClosedFormGamma(t *testing.T) {
	spec, _ := Lookup("optionschain")
	p, _ := spec.Resolve(map[string]float64{"horizon": 6, "option_length": 2, "p_b": 0.6, "p_e": 0.3,
		"changed": 2, "inner_p_b": 0.4, "inner_p_e": 0.9, "gamma": 0.8})
	o := chainOptions(p)
	env, _ := chainmdp.New(o.H, false)
	est, err := estimators.New("options-pdis")
	if err != nil {
		t.Fatal(err)
	}
	var e enumerator
	var b trajectory.Batch
	var disc trajectory.Discounted
	m1, m2 := 0.0, 0.0
	for {
		b.Reset()
		o.Episode(env, &e, &b)
		x, err := est.Estimate(disc.Of(&b, 0.8))
		if err != nil {
			t.Fatal(err)
		}
		m1 += e.Prob() * x
		m2 += e.Prob() * x * x
		if !e.Next() {
			break
		}
	}
	cf, ok := spec.ClosedForm(p, ClassUnweighted, 1)
	g := math.Pow(0.8, 5) // gamma^(H-1), H = 6
	if !ok || math.Abs(cf.Mean-g*OptionsChainValue(o)) > 1e-15 || math.Abs(m1-cf.Mean) > 1e-12 {
		t.Errorf("exact E = %v, closed form %+v, gamma^(H-1) V = %v", m1, cf, g*OptionsChainValue(o))
	}
	if v := m2 - m1*m1; math.Abs(v-cf.Variance) > 1e-9*math.Max(1, v) || math.Abs(cf.Variance-g*g*OptionsChainVariance(o, 1)) > 1e-12 {
		t.Errorf("exact Var = %v, closed form %v", v, cf.Variance)
	}
}

// TestGammaParam: every domain of this file and the sub-episode MDP
// declares gamma in [0, 1] with default 1; New and Truth refuse gamma = 0
// (SPEC 1c: gamma in (0, 1]).
func TestGammaParam(t *testing.T) {
	for _, name := range []string{"chainmdp", "subepisode", "optionschain"} {
		spec, _ := Lookup(name)
		ps, ok := spec.Param("gamma")
		if !ok || ps.Kind != Float || ps.Default != 1 || ps.Min != 0 || ps.Max != 1 {
			t.Errorf("%s: gamma parameter %+v", name, ps)
		}
		const want = "gamma = 0, want a value in (0, 1]"
		if _, _, err := New(name, map[string]float64{"gamma": 0}); err == nil || err.Error() != want {
			t.Errorf("%s gamma = 0: New error %v, want %q", name, err, want)
		}
		p, _ := spec.Resolve(map[string]float64{"gamma": 0})
		if _, err := spec.Truth(p, nil); err == nil || err.Error() != want {
			t.Errorf("%s gamma = 0: Truth error %v, want %q", name, err, want)
		}
		if _, _, err := New(name, map[string]float64{"gamma": 0.5}); err != nil {
			t.Errorf("%s gamma = 0.5: %v", name, err)
		}
	}
}
