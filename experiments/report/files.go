package report

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/quantity"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/experiments/unit"
	"github.com/ope-lab/longhorizon/internal/atomicfile"
)

// Report is a finished run: its plan, every series' true value, and every
// table derived from the unit results.
type Report struct {
	Plan   *config.Plan
	Truths []domains.Truth
	Rows   []resultsdir.Row
	// Diagnostics holds one table per diagnostic the run's estimators
	// report (kstar.csv for INCRIS's k*).
	Diagnostics []resultsdir.DiagTable
	// Bounds summarises the lower bounds (bounds.csv), when some series
	// has bounds.
	Bounds []resultsdir.BoundRow
	// Stats holds the standard errors panels need (stats.csv); Panels and
	// Points the panels and their points (panels.csv); all three only
	// when the plan has panels.
	Stats  []resultsdir.StatsRow
	Panels []resultsdir.Panel
	Points []resultsdir.PanelPoint
	// Slopes are the log-log fits of the lines of the panels with slope:
	// true (slopes.csv).
	Slopes []resultsdir.SlopeRow
	Claims []ClaimSummary
	// Trials is every unit's estimate (trials.csv).
	Trials []resultsdir.TrialRow
	// Published compares the plan's published cells with the run
	// (published.csv), when it has some.
	Published []resultsdir.PublishedRow
}

// Build turns the results of every unit of p (in any order: a run's, a
// resumed run's, or merged shards') and the series' true values into a
// report: curve rows, diagnostics, bounds, claims and, with panels, their
// points and closed forms.
func Build(p *config.Plan, results []unit.Result, truths []domains.Truth) (*Report, error) {
	rows, err := Aggregate(p, results, truths)
	if err != nil {
		return nil, err
	}
	diags, err := AggregateDiagnostics(p, results)
	if err != nil {
		return nil, err
	}
	bounds, err := AggregateBounds(p, results, truths)
	if err != nil {
		return nil, err
	}
	trials, err := TrialEstimates(p, results)
	if err != nil {
		return nil, err
	}
	published, err := Published(p, results, truths)
	if err != nil {
		return nil, err
	}
	rep := &Report{Plan: p, Truths: truths, Rows: rows, Diagnostics: diags, Bounds: bounds, Trials: trials,
		Claims: CheckClaims(p, rows, bounds, trials), Published: published}
	if len(p.Plot.Panels) > 0 {
		if rep.Stats, err = AggregateStats(p, results); err != nil {
			return nil, err
		}
		if rep.Panels, rep.Points, err = BuildPanels(p, rows, rep.Stats, bounds, truths); err != nil {
			return nil, err
		}
		rep.Slopes = Slopes(p, rep.Panels)
	}
	return rep, nil
}

// RunInfo says how a run was made: the parts of meta.json that are not
// results. It holds nothing that changes from one run of a config to the
// next on one machine (no clock time, no git revision, no worker count),
// so that rerunning a committed target leaves its files unchanged.
type RunInfo struct {
	// GoVersion is the Go toolchain's version (runtime.Version): a
	// different toolchain may round differently.
	GoVersion string
}

// Write stores the report's data files in dir (created if missing), all
// or none (atomicfile.WriteAll): see Files.
func (r *Report) Write(dir string, info RunInfo) error {
	files, err := r.Files(info)
	if err != nil {
		return err
	}
	return atomicfile.WriteAll(dir, files)
}

// Outputs returns the names of the data files a whole run of plan p
// writes into its results directory, in the order Files renders them:
// curve.csv, trials.csv, series.csv, one file per diagnostic of the
// plan's estimators, bounds.csv (with bounds), stats.csv, panels.csv,
// closedform.csv and slopes.csv (with panels that ask for them),
// claims.csv and claims.md (with claims), and meta.json. The figure's
// files are the figure package's. A run checks them all before its first
// unit (a directory in the way is bad input found then, not after the
// run).
func Outputs(p *config.Plan) []string {
	var out []string
	for _, o := range outputs(p) {
		out = append(out, o.name)
	}
	return out
}

// output is one data file of a run: its name, and for a diagnostic's
// table the diagnostic.
type output struct {
	name       string
	diag, axis string // a diagnostic's name and index
}

// outputs lists the data files of a run of p (Outputs).
func outputs(p *config.Plan) []output {
	out := []output{{name: resultsdir.CurveFile}}
	if !p.NoTrialsFile {
		out = append(out, output{name: resultsdir.TrialsFile})
	}
	out = append(out, output{name: resultsdir.SeriesFile})
	seen := map[string]bool{}
	for _, rs := range p.Series {
		for _, name := range rs.Estimators {
			info, _ := rs.Info(name)
			for _, d := range info.Diagnostics {
				if !seen[d.Name] {
					seen[d.Name] = true
					out = append(out, output{name: d.Name + ".csv", diag: d.Name, axis: d.Index})
				}
			}
		}
	}
	panels := len(p.Plot.Panels) > 0
	for _, f := range []struct {
		name string
		when bool
	}{
		{resultsdir.BoundsFile, p.HasBounds()},
		{resultsdir.StatsFile, panels},
		{resultsdir.PanelsFile, panels},
		{resultsdir.ClosedFile, panels && drawsClosedForms(p)},
		{resultsdir.SlopesFile, panels && wantsSlopes(p)},
		{resultsdir.ClaimsFile, len(p.Claims) > 0},
		{resultsdir.ClaimsMD, len(p.Claims) > 0},
		{resultsdir.PublishedFile, p.Published != nil},
		{resultsdir.PublishedMD, p.Published != nil},
		{resultsdir.PublishedTeX, p.Published != nil},
		{resultsdir.MetaFile, true},
	} {
		if f.when {
			out = append(out, output{name: f.name})
		}
	}
	return out
}

