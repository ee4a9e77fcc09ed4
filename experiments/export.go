package experiments

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/domains/truthcache"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/run"
	"github.com/ope-lab/longhorizon/internal/atomicfile"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/outdir"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ManifestFile is the name of the manifest an export writes beside its
// series directories.
const ManifestFile = "manifest.json"

// ExportOptions control an export (Export).
type ExportOptions struct {
	// Trials is the number of trials exported per series, 0 < Trials <=
	// the plan's; 0 means the plan's.
	Trials int
	// Format is the format of the data files (logdata.CSV or
	// logdata.JSONL).
	Format logdata.Format
	// TruthCache, TruthProgress and Log are as in Options: where the true
	// values are cached, who hears about long computations of them, and
	// who hears about corrupt cache entries.
	TruthCache    *truthcache.Cache
	TruthProgress func(series string, frac float64)
	Log           func(string)
}

// Manifest is what DIR/manifest.json of an export holds.
type Manifest struct {
	// Name, Seed, N, Trials and Data are the config's name, seed, n grid,
	// the number of trials exported per series and the data protocol
	// (always "nested").
	Name   string `json:"name"`
	Seed   uint64 `json:"seed"`
	N      []int  `json:"n"`
	Trials int    `json:"trials"`
	Data   string `json:"data"`
	// Format is "csv" or "jsonl".
	Format string           `json:"format"`
	Series []ManifestSeries `json:"series"`
}

// ManifestSeries describes one exported series.
type ManifestSeries struct {
	Name   string         `json:"name"`
	Domain string         `json:"domain"`
	Params domains.Params `json:"params"`
	// Gamma is the series' discount factor (SPEC 1c): pass it to runexp
	// estimate -gamma. The files hold undiscounted rewards.
	Gamma float64 `json:"gamma"`
	// Truth is V(pi_e) under gamma and how it was obtained, as runexp run
	// records it.
	Truth domains.Truth `json:"truth"`
	// Horizon is the domain's horizon, or cap, for domains with
	// observation and action ids (the files' obs and action columns): pass
	// it to runexp estimate -horizon so that the model fitted from the
	// file is the harness's (SPEC 1f). 0 (absent) for the others.
	Horizon int `json:"horizon,omitempty"`
	// Columns are the columns of every data file of the series, in order.
	Columns []string `json:"columns"`
	// Files are the series' data files, relative to the export directory,
	// trial by trial: Files[k] holds trial k.
	Files []string `json:"files"`
}

// exportSeries is what Export knows of one series before writing.
type exportSeries struct {
	rs   *config.Series
	d    domains.Domain  // built once, recording what the files hold
	cols logdata.Columns // the files' columns
}

// CollectTrial draws the data set of unit (series s, trial k) of p exactly
// as the harness's worker does (run.Stream and the domain's Collect of
// p.NMax() trajectories), recording on every step pi_b and pi_e of the
// logged action (domains.ProbRecorder), on options data given the running
// option and with the option structure (domains.OptionsRecorder: an
// option's first step, mu_b and mu_e of the running option) and, when the
// series' model-based estimators use the exact model (model: exact), the
// model columns. Recording draws no random number: rewards, ratios,
// option ratios, changed flags and split points are those of the harness,
// bit for bit. It refuses data: independent, which draws afresh at every
// n.
func CollectTrial(p *config.Plan, s, k int, b *trajectory.Batch) error {
	es, err := exportOf(p, s)
	if err != nil {
		return err
	}
	b.Reset()
	es.d.Collect(b, p.NMax(), run.Stream(p, run.Unit{Series: s, Trial: k}))
	return nil
}

// exportOf checks that series s of p can be exported and builds its
// domain, recording what its files hold (run.FileDomain).
func exportOf(p *config.Plan, s int) (exportSeries, error) {
	rs := &p.Series[s]
	if p.Data != "nested" {
		return exportSeries{}, inputerr.Errorf("%s: data: %s: export of data sets drawn afresh at every n is not supported (data: nested draws one data set a trial)", p.File, p.Data)
	}
	d, cols, err := run.FileDomain(p, rs)
	if err != nil {
		return exportSeries{}, err
	}
	return exportSeries{rs: rs, d: d, cols: cols}, nil
}

// writeTrial writes batch b to w as logged data (run.WriteTrial).
func writeTrial(w io.Writer, f logdata.Format, cols logdata.Columns, b *trajectory.Batch) error {
	return run.WriteTrial(w, f, cols, b)
}

// formatName returns the file extension and manifest name of f.
func formatName(f logdata.Format) string {
	if f == logdata.JSONL {
		return "jsonl"
	}
	return "csv"
}

