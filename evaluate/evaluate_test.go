package evaluate

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// randomBatch is n trajectories of 1 to h steps with rewards in [0, 1),
// ratios in [0.5, 1.5) and model columns q_hat = v_hat = the remaining
// undiscounted return (any numbers would do: the estimators only read
// them).
func randomBatch(n, h int, seed uint64) *trajectory.Batch {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b trajectory.Batch
	for range n {
		l := 1 + rng.IntN(h)
		r := make([]float64, l)
		for t := range r {
			r[t] = rng.Float64()
		}
		for t := range r {
			g := 0.0
			for _, x := range r[t:] {
				g += x
			}
			b.Add(r[t], 0.5+rng.Float64())
			b.AddModel(g, g)
		}
		b.End()
	}
	return &b
}

func methods(t *testing.T, names ...string) []Method {
	t.Helper()
	var ms []Method
	for _, n := range names {
		m, err := Registry(n)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return ms
}

// TestEvaluateMatchesDirect: every value, diagnostic and bound of a
// nested evaluation equals a direct call on exactly the data of that
// grid point: the first n trajectories under gamma (estimators.Estimate,
// the bounds of package confidence on the estimator's own terms), bit for
// bit, whatever the workers.
func TestEvaluateMatchesDirect(t *testing.T) {
	b := randomBatch(60, 6, 3)
	grid := []int{5, 20, 60}
	names := []string{"is", "pdis", "wis", "incris", "dr", "magic"}
	for _, workers := range []int{1, 3} {
		req := Request{Methods: methods(t, names...), Gamma: 0.9, Model: Columns{}, Bounds: []string{"t", "hcope"}, Delta: 0.1, Lo: 0, Hi: 6, Workers: workers}
		ev, err := New(req)
		if err != nil {
			t.Fatal(err)
		}
		res := ev.NewResult(len(grid))
		if err := ev.Evaluate(b, grid, &res); err != nil {
			t.Fatal(err)
		}
		for j, n := range grid {
			pre := b.Prefix(n)
			var disc trajectory.Discounted
			view := disc.Of(&pre, 0.9)
			for m, name := range names {
				e, _ := estimators.New(name)
				want, err := e.Estimate(view)
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Values[m][j]; got != want {
					t.Errorf("workers %d, %s at n = %d: %v, want %v", workers, name, n, got, want)
				}
				if r, ok := e.(estimators.Reporter); ok {
					if got, want := res.Diagnostics[m][0][j], r.AppendDiagnostic(nil, 0); !slices.Equal(got, want) {
						t.Errorf("%s's diagnostic at n = %d: %v, want %v", name, n, got, want)
					}
				}
				info, _ := estimators.Lookup(name)
				for k, kind := range req.Bounds {
					if !slices.Contains(info.Bounds, kind) {
						if res.Bounds[m][k] != nil {
							t.Errorf("%s has no %s bound, got %v", name, kind, res.Bounds[m][k])
						}
						continue
					}
					want, err := directBound(e, kind, view, 0.1, 0, 6)
					if err != nil {
						t.Fatal(err)
					}
					if got := res.Bounds[m][k][j]; got != want {
						t.Errorf("%s's %s bound at n = %d: %v, want %v", name, kind, n, got, want)
					}
				}
			}
		}
	}
}

// directBound is SPEC 1e's bound kind from estimator e's own
// per-trajectory values on b: the t bound of its terms, or g_lo + (g_hi -
// g_lo) L of HCOPE on its scaled returns.
func directBound(e estimators.Estimator, kind string, b *trajectory.Batch, delta, lo, hi float64) (float64, error) {
	switch kind {
	case confidence.T:
		x, err := e.(estimators.Termer).Terms(b, nil)
		return confidence.TLower(x, delta), err
	case confidence.HCOPE:
		x, err := e.(estimators.ScaledReturner).ScaledReturns(b, lo, hi, nil)
		l, _ := confidence.HCOPELower(x, delta, nil)
		return lo + (hi-lo)*l, err
	}
	return 0, errors.New("unknown bound " + kind)
}

// failing is a Method that always fails: one more implementation of the
// interface, with no branch for it in the evaluator.
type failing struct{ err error }

func (f failing) Caps() Caps { return Caps{Name: "failing", MinN: 1} }
func (f failing) Estimate(Input, []int, Out) error {
	return f.err
}

// TestEvaluateKeepGoing: without KeepGoing the first failure is returned,
// naming the n of a one-point grid; with it the failure is recorded and
// the other methods still computed.
func TestEvaluateKeepGoing(t *testing.T) {
	b := randomBatch(10, 4, 5)
	boom := errors.New("boom")
	ms := append(methods(t, "pdis"), failing{boom})
	ev, err := New(Request{Methods: ms})
	if err != nil {
		t.Fatal(err)
	}
	one := ev.NewResult(1)
	err = ev.Evaluate(b, []int{10}, &one)
	if !errors.Is(err, boom) || err.Error() != "n = 10: boom" {
		t.Errorf("error %v, want n = 10: boom", err)
	}
	ev, _ = New(Request{Methods: ms, KeepGoing: true})
	res := ev.NewResult(1)
	if err := ev.Evaluate(b, []int{10}, &res); err != nil {
		t.Fatal(err)
	}
	pdis, _ := estimators.NewPDIS().Estimate(b)
	if res.Values[0][0] != pdis || !errors.Is(res.Errs[1], boom) || res.Errs[0] != nil {
		t.Errorf("values %v, errors %v; want pdis %v and the failure recorded", res.Values, res.Errs, pdis)
	}
}

// TestEvaluateRefuses: a request the evaluator cannot serve.
func TestEvaluateRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  Request
	}{
		{"gamma above 1", Request{Methods: methods(t, "is"), Gamma: 1.5}},
		{"a model needed, none given", Request{Methods: methods(t, "dr")}},
		{"an unknown bound", Request{Methods: methods(t, "is"), Bounds: []string{"nope"}, Delta: 0.1}},
		{"delta 0", Request{Methods: methods(t, "is"), Bounds: []string{"t"}}},
	} {
		if _, err := New(tc.req); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestEvaluateRangeError: a return outside the bounds' range is bad
// input, a *RangeError naming the range.
func TestEvaluateRangeError(t *testing.T) {
	b := randomBatch(10, 4, 7)
	ev, err := New(Request{Methods: methods(t, "is"), Bounds: []string{"hcope"}, Delta: 0.1, Lo: 0, Hi: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	one := ev.NewResult(1)
	err = ev.Evaluate(b, []int{10}, &one)
	var re *RangeError
	if !errors.As(err, &re) || re.Hi != 0.01 || !errors.Is(err, estimators.ErrOutOfRange) {
		t.Errorf("error %v, want a RangeError with the range [0, 0.01]", err)
	}
}

// TestEvaluateFitted: a fitted model is applied at each n on exactly the
// first n trajectories (the same as fitting them by hand).
func TestEvaluateFitted(t *testing.T) {
	// two observations, two actions; pi_e uniform
	rng := rand.New(rand.NewPCG(9, 9))
	var b trajectory.Batch
	for range 40 {
		for s := range 3 {
			a := int32(rng.IntN(2))
			b.Add(float64(a), 2*float64(a)) // ratio 0 or 2: the fit reads only rewards and ids
			b.AddIDs(int32(s%2), a)
		}
		b.End()
	}
	kind, _ := models.Lookup("fitted")
	fitted := ModelOf(kind, spaceForTest())
	ev, err := New(Request{Methods: methods(t, "dm", "wdr"), Model: fitted})
	if err != nil {
		t.Fatal(err)
	}
	grid := []int{10, 40}
	res := ev.NewResult(2)
	if err := ev.Evaluate(&b, grid, &res); err != nil {
		t.Fatal(err)
	}
	for j, n := range grid {
		pre := b.Prefix(n)
		var f models.Fitter
		if err := f.Fit(&pre, spaceForTest(), 1); err != nil {
			t.Fatal(err)
		}
		for m, name := range []string{"dm", "wdr"} {
			e, _ := estimators.New(name)
			want, err := e.Estimate(&pre)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Values[m][j]; got != want {
				t.Errorf("%s at n = %d: %v, want %v (fitted on the first n)", name, n, got, want)
			}
		}
	}
}

// spaceForTest is two observations and two actions, pi_e uniform, three
// steps.
func spaceForTest() models.Space {
	return models.Space{Obs: 2, Actions: 2, Horizon: 3, PiE: func(_ int, dst []float64) { dst[0], dst[1] = 0.5, 0.5 }}
}
