package domains

import (
	"fmt"
	"math"
	"testing"

	"github.com/ope-lab/longhorizon/envs/chainmdp"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

// pdisTerm accumulates one trajectory's options-PDIS term
// sum_t W_t r_t, W_t = prod_{s<=t} optionRatio_s (changed_s ? rho_s : 1)
// (Theorem 3 with SPEC's per-decision reading), written out here
// independently of package estimators.
type pdisTerm struct {
	w, x  float64
	steps int
}

func (p *pdisTerm) AddOption(r, rho, optionRatio float64, changed bool) {
	p.w *= optionRatio
	if changed {
		p.w *= rho
	}
	p.x += p.w * r
	p.steps++
}
func (p *pdisTerm) MarkSplit() {}
func (p *pdisTerm) End()       {}

// exactMoments enumerates every behavior trajectory of o and returns the
// exact E[X], Var(X) of one trajectory's options-PDIS term, the total
// probability and the number of trajectories.
func exactMoments(t *testing.T, o policies.ChainOptions) (mean, variance, total float64, count int) {
	t.Helper()
	var e enumerator
	env, _ := chainmdp.New(o.H, false)
	m1, m2 := 0.0, 0.0
	for {
		term := pdisTerm{w: 1}
		o.Episode(env, &e, &term)
		if term.steps != o.H {
			t.Fatalf("episode of %d steps, want H = %d", term.steps, o.H)
		}
		pr := e.Prob()
		m1 += pr * term.x
		m2 += pr * term.x * term.x
		total += pr
		count++
		if !e.Next() {
			break
		}
	}
	return m1, m2 - m1*m1, total, count
}

// TestOptionsChainEnumerated checks the closed forms of optionschain.go by
// enumerating every behavior trajectory: options-PDIS is unbiased
// (E[X] = V(mu_e)) and n Var = E[X^2] - E[X]^2 equals
// OptionsChainVariance(1) and, where stated, the corollaries' formulas
// written out independently: Corollary 1 p_e^{2H/J} (2^{H/J} - 1),
// Corollary 2 2^J - 1 (for every H), all changed 2^H - 1.
func TestOptionsChainEnumerated(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    policies.ChainOptions
		want float64 // independent formula of n Var; NaN: none
	}{
		{"Cor1 J=2 H=6 p_e=1", policies.ChainOptions{H: 6, J: 2, PB: 0.5, PE: 1}, 1 * (math.Pow(2, 3) - 1)},
		{"Cor1 J=3 H=9 p_e=0.8", policies.ChainOptions{H: 9, J: 3, PB: 0.5, PE: 0.8}, math.Pow(0.8, 6) * (math.Pow(2, 3) - 1)},
		{"Cor1 J=1 H=5 p_e=0.9 (Theorem 1)", policies.ChainOptions{H: 5, J: 1, PB: 0.5, PE: 0.9}, math.Pow(0.9, 10) * (math.Pow(2, 5) - 1)},
		{"Cor2 J=2 H=4", policies.ChainOptions{H: 4, J: 2, PB: 1, PE: 1, Changed: 1, InnerPB: 0.5, InnerPE: 1}, 3},
		{"Cor2 J=2 H=10", policies.ChainOptions{H: 10, J: 2, PB: 1, PE: 1, Changed: 1, InnerPB: 0.5, InnerPE: 1}, 3},
		{"Cor2 J=3 H=3", policies.ChainOptions{H: 3, J: 3, PB: 1, PE: 1, Changed: 1, InnerPB: 0.5, InnerPE: 1}, 7},
		{"Cor2 J=3 H=12", policies.ChainOptions{H: 12, J: 3, PB: 1, PE: 1, Changed: 1, InnerPB: 0.5, InnerPE: 1}, 7},
		{"all changed J=3 H=9", policies.ChainOptions{H: 9, J: 3, PB: 1, PE: 1, Changed: -1, InnerPB: 0.5, InnerPE: 1}, math.Pow(2, 9) - 1},
		{"general", policies.ChainOptions{H: 8, J: 2, PB: 0.6, PE: 0.3, Changed: 2, InnerPB: 0.4, InnerPE: 0.9}, math.NaN()},
		{"mu_e = mu_b = 1/2, c = 1", policies.ChainOptions{H: 6, J: 3, PB: 0.5, PE: 0.5, Changed: 1, InnerPB: 0.5, InnerPE: 0.75}, math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.o.Validate(); err != nil {
				t.Fatal(err)
			}
			mean, variance, total, count := exactMoments(t, tc.o)
			if math.Abs(total-1) > 1e-12 {
				t.Errorf("probabilities of %d trajectories sum to %v", count, total)
			}
			if v := OptionsChainValue(tc.o); math.Abs(mean-v) > 1e-12*math.Max(1, v) {
				t.Errorf("E[options-PDIS] = %v, V(mu_e) = %v: biased", mean, v)
			}
			if cf := OptionsChainVariance(tc.o, 1); math.Abs(variance-cf) > 1e-9*math.Max(1, cf) {
				t.Errorf("exact n Var = %v, OptionsChainVariance = %v", variance, cf)
			}
			if !math.IsNaN(tc.want) && math.Abs(variance-tc.want) > 1e-9*math.Max(1, tc.want) {
				t.Errorf("exact n Var = %v, corollary's formula %v", variance, tc.want)
			}
		})
	}
}

