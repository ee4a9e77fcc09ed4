package experiments

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ope-lab/longhorizon/experiments/curve"
	"github.com/ope-lab/longhorizon/experiments/plot"
)

// Meta is the content of meta.json: everything needed to know what a run
// computed and how.
type Meta struct {
	Config      *Resolved    `json:"config"`
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
	Truth
}

// Report is a finished run.
type Report struct {
	Config *Resolved
	Truths []Truth
	Rows   []curve.Row
	KStar  []curve.KStarRow
	// Stats holds the standard errors panels need (stats.csv); only
	// computed when the config has panels.
	Stats  []StatsRow
	Claims []ClaimSummary
	Wall   time.Duration
}

// Run computes a whole config: every unit, then Finish. It writes nothing.
func Run(ctx context.Context, r *Resolved, opt Options) (*Report, error) {
	start := time.Now()
	results, err := RunUnits(ctx, r, r.Units(), opt)
	if err != nil {
		return nil, err
	}
	rep, err := Finish(r, results, nil)
	if err != nil {
		return nil, err
	}
	rep.Wall = time.Since(start)
	return rep, nil
}

// Finish turns the results of every unit of r (in any order: a run's, a
// resumed run's, or merged shards') into a report: true values, curve
// rows, k* rows and claims. truthProgress, when not nil, hears about long
// truth computations.
func Finish(r *Resolved, results []UnitResult, truthProgress func(series string, frac float64)) (*Report, error) {
	start := time.Now()
	truths, err := Truths(r, truthProgress)
	if err != nil {
		return nil, err
	}
	rows, err := Aggregate(r, results, truths)
	if err != nil {
		return nil, err
	}
	kstar, err := AggregateKStar(r, results)
	if err != nil {
		return nil, err
	}
	var stats []StatsRow
	if len(r.Plot.Panels) > 0 {
		if stats, err = AggregateStats(r, results); err != nil {
			return nil, err
		}
	}
	return &Report{Config: r, Truths: truths, Rows: rows, KStar: kstar, Stats: stats, Claims: CheckClaims(r, rows), Wall: time.Since(start)}, nil
}

// Write stores a report in dir: curve.csv, kstar.csv (when an estimator
// reports k*), claims.csv and claims.md (when the config states claims),
// meta.json, and the figure as <name>.png and <name>.svg; with panels also
// stats.csv (standard errors of bias and variance) and panels.csv (every
// plotted point with its closed form and deviation in standard errors).
// Every file is written to a temporary name and renamed.
func (rep *Report) Write(dir string, workers int, revision string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, "curve.csv"), func(w io.Writer) error { return curve.WriteCSV(w, rep.Rows) }); err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, "series.csv"), func(w io.Writer) error { return writeSeriesCSV(w, rep.Config) }); err != nil {
		return err
	}
	if len(rep.KStar) > 0 {
		if err := WriteFileAtomic(filepath.Join(dir, "kstar.csv"), func(w io.Writer) error { return curve.WriteKStarCSV(w, rep.KStar) }); err != nil {
			return err
		}
	}
	if len(rep.Config.Plot.Panels) > 0 {
		if err := WriteFileAtomic(filepath.Join(dir, "stats.csv"), func(w io.Writer) error { return WriteStatsCSV(w, rep.Stats) }); err != nil {
			return err
		}
	}
	if len(rep.Claims) > 0 {
		if err := WriteFileAtomic(filepath.Join(dir, "claims.csv"), func(w io.Writer) error { return writeClaimsCSV(w, rep.Claims) }); err != nil {
			return err
		}
		if err := WriteFileAtomic(filepath.Join(dir, "claims.md"), func(w io.Writer) error { return writeClaimsMD(w, rep.Config, rep.Claims) }); err != nil {
			return err
		}
	}
	meta := Meta{Config: rep.Config, GoVersion: runtime.Version(), Revision: revision,
		StartedUTC: time.Now().Add(-rep.Wall).UTC().Format(time.RFC3339), WallSeconds: rep.Wall.Seconds(), Workers: workers}
	for s, t := range rep.Truths {
		meta.Truths = append(meta.Truths, SeriesMeta{Series: rep.Config.Series[s].Name, Truth: t})
	}
	if err := WriteFileAtomic(filepath.Join(dir, "meta.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(meta)
	}); err != nil {
		return err
	}
	return drawRun(dir, rep.Config, rep.Rows, rep.KStar, rep.Stats)
}

// PanelsNote is the note under the title of a figure with panels; when a
// panel draws closed forms, PanelsClosedNote follows it.
const (
	PanelsNote       = "Points: simulated, with error bars of ±1 standard error over the trials"
	PanelsClosedNote = "; lines: closed forms"
)

// drawRun draws the figure of a run into dir; with panels it also writes
// panels.csv.
func drawRun(dir string, r *Resolved, rows []curve.Row, kstar []curve.KStarRow, stats []StatsRow) error {
	f := FigureOf(r, rows, kstar)
	if len(r.Plot.Panels) > 0 {
		panels, pts, err := BuildPanels(r, rows, stats)
		if err != nil {
			return err
		}
		f.Panels, f.Note = panels, PanelsNote
		for _, pc := range r.Plot.Panels {
			if pc.ClosedForm {
				f.Note += PanelsClosedNote
				break
			}
		}
		f.Note += "."
		if err := WriteFileAtomic(filepath.Join(dir, "panels.csv"), func(w io.Writer) error { return WritePanelsCSV(w, r, pts) }); err != nil {
			return err
		}
	}
	return plot.Draw(f, filepath.Join(dir, r.Name))
}

