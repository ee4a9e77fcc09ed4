package run

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/unit"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// boundsPlan has bounds on a discounted chain (gamma = 0.9) with a model
// estimator (dr, fitted model) beside is, pdis and wis (which has no
// bound), on an undiscounted sub-episode MDP, and a series without bounds.
func boundsPlan(t *testing.T, data string) *config.Plan {
	t.Helper()
	p, err := config.Parse([]byte(`name: b
seed: 5
trials: 3
data: `+data+`
n: [5, 20]
delta: 0.1
series:
  - name: chain
    domain: chainmdp
    params: {horizon: 4, p_e: 0.9, gamma: 0.9}
    estimators: [is, pdis, wis, dr]
    bounds: [t, hcope]
    return_range: [0, 1]
  - name: sub
    domain: subepisode
    params: {subepisodes: 3}
    estimators: [pdis]
    bounds: [t]
  - name: plain
    domain: chainmdp
    estimators: [wis]
`), "b.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBoundsOnTheEstimatesData: every bound of a unit is
// estimators.LowerBound on exactly the data of the estimate at that n,
// rebuilt here from the unit's stream: the first n trajectories (nested)
// or the n drawn for that n (independent), discounted by the series'
// gamma, with the model fitted on them for dr (whose estimate on the
// rebuilt data is checked too). Bounds are nil where the estimator has no
// such bound, and for a series without bounds.
func TestBoundsOnTheEstimatesData(t *testing.T) {
	for _, data := range []string{"nested", "independent"} {
		t.Run(data, func(t *testing.T) {
			p := boundsPlan(t, data)
			for _, res := range runAll(t, p, 2) {
				rs := &p.Series[res.Series]
				if len(rs.Bounds) == 0 {
					if res.Bounds != nil {
						t.Errorf("series %s has no bounds, its unit has %v", rs.Name, res.Bounds)
					}
					continue
				}
				checkUnitBounds(t, p, res)
			}
		})
	}
}

func checkUnitBounds(t *testing.T, p *config.Plan, res unit.Result) {
	t.Helper()
	rs := &p.Series[res.Series]
	d, err := rs.Spec().New(rs.Params)
	if err != nil {
		t.Fatal(err)
	}
	var md domains.ModelDomain
	if rs.NeedsModel() {
		md = d.(domains.ModelDomain)
		md.Record(true, false)
	}
	gamma := 1.0
	if g, ok := rs.Params["gamma"]; ok {
		gamma = g
	}
	rng := Stream(p, Unit{Series: res.Series, Trial: res.Trial})
	var all trajectory.Batch
	if p.Data == "nested" {
		d.Collect(&all, p.NMax(), rng)
	}
	lo, hi, _ := rs.Range()
	for j, n := range p.N {
		var b trajectory.Batch
		if p.Data == "nested" {
			b = all.Prefix(n)
		} else {
			d.Collect(&b, n, rng)
		}
		var disc, discModel trajectory.Discounted
		view := disc.Of(&b, gamma)
		var modelView *trajectory.Batch
		if md != nil {
			mb := b
			mb.QHat, mb.VHat = nil, nil
			var fit models.Fitter
			if err := fit.Fit(&mb, md.Space(), gamma); err != nil {
				t.Fatal(err)
			}
			modelView = discModel.Of(&mb, gamma)
		}
		for e, est := range rs.Estimators {
			info, _ := estimators.Lookup(est)
			data := view
			if info.Needs&estimators.Model != 0 {
				data = modelView
				ev, _ := estimators.New(est)
				if v, err := ev.Estimate(data); err != nil || v != res.Estimates[e][j] {
					t.Fatalf("%s/%s trial %d, n = %d: estimate %v (%v) on the rebuilt data, the unit has %v", rs.Name, est, res.Trial, n, v, err, res.Estimates[e][j])
				}
			}
			if len(res.Bounds[e]) != len(rs.Bounds) {
				t.Fatalf("%s/%s: %d bound slots, want %d", rs.Name, est, len(res.Bounds[e]), len(rs.Bounds))
			}
			for k, kind := range rs.Bounds {
				got := res.Bounds[e][k]
				if !config.Supports(est, kind) {
					if got != nil {
						t.Errorf("%s/%s has no %s bound, the unit has %v", rs.Name, est, kind, got)
					}
					continue
				}
				want, err := directBound(est, kind, data, p.Delta, lo, hi)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(p.N) || math.Float64bits(got[j]) != math.Float64bits(want) {
					t.Errorf("%s/%s %s bound, trial %d, n = %d: %v, want %v (the bound on the estimate's data)", rs.Name, est, kind, res.Trial, n, got, want)
				}
			}
		}
	}
}

// TestBoundsWorkersDoNotChangeResults: unit results with bounds are
// identical bit for bit with 1 and 3 workers, nested and independent.
func TestBoundsWorkersDoNotChangeResults(t *testing.T) {
	for _, data := range []string{"nested", "independent"} {
		p := boundsPlan(t, data)
		if one, three := runAll(t, p, 1), runAll(t, p, 3); !reflect.DeepEqual(one, three) {
			t.Errorf("%s: -workers 1 and 3 differ", data)
		}
	}
}

// TestBoundOutOfRange: a return outside the series' return_range fails
// the unit with series, trial, n, estimator and bound in the message, as
// bad input (the config's fault).
func TestBoundOutOfRange(t *testing.T) {
	p := boundsPlan(t, "nested")
	p.Series[0].ReturnRange = []float64{0.5, 1} // a chain's return is 0 or 0.9^3
	_, err := RunUnits(context.Background(), p, Units(p)[:1], Options{Workers: 1})
	if err == nil || !inputerr.Is(err) {
		t.Fatalf("error %v, want bad input", err)
	}
	for _, want := range []string{"series chain, trial 0, n = 5: estimator is, bound hcope: ", "return_range [0.5, 1] must hold every return"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestBoundsCheckpoint: bounds go through a checkpoint unchanged; a line
// whose bounds do not fit its series is refused as bad input naming the
// file and line; a unit on two lines with different bounds is refused.
func TestBoundsCheckpoint(t *testing.T) {
	p := boundsPlan(t, "nested")
	lines := checkpointLines(t, p, Shard{})
	dir := t.TempDir()
	_, got, err := ReadCheckpoint(writeLines(t, dir, "c.jsonl", lines...))
	if err != nil {
		t.Fatal(err)
	}
	if want := runAll(t, p, 1); !reflect.DeepEqual(sorted(got), sorted(want)) {
		t.Error("results read back from the checkpoint differ from the run's")
	}
	chain, plain := lines[1], lines[7] // units (chain, 0), (plain, 0)
	set := func(line string, v any) string {
		var m map[string]any
		json.Unmarshal([]byte(line), &m)
		if v == nil {
			delete(m, "bounds")
		} else {
			m["bounds"] = v
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	x := []float64{0.5, 0.5}
	var cl checkpointLine
	json.Unmarshal([]byte(chain), &cl)
	cl.Bounds[0][1][1] += 1
	conflict, _ := json.Marshal(cl)
	for _, tc := range []struct{ name, line, want string }{
		{"bounds missing", set(chain, nil), "c.jsonl:2: unit (chain, trial 0): no bounds, but the series has bounds [t hcope]"},
		{"bounds on a series without", set(plain, [][][]float64{{x}}), "c.jsonl:2: unit (plain, trial 0): bounds, but the series has none"},
		{"too few estimators", set(chain, [][][]float64{{x, x}}), "c.jsonl:2: unit (chain, trial 0): bounds for 1 estimators, want 4"},
		{"a bound slot missing", set(chain, [][][]float64{{x}, {x, nil}, {nil, nil}, {x, nil}}), "estimator is has 1 bounds, want one slot per bound of the series (2)"},
		{"a bound of no estimator", set(chain, [][][]float64{{x, x}, {x, x}, {nil, nil}, {x, nil}}), "estimator pdis has bound hcope at 2 sizes, want 0"},
		{"a bound at one size", set(chain, [][][]float64{{x, x}, {x, nil}, {nil, nil}, {{1}, nil}}), "estimator dr has bound t at 1 sizes, want 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ReadCheckpoint(writeLines(t, t.TempDir(), "c.jsonl", lines[0], tc.line))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !inputerr.Is(err) {
				t.Errorf("error %v, want bad input containing %q", err, tc.want)
			}
		})
	}
	_, _, err = ReadCheckpoint(writeLines(t, t.TempDir(), "c.jsonl", lines[0], chain, string(conflict)))
	if err == nil || !strings.Contains(err.Error(), "c.jsonl:3: unit (chain, trial 0) is also on line 2, with different numbers") {
		t.Errorf("a unit with two different bounds: %v", err)
	}
}

// TestBoundsFingerprint: a plan without bounds keeps its fingerprint
// while the checkpoint format does (the literals were computed by the
// code of format 3, before the bounds fields were last touched), so its
// checkpoints resume; delta, bounds and the return range each change it.
func TestBoundsFingerprint(t *testing.T) {
	if got := Fingerprint(tinyPlan(t)); got != "ae254eca39d1c14cd14e00f22929c7b8" {
		t.Errorf("tiny plan: fingerprint %s, was ae254eca39d1c14cd14e00f22929c7b8", got)
	}
	if got := Fingerprint(loadPlan(t, "../testdata/small.yaml")); got != "b7584bd33f20e77837c2443041fbaa25" {
		t.Errorf("small.yaml: fingerprint %s, was b7584bd33f20e77837c2443041fbaa25", got)
	}
	p := boundsPlan(t, "nested")
	base := Fingerprint(p)
	for _, edit := range []func(q *config.Plan){
		func(q *config.Plan) { q.Delta = 0.05 },
		func(q *config.Plan) { q.Series[0].Bounds = []string{"t"} },
		func(q *config.Plan) { q.Series[0].ReturnRange = []float64{0, 2} },
	} {
		q := *p
		q.Series = append([]config.Series(nil), p.Series...)
		edit(&q)
		if Fingerprint(&q) == base {
			t.Errorf("fingerprint unchanged by an edit of delta, bounds or the range: %+v", q.Series[0])
		}
	}
}

// TestBoundsNeedMemory: a series' bounds count in a unit's result: 8 bytes
// per size for each (estimator, bound) pair it supports, plus a slot
// header per estimator and bound.
func TestBoundsNeedMemory(t *testing.T) {
	p := boundsPlan(t, "nested")
	// chain: 4 estimators x (24 + 2 x 24) slot bytes; pairs is/t,
	// is/hcope, pdis/t, dr/t: 4 x 8 x 2 sizes.
	if got, want := boundBytes(&p.Series[0], 2), 4*(24+2*24)+4*8*2.0; got != want {
		t.Errorf("chain: %v bytes, want %v", got, want)
	}
	if got := boundBytes(&p.Series[2], 2); got != 0 {
		t.Errorf("a series without bounds: %v bytes", got)
	}
	// A worker's bound workspace (evaluate.NeedOf): the terms and their
	// sorted copy, 16 bytes per trajectory, shared by every (estimator,
	// bound) pair, which reads the estimator's own instance; none
	// without bounds.
	sub := p.Series[1]
	need := func() float64 {
		st := setupOf(p, &sub)
		return st.need(&sub, estimators.Shape{N: 20, Steps: 20 * 6, H: 6}).Bytes
	}
	with := need()
	sub.Bounds = nil
	if got, want := with-need(), 16*20.0; got != want {
		t.Errorf("sub: the bounds take %v bytes, want %v", got, want)
	}
}

// TestBoundsAllocateOnlyResults: once warm, computing a unit's bounds
// allocates only the result's slices: with chain's bounds (is: t, hcope;
// pdis: t; dr: t; wis none), 1 (Bounds) + 4 (a slot list per estimator) +
// 4 (a vector per supported pair) = 9 allocations more per unit than the
// same series without bounds.
func TestBoundsAllocateOnlyResults(t *testing.T) {
	with := boundsPlan(t, "nested")
	without := boundsPlan(t, "nested")
	without.Delta = 0
	without.Series = append([]config.Series(nil), without.Series...)
	without.Series[0].Bounds, without.Series[0].ReturnRange = nil, nil
	allocs := func(p *config.Plan) float64 {
		w := newWorker(p, setupsOf(p))
		u := Unit{Series: 0, Trial: 1}
		if _, err := w.run(u); err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(20, func() { w.run(u) })
	}
	a, b := allocs(with), allocs(without)
	if a-b != 9 {
		t.Errorf("%v allocations per unit with bounds, %v without: %v more, want 9", a, b, a-b)
	}
}

// directBound is SPEC 1e's bound kind of registry estimator est from its
// own per-trajectory values on b (package confidence's arithmetic): the
// t bound of its terms, or g_lo + (g_hi - g_lo) L of HCOPE on its scaled
// returns.
func directBound(est, kind string, b *trajectory.Batch, delta, lo, hi float64) (float64, error) {
	e, err := estimators.New(est)
	if err != nil {
		return 0, err
	}
	if kind == confidence.HCOPE {
		x, err := e.(estimators.ScaledReturner).ScaledReturns(b, lo, hi, nil)
		l, _ := confidence.HCOPELower(x, delta, nil)
		return lo + (hi-lo)*l, err
	}
	x, err := e.(estimators.Termer).Terms(b, nil)
	return confidence.TLower(x, delta), err
}