// TestChainPDISVarianceEnumerated checks Theorem 1's closed form (SPEC
// 2.1) and V = p_e^H exactly, by enumerating all 2^H action sequences of
// the uniform behavior policy through the domain's own rollout.
func TestChainPDISVarianceEnumerated(t *testing.T) {
	for _, tc := range []struct {
		h  int
		pe float64
	}{{1, 1}, {4, 1}, {7, 1}, {5, 0.9}, {6, 0.3}} {
		t.Run(fmt.Sprintf("H=%d,p_e=%v", tc.h, tc.pe), func(t *testing.T) {
			// J = 1 options with mu = p: the primitive chain policy.
			o := policies.ChainOptions{H: tc.h, J: 1, PB: 0.5, PE: tc.pe}
			mean, variance, _, count := exactMoments(t, o)
			if count != 1<<tc.h {
				t.Errorf("%d trajectories, want 2^H = %d", count, 1<<tc.h)
			}
			p := Params{"horizon": float64(tc.h), "p_e": tc.pe, "p_b": 0.5}
			cf, ok := chainClosedForm(p, ClassUnweighted, 1)
			if !ok || math.Abs(mean-ChainValue(tc.h, tc.pe)) > 1e-12 || cf.Mean != ChainValue(tc.h, tc.pe) {
				t.Errorf("E[PDIS] = %v, p_e^H = %v, closed form %+v", mean, ChainValue(tc.h, tc.pe), cf)
			}
			// SPEC 2.1: n Var = p_e^{2H} (2^H - 1)
			want := math.Pow(tc.pe, 2*float64(tc.h)) * (math.Pow(2, float64(tc.h)) - 1)
			if math.Abs(variance-want) > 1e-9*math.Max(1, want) || math.Abs(cf.Variance-want) > 1e-9*math.Max(1, want) {
				t.Errorf("exact Var = %v, closed form %v, SPEC 2.1 %v", variance, cf.Variance, want)
			}
		})
	}
}

