package run

import (
	"fmt"
	"strings"

	"github.com/ope-lab/longhorizon/evaluate"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/membudget"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Need is the memory and work of a run, estimated from the plan's sizes
// alone, before anything is allocated: Bytes bounds the live heap, Parts
// says what it is made of, and Steps counts the simulated steps (at most:
// every trajectory at its domain's longest).
type Need struct {
	Units int
	Steps float64
	Bytes float64
	Parts []NeedPart
}

// NeedPart is one term of Need.Bytes, with the config fields that set its
// size.
type NeedPart struct {
	What   string
	Fields string
	Bytes  float64
}

// baseBytes is the fixed part of every run's need: the Go runtime and the
// binary, the report's tables and the figure's canvases (a 4-panel figure
// renders a few 10 MiB of PNG and SVG), and the garbage collector's slack
// on them. Measured: `runexp run configs/theory.yaml` (8576 units of small
// data sets) peaks at 58 MiB resident.
const baseBytes = 64 << 20

// unitOverhead bounds the fixed bytes of one unit's result (slice headers,
// the result struct, the unit list and map entries of a resume).
const unitOverhead = 256

// NeedOf returns what running the units of shard s of plan p on
// workers goroutines (<= 0: one) needs. The largest term is usually a
// worker's data set, a batch of max(n) trajectories (trajectory.Size)
// with what its series' evaluation takes beside it (evaluate.NeedOf: the
// estimators' workspaces, the model, the bounds, the data under gamma),
// or the results of all units, kept until the report is built.
func NeedOf(p *config.Plan, workers int, s Shard) Need {
	units := 0
	for k := range len(p.Series) * p.Trials {
		if s.Owns(k) {
			units++
		}
	}
	nmax := float64(p.NMax())
	perRun := nmax // trajectories one unit draws
	if p.Data == "independent" {
		perRun = 0
		for _, n := range p.N {
			perRun += float64(n)
		}
	}
	var need Need
	need.Units = units
	var worker NeedPart
	var results float64
	for i, st := range setupsOf(p) {
		rs := &p.Series[i]
		h := float64(rs.Spec().MaxSteps(rs.Params))
		need.Steps += float64(p.Trials) / float64(max(s.Count, 1)) * perRun * h
		w := trajectory.Size(nmax, nmax*h) + st.recordedBytes(rs, nmax*h) + st.need(rs, nmax, h).Bytes
		if w > worker.Bytes {
			worker = NeedPart{Bytes: w, What: fmt.Sprintf("series %s: a data set of n_max = %.0f trajectories of up to H = %.0f steps, with the workspace of %s", rs.Name, nmax, h, strings.Join(rs.Estimators, ", ")),
				Fields: fmt.Sprintf("n[%d], series %s's horizon parameters, its estimators", len(p.N)-1, rs.Base)}
		}
		results = max(results, unitBytes(rs, len(p.N), h)+boundBytes(rs, len(p.N)))
	}
	wk := float64(max(1, min(workers, units)))
	worker.Bytes *= wk
	worker.What = fmt.Sprintf("%.0f workers × (%s)", wk, worker.What)
	with := "diagnostics"
	if p.HasBounds() {
		with = "diagnostics and bounds"
	}
	all := NeedPart{What: fmt.Sprintf("the results of %d units (every estimate at each of %d sizes, with %s)", units, len(p.N), with),
		Fields: "trials, the n grid, the estimators", Bytes: float64(len(p.Series)*p.Trials)*16 + float64(units)*results}
	base := NeedPart{What: "the runtime, the report and the figure", Fields: "nothing (a fixed allowance)", Bytes: baseBytes}
	need.Parts = []NeedPart{worker, all, base}
	need.Bytes = worker.Bytes + all.Bytes + base.Bytes
	return need
}

// need is evaluate.NeedOf for series rs of setup st at n trajectories of
// up to h steps: its estimators' capabilities, gamma, bounds and model
// (a learned kind's bound at the sizes of the domain's ids).
func (st *setup) need(rs *config.Series, n, h float64) evaluate.Need {
	req := st.req
	sup := rs.Supply()
	req.Model = st.model(func() models.Space {
		return models.Space{Obs: sup.Obs, Actions: sup.Actions, Horizon: sup.Horizon}
	}, &evaluate.Fitted{})
	return evaluate.NeedOf(req, st.caps, n, n*h, h)
}

// recordedBytes bounds what the domain records beside rewards and ratios
// over steps steps: observation and action ids (8 bytes a step), the
// exact model's columns (16 bytes a step) and tables, the action
// probabilities (16 bytes a step), each doubled for append's slack.
func (st *setup) recordedBytes(rs *config.Series, steps float64) float64 {
	b := 0.0
	if st.rec.ids {
		b += 2 * 8 * steps
	}
	if st.rec.exact {
		b += 2 * 16 * steps
		if f := rs.Spec().ExactModelBytes; f != nil {
			b += f(rs.Params)
		}
	}
	if st.rec.probs {
		b += 2 * 16 * steps
	}
	return b
}

// unitBytes bounds one unit's result of series rs: an estimate per
// estimator and size, and each diagnostic as a vector of up to h values
// per size.
func unitBytes(rs *config.Series, sizes int, h float64) float64 {
	b := float64(unitOverhead)
	for _, name := range rs.Estimators {
		b += 8*float64(sizes) + 24
		if info, ok := rs.Info(name); ok {
			b += float64(len(info.Diagnostics)) * float64(sizes) * (8*h + 24)
		}
	}
	return b
}

// boundBytes bounds the lower bounds in one unit's result of series rs: a
// slot per estimator and bound of the series, and a bound per size for
// each pair the estimator supports.
func boundBytes(rs *config.Series, sizes int) float64 {
	if len(rs.Bounds) == 0 {
		return 0
	}
	b := float64(len(rs.Estimators)) * (24 + 24*float64(len(rs.Bounds)))
	rs.BoundPairs(func(_, _ int) { b += 8 * float64(sizes) })
	return b
}

// String states the need in one line, for progress output.
func (n Need) String() string {
	return fmt.Sprintf("%d units, at most %.3g simulated steps, about %s of memory", n.Units, n.Steps, membudget.Format(n.Bytes))
}

// Check refuses a need above budget bytes with a bad-input error naming
// the largest part and the config fields that set its size.
func (n Need) Check(budget float64) error {
	if n.Bytes <= budget {
		return nil
	}
	big := n.Parts[0]
	for _, p := range n.Parts[1:] {
		if p.Bytes > big.Bytes {
			big = p
		}
	}
	return inputerr.Errorf("the run needs about %s of memory, above the budget of %s (-max-memory): %s takes %s; lower %s",
		membudget.Format(n.Bytes), membudget.Format(budget), big.What, membudget.Format(big.Bytes), big.Fields)
}