// Export writes the data set of every (series, trial k < trials) unit of p
// into dir, as the harness draws it (CollectTrial): dir/<series>/trial-<k>.csv
// (or .jsonl) in the logged-data format of package logdata, and
// dir/manifest.json (Manifest). Every series is checked and every true
// value computed before anything is written. The files are written into a
// staging directory inside dir first; only when all are written and synced
// are the series directories moved into place (replacing those of an
// earlier export) and the manifest written (atomicfile.WriteAll), so a
// failure leaves dir's series directories and manifest as they were. The
// same plan gives the same bytes.
func Export(p *config.Plan, dir string, opt ExportOptions) (*Manifest, error) {
	trials := opt.Trials
	if trials == 0 {
		trials = p.Trials
	}
	if trials < 1 || trials > p.Trials {
		return nil, inputerr.Errorf("trials %d, want 1 to the config's %d", trials, p.Trials)
	}
	if opt.Format != logdata.CSV && opt.Format != logdata.JSONL {
		return nil, inputerr.Errorf("format %v, want csv or jsonl", opt.Format)
	}
	if err := outdir.Check(dir); err != nil {
		return nil, err
	}
	ext := formatName(opt.Format)
	man := &Manifest{Name: p.Name, Seed: p.Seed, N: p.N, Trials: trials, Data: p.Data, Format: ext}
	series := make([]exportSeries, len(p.Series))
	for s := range p.Series {
		es, err := exportOf(p, s)
		if err != nil {
			return nil, err
		}
		series[s] = es
	}
	truths, err := run.Truths(p, opt.TruthCache, opt.TruthProgress, opt.Log)
	if err != nil {
		return nil, err
	}
	for s, es := range series {
		rs := es.rs
		lw := logdata.NewWriter(nil, opt.Format, es.cols)
		ms := ManifestSeries{Name: rs.Name, Domain: rs.Domain, Params: rs.Params, Gamma: rs.Gamma(),
			Truth: truths[s], Columns: lw.Header()}
		if es.cols.IDs {
			ms.Horizon = rs.Supply().Horizon
		}
		for k := range trials {
			ms.Files = append(ms.Files, rs.Name+"/"+trialName(k, ext))
		}
		man.Series = append(man.Series, ms)
	}
	manifest, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("export: manifest: %w", err)
	}
	manifest = append(manifest, '\n')

	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, inputerr.Errorf("output directory %s exists and is not a directory", dir)
	}
	for _, es := range series {
		path := filepath.Join(dir, es.rs.Name)
		if st, err := os.Lstat(path); err == nil && !st.IsDir() {
			return nil, inputerr.Errorf("%s exists and is not a directory (%s): move it away", path, st.Mode().Type())
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	undo, err := outdir.Create(dir)
	if err != nil {
		return nil, err
	}
	exported := false
	defer func() { // after the stage is removed: a failed export leaves no directory it created
		if !exported {
			undo()
		}
	}()
	stage, err := os.MkdirTemp(dir, ".export-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	var b trajectory.Batch
	for s, es := range series {
		sdir := filepath.Join(stage, es.rs.Name)
		if err := os.Mkdir(sdir, 0o755); err != nil {
			return nil, err
		}
		for k := range trials {
			b.Reset()
			es.d.Collect(&b, p.NMax(), run.Stream(p, run.Unit{Series: s, Trial: k}))
			if err := writeFile(filepath.Join(sdir, trialName(k, ext)), opt.Format, es.cols, &b); err != nil {
				return nil, fmt.Errorf("export: series %s, trial %d: %w", es.rs.Name, k, err)
			}
		}
	}
	// Every file is written: move the series directories into place,
	// replacing earlier ones (moved into the stage, removed with it).
	for i, es := range series {
		dst := filepath.Join(dir, es.rs.Name)
		if _, err := os.Lstat(dst); err == nil {
			if err := os.Rename(dst, filepath.Join(stage, ".old-"+strconv.Itoa(i))); err != nil {
				return nil, err
			}
		}
		if err := os.Rename(filepath.Join(stage, es.rs.Name), dst); err != nil {
			return nil, fmt.Errorf("%w (after %d of %d series directories were moved into place)", err, i, len(series))
		}
	}
	if err := atomicfile.WriteAll(dir, []atomicfile.File{{Name: ManifestFile, Data: manifest}}); err != nil {
		return nil, err
	}
	exported = true
	return man, nil
}

// trialName returns the file name of trial k.
func trialName(k int, ext string) string { return "trial-" + strconv.Itoa(k) + "." + ext }

// writeFile writes b as logged data to path, synced.
func writeFile(path string, f logdata.Format, cols logdata.Columns, b *trajectory.Batch) error {
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	err = writeTrial(fh, f, cols, b) // logdata.Writer buffers
	if err == nil {
		err = fh.Sync()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}
