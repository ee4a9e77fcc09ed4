package leaderboard

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/models"
)

// Run is one results directory read back: its curve rows and the squared
// errors of every trial behind them.
type Run struct {
	// Dir is the directory as given; Name its base name (of the absolute
	// path), which keys its bootstrap streams; Label names it in cells
	// (Name, or Dir when two runs share a Name).
	Dir, Name, Label string
	// Seed is the run's seed (meta.json).
	Seed uint64
	// Trials is T, the trials of every curve row.
	Trials int
	// Rows are curve.csv's rows, in its order.
	Rows []resultsdir.Row
	// Sq holds the squared errors (estimate - true_value)^2 of trials.csv:
	// Sq[k*Trials+t] is row k's at trial t.
	Sq []float64
	// Models maps a series to the model kind its estimators read, when
	// not the default (models.Default) and not none: the leaderboard ranks
	// an estimator over another model as an entry of its own.
	Models map[string]string
	// Domains maps a series to its domain's key (domainKey): the
	// simulated domain, its parameters and its true value, the same for
	// the series of any run that simulate the same domain.
	Domains map[string]string
}

// readsModel reports whether estimator name reads its series' model of
// kind kind: its registry entry needs or uses the model columns, or it
// fits a model itself and kind is a learned one (adaptive over exact
// fits the default). An estimator the registry does not know (an
// external one) counts as reading it.
func readsModel(name, kind string) bool {
	info, ok := estimators.Lookup(name)
	if !ok {
		return true
	}
	if (info.Needs|info.Uses)&estimators.Model != 0 {
		return true
	}
	k, _ := models.Lookup(kind)
	return info.FitsModel && k.Learned()
}

// Entrant returns the leaderboard's name of row k's estimator: its name,
// followed by its series' model in brackets when that is not the default
// and the estimator reads it (dm over fqe is "dm[fqe]"; wdr over the
// domain's exact q, a reference that no logged data has, is
// "wdr[exact]").
func (r *Run) Entrant(k int) string {
	row := r.Rows[k]
	if m := r.Models[row.Series]; m != "" && readsModel(row.Estimator, m) {
		return row.Estimator + "[" + m + "]"
	}
	return row.Estimator
}

// Reference reports whether row k's estimator is a reference, which the
// leaderboard lists and never ranks: its registry entry needs the
// domain's exact moments (estimators.ExactMoments: incris-oracle), or it
// reads a model made from the domain's exact q (models.ExactQ: the
// exact model), data no logged set has.
func (r *Run) Reference(k int) bool {
	row := r.Rows[k]
	if info, ok := estimators.Lookup(row.Estimator); ok && info.Needs&estimators.ExactMoments != 0 {
		return true
	}
	m := r.Models[row.Series]
	if m == "" || !readsModel(row.Estimator, m) {
		return false
	}
	kind, _ := models.Lookup(m)
	return kind.Needs&models.ExactQ != 0
}

// domainKey is the key of a series' domain: its name, its parameters in
// sorted order and its true value to 12 significant digits (two runs of
// the same domain at different revisions agree; a domain whose code
// changed its value is another).
func domainKey(s *config.Series, truth float64) string {
	keys := make([]string, 0, len(s.Params))
	for k := range s.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(s.Domain)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%s", k, strconv.FormatFloat(s.Params[k], 'g', -1, 64))
	}
	fmt.Fprintf(&b, " V=%.12g", truth)
	return b.String()
}

// mseTol is how far (relative) the mean squared error of a curve row's
// trials may be from its mse in curve.csv: the two differ only by the
// order of summation.
const mseTol = 1e-9

// Read reads the results directories dirs strictly (the package's
// contract): bad input names the file, its line and column; a directory
// given twice (the same directory by any path) is bad input too.
func Read(dirs []string) ([]*Run, error) {
	if len(dirs) == 0 {
		return nil, inputerr.Errorf("no results directory")
	}
	stats := make([]os.FileInfo, len(dirs))
	for i, d := range dirs {
		st, err := os.Stat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, inputerr.Errorf("results directory %s does not exist", d)
		case err != nil:
			return nil, inputerr.Open(err)
		case !st.IsDir():
			return nil, inputerr.Errorf("results directory %s is not a directory", d)
		}
		for j := range i {
			if os.SameFile(stats[j], st) {
				if dirs[j] == d {
					return nil, inputerr.Errorf("results directory %s is given twice", d)
				}
				return nil, inputerr.Errorf("results directory %s is given twice (as %s and as %s)", d, dirs[j], d)
			}
		}
		stats[i] = st
	}
	runs := make([]*Run, len(dirs))
	names := map[string]int{}
	for i, d := range dirs {
		r, err := readRun(d)
		if err != nil {
			return nil, err
		}
		runs[i] = r
		names[r.Name]++
	}
	for _, r := range runs {
		r.Label = r.Name
		if names[r.Name] > 1 {
			r.Label = filepath.Clean(r.Dir)
		}
	}
	return runs, nil
}

