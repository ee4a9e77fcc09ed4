package external

import (
	"fmt"
	"sync"

	"github.com/ope-lab/longhorizon/evaluate"
	"github.com/ope-lab/longhorizon/logdata"
)

// Method is an external estimator behind evaluate.Method: at each call it
// writes the data as collected or read (Input.Raw, undiscounted) to a
// temporary file in the logged-data format with the columns Columns, and
// asks its program for the estimates at every n of the grid under gamma.
//
// It is a Resampler: its copies (Fresh) share the one running program,
// whose requests take turns, so that a bootstrap reruns it on every
// replicate (one request each) without starting a program per worker.
// It has no per-trajectory terms, so no lower bound.
type Method struct {
	proc *Proc
	cols logdata.Columns
	caps evaluate.Caps
	mu   *sync.Mutex // shared by the copies: one request at a time
}

// NewMethod returns the estimator that proc runs, on data files with
// columns cols. minN is the smallest n it is asked at (1 unless its
// program says otherwise).
func NewMethod(proc *Proc, cols logdata.Columns) *Method {
	return &Method{proc: proc, cols: cols, mu: new(sync.Mutex),
		caps: evaluate.Caps{Name: proc.x.Name, MinN: 1}}
}

// Caps names the estimator; it needs nothing beyond the data, reports no
// diagnostic, has no bound, and its workspace is its own process's.
func (m *Method) Caps() evaluate.Caps { return m.caps }

// Estimate asks the program for its estimates at every n of grid from
// in.Raw under in.Gamma.
func (m *Method) Estimate(in evaluate.Input, grid []int, out evaluate.Out) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.proc.estimateBatch(m.cols, in.Raw, grid, in.Gamma, out.Values); err != nil {
		return fmt.Errorf("estimator %s (external, %s): %w", m.caps.Name, QuoteCommand(m.proc.x.Command), err)
	}
	return nil
}

// Fresh returns a copy sharing the program (see Method).
func (m *Method) Fresh() (evaluate.Method, error) {
	c := *m
	return &c, nil
}
