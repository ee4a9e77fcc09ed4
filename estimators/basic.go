package estimators

import (
	"github.com/ope-lab/longhorizon/trajectory"
)

// isEstimator is ordinary importance sampling (SPEC 1, `is`):
// (1/n) sum_i W^i_H G^i.
type isEstimator struct{ s sums }

func newIS() *isEstimator { return &isEstimator{} }

func (*isEstimator) Name() string { return "is" }

func (e *isEstimator) Estimate(b *trajectory.Batch) (float64, error) {
	b = e.s.view.of(b)
	if b.N() == 0 {
		return 0, ErrTooFew
	}
	e.s.accumulateTotals(b)
	return finite("is", e.s.is(b.N()))
}

// wisEstimator is weighted importance sampling (SPEC 1, `wis`):
// sum_i W^i_H G^i / sum_i W^i_H, 0/0 := 0.
type wisEstimator struct{ s sums }

func newWIS() *wisEstimator { return &wisEstimator{} }

func (*wisEstimator) Name() string { return "wis" }

func (e *wisEstimator) Estimate(b *trajectory.Batch) (float64, error) {
	b = e.s.view.of(b)
	if b.N() == 0 {
		return 0, ErrTooFew
	}
	e.s.accumulateTotals(b)
	return finite("wis", e.s.wis())
}

// pdisEstimator is per-decision importance sampling (SPEC 1, `pdis`),
// (1/n) sum_i sum_t W^i_t r^i_t, over the factors of kind; with restart it
// is partitioned PDIS (Theorem 4): the weights start again at 1 on the step
// after each split point, so PDIS(tau_1) + PDIS(tau_2) + ... is one sum.
type pdisEstimator struct {
	name    string
	kind    factorKind
	restart bool
	s       sums
}

func newPDIS(name string, kind factorKind, restart bool) *pdisEstimator {
	return &pdisEstimator{name: name, kind: kind, restart: restart}
}

func (e *pdisEstimator) Name() string { return e.name }

func (e *pdisEstimator) Estimate(b *trajectory.Batch) (float64, error) {
	b = e.s.view.of(b)
	if b.N() == 0 {
		return 0, ErrTooFew
	}
	e.s.accumulate(b, e.kind, e.restart)
	return finite(e.name, e.s.pdis())
}

// cwpdisEstimator is consistent weighted PDIS (Thomas 2015; SPEC 1,
// `cwpdis`): sum_t [sum_i W^i_t r^i_t / sum_i W^i_t], each step's
// normaliser over all n trajectories (ended ones with frozen weight).
type cwpdisEstimator struct{ s sums }

func newCWPDIS() *cwpdisEstimator { return &cwpdisEstimator{} }

func (*cwpdisEstimator) Name() string { return "cwpdis" }

func (e *cwpdisEstimator) Estimate(b *trajectory.Batch) (float64, error) {
	b = e.s.view.of(b)
	if b.N() == 0 {
		return 0, ErrTooFew
	}
	e.s.accumulate(b, primitiveFactors, false)
	total := 0.0
	for t := range e.s.num {
		total += e.s.cwpdisTerm(t)
	}
	return finite("cwpdis", total)
}

// EstimateGrid implements GridEstimator in one pass.
func (e *isEstimator) EstimateGrid(b *trajectory.Batch, grid []int, out []float64) error {
	b = e.s.view.of(b)
	return sumsGrid(e, &e.s, b, totalsOnly, false, grid, out, func(n, _ int) (float64, error) {
		return finite("is", e.s.is(n))
	})
}

// EstimateGrid implements GridEstimator in one pass.
func (e *wisEstimator) EstimateGrid(b *trajectory.Batch, grid []int, out []float64) error {
	b = e.s.view.of(b)
	return sumsGrid(e, &e.s, b, totalsOnly, false, grid, out, func(_, _ int) (float64, error) {
		return finite("wis", e.s.wis())
	})
}

// EstimateGrid implements GridEstimator in one pass.
func (e *pdisEstimator) EstimateGrid(b *trajectory.Batch, grid []int, out []float64) error {
	b = e.s.view.of(b)
	return sumsGrid(e, &e.s, b, e.kind, e.restart, grid, out, func(n, h int) (float64, error) {
		return finite(e.name, e.s.pdisAt(n, h))
	})
}

// EstimateGrid implements GridEstimator in one pass.
func (e *cwpdisEstimator) EstimateGrid(b *trajectory.Batch, grid []int, out []float64) error {
	b = e.s.view.of(b)
	return sumsGrid(e, &e.s, b, primitiveFactors, false, grid, out, func(_, h int) (float64, error) {
		return finite("cwpdis", e.s.cwpdisAt(h))
	})
}
