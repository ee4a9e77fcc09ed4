package external

import (
	"fmt"
	"strings"
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
	st   *state      // shared by the copies, under mu
	// replica marks a copy (Fresh): its requests are a bootstrap's
	replica bool
}

// state is what a Method and its copies know of their program's past:
// the label of the data they are asked about now (SetLabel), and the
// failure after which the program was gone, with the label then.
type state struct {
	label     string
	gone      error
	goneLabel string
}

// NewMethod returns the estimator that proc runs, on data files with
// columns cols. minN is the smallest n it is asked at (1 unless its
// program says otherwise).
func NewMethod(proc *Proc, cols logdata.Columns) *Method {
	return &Method{proc: proc, cols: cols, mu: new(sync.Mutex), st: new(state),
		caps: evaluate.Caps{Name: proc.x.Name, MinN: 1}}
}

// SetLabel names the data of the requests from now on (runexp estimate's
// candidate policy, "policy pe0.65"), for the errors of later requests
// once the program is gone.
func (m *Method) SetLabel(label string) {
	m.mu.Lock()
	m.st.label = label
	m.mu.Unlock()
}

// Caps names the estimator; it needs nothing beyond the data, reports no
// diagnostic, has no bound, and its workspace is its own process's.
func (m *Method) Caps() evaluate.Caps { return m.caps }

// Estimate asks the program for its estimates at every n of grid from
// in.Raw under in.Gamma. Once a failure has stopped the program (or it
// exited), later requests are not sent: their error names the first
// failure and the data it was on.
func (m *Method) Estimate(in evaluate.Input, grid []int, out evaluate.Out) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if st := m.st; st.gone != nil {
		return fmt.Errorf("estimator %s (external, %s): not asked: its program was stopped when it failed %s: %s",
			m.caps.Name, QuoteCommand(m.proc.x.Command), st.goneLabel, firstLine(st.gone))
	}
	if err := m.proc.estimateBatch(m.cols, in.Raw, grid, in.Gamma, out.Values); err != nil {
		if m.proc.gone() {
			m.st.gone, m.st.goneLabel = err, m.where()
		}
		return fmt.Errorf("estimator %s (external, %s): %w", m.caps.Name, QuoteCommand(m.proc.x.Command), err)
	}
	return nil
}

// where names the request being made, for a later request's error: on
// a bootstrap replicate (a copy's) or the data itself, of the label's
// data.
func (m *Method) where() string {
	w := "at an earlier request"
	if m.replica {
		w = "on a bootstrap replicate"
	}
	if m.st.label == "" {
		return w
	}
	if m.replica {
		return "on a bootstrap replicate of " + m.st.label
	}
	return "on " + m.st.label
}

// firstLine returns the first line of err's text.
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// Fresh returns a copy sharing the program (see Method).
func (m *Method) Fresh() (evaluate.Method, error) {
	c := *m
	c.replica = true
	return &c, nil
}
