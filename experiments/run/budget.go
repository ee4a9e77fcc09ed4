package run

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/evaluate"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/selection"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/membudget"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Need is the memory and work of a run, estimated from the plan before
// anything is allocated: Bytes is the peak resident memory it expects
// (the model of NeedOf), Parts what that is made of, and Steps counts
// the simulated steps (at most: every trajectory at its domain's
// longest).
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

// runtimeBytes is the resident memory of the process beside its heap:
// the binary, the Go runtime, goroutine stacks, the figure's fonts.
// Measured: `runexp help` peaks at 11.6 MB resident (12 MB with the
// config loaded), a run of experiments/testdata/small.yaml with 1 trial
// (27 units) at 24 MB, 10 of them the heap's (the figure's 1.35 million
// pixels, pixelBytes). Remeasured on 2026-11-29: `runexp help` at 17.4
// MB (the binary has grown to 38 MB, the Parquet reader among it), which
// put fig2's peak (42.5 MiB) above its stated 41.9.
const runtimeBytes = 20 << 20

// garbageShare is the garbage the heap holds beside its live parts, as a
// share of them: buffers a worker outgrew when a series needed more than
// the last, the checkpoint's encoding, the allocator's rounding (size
// classes up to 1/8). The collector (GOGC=100) lets garbage grow up to
// the live heap before it collects; measured on the committed configs
// (the live heap sampled at a forced collection every 20 to 300 ms, the
// peak resident memory of a run without: docs/operations.md), the peak
// resident memory less runtimeBytes is 0.76 to 1.23 times the sum of the
// live parts at their peaks, so a quarter more keeps the need above it
// without doubling it.
const garbageShare = 0.25

// unitOverhead bounds the fixed bytes of one unit's result (slice headers,
// the result struct, the unit list and map entries of a resume).
const unitOverhead = 256

// NeedOf returns what running the units of shard s of plan p on
// workers goroutines (<= 0: one) needs: the peak resident memory
//
//	runtimeBytes + (1 + garbageShare) x (workers + results + report)
//
// of three live heaps. While the workers run, each holds the data set of
// its largest series (dataBytes: the domain's recorded columns at the
// steps its trajectories really take, measured on a pilot draw when the
// config was validated, domains.Lengths) and what its evaluation takes
// beside it, kept from series to series at the largest any of them
// needs (workerNeed: evaluate.NeedOf at the data's shape, estimators.
// Shape: the estimators' workspaces, the model, the bounds, the data
// under gamma). The results of all units are kept until the report is
// built. The report's tables and files and the figure's canvas
// (reportPart) come last, when the workers' memory is garbage; but the
// collector frees it only once the heap has grown to twice what it last
// found live, so the report's memory adds to the workers' rather than
// replacing it: measured, the peak is about the sum (0.76 to 1.23 times
// it), not the larger of the two phases (long, whose workers hold 560 MiB
// live, peaks 40 MiB above them with a figure of 14).
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
	var w workerNeed
	results := float64(len(p.Series)*p.Trials) * 16 // the unit list
	for i, st := range setupsOf(p) {
		rs := &p.Series[i]
		h := float64(rs.Spec().MaxSteps(rs.Params))
		need.Steps += float64(p.Trials) / float64(max(s.Count, 1)) * perRun * h
		w.add(p, rs, &st, nmax)
		owned := 0
		for t := range p.Trials {
			if s.Owns(i*p.Trials + t) {
				owned++
			}
		}
		results += float64(owned) * (unitBytes(p, rs, h) + boundBytes(rs, len(p.N)))
	}
	worker := w.part(p, nmax)
	wk := float64(max(1, min(workers, units)))
	worker.Bytes *= wk
	worker.What = fmt.Sprintf("%.0f workers × (%s)", wk, worker.What)
	with := "diagnostics"
	if p.HasBounds() {
		with = "diagnostics and bounds"
	}
	all := NeedPart{What: fmt.Sprintf("the results of %d units (every estimate at each of %d sizes, with %s)", units, len(p.N), with),
		Fields: "trials, the n grid, the estimators", Bytes: results}
	rep := reportPart(p, units)
	live := worker.Bytes + all.Bytes + rep.Bytes
	base := NeedPart{What: fmt.Sprintf("the runtime, and the heap's garbage (%.0f%% of the rest)", 100*garbageShare),
		Fields: "nothing (fixed, and in proportion to the rest)", Bytes: runtimeBytes + garbageShare*live}
	need.Parts = []NeedPart{worker, all, rep, base}
	need.Bytes = runtimeBytes + (1+garbageShare)*live
	return need
}