// Files returns the report's data files (Outputs), whole, in memory. A
// caller adds the figure's files and writes them all at once.
func (r *Report) Files(info RunInfo) ([]atomicfile.File, error) {
	p := r.Plan
	diags := map[string]resultsdir.DiagTable{}
	for _, t := range r.Diagnostics {
		diags[t.Name] = t
	}
	meta := resultsdir.Meta{Config: p, GoVersion: info.GoVersion}
	for s, t := range r.Truths {
		meta.Truths = append(meta.Truths, resultsdir.SeriesMeta{Series: p.Series[s].Name, Truth: t})
	}
	fills := map[string]func(io.Writer) error{
		resultsdir.CurveFile:     func(w io.Writer) error { return resultsdir.WriteCurveCSV(w, r.Rows) },
		resultsdir.TrialsFile:    func(w io.Writer) error { return resultsdir.WriteTrialsCSV(w, r.Trials) },
		resultsdir.SeriesFile:    func(w io.Writer) error { return resultsdir.WriteSeriesCSV(w, p) },
		resultsdir.BoundsFile:    func(w io.Writer) error { return resultsdir.WriteBoundsCSV(w, r.Bounds) },
		resultsdir.StatsFile:     func(w io.Writer) error { return resultsdir.WriteStatsCSV(w, r.Stats) },
		resultsdir.PanelsFile:    func(w io.Writer) error { return resultsdir.WritePanelsCSV(w, p, r.Points) },
		resultsdir.ClosedFile:    func(w io.Writer) error { return resultsdir.WriteClosedCSV(w, r.Panels) },
		resultsdir.SlopesFile:    func(w io.Writer) error { return resultsdir.WriteSlopesCSV(w, p, r.Slopes) },
		resultsdir.ClaimsFile:    func(w io.Writer) error { return resultsdir.WriteClaimsCSV(w, p, claimRows(r.Claims)) },
		resultsdir.ClaimsMD:      func(w io.Writer) error { return writeClaimsMD(w, p, r.Claims) },
		resultsdir.MetaFile:      func(w io.Writer) error { return resultsdir.WriteMeta(w, &meta) },
		resultsdir.PublishedFile: func(w io.Writer) error { return resultsdir.WritePublishedCSV(w, r.Published) },
		resultsdir.PublishedMD:   func(w io.Writer) error { return writePublishedMD(w, p, r.Published) },
		resultsdir.PublishedTeX:  func(w io.Writer) error { return writePublishedTeX(w, p, r.Published) },
	}
	var files []atomicfile.File
	for _, o := range outputs(p) {
		fill := fills[o.name]
		if o.diag != "" {
			t, ok := diags[o.diag]
			if !ok { // a report built without the units' diagnostics: no rows
				t = resultsdir.DiagTable{Name: o.diag, Index: o.axis}
			}
			fill = func(w io.Writer) error { return resultsdir.WriteDiagCSV(w, t) }
		}
		var buf bytes.Buffer
		if err := fill(&buf); err != nil {
			return nil, fmt.Errorf("%s: %w", o.name, err)
		}
		files = append(files, atomicfile.File{Name: o.name, Data: buf.Bytes()})
	}
	return files, nil
}

// drawsClosedForms reports whether some panel of p draws closed forms:
// then closedform.csv is written, and needed to redraw.
func drawsClosedForms(p *config.Plan) bool {
	return slices.ContainsFunc(p.Plot.Panels, func(pc config.Panel) bool { return pc.ClosedForm })
}

// Figure describes the report's figure.
func (r *Report) Figure() resultsdir.Figure {
	f := figureOf(r.Plan, r.Rows, r.Diagnostics, r.Panels)
	if r.Plan.Published != nil {
		f.Title, f.Published = publishedTitle(r.Plan), publishedFigure(r.Plan, r.Published)
	}
	return f
}

