package resultsdir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// Meta is the content of meta.json: everything needed to know what a run
// computed and how, and to redraw its figure. It holds nothing that
// changes between two runs of one config on one machine (issue 32: a
// rerun of a committed target leaves git status clean); the keys
// git_revision, started_utc, wall_seconds and workers of older files are
// ignored when read.
type Meta struct {
	Config    *config.Plan `json:"config"`
	Truths    []SeriesMeta `json:"truths"`
	GoVersion string       `json:"go_version"`
}

// SeriesMeta records one series' true value and how it was obtained.
type SeriesMeta struct {
	Series string `json:"series"`
	domains.Truth
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

// WriteMeta writes m as meta.json: indented JSON, one key a line.
func WriteMeta(w io.Writer, m *Meta) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// maxMetaFile bounds meta.json read back.
const maxMetaFile = 16 << 20

// ReadMeta reads a results directory's meta.json and checks its plan
// (config.Plan.Check): everything read from it, the figure's file name
// included, is validated like a config. Its errors are bad input, except
// failures to read an existing file.
func ReadMeta(dir string) (*Meta, error) {
	if err := CheckDir(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, MetaFile)
	data, err := ReadFile(path, func(r io.Reader, path string) ([]byte, error) {
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

// CheckDir checks that dir is a results directory, one holding a
// meta.json, and says in plain words what it is instead (bad input): not
// there, a file, a run not finished (a checkpoint) or not merged (shard
// files), or a directory without a run's files.
func CheckDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return inputerr.Errorf("results directory %s does not exist (runexp run CONFIG.yaml writes one, by default results/NAME)", dir)
	case err != nil:
		return inputerr.Open(err)
	case !st.IsDir():
		return inputerr.Errorf("%s is a file, not a results directory", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, MetaFile)); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil // there, or unreadable: ReadMeta says which
	}
	if _, err := os.Stat(filepath.Join(dir, "checkpoint.jsonl")); err == nil {
		return inputerr.Errorf("%s holds a run that has not finished (checkpoint.jsonl, no %s yet): finish it with runexp run -resume -out %s CONFIG.yaml", dir, MetaFile, dir)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "shard-*-of-*.jsonl")); len(m) > 0 {
		return inputerr.Errorf("%s holds the shards of a run, not yet merged (no %s): runexp merge %s writes its files", dir, MetaFile, dir)
	}
	return inputerr.Errorf("%s is not a results directory: it has no %s (runexp run writes one beside every run's files)", dir, MetaFile)
}

// MetaTruths returns the truths meta.json records, one per series of its
// config in order (weight references read them).
func MetaTruths(meta *Meta) ([]domains.Truth, error) {
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

// ReadBounds reads the bounds.csv of the run in dir, checked against its
// meta.json: one row per series, estimator, bound it supports and n, in
// report.AggregateBounds' order, with the plan's trials and delta and the
// series' true value (errors are bad input naming the line).
func ReadBounds(dir string, meta *Meta) ([]BoundRow, error) {
	path := filepath.Join(dir, BoundsFile)
	rows, err := ReadFile(path, ReadBoundsCSV)
	if err != nil {
		return nil, err
	}
	if err := CheckBounds(path, meta.Config, meta.Truths, rows); err != nil {
		return nil, err
	}
	return rows, nil
}

// ReadFile opens the file path of a results directory and reads it with
// read (ReadCurveCSV, ReadTrialsCSV, ...). A missing file, and anything
// but a regular file (a directory, a device such as /dev/zero, a named
// pipe), is bad input naming path, refused before reading.
func ReadFile[T any](path string, read func(io.Reader, string) (T, error)) (T, error) {
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

// CheckCurve checks the curve rows read back from path against the plan
// that wrote them (meta.json's): one row per series, estimator and n, in
// curve.csv's order (report.Aggregate's), each with the plan's trials;
// errors name path and the line.
func CheckCurve(path string, p *config.Plan, rows []Row) error {
	i := 0
	for _, s := range p.Series {
		for _, e := range s.Estimators {
			for _, n := range p.N {
				if i >= len(rows) {
					return inputerr.Errorf("%s: %d rows, want %d (one per series, estimator and n of meta.json's config); the first missing is %s/%s at n = %d",
						path, len(rows), CurveRows(p), s.Name, e, n)
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

// CheckDiag checks a diagnostic's table read back from path against the
// plan:
// every row is a curve of the plan whose estimator reports the diagnostic
// (its registry entry), at an n of the grid, with an index >= 1.
func CheckDiag(path string, p *config.Plan, t DiagTable) error {
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

// CurveRows is the number of rows of the curve.csv of p: one per series,
// estimator and n.
func CurveRows(p *config.Plan) int {
	k := 0
	for _, s := range p.Series {
		k += len(s.Estimators) * len(p.N)
	}
	return k
}