// workerNeed is what a worker holds at its peak: what it keeps from
// series to series at the largest size any of them needs. Its batch, its
// model (a learned kind's, evaluate.Fitted), its evaluator's views, and
// each estimator's workspace (the worker keeps its estimators by name)
// are reused by the next series and grow to the largest; so the peak is
// at most the sum of these maxima, and at least the largest series' sum.
type workerNeed struct {
	data, model, views, bounds float64
	largest, base              string             // the series of the largest data set, its base name
	steps, h                   float64            // its steps and horizon
	work                       map[string]float64 // estimator -> its largest workspace
}

// add takes series rs (setup st) into w, at data sets of n trajectories.
func (w *workerNeed) add(p *config.Plan, rs *config.Series, st *setup, n float64) {
	sh := st.shape(p, rs, n, float64(rs.Spec().MaxSteps(rs.Params)))
	if d := st.dataBytes(rs, sh); d > w.data {
		w.data, w.largest, w.base, w.steps, w.h = d, rs.Name, rs.Base, sh.Steps, sh.H
	}
	for _, part := range st.need(rs, sh).Parts {
		switch part.By {
		case evaluate.ByModel:
			w.model = max(w.model, part.Bytes)
		case evaluate.ByGamma:
			w.views = max(w.views, part.Bytes)
		case evaluate.ByBounds:
			w.bounds = max(w.bounds, part.Bytes)
		}
	}
	if w.work == nil {
		w.work = map[string]float64{}
	}
	for _, c := range st.caps {
		if c.Memory != nil {
			w.work[c.Name] = max(w.work[c.Name], c.Memory(sh))
		}
	}
}

// part is one worker's NeedPart, naming the largest data set and
// workspace.
func (w *workerNeed) part(p *config.Plan, n float64) NeedPart {
	b := w.data + w.model + w.views + w.bounds
	big, bigBytes := "", 0.0
	for name, m := range w.work {
		b += m
		if m > bigBytes || m == bigBytes && name < big {
			big, bigBytes = name, m
		}
	}
	what := fmt.Sprintf("the data set of series %s, n_max = %.0f trajectories of about %.3g steps, the longest about %.0f (%s), with the estimators' workspaces (the largest %s, %s)",
		w.largest, n, w.steps, w.h, membudget.Format(w.data), big, membudget.Format(bigBytes))
	if w.model > 0 {
		what += fmt.Sprintf(", the model (%s)", membudget.Format(w.model))
	}
	return NeedPart{Bytes: b, What: what,
		Fields: fmt.Sprintf("n[%d], series %s's horizon parameters, the estimators", len(p.N)-1, w.base)}
}

// shape is the shape of series rs's data sets of n trajectories of at
// most h steps each (estimators.Shape): their steps and their longest as
// the pilot measured the domain's lengths (domains.Lengths.Steps,
// Horizon), the ids' sizes where the domain records ids, the n grid's
// points on nested data, whether they are options data with changed
// options, and whether they carry ids and probabilities.
func (st *setup) shape(p *config.Plan, rs *config.Series, n, h float64) estimators.Shape {
	sup := rs.Supply()
	sh := estimators.Shape{N: n, Steps: sup.Lengths.Steps(n, h), H: sup.Lengths.Horizon(n, h), Points: 1,
		Changed: sup.Options && sup.Changed, IDs: st.rec.ids && st.rec.probs}
	if p.Data == "nested" {
		sh.Points = float64(len(p.N))
	}
	if st.rec.ids {
		sh.Obs, sh.Actions = float64(sup.Obs), float64(sup.Actions)
	}
	return sh
}