// readRun reads the results directory dir: meta.json, curve.csv checked
// against it, trials.csv checked against curve.csv.
func readRun(dir string) (*Run, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	meta, err := resultsdir.ReadMeta(dir)
	if err != nil {
		return nil, err
	}
	cpath := filepath.Join(dir, resultsdir.CurveFile)
	rows, err := resultsdir.ReadFile(cpath, resultsdir.ReadCurveCSV)
	if err != nil {
		return nil, err
	}
	if err := resultsdir.CheckCurve(cpath, meta.Config, rows); err != nil {
		return nil, err
	}
	tpath := filepath.Join(dir, resultsdir.TrialsFile)
	trials, err := resultsdir.ReadFile(tpath, resultsdir.ReadTrialsCSV)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Name: filepath.Base(abs), Seed: meta.Config.Seed, Trials: meta.Config.Trials, Rows: rows,
		Models: map[string]string{}, Domains: map[string]string{}}
	truth := map[string]float64{}
	for _, row := range rows {
		truth[row.Series] = row.TrueValue
	}
	for i := range meta.Config.Series {
		s := &meta.Config.Series[i]
		if s.Model != "" && s.Model != models.Default {
			r.Models[s.Name] = s.Model
		}
		r.Domains[s.Name] = domainKey(s, truth[s.Name])
	}
	if r.Sq, err = squaredErrors(tpath, cpath, rows, r.Trials, trials); err != nil {
		return nil, err
	}
	return r, nil
}

// squaredErrors checks trials.csv (tpath) against the curve rows of cpath,
// each of T trials: for every row in order, its T trials numbered 0 to
// T-1, whose mean squared error about the row's true value is the row's
// mse; and returns the squared errors, row-major.
func squaredErrors(tpath, cpath string, rows []resultsdir.Row, T int, trials []resultsdir.TrialRow) ([]float64, error) {
	sq := make([]float64, len(rows)*T)
	i := 0
	for k, c := range rows {
		cline := k + 2
		first := i + 2
		for t := range T {
			if i >= len(trials) {
				return nil, inputerr.Errorf("%s: line %d: column trial: the file ends after %d trials of %s/%s at n = %d, but %s line %d (column trials) says %d",
					tpath, i+2, t, c.Series, c.Estimator, c.N, cpath, cline, T)
			}
			r := trials[i]
			same := r.Series == c.Series && r.Estimator == c.Estimator && r.N == c.N
			switch {
			case same && r.Trial != t:
				return nil, inputerr.Errorf("%s: line %d: column trial: %d, want %d (the trials of %s/%s at n = %d are numbered 0 to %d in order: %s line %d, column trials, says %d)",
					tpath, i+2, r.Trial, t, c.Series, c.Estimator, c.N, T-1, cpath, cline, T)
			case !same && t > 0:
				return nil, inputerr.Errorf("%s: line %d: column trial: %s/%s at n = %d has %d trials, but %s line %d (column trials) says %d",
					tpath, i+2, c.Series, c.Estimator, c.N, t, cpath, cline, T)
			case !same:
				col, got, want := "series", r.Series, c.Series
				switch {
				case r.Series != c.Series:
				case r.Estimator != c.Estimator:
					col, got, want = "estimator", r.Estimator, c.Estimator
				default:
					col, got, want = "n", strconv.Itoa(r.N), strconv.Itoa(c.N)
				}
				return nil, inputerr.Errorf("%s: line %d: column %s: %q, want %q (the trials of %s line %d: %s/%s at n = %d, in curve.csv's order)",
					tpath, i+2, col, got, want, cpath, cline, c.Series, c.Estimator, c.N)
			}
			d := r.Estimate - c.TrueValue
			sq[k*T+t] = float64(d * d)
			i++
		}
		if i < len(trials) {
			if r := trials[i]; r.Series == c.Series && r.Estimator == c.Estimator && r.N == c.N {
				return nil, inputerr.Errorf("%s: line %d: column trial: %s/%s at n = %d has more than %d trials, but %s line %d (column trials) says %d",
					tpath, i+2, c.Series, c.Estimator, c.N, T, cpath, cline, T)
			}
		}
		s := 0.0
		for _, v := range sq[k*T : (k+1)*T] {
			s += v
		}
		if mse := s / float64(T); !agree(mse, c.MSE) {
			return nil, inputerr.Errorf("%s: line %d: column mse: %v, but the %d estimates of %s (lines %d to %d) have a mean squared error of %v about the true value %v",
				cpath, cline, c.MSE, T, tpath, first, i+1, mse, c.TrueValue)
		}
	}
	if i < len(trials) {
		return nil, inputerr.Errorf("%s: line %d: column series: a row beyond the %d of curve.csv's rows and trials (%s has %d rows)",
			tpath, i+2, len(rows)*T, cpath, len(rows))
	}
	return sq, nil
}

// agree reports whether a and b agree within mseTol relative.
func agree(a, b float64) bool {
	return a == b || math.Abs(a-b) <= mseTol*math.Max(math.Abs(a), math.Abs(b))
}
