package chainmdp

import (
	"fmt"
	"math"
	"strings"
	"testing"
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

// exactMoments enumerates every behavior trajectory of o and returns the
// exact E[X], Var(X) of one trajectory's options-PDIS term, the total
// probability and the number of trajectories.
func exactMoments(t *testing.T, o *OptionsChain) (mean, variance, total float64, count int) {
	t.Helper()
	var e Enumerator
	m1, m2 := 0.0, 0.0
	for {
		term := pdisTerm{w: 1}
		o.Episode(&e, &term)
		if term.steps != o.P.H {
			t.Fatalf("episode of %d steps, want H = %d", term.steps, o.P.H)
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

// TestOptionsChainEnumerated checks the closed forms of options.go by
// enumerating every behavior trajectory: options-PDIS is unbiased
// (E[X] = V(mu_e)) and n Var = E[X^2] - E[X]^2 equals
// OptionsPDISVariance(1) and, where stated, the corollaries' formulas
// written out independently: Corollary 1 p_e^{2H/J} (2^{H/J} - 1),
// Corollary 2 2^J - 1 (for every H), all changed 2^H - 1.
func TestOptionsChainEnumerated(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    OptionsParams
		want float64 // independent formula of n Var; NaN: none
	}{
		{"Cor1 J=2 H=6 p_e=1", OptionsParams{H: 6, J: 2, PB: 0.5, PE: 1}, 1 * (math.Pow(2, 3) - 1)},
		{"Cor1 J=3 H=9 p_e=0.8", OptionsParams{H: 9, J: 3, PB: 0.5, PE: 0.8}, math.Pow(0.8, 6) * (math.Pow(2, 3) - 1)},
		{"Cor1 J=1 H=5 p_e=0.9 (Theorem 1)", OptionsParams{H: 5, J: 1, PB: 0.5, PE: 0.9}, math.Pow(0.9, 10) * (math.Pow(2, 5) - 1)},
		{"Cor2 J=2 H=4", OptionsParams{H: 4, J: 2, PB: 1, PE: 1, Changed: 1, InnerPB: 0.5, InnerPE: 1}, 3},
		{"Cor2 J=2 H=10", OptionsParams{H: 10, J: 2, PB: 1, PE: 1, Changed: 1, InnerPB: 0.5, InnerPE: 1}, 3},
		{"Cor2 J=3 H=3", OptionsParams{H: 3, J: 3, PB: 1, PE: 1, Changed: 1, InnerPB: 0.5, InnerPE: 1}, 7},
		{"Cor2 J=3 H=12", OptionsParams{H: 12, J: 3, PB: 1, PE: 1, Changed: 1, InnerPB: 0.5, InnerPE: 1}, 7},
		{"all changed J=3 H=9", OptionsParams{H: 9, J: 3, PB: 1, PE: 1, Changed: -1, InnerPB: 0.5, InnerPE: 1}, math.Pow(2, 9) - 1},
		{"general", OptionsParams{H: 8, J: 2, PB: 0.6, PE: 0.3, Changed: 2, InnerPB: 0.4, InnerPE: 0.9}, math.NaN()},
		{"mu_e = mu_b = 1/2, c = 1", OptionsParams{H: 6, J: 3, PB: 0.5, PE: 0.5, Changed: 1, InnerPB: 0.5, InnerPE: 0.75}, math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := NewOptions(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			mean, variance, total, count := exactMoments(t, o)
			if math.Abs(total-1) > 1e-12 {
				t.Errorf("probabilities of %d trajectories sum to %v", count, total)
			}
			if v := o.Value(); math.Abs(mean-v) > 1e-12*math.Max(1, v) {
				t.Errorf("E[options-PDIS] = %v, V(mu_e) = %v: biased", mean, v)
			}
			if cf := o.OptionsPDISVariance(1); math.Abs(variance-cf) > 1e-9*math.Max(1, cf) {
				t.Errorf("exact n Var = %v, OptionsPDISVariance = %v", variance, cf)
			}
			if !math.IsNaN(tc.want) && math.Abs(variance-tc.want) > 1e-9*math.Max(1, tc.want) {
				t.Errorf("exact n Var = %v, corollary's formula %v", variance, tc.want)
			}
		})
	}
}

// primitiveMoments enumerates the chain Env under a two-action behavior
// policy and returns the exact mean and variance of one trajectory's PDIS
// term.
func primitiveMoments(h int, pe, pb float64) (mean, variance float64) {
	var e Enumerator
	env, _ := New(h, false)
	m1, m2 := 0.0, 0.0
	for {
		env.Reset()
		w, x := 1.0, 0.0
		for done := false; !done; {
			a1 := choose(&e, pb)
			a := A2
			if a1 {
				a = A1
			}
			var r float64
			r, done = env.Step(a)
			w *= ratio(pe, pb, a1)
			x += w * r
		}
		pr := e.Prob()
		m1 += pr * x
		m2 += pr * x * x
		if !e.Next() {
			break
		}
	}
	return m1, m2 - m1*m1
}

// TestChainPDISVarianceEnumerated checks Theorem 1's closed form
// PDISVariance (SPEC 2.1) and V = p_e^H exactly, by enumerating all 2^H
// action sequences of the uniform behavior policy.
func TestChainPDISVarianceEnumerated(t *testing.T) {
	for _, tc := range []struct {
		h  int
		pe float64
	}{{1, 1}, {4, 1}, {7, 1}, {5, 0.9}, {6, 0.3}} {
		t.Run(fmt.Sprintf("H=%d,p_e=%v", tc.h, tc.pe), func(t *testing.T) {
			mean, variance := primitiveMoments(tc.h, tc.pe, 0.5)
			if v := Value(tc.h, tc.pe); math.Abs(mean-v) > 1e-12 {
				t.Errorf("E[PDIS] = %v, p_e^H = %v", mean, v)
			}
			if cf := PDISVariance(tc.h, tc.pe, 1); math.Abs(variance-cf) > 1e-9*math.Max(1, cf) {
				t.Errorf("exact Var = %v, closed form %v", variance, cf)
			}
		})
	}
}

func TestNewOptionsErrors(t *testing.T) {
	for _, tc := range []struct {
		p    OptionsParams
		want string
	}{
		{OptionsParams{H: 7, J: 2, PB: 0.5, PE: 1}, "not a multiple"},
		{OptionsParams{H: 6, J: 0, PB: 0.5, PE: 1}, "want both >= 1"},
		{OptionsParams{H: 6, J: 2, PB: 0.5, PE: 1, Changed: 4}, "want 0..3"},
		{OptionsParams{H: 6, J: 2, PB: 0, PE: 1}, "no support"},
		{OptionsParams{H: 6, J: 2, PB: 1.5, PE: 1}, "want a probability"},
		{OptionsParams{H: 6, J: 2, PB: 1, PE: 1, Changed: 1, InnerPB: 0, InnerPE: 1}, "no support"},
	} {
		if _, err := NewOptions(tc.p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.p, err, tc.want)
		}
	}
}
