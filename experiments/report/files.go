package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/quantity"
	"github.com/ope-lab/longhorizon/experiments/unit"
	"github.com/ope-lab/longhorizon/internal/atomicfile"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// Report is a finished run: its plan, every series' true value, and every
// table derived from the unit results.
type Report struct {
	Plan   *config.Plan
	Truths []domains.Truth
	Rows   []Row
	// Diagnostics holds one table per diagnostic the run's estimators
	// report (kstar.csv for INCRIS's k*).
	Diagnostics []DiagTable
	// Bounds summarises the lower bounds (bounds.csv), when some series
	// has bounds.
	Bounds []BoundRow
	// Stats holds the standard errors panels need (stats.csv); Panels and
	// Points the panels and their points (panels.csv); all three only
	// when the plan has panels.
	Stats  []StatsRow
	Panels []Panel
	Points []PanelPoint
	// Slopes are the log-log fits of the lines of the panels with slope:
	// true (slopes.csv).
	Slopes []SlopeRow
	Claims []ClaimSummary
	// Trials is every unit's estimate (trials.csv).
	Trials []TrialRow
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
	rep := &Report{Plan: p, Truths: truths, Rows: rows, Diagnostics: diags, Bounds: bounds, Trials: trials,
		Claims: CheckClaims(p, rows, bounds, trials)}
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

// Meta is the content of meta.json: everything needed to know what a run
// computed and how, and to redraw its figure.
type Meta struct {
	Config      *config.Plan `json:"config"`
	Truths      []SeriesMeta `json:"truths"`
	GoVersion   string       `json:"go_version"`
	Revision    string       `json:"git_revision"`
	StartedUTC  string       `json:"started_utc"`
	WallSeconds float64      `json:"wall_seconds"`
	Workers     int          `json:"workers"`
}

// SeriesMeta records one series' true value and how it was obtained.
type SeriesMeta struct {
	Series string `json:"series"`
	domains.Truth
}

// RunInfo says how a run was made: the parts of meta.json that are not
// results.
type RunInfo struct {
	Revision string
	Workers  int
	Wall     time.Duration
}

// File names of a results directory.
const (
	CurveFile  = "curve.csv"
	SeriesFile = "series.csv"
	StatsFile  = "stats.csv"
	PanelsFile = "panels.csv"
	BoundsFile = "bounds.csv"
	ClosedFile = "closedform.csv"
	ClaimsFile = "claims.csv"
	ClaimsMD   = "claims.md"
	MetaFile   = "meta.json"
)

// Files lists every file a run may write, with when and what, for help
// texts and docs/reference.md.
var Files = []struct{ Name, When, Content string }{
	{CurveFile, "always", "`" + strings.Join(Header, ",") + "`: one row per series, estimator and n. Variance has denominator T (so mse = bias^2 + variance); `mse_se` is the sample sd of the T squared errors over sqrt(T). Floats in shortest round-trip form."},
	{TrialsFile, "always", "`" + strings.Join(TrialsHeader, ",") + "`: every unit's estimate, one row per series, estimator, n and trial in that order (the data behind curve.csv and the claims' bootstrap; floats in shortest round-trip form)"},
	{SeriesFile, "always", "one row per series: `" + strings.Join(SeriesHeader, ",") + "` and every domain parameter of the run's series as a column `" + ParamColumn + "<parameter>` (e.g. `" + ParamColumn + "horizon`; prefixed so that no parameter, such as drift's `base`, repeats a fixed column), empty for a series whose domain has no such parameter; joined with curve.csv on `series` it is a tidy table of a sweep"},
	{"<diagnostic>.csv", "when an estimator reports a diagnostic", "`series,estimator,n,<index>,mean_<diagnostic>`: the mean over trials (those whose vector reaches the index) of a diagnostic, e.g. `kstar.csv` with INCRIS's k* per step t"},
	{BoundsFile, "when a series has bounds", "`" + strings.Join(BoundsHeader, ",") + "`: one row per series, estimator, bound (of the series, that the estimator has) and n: the mean lower bound over the trials with its standard error (sd, denominator T - 1, over sqrt(T)); coverage, the fraction of trials whose bound is <= true_value, with its binomial standard error sqrt(c (1 - c) / T); vacuous, the fraction whose bound is <= g_lo (the series' return_range; empty for a series without one)"},
	{ClaimsFile + ", " + ClaimsMD, "when the config states claims", claimsFilesDoc},
	{StatsFile, "with plot.panels", "`" + strings.Join(StatsHeader, ",") + "`: standard errors of the bias and the variance of every curve row"},
	{PanelsFile, "with plot.panels", "`" + strings.Join(PanelsHeader, ",") + "`: every plotted point, with its closed form and deviation z in standard errors; the points of a weight reference (plot.panels[].weight_reference) are rows with an empty estimator, the reference's label, and empty se, closed_form and z, after the panel's points"},
	{SlopesFile, "with plot.panels that set slope: true", "`" + strings.Join(SlopesHeader, ",") + "`: per such panel and line, in the figure's order (a panel's weight references, with an empty estimator, last), the ordinary least-squares fit log10 y = intercept + slope log10 x over the line's points with x > 0 and finite y > 0 (`points` of them), whatever the axes' scales; `slope_se` is the OLS standard error sqrt(SSR / (points - 2) / Sxx), SSR the residual sum of squares and Sxx the sum of squared deviations of log10 x. `series` is what the line runs through: the series (x = n), the base series (x = H), the base series with its other swept values (x a parameter), empty for a line over several series (combine: max). `x`, `y`, `at_n` are the panel's (at_n empty with x = n). slope and intercept are empty with fewer than 2 points or a single x, slope_se with fewer than 3 (no residual degree of freedom). Floats in shortest round-trip form"},
	{ClosedFile, "with plot.panels that draw closed forms", "`" + strings.Join(ClosedHeader, ",") + "`: the closed-form lines as drawn, so that `runexp plot` needs no domain code"},
	{MetaFile, "always", "the resolved config (every default filled in), seed, Go version, git revision, wall time, true values and how each was obtained"},
	{"<name>.png, <name>.svg", "always", "the figure: MSE against n on log-log axes with ±1 standard-error bands (or the config's panels)"},
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

// Files returns the report's data files, whole, in memory: curve.csv,
// series.csv, one file per diagnostic, bounds.csv (with bounds), claims.csv
// and claims.md (with claims), stats.csv, panels.csv, closedform.csv and
// slopes.csv (with panels that ask for them) and meta.json. A caller adds the figure's files and writes them all at once.
func (r *Report) Files(info RunInfo) ([]atomicfile.File, error) {
	p := r.Plan
	var files []atomicfile.File
	add := func(name string, fill func(io.Writer) error) error {
		var buf bytes.Buffer
		if err := fill(&buf); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		files = append(files, atomicfile.File{Name: name, Data: buf.Bytes()})
		return nil
	}
	type file struct {
		name string
		fill func(io.Writer) error
		when bool
	}
	list := []file{
		{CurveFile, func(w io.Writer) error { return WriteCSV(w, r.Rows) }, true},
		{TrialsFile, func(w io.Writer) error { return WriteTrialsCSV(w, r.Trials) }, true},
		{SeriesFile, func(w io.Writer) error { return writeSeriesCSV(w, p) }, true},
	}
	for _, t := range r.Diagnostics {
		list = append(list, file{t.Name + ".csv", func(w io.Writer) error { return WriteDiagCSV(w, t) }, true})
	}
	panels := len(p.Plot.Panels) > 0
	list = append(list,
		file{BoundsFile, func(w io.Writer) error { return WriteBoundsCSV(w, r.Bounds) }, p.HasBounds()},
		file{StatsFile, func(w io.Writer) error { return WriteStatsCSV(w, r.Stats) }, panels},
		file{PanelsFile, func(w io.Writer) error { return WritePanelsCSV(w, p, r.Points) }, panels},
		file{ClosedFile, func(w io.Writer) error { return WriteClosedCSV(w, r.Panels) }, panels && drawsClosedForms(p)},
		file{SlopesFile, func(w io.Writer) error { return WriteSlopesCSV(w, p, r.Slopes) }, panels && wantsSlopes(p)},
		file{ClaimsFile, func(w io.Writer) error { return writeClaimsCSV(w, p, r.Claims) }, len(r.Claims) > 0},
		file{ClaimsMD, func(w io.Writer) error { return writeClaimsMD(w, p, r.Claims) }, len(r.Claims) > 0},
	)
	meta := Meta{Config: p, GoVersion: runtime.Version(), Revision: info.Revision,
		StartedUTC: time.Now().Add(-info.Wall).UTC().Format(time.RFC3339), WallSeconds: info.Wall.Seconds(), Workers: info.Workers}
	for s, t := range r.Truths {
		meta.Truths = append(meta.Truths, SeriesMeta{Series: p.Series[s].Name, Truth: t})
	}
	list = append(list, file{MetaFile, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(meta)
	}, true})
	for _, f := range list {
		if !f.when {
			continue
		}
		if err := add(f.name, f.fill); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// drawsClosedForms reports whether some panel of p draws closed forms:
// then closedform.csv is written, and needed to redraw.
func drawsClosedForms(p *config.Plan) bool {
	return slices.ContainsFunc(p.Plot.Panels, func(pc config.Panel) bool { return pc.ClosedForm })
}

// Figure describes the report's figure.
func (r *Report) Figure() Figure {
	return figureOf(r.Plan, r.Rows, r.Diagnostics, r.Panels)
}

// figureOf describes the figure of a run from its plan and tables.
func figureOf(p *config.Plan, rows []Row, diags []DiagTable, panels []Panel) Figure {
	f := Figure{
		Title:  fmt.Sprintf("%s (%d trials)", p.Title, p.Trials),
		Rows:   rows,
		Labels: p.Plot.Labels,
		Dashed: p.Plot.Dashed,
	}
	if dp := p.Plot.Diagnostic; dp != nil && len(panels) == 0 {
		f.Diagnostic = DiagnosticPanel{Title: dp.Title, XLabel: dp.XLabel, YLabel: dp.YLabel, N: dp.N}
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
		for _, q := range quantity.Table {
			if q.Note != "" && slices.ContainsFunc(p.Plot.Panels, func(pc config.Panel) bool { return pc.Y == q.Name }) {
				f.Note += q.Note
			}
		}
		f.Note += "."
	}
	return f
}

// maxMetaFile bounds meta.json read back.
const maxMetaFile = 16 << 20

// ReadMeta reads a results directory's meta.json and checks its plan
// (config.Plan.Check): everything read from it, the figure's file name
// included, is validated like a config. Its errors are bad input, except
// failures to read an existing file.
func ReadMeta(dir string) (*Meta, error) {
	path := filepath.Join(dir, MetaFile)
	data, err := readFile(path, func(r io.Reader, path string) ([]byte, error) {
		data, err := io.ReadAll(io.LimitReader(r, maxMetaFile+1))
		if err == nil && len(data) > maxMetaFile {
			err = inputerr.Errorf("%s: larger than %d bytes", path, maxMetaFile)
		}
		return data, err
	})
	if err != nil {
		return nil, err
	}
	var meta Meta
	if err := json.Unmarshal(data, &meta); err != nil {
		return nil, inputerr.Errorf("%s: %w", path, err)
	}
	if meta.Config == nil || meta.Config.Name == "" {
		return nil, inputerr.Errorf("%s: no config recorded", path)
	}
	if err := meta.Config.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &meta, nil
}

// ReadFigure rebuilds the figure of the run stored in dir from its files
// alone: meta.json (the plan: titles, labels, panels), curve.csv, the
// diagnostic's file, with panels stats.csv and closedform.csv, and with
// panels of bounds (lower_bound, coverage) bounds.csv. It returns the
// figure and the plan's name (the figure's file name).
func ReadFigure(dir string) (Figure, string, error) {
	meta, err := ReadMeta(dir)
	if err != nil {
		return Figure{}, "", err
	}
	p := meta.Config
	rows, err := readFile(filepath.Join(dir, CurveFile), ReadCSV)
	if err != nil {
		return Figure{}, "", err
	}
	if err := checkRows(filepath.Join(dir, CurveFile), p, rows); err != nil {
		return Figure{}, "", err
	}
	var diags []DiagTable
	if dp := p.Plot.Diagnostic; dp != nil && len(p.Plot.Panels) == 0 {
		t, err := readFile(filepath.Join(dir, dp.Name+".csv"), func(r io.Reader, path string) (DiagTable, error) {
			return ReadDiagCSV(r, path, dp.Name, dp.Index)
		})
		if err != nil {
			return Figure{}, "", err
		}
		if err := checkDiagRows(filepath.Join(dir, dp.Name+".csv"), p, t); err != nil {
			return Figure{}, "", err
		}
		diags = append(diags, t)
	}
	var panels []Panel
	if len(p.Plot.Panels) > 0 {
		stats, err := readFile(filepath.Join(dir, StatsFile), ReadStatsCSV)
		if err != nil {
			return Figure{}, "", err
		}
		closed := storedClosed{}
		if drawsClosedForms(p) {
			if closed, err = readFile(filepath.Join(dir, ClosedFile), readClosedCSV); err != nil {
				return Figure{}, "", err
			}
		}
		var bounds []BoundRow
		if slices.ContainsFunc(p.Plot.Panels, func(pc config.Panel) bool {
			q, ok := pc.Quantity()
			return ok && q.Source == quantity.Bounds
		}) {
			if bounds, err = readBounds(dir, meta); err != nil {
				return Figure{}, "", err
			}
		}
		var truths []domains.Truth
		if slices.ContainsFunc(p.Plot.Panels, func(pc config.Panel) bool { return pc.WeightReference }) {
			if truths, err = metaTruths(meta); err != nil {
				return Figure{}, "", err
			}
		}
		if panels, _, err = buildPanels(p, rows, stats, closed, bounds, truths); err != nil {
			return Figure{}, "", err
		}
	}
	return figureOf(p, rows, diags, panels), p.Name, nil
}

// metaTruths returns the truths meta.json records, one per series of its
// config in order (weight references read them).
func metaTruths(meta *Meta) ([]domains.Truth, error) {
	p := meta.Config
	if len(meta.Truths) != len(p.Series) {
		return nil, inputerr.Errorf("%s: %d truths for %d series", MetaFile, len(meta.Truths), len(p.Series))
	}
	out := make([]domains.Truth, len(meta.Truths))
	for s, t := range meta.Truths {
		if t.Series != p.Series[s].Name {
			return nil, inputerr.Errorf("%s: truth %d is of series %q, want %q (the config's series in order)", MetaFile, s+1, t.Series, p.Series[s].Name)
		}
		out[s] = t.Truth
	}
	return out, nil
}

// readBounds reads the bounds.csv of the run in dir, checked against its
// meta.json (checkBoundRows).
func readBounds(dir string, meta *Meta) ([]BoundRow, error) {
	path := filepath.Join(dir, BoundsFile)
	rows, err := readFile(path, ReadBoundsCSV)
	if err != nil {
		return nil, err
	}
	if err := checkBoundRows(path, meta.Config, meta.Truths, rows); err != nil {
		return nil, err
	}
	return rows, nil
}

// readFile opens a file of a results directory and reads it with read.
// Anything but a regular file (a directory, a device such as /dev/zero, a
// named pipe) is bad input, refused before reading.
func readFile[T any](path string, read func(io.Reader, string) (T, error)) (T, error) {
	var zero T
	st, err := os.Stat(path)
	if err != nil {
		return zero, inputerr.Open(err)
	}
	if !st.Mode().IsRegular() {
		return zero, inputerr.Errorf("%s is not a regular file (%v)", path, st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return zero, inputerr.Open(err)
	}
	defer f.Close()
	return read(f, path)
}

// checkRows checks curve rows read back against the plan that wrote them:
// one row per series, estimator and n, in the order Aggregate writes them,
// each with the plan's trials.
func checkRows(path string, p *config.Plan, rows []Row) error {
	i := 0
	for _, s := range p.Series {
		for _, e := range s.Estimators {
			for _, n := range p.N {
				if i >= len(rows) {
					return inputerr.Errorf("%s: %d rows, want %d (one per series, estimator and n of meta.json's config); the first missing is %s/%s at n = %d",
						path, len(rows), curveRows(p), s.Name, e, n)
				}
				r := rows[i]
				if r.Series != s.Name || r.Estimator != e || r.N != n || r.Trials != p.Trials {
					return inputerr.Errorf("%s: line %d: row %s/%s at n = %d with %d trials, want %s/%s at n = %d with %d trials (meta.json's config)",
						path, i+2, r.Series, r.Estimator, r.N, r.Trials, s.Name, e, n, p.Trials)
				}
				i++
			}
		}
	}
	if i < len(rows) {
		return inputerr.Errorf("%s: line %d: more rows than meta.json's config has curves (%d)", path, i+2, i)
	}
	return nil
}

// checkDiagRows checks a diagnostic's table read back against the plan:
// every row is a curve of the plan whose estimator reports the diagnostic
// (its registry entry), at an n of the grid, with an index >= 1.
func checkDiagRows(path string, p *config.Plan, t DiagTable) error {
	for i, r := range t.Rows {
		var info estimators.Info
		ok := slices.ContainsFunc(p.Series, func(s config.Series) bool {
			if s.Name != r.Series || !slices.Contains(s.Estimators, r.Estimator) {
				return false
			}
			info, _ = s.Info(r.Estimator)
			return true
		})
		reports := slices.ContainsFunc(info.Diagnostics, func(d estimators.Diagnostic) bool { return d.Name == t.Name })
		switch {
		case !ok:
			return inputerr.Errorf("%s: line %d: %s/%s is not a curve of meta.json's config", path, i+2, r.Series, r.Estimator)
		case !reports:
			return inputerr.Errorf("%s: line %d: estimator %s does not report %s", path, i+2, r.Estimator, t.Name)
		case !slices.Contains(p.N, r.N):
			return inputerr.Errorf("%s: line %d: n = %d is not in the grid %v", path, i+2, r.N, p.N)
		case r.I < 1:
			return inputerr.Errorf("%s: line %d: %s = %d, want >= 1", path, i+2, t.Index, r.I)
		}
	}
	return nil
}

func curveRows(p *config.Plan) int {
	k := 0
	for _, s := range p.Series {
		k += len(s.Estimators) * len(p.N)
	}
	return k
}

// SeriesHeader is the fixed columns of series.csv; a column per domain
// parameter follows, named ParamColumn + the parameter's name.
var SeriesHeader = []string{"series", "base", "domain"}

// ParamColumn prefixes the name of a domain parameter's column in
// series.csv, so that a parameter named like a fixed column (the drift
// domain's base) gives a column of its own name.
const ParamColumn = "param_"

// writeSeriesCSV writes series.csv: one row per series with its base name,
// domain and every parameter as a column param_<name> (empty where the
// series' domain has no such parameter). Joined with curve.csv on series
// it gives a tidy table of a sweep: one column per parameter.
func writeSeriesCSV(w io.Writer, p *config.Plan) error {
	var names []string
	seen := map[string]bool{}
	for _, s := range p.Series {
		for _, ps := range s.Spec().Params {
			if !seen[ps.Name] {
				seen[ps.Name] = true
				names = append(names, ps.Name)
			}
		}
	}
	cw := csv.NewWriter(w)
	header := slices.Clone(SeriesHeader)
	for _, name := range names {
		header = append(header, ParamColumn+name)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, s := range p.Series {
		rec := []string{s.Name, s.Base, s.Domain}
		for _, name := range names {
			v := ""
			if ps, ok := s.Spec().Param(name); ok {
				v = ps.Format(s.Params[name])
			}
			rec = append(rec, v)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