// need is evaluate.NeedOf for series rs of setup st on data of shape sh:
// its estimators' capabilities, gamma, bounds and model (a learned kind's
// bound at the sizes of the domain's ids).
func (st *setup) need(rs *config.Series, sh estimators.Shape) evaluate.Need {
	req := st.req
	sup := rs.Supply()
	req.Model = st.model(func() models.Space {
		return models.Space{Obs: sup.Obs, Actions: sup.Actions, Horizon: sup.Horizon}
	}, &evaluate.Fitted{})
	return evaluate.NeedOf(req, st.caps, sh)
}

// growSlack is the capacity a worker's batch keeps beyond the steps of
// its largest data set when the domain cannot size it exactly: a domain
// grows its batch before it draws (NoisyTaxi to 24 steps a trajectory,
// the fixed-length domains to exactly their steps), and append grows a
// large slice by a quarter at a time beyond that. Fixed-length domains
// (the pilot's lengths without spread) are sized exactly.
const growSlack = 1.25

// dataBytes bounds a worker's batch for data of shape sh: rewards,
// ratios, option ratios and the changed and split flags
// (trajectory.BytesPerStep), the offsets, what the domain records beside
// them (recordedBytes), and growSlack where the lengths vary.
func (st *setup) dataBytes(rs *config.Series, sh estimators.Shape) float64 {
	per := trajectory.BytesPerStep + st.recordedPerStep(rs)
	b := per*sh.Steps + trajectory.BytesPerTrajectory*(sh.N+1)
	if rs.Supply().Lengths.SD > 0 || rs.Supply().Lengths.N == 0 {
		b *= growSlack
	}
	if f := rs.Spec().ExactModelBytes; st.rec.exact && f != nil {
		b += f(rs.Params)
	}
	return b
}

// recordedPerStep is what the domain records on every step beside
// rewards and ratios: observation and action ids (8 bytes), the exact
// model's columns (16), the action probabilities (16) and, on options
// data, the option structure (17).
func (st *setup) recordedPerStep(rs *config.Series) float64 {
	b := 0.0
	if st.rec.ids {
		b += 8
	}
	if st.rec.exact {
		b += 16
	}
	if st.rec.probs {
		b += 16
		if rs.Supply().Options {
			b += 17
		}
	}
	return b
}