// TestOptionsPDISEnumeratedWithEstimator enumerates every behavior
// trajectory of small options chains, estimates each one-trajectory data
// set with every unweighted estimator of the registry (options-pdis and
// the others, which equal it here), and checks that the exact mean is V
// (unbiased) and the exact variance the domain's closed form at n = 1.
func TestOptionsPDISEnumeratedWithEstimator(t *testing.T) {
	spec, _ := Lookup("optionschain")
	for _, tc := range []map[string]float64{
		{"horizon": 6, "option_length": 2, "p_b": 0.5, "p_e": 1},                                                     // Corollary 1
		{"horizon": 9, "option_length": 3, "p_b": 0.5, "p_e": 0.8},                                                   // Corollary 1
		{"horizon": 9, "option_length": 3, "p_b": 1, "p_e": 1, "changed": 1, "inner_p_b": 0.5, "inner_p_e": 1},       // Corollary 2
		{"horizon": 8, "option_length": 2, "p_b": 0.6, "p_e": 0.3, "changed": 2, "inner_p_b": 0.4, "inner_p_e": 0.9}, // general
		{"horizon": 6, "option_length": 2, "p_b": 0.5, "p_e": 0.5, "changed": -1, "inner_p_b": 0.5, "inner_p_e": 0.7},
		{"horizon": 4, "option_length": 1, "p_b": 0.5, "p_e": 0.9},                                                    // J = 1: Theorem 1
		{"horizon": 6, "option_length": 3, "p_b": 0.5, "p_e": 0.5, "changed": 1, "inner_p_b": 0.5, "inner_p_e": 0.25}, // mu_e = mu_b
		{"horizon": 6, "option_length": 3, "p_b": 0.7, "p_e": 0.2, "changed": 1, "inner_p_b": 0.9, "inner_p_e": 0.1},  // rare reward
	} {
		p, err := spec.Resolve(tc)
		if err != nil {
			t.Fatal(err)
		}
		o := chainOptions(p)
		env, _ := chainmdp.New(o.H, false)
		for _, info := range estimators.All() {
			if string(info.Class) != ClassUnweighted || info.Needs != 0 {
				continue
			}
			t.Run(fmt.Sprint(info.Name, tc), func(t *testing.T) {
				est, _ := estimators.New(info.Name)
				var e enumerator
				var b trajectory.Batch
				m1, m2, total := 0.0, 0.0, 0.0
				for {
					b.Reset()
					o.Episode(env, &e, &b)
					x, err := est.Estimate(&b)
					if err != nil {
						t.Fatal(err)
					}
					pr := e.Prob()
					m1 += pr * x
					m2 += pr * x * x
					total += pr
					if !e.Next() {
						break
					}
				}
				cf, ok := spec.ClosedForm(p, string(info.Class), 1)
				if !ok {
					t.Fatal("no closed form")
				}
				if math.Abs(total-1) > 1e-12 {
					t.Errorf("probabilities sum to %v", total)
				}
				if math.Abs(m1-cf.Mean) > 1e-12 || cf.Bias != 0 {
					t.Errorf("E[%s] = %v, closed form V = %v (bias %v)", info.Name, m1, cf.Mean, cf.Bias)
				}
				if v := m2 - m1*m1; math.Abs(v-cf.Variance) > 1e-9*math.Max(1, v) {
					t.Errorf("Var(%s) = %v exactly, closed form %v", info.Name, v, cf.Variance)
				}
			})
		}
	}
}