// writeSeriesCSV writes series.csv: one row per series with its base name,
// domain, true value and every parameter as a column (empty where the
// series' domain has no such parameter). Joined with curve.csv on series
// it gives a tidy table of a sweep: one column per parameter.
func writeSeriesCSV(w io.Writer, r *Resolved) error {
	var names []string
	seen := map[string]bool{}
	for _, s := range r.Series {
		for _, ps := range s.spec.Params {
			if !seen[ps.Name] {
				seen[ps.Name] = true
				names = append(names, ps.Name)
			}
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(append([]string{"series", "base", "domain"}, names...)); err != nil {
		return err
	}
	for _, s := range r.Series {
		rec := []string{s.Name, s.Base, s.Domain}
		for _, name := range names {
			v := ""
			if ps, ok := s.spec.param(name); ok {
				v = formatParam(ps, s.Params[name])
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

// FigureOf describes the figure of a run from its config and rows.
func FigureOf(r *Resolved, rows []curve.Row, kstar []curve.KStarRow) plot.Figure {
	f := plot.Figure{
		Title:  fmt.Sprintf("%s (%d trials)", r.Title, r.Trials),
		Rows:   rows,
		Labels: r.Plot.Labels,
		Dashed: r.Plot.Dashed,
	}
	if len(r.Plot.KStarN) > 0 {
		for _, k := range kstar {
			if k.Estimator == "incris" {
				f.KStar = append(f.KStar, k)
			}
		}
		f.KStarN = r.Plot.KStarN
	}
	return f
}

// Redraw draws the figure of the run stored in dir again from its
// curve.csv, kstar.csv, meta.json and, with panels, stats.csv (rewriting
// panels.csv).
func Redraw(dir string) error {
	var meta Meta
	data, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, "meta.json"), err)
	}
	if meta.Config == nil || meta.Config.Name == "" {
		return fmt.Errorf("%s: no config recorded", filepath.Join(dir, "meta.json"))
	}
	rows, err := readRows(filepath.Join(dir, "curve.csv"), curve.ReadCSV)
	if err != nil {
		return err
	}
	var kstar []curve.KStarRow
	if _, err := os.Stat(filepath.Join(dir, "kstar.csv")); err == nil {
		if kstar, err = readRows(filepath.Join(dir, "kstar.csv"), curve.ReadKStarCSV); err != nil {
			return err
		}
	}
	var stats []StatsRow
	if len(meta.Config.Plot.Panels) > 0 {
		if stats, err = readRows(filepath.Join(dir, "stats.csv"), ReadStatsCSV); err != nil {
			return err
		}
	}
	return drawRun(dir, meta.Config, rows, kstar, stats)
}

func readRows[T any](path string, read func(io.Reader, string) ([]T, error)) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, path)
}

// WriteFileAtomic writes a file through a temporary file in the same
// directory, renamed into place only after fill succeeded and the data was
// synced: an interrupted run never leaves a half-written file.
func WriteFileAtomic(path string, fill func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	var buf bytes.Buffer
	if err = fill(&buf); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, err = tmp.Write(buf.Bytes()); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func writeClaimsCSV(w io.Writer, claims []ClaimSummary) error {
	var rows []string
	rows = append(rows, "claim,n,ratio,holds")
	for _, c := range claims {
		for _, p := range c.Points {
			rows = append(rows, fmt.Sprintf("%s,%d,%s,%t", csvQuote(p.Claim), p.N, curve.FormatFloat(p.Ratio), p.Holds))
		}
	}
	_, err := io.WriteString(w, strings.Join(rows, "\n")+"\n")
	return err
}

func csvQuote(s string) string {
	if strings.ContainsAny(s, ",\"\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

func writeClaimsMD(w io.Writer, r *Resolved, claims []ClaimSummary) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Claims of %s (%d trials, seed %d)\n\n", r.Name, r.Trials, r.Seed)
	for _, c := range claims {
		status := "does NOT hold"
		if c.Holds {
			status = "holds"
		}
		fmt.Fprintf(&b, "## %s: %s\n\n", c.Claim.Name, status)
		if c.Claim.Text != "" {
			fmt.Fprintf(&b, "%s\n\n", c.Claim.Text)
		}
		fmt.Fprintf(&b, "Test: MSE(%s) / min MSE(%s) <= %v at %s n in [%d, %d] (to 1e-9 relative; 0/0 counts as 1).\n\n",
			c.Claim.Subject, strings.Join(c.Claim.Versus, ", "), c.Claim.MaxRatio, c.Claim.At, c.Claim.NMin, c.Claim.NMax)
		b.WriteString("| n | ratio | holds |\n|---:|---:|:---:|\n")
		for _, p := range c.Points {
			fmt.Fprintf(&b, "| %d | %.4g | %s |\n", p.N, p.Ratio, map[bool]string{true: "yes", false: "no"}[p.Holds])
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
