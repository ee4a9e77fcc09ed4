package run

import (
	"context"
	"reflect"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/unit"
)

func loadPlan(t *testing.T, path string) *config.Plan {
	t.Helper()
	p, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func runAll(t *testing.T, p *config.Plan, workers int) []unit.Result {
	t.Helper()
	res, err := RunUnits(context.Background(), p, Units(p), Options{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestWorkersDoNotChangeResults: the same plan and seed give identical unit
// results (estimates and diagnostics, bit for bit) with 1, 3 and 4 workers
// (SPEC 3), for nested and independent data.
func TestWorkersDoNotChangeResults(t *testing.T) {
	for _, data := range []string{"nested", "independent"} {
		p := loadPlan(t, "../testdata/small.yaml")
		p.Data = data
		one := runAll(t, p, 1)
		for _, w := range []int{3, 4} {
			if got := runAll(t, p, w); !reflect.DeepEqual(one, got) {
				t.Errorf("%s: -workers 1 and %d differ", data, w)
			}
		}
	}
}

// TestTaxiWorkersDoNotChangeResults: the same on NoisyTaxi, primitive and
// with options, where episodes have different lengths.
func TestTaxiWorkersDoNotChangeResults(t *testing.T) {
	p, err := config.Parse([]byte(`name: taxi
trials: 6
n: [5, 30]
series:
  - name: m1
    domain: noisytaxi
    params: {option_length: 1, mc_episodes: 1000}
    estimators: [pdis, partitioned-pdis, incris]
  - name: m3
    domain: noisytaxi
    params: {option_length: 3, mc_episodes: 0}
    estimators: [options-pdis]
`), "taxi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if one, four := runAll(t, p, 1), runAll(t, p, 4); !reflect.DeepEqual(one, four) {
		t.Error("-workers 1 and -workers 4 differ")
	}
}

// TestStreamDependsOnSeedSeriesTrial: a unit's stream is a function of
// the seed, the series' name and the trial only: the same for the same
// triple whatever the series' position, different when any changes.
func TestStreamDependsOnSeedSeriesTrial(t *testing.T) {
	p := loadPlan(t, "../testdata/small.yaml")
	first := func(p *config.Plan, u Unit) uint64 { return Stream(p, u).Uint64() }
	a := first(p, Unit{Series: 1, Trial: 3})
	if a != first(p, Unit{Series: 1, Trial: 3}) {
		t.Fatal("same unit, different streams")
	}
	q := *p
	q.Series = []config.Series{p.Series[1], p.Series[0]}
	if a != first(&q, Unit{Series: 0, Trial: 3}) {
		t.Error("moving a series changed its stream")
	}
	q.Seed++
	for _, other := range []uint64{first(p, Unit{Series: 0, Trial: 3}), first(p, Unit{Series: 1, Trial: 4}), first(&q, Unit{Series: 0, Trial: 3})} {
		if other == a {
			t.Error("a different series, trial or seed gave the same stream")
		}
	}
	res := runAll(t, p, 2)
	p.Seed++
	if reflect.DeepEqual(res, runAll(t, p, 2)) {
		t.Error("different seeds gave identical results")
	}
}

// TestPooledEstimatorsMatchFresh: a worker keeps its estimators across
// series (their workspaces sized by the largest horizon seen so far), and
// every unit's result is bit for bit that of a fresh worker: a workspace's
// history never leaks into an estimate. The series alternate long and short
// horizons, fixed and random lengths, so stale cells would show.
func TestPooledEstimatorsMatchFresh(t *testing.T) {
	p, err := config.Parse([]byte(`name: pool
trials: 2
n: [5, 40]
series:
  - name: long
    domain: chainmdp
    params: {horizon: 40, p_e: 0.9}
    estimators: [pdis, cwpdis, incris, incris-ld]
  - name: taxi
    domain: noisytaxi
    params: {option_length: 1, mc_episodes: 0}
    estimators: [incris-ld, incris, pdis]
  - name: short
    domain: chainmdp
    params: {horizon: 4, p_e: 0.9}
    estimators: [incris, incris-ld, cwpdis]
`), "pool.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pooled := newWorker(p, setupsOf(p))
	for _, u := range Units(p) {
		got, err := pooled.run(u)
		if err != nil {
			t.Fatal(err)
		}
		want, err := newWorker(p, setupsOf(p)).run(u)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("unit %+v: the pooled worker's result differs from a fresh worker's", u)
		}
	}
}
