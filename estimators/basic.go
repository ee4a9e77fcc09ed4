package estimators

import (
	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// IS is ordinary importance sampling (SPEC 1, key "is"):
//
//	IS = (1/n) sum_i W^i_H G^i,  G^i = sum_t r^i_t,
//
// with W^i_H the product of trajectory i's per-step factors.
type IS struct {
	view weights.View
	s    weights.Sums
}

// NewIS returns an IS estimator.
func NewIS() *IS { return &IS{} }

// Name returns "is".
func (*IS) Name() string { return "is" }

// Estimate returns the IS estimate from b.
func (e *IS) Estimate(b *trajectory.Batch) (float64, error) {
	b = e.view.Of(b)
	if b.N() == 0 {
		return 0, ErrTooFew
	}
	e.s.AccumulateTotals(b)
	return Finite("is", e.s.IS(b.N()))
}

// WIS is weighted importance sampling (SPEC 1, key "wis"):
//
//	WIS = sum_i W^i_H G^i / sum_i W^i_H   (0/0 := 0).
type WIS struct {
	view weights.View
	s    weights.Sums
}

// NewWIS returns a WIS estimator.
func NewWIS() *WIS { return &WIS{} }

// Name returns "wis".
func (*WIS) Name() string { return "wis" }

// Estimate returns the WIS estimate from b.
func (e *WIS) Estimate(b *trajectory.Batch) (float64, error) {
	b = e.view.Of(b)
	if b.N() == 0 {
		return 0, ErrTooFew
	}
	e.s.AccumulateTotals(b)
	return Finite("wis", e.s.WIS())
}

// PDIS is per-decision importance sampling (paper, eq. 1; SPEC 1):
//
//	PDIS = (1/n) sum_i sum_t W^i_t r^i_t.
//
// On options data the per-step factors make it options-PDIS (Theorem 3,
// eq. 3, with SPEC's per-decision reading inside changed options). With
// Partitioned set it is partitioned PDIS (Theorem 4): the weights start
// again at 1 on the step after each split point, so that
// PDIS(tau_1) + PDIS(tau_2) + ... is one sum.
type PDIS struct {
	// Partitioned restarts the weights after each split point.
	Partitioned bool
	name        string
	view        weights.View
	s           weights.Sums
}

// NewPDIS returns a PDIS estimator (key "pdis").
func NewPDIS() *PDIS { return &PDIS{name: "pdis"} }

// NewOptionsPDIS returns options-PDIS (paper, Theorem 3; key
// "options-pdis"): the same computation as PDIS, since every estimator
// weights by the batch's per-step factors, under the paper's name.
func NewOptionsPDIS() *PDIS { return &PDIS{name: "options-pdis"} }

// NewPartitionedPDIS returns partitioned PDIS (paper, Theorem 4; key
// "partitioned-pdis").
func NewPartitionedPDIS() *PDIS { return &PDIS{name: "partitioned-pdis", Partitioned: true} }

// Name returns the estimator's key.
func (e *PDIS) Name() string { return e.name }

// Estimate returns the estimate from b.
func (e *PDIS) Estimate(b *trajectory.Batch) (float64, error) {
	b = e.view.Of(b)
	if b.N() == 0 {
		return 0, ErrTooFew
	}
	e.s.Accumulate(b, e.Partitioned)
	return Finite(e.name, e.s.PDIS())
}

// CWPDIS is consistent weighted PDIS (Thomas 2015; SPEC 1, key "cwpdis"):
//
//	CWPDIS = sum_t [ sum_i W^i_t r^i_t / sum_i W^i_t ],
//
// each step's normaliser over all n trajectories (ended ones with their
// weight frozen at its final value), 0/0 := 0.
type CWPDIS struct {
	view weights.View
	s    weights.Sums
}

// NewCWPDIS returns a CWPDIS estimator.
func NewCWPDIS() *CWPDIS { return &CWPDIS{} }

// Name returns "cwpdis".
func (*CWPDIS) Name() string { return "cwpdis" }

// Estimate returns the CWPDIS estimate from b.
func (e *CWPDIS) Estimate(b *trajectory.Batch) (float64, error) {
	b = e.view.Of(b)
	if b.N() == 0 {
		return 0, ErrTooFew
	}
	e.s.Accumulate(b, false)
	return Finite("cwpdis", e.s.CWPDIS())
}

// EstimateGrid implements GridEstimator in one pass.
func (e *IS) EstimateGrid(b *trajectory.Batch, grid []int, out []float64) error {
	b = e.view.Of(b)
	return sumsGrid(e, &e.s, b, true, false, grid, out, func(n, _ int) (float64, error) {
		return Finite("is", e.s.IS(n))
	})
}

// EstimateGrid implements GridEstimator in one pass.
func (e *WIS) EstimateGrid(b *trajectory.Batch, grid []int, out []float64) error {
	b = e.view.Of(b)
	return sumsGrid(e, &e.s, b, true, false, grid, out, func(_, _ int) (float64, error) {
		return Finite("wis", e.s.WIS())
	})
}

// EstimateGrid implements GridEstimator in one pass.
func (e *PDIS) EstimateGrid(b *trajectory.Batch, grid []int, out []float64) error {
	b = e.view.Of(b)
	return sumsGrid(e, &e.s, b, false, e.Partitioned, grid, out, func(n, h int) (float64, error) {
		return Finite(e.name, e.s.PDISAt(n, h))
	})
}

// EstimateGrid implements GridEstimator in one pass.
func (e *CWPDIS) EstimateGrid(b *trajectory.Batch, grid []int, out []float64) error {
	b = e.view.Of(b)
	return sumsGrid(e, &e.s, b, false, false, grid, out, func(_, h int) (float64, error) {
		return Finite("cwpdis", e.s.CWPDISAt(h))
	})
}