// unitBytes bounds one unit's result of series rs (of trajectories of
// at most h steps) under plan p: an estimate per estimator and size, and
// each diagnostic per size as a vector of up to H values, H the longest
// trajectory of the unit's data set (domains.Lengths.Horizon): on nested
// data the evaluator gives every diagnostic at every size room for H
// values before it fills them (evaluate.Evaluator.Evaluate), whatever
// their length; 9 bytes a value, with the allocator's rounding (at most
// 1/8), and the slice headers.
func unitBytes(p *config.Plan, rs *config.Series, h float64) float64 {
	sizes := float64(len(p.N))
	hmax := rs.Supply().Lengths.Horizon(float64(p.NMax()), h)
	b := float64(unitOverhead)
	for _, name := range rs.Estimators {
		b += 8*sizes + 72
		if info, ok := rs.Info(name); ok {
			b += float64(len(info.Diagnostics)) * (sizes*(9*hmax+24) + 24)
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

// The figure's geometry (experiments/figure, at its 150 dots per inch):
// a grid of panels of 7 x 4.6 inches (plot.panels), else one panel of 7 x
// 5 inches, 12 x 5.4 with the diagnostic's beside it (legends under both), or with published
// cells one panel of 14 x 4.8 inches per table, stacked; a title and a
// note take at most headerInches more. TestFigurePixels checks it against the
// committed figures.
const (
	figureDPI               = 150
	cellWidth, cellHeight   = 7.0, 4.6
	cellGapX, cellGapY      = 22.0 / 72, 16.0 / 72
	figureMargin            = 2 * 8.0 / 72
	headerInches            = 0.75
	plainWidth, plainHeight = 7.0, 5.0
	diagWidth               = 12.0
	// diagLegends is the height the legends under the MSE and diagnostic
	// panels add: two rows of 11-point entries with their gap (fig4's
	// six estimators and four n: 809 pixels high, 59 more than 750).
	diagLegends            = 0.4
	publishedW, publishedH = 14.0, 4.8
)

// figurePixels returns the size in pixels of plan p's figure.
func figurePixels(p *config.Plan) (w, h float64) {
	if groups, ok := candidateGroups(p); ok {
		w, h = selection.FigureInches(groups)
		return math.Ceil(w * figureDPI), math.Ceil(h * figureDPI)
	}
	if p.Published != nil {
		rows := float64(len(p.Published.Tables()))
		w = publishedW + figureMargin
		h = rows*publishedH + (rows-1)*cellGapY + figureMargin + headerInches
		return math.Ceil(w * figureDPI), math.Ceil(h * figureDPI)
	}
	if k := len(p.Plot.Panels); k > 0 {
		cols := math.Ceil(math.Sqrt(float64(k)))
		rows := math.Ceil(float64(k) / cols)
		w = cols*cellWidth + (cols-1)*cellGapX + figureMargin
		h = rows*cellHeight + (rows-1)*cellGapY + figureMargin + headerInches
		return math.Ceil(w * figureDPI), math.Ceil(h * figureDPI)
	}
	w, h = plainWidth, plainHeight
	if p.Plot.Diagnostic != nil {
		w, h = diagWidth, plainHeight+diagLegends
	}
	return w * figureDPI, h * figureDPI
}

// pixelBytes is the figure's heap per pixel: the RGBA canvas (4 bytes)
// and the PNG encoder's buffers about as much again. Measured on the
// committed configs (1.4 to 9.9 million pixels): `runexp plot` peaks at
// a heap of 7.7 to 8.1 bytes a pixel (GODEBUG=gctrace=1, file reading
// included), and the live heap sampled while a run draws its figure grows
// by 3.6 to 8.
const pixelBytes = 8

// rowBytes is the report's memory per estimate of a unit (a row of
// trials.csv and its share of the aggregated tables), rendered in memory
// with every other file before any is written. Measured: the live heap
// grows by 80 to 150 bytes an estimate while the report is built
// (theory, baselines, beyond, suite).
const rowBytes = 100

// reportPart is the live heap of the report's phase: its tables and
// files, rendered in memory, and the figure's canvas.
func reportPart(p *config.Plan, units int) NeedPart {
	estimates := 0.0
	for _, rs := range p.Series {
		estimates += float64(len(rs.Estimators))
	}
	estimates *= float64(units) / float64(max(len(p.Series), 1)) * float64(len(p.N))
	w, h := figurePixels(p)
	return NeedPart{What: fmt.Sprintf("the report (%.3g estimates) and the figure (%.0f x %.0f pixels)", estimates, w, h),
		Fields: "plot.panels, trials, the n grid", Bytes: rowBytes*estimates + pixelBytes*w*h}
}

// candidateGroups returns the number of sets of candidates of p and true
// when every series has candidates: a selection run (runexp select),
// whose figure is package selection's.
func candidateGroups(p *config.Plan) (int, bool) {
	groups := 0
	for i, s := range p.Series {
		if s.Candidates == "" {
			return 0, false
		}
		if i == 0 || p.Series[i-1].Base != s.Base {
			groups++
		}
	}
	return groups, len(p.Series) > 0
}