// TestChainWISEnumerated checks Theorem 2's closed form exactly: it
// enumerates every data set of n chain trajectories (all (2^H)^n action
// sequences of the uniform behavior), estimates it with every
// self-normalized estimator of the registry (wis, cwpdis), and compares the
// exact mean and variance with E[WIS] = 1 - (1 - 2^-H)^n and
// Var = E (1 - E).
func TestChainWISEnumerated(t *testing.T) {
	spec, _ := Lookup("chainmdp")
	for _, tc := range []struct{ h, n int }{{2, 1}, {2, 3}, {3, 2}, {4, 2}} {
		p := spec.Defaults()
		p["horizon"], p["p_e"] = float64(tc.h), 1
		want := 1 - math.Pow(1-math.Pow(2, -float64(tc.h)), float64(tc.n)) // proof of Theorem 2
		for _, info := range estimators.All() {
			if string(info.Class) != ClassSelfNormalized || info.Needs != 0 {
				continue
			}
			est, _ := estimators.New(info.Name)
			cf, ok := spec.ClosedForm(p, string(info.Class), tc.n)
			if !ok || math.Abs(cf.Mean-want) > 1e-12 {
				t.Fatalf("H=%d n=%d %s: closed form %+v, want mean %v", tc.h, tc.n, info.Name, cf, want)
			}
			per := 1 << tc.h // action sequences per trajectory
			m1, m2 := 0.0, 0.0
			var b trajectory.Batch
			env, _ := chainmdp.New(tc.h, false)
			for code := 0; code < int(math.Pow(float64(per), float64(tc.n))); code++ {
				b.Reset()
				c := code
				for range tc.n {
					seq := c % per
					c /= per
					env.Reset()
					for s := 0; s < tc.h; s++ {
						a := (seq >> s) & 1 // 0 = a1, 1 = a2
						r, _ := env.Step(a)
						rho := 2.0 // p_e / p_b for a1
						if a == chainmdp.A2 {
							rho = 0
						}
						b.Add(r, rho)
					}
					b.End()
				}
				x, err := est.Estimate(&b)
				if err != nil {
					t.Fatal(err)
				}
				pr := math.Pow(float64(per), -float64(tc.n))
				m1 += pr * x
				m2 += pr * x * x
			}
			if math.Abs(m1-cf.Mean) > 1e-12 || math.Abs(m1-1-cf.Bias) > 1e-12 {
				t.Errorf("H=%d n=%d %s: exact E = %v, closed form %v (bias %v)", tc.h, tc.n, info.Name, m1, cf.Mean, cf.Bias)
			}
			if v := m2 - m1*m1; math.Abs(v-cf.Variance) > 1e-12 {
				t.Errorf("H=%d n=%d %s: exact Var = %v, closed form %v", tc.h, tc.n, info.Name, v, cf.Variance)
			}
		}
	}
}

// TestCorollary2ClosedFormFlatInH: with one changed option the closed form
// is n Var = 2^J - 1 = 7 (J = 3) for every H, while with every option
// changed it is 2^H - 1.
func TestCorollary2ClosedFormFlatInH(t *testing.T) {
	spec, _ := Lookup("optionschain")
	for _, h := range []int{3, 6, 15, 30, 300} {
		p := spec.Defaults()
		p["horizon"], p["option_length"], p["p_b"], p["p_e"], p["changed"] = float64(h), 3, 1, 1, 1
		cf, ok := spec.ClosedForm(p, ClassUnweighted, 10)
		if !ok || math.Abs(10*cf.Variance-7) > 1e-9 || cf.Bias != 0 || cf.Mean != 1 {
			t.Errorf("H = %d, one changed option: closed form %+v, want n Var = 7, unbiased, V = 1", h, cf)
		}
		p["changed"] = -1
		if h <= 30 {
			cf, _ = spec.ClosedForm(p, ClassUnweighted, 1)
			if want := math.Pow(2, float64(h)) - 1; math.Abs(cf.Variance-want) > 1e-9*want {
				t.Errorf("H = %d, all changed: n Var %v, want 2^H - 1 = %v", h, cf.Variance, want)
			}
		}
	}
}

// TestClassesMatchEstimators: the classes closed forms speak of are
// classes of the estimators registry, and every class of the registry but
// the adaptive one has a closed form on the chain.
func TestClassesMatchEstimators(t *testing.T) {
	for _, c := range []estimators.Class{estimators.Unweighted, estimators.SelfNormalized} {
		if _, ok := chainClosedForm(Params{"horizon": 3, "p_e": 1, "p_b": 0.5}, string(c), 4); !ok {
			t.Errorf("no chain closed form for class %q", c)
		}
	}
	if ClassUnweighted != string(estimators.Unweighted) || ClassSelfNormalized != string(estimators.SelfNormalized) {
		t.Error("domains and estimators name the classes differently")
	}
	if _, ok := chainClosedForm(Params{"horizon": 3, "p_e": 1, "p_b": 0.5}, string(estimators.Adaptive), 4); ok {
		t.Error("a closed form for adaptive estimators")
	}
}