// figureOf describes the figure of a run from its plan and tables.
func figureOf(p *config.Plan, rows []resultsdir.Row, diags []resultsdir.DiagTable, panels []resultsdir.Panel) resultsdir.Figure {
	f := resultsdir.Figure{
		Title:  fmt.Sprintf("%s (%d trials)", p.Title, p.Trials),
		Rows:   rows,
		Labels: p.Plot.Labels,
		Dashed: p.Plot.Dashed,
	}
	if dp := p.Plot.Diagnostic; dp != nil && len(panels) == 0 {
		f.Diagnostic = resultsdir.DiagnosticPanel{Title: dp.Title, XLabel: dp.XLabel, YLabel: dp.YLabel, N: dp.N}
		for _, t := range diags {
			if t.Name != dp.Name {
				continue
			}
			for _, row := range t.Rows {
				if slices.Contains(dp.Estimators, row.Estimator) && slices.Contains(dp.N, row.N) {
					f.Diagnostic.Rows = append(f.Diagnostic.Rows, row)
				}
			}
		}
	}
	if len(panels) > 0 {
		f.Panels, f.Note = panels, PanelsNote
		for _, pc := range p.Plot.Panels {
			if pc.ClosedForm {
				f.Note += PanelsClosedNote
				break
			}
		}
		for _, q := range quantity.Table() {
			if q.Note != "" && slices.ContainsFunc(p.Plot.Panels, func(pc config.Panel) bool { return pc.Y == q.Name }) {
				f.Note += q.Note
			}
		}
		f.Note += "."
	}
	return f
}

// ReadFigure rebuilds the figure of the run stored in dir from its files
// alone: meta.json (the plan: titles, labels, panels), curve.csv, the
// diagnostic's file, published.csv with published cells, with panels
// stats.csv and closedform.csv, and with
// panels of bounds (lower_bound, coverage) bounds.csv. It returns the
// figure and the plan's name (the figure's file name).
func ReadFigure(dir string) (resultsdir.Figure, string, error) {
	meta, err := resultsdir.ReadMeta(dir)
	if err != nil {
		return resultsdir.Figure{}, "", err
	}
	p := meta.Config
	rows, err := resultsdir.ReadFile(filepath.Join(dir, resultsdir.CurveFile), resultsdir.ReadCurveCSV)
	if err != nil {
		return resultsdir.Figure{}, "", err
	}
	if err := resultsdir.CheckCurve(filepath.Join(dir, resultsdir.CurveFile), p, rows); err != nil {
		return resultsdir.Figure{}, "", err
	}
	var diags []resultsdir.DiagTable
	if dp := p.Plot.Diagnostic; dp != nil && len(p.Plot.Panels) == 0 {
		t, err := resultsdir.ReadFile(filepath.Join(dir, dp.Name+".csv"), func(r io.Reader, path string) (resultsdir.DiagTable, error) {
			return resultsdir.ReadDiagCSV(r, path, dp.Name, dp.Index)
		})
		if err != nil {
			return resultsdir.Figure{}, "", err
		}
		if err := resultsdir.CheckDiag(filepath.Join(dir, dp.Name+".csv"), p, t); err != nil {
			return resultsdir.Figure{}, "", err
		}
		diags = append(diags, t)
	}
	var panels []resultsdir.Panel
	if len(p.Plot.Panels) > 0 {
		stats, err := resultsdir.ReadFile(filepath.Join(dir, resultsdir.StatsFile), resultsdir.ReadStatsCSV)
		if err != nil {
			return resultsdir.Figure{}, "", err
		}
		closed := storedClosed{}
		if drawsClosedForms(p) {
			if closed, err = resultsdir.ReadFile(filepath.Join(dir, resultsdir.ClosedFile), resultsdir.ReadClosedCSV); err != nil {
				return resultsdir.Figure{}, "", err
			}
		}
		var bounds []resultsdir.BoundRow
		if slices.ContainsFunc(p.Plot.Panels, func(pc config.Panel) bool {
			q, ok := pc.Quantity()
			return ok && q.Source == quantity.Bounds
		}) {
			if bounds, err = resultsdir.ReadBounds(dir, meta); err != nil {
				return resultsdir.Figure{}, "", err
			}
		}
		var truths []domains.Truth
		if slices.ContainsFunc(p.Plot.Panels, func(pc config.Panel) bool { return pc.WeightReference }) {
			if truths, err = resultsdir.MetaTruths(meta); err != nil {
				return resultsdir.Figure{}, "", err
			}
		}
		if panels, _, err = buildPanels(p, rows, stats, closed, bounds, truths); err != nil {
			return resultsdir.Figure{}, "", err
		}
	}
	f := figureOf(p, rows, diags, panels)
	if p.Published != nil {
		pub, err := resultsdir.ReadPublished(dir, p)
		if err != nil {
			return resultsdir.Figure{}, "", err
		}
		f.Title, f.Published = publishedTitle(p), publishedFigure(p, pub)
	}
	return f, p.Name, nil
}

// PanelsNote is the note under the title of a figure with panels; when a
// panel draws closed forms, PanelsClosedNote follows it, and then the
// Note of every quantity (quantity.Table) a panel draws, e.g. for MSE
// ratios "; MSE ratios: no error bars".
const (
	PanelsNote       = "Points: simulated, with error bars of ±1 standard error over the trials"
	PanelsClosedNote = "; lines: closed forms"
)
