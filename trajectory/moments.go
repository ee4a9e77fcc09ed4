package trajectory

import (
	"fmt"
	"sync"
)

// StepMoments are exact moments of the kept products of a data source (a
// simulated domain that knows its dynamics): for every 1-based step
// t = 1..H and every k = 0..t (k = the number of most recent ratios kept,
// as INCRIS counts them, SPEC 1),
//
//	Mean(t, k)   = E_b[B_k gamma^(t-1) r_t]
//	Second(t, k) = E_b[(B_k gamma^(t-1) r_t)^2]
//
// with B_k = rho_{t-k+1} ... rho_t, under the behavior policy and the
// discount factor Gamma (SPEC 1c): the discount under which a consumer must
// see the batch (the harness discounts a series' batches by its domain's
// gamma, which is the one the domain computes these under). Mean(t, t) is
// E_e[gamma^(t-1) r_t], the true value's part at step t.
//
// The tables are built on first use (by the function given to
// NewStepMoments), at most once, safely from several goroutines: a batch
// carries a pointer to them at no cost, and only an estimator that reads
// them (incris-oracle) pays for the build. Logged data never carries them.
type StepMoments struct {
	// H is the largest step the tables cover; Gamma the discount factor.
	H     int
	Gamma float64

	once  sync.Once
	build func(mean, second []float64)
	// mean and second hold row t (k = 0..t) at [Row(t), Row(t)+t].
	mean, second []float64
}

// NewStepMoments returns the moments of horizon h under gamma, which
// build fills on first use: build gets two zeroed tables of
// MomentCells(h) entries and writes (t, k) at MomentIndex(t, k).
func NewStepMoments(h int, gamma float64, build func(mean, second []float64)) *StepMoments {
	return &StepMoments{H: h, Gamma: gamma, build: build}
}

// MomentCells returns the number of (t, k) cells for horizon h: rows
// t = 1..h of t+1 cells, h (h+3) / 2.
func MomentCells(h int) int { return h * (h + 3) / 2 }

// MomentIndex returns the index of cell (t, k), 1 <= t, 0 <= k <= t, in the
// tables: row t starts at (t-1)(t+2)/2.
func MomentIndex(t, k int) int { return (t-1)*(t+2)/2 + k }

// MomentBytes returns the bytes of the two tables of horizon h.
func MomentBytes(h int) float64 { return 16 * float64(MomentCells(h)) }

func (m *StepMoments) tables() {
	m.once.Do(func() {
		c := MomentCells(m.H)
		m.mean, m.second = make([]float64, c), make([]float64, c)
		m.build(m.mean, m.second)
	})
}

// Row returns the means and the second moments of row t: mean[k] and
// second[k] for k = 0..t (shared with m: do not modify). It panics unless
// 1 <= t <= H.
func (m *StepMoments) Row(t int) (mean, second []float64) {
	if t < 1 || t > m.H {
		panic(fmt.Sprintf("trajectory: moments of step %d, want 1..%d", t, m.H))
	}
	m.tables()
	lo := MomentIndex(t, 0)
	return m.mean[lo : lo+t+1], m.second[lo : lo+t+1]
}

// Mean returns E_b[B_k gamma^(t-1) r_t].
func (m *StepMoments) Mean(t, k int) float64 {
	mean, _ := m.Row(t)
	return mean[k]
}

// Second returns E_b[(B_k gamma^(t-1) r_t)^2].
func (m *StepMoments) Second(t, k int) float64 {
	_, second := m.Row(t)
	return second[k]
}
