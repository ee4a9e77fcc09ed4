package resultsdir

import (
	"encoding/csv"
	"io"
	"path/filepath"
	"strconv"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// TrialsFile holds every unit's estimate (TrialsHeader).
const TrialsFile = "trials.csv"

// trialsHeader is the exact column list of trials.csv.
var trialsHeader = []string{"series", "estimator", "n", "trial", "estimate"}

// TrialRow is one estimate: estimator Estimator on trial Trial's data of
// series Series at sample size N.
type TrialRow struct {
	Series    string
	Estimator string
	N         int
	Trial     int
	Estimate  float64
}

// WriteTrialsCSV writes rows with TrialsHeader to w, floats in
// FormatFloat's shortest round-trip form.
func WriteTrialsCSV(w io.Writer, rows []TrialRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(trialsHeader); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write([]string{r.Series, r.Estimator, strconv.Itoa(r.N), strconv.Itoa(r.Trial), FormatFloat(r.Estimate)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadTrialsCSV reads trials.csv back; path labels errors.
func ReadTrialsCSV(r io.Reader, path string) ([]TrialRow, error) {
	recs, err := readRecords(r, path, trialsHeader)
	if err != nil {
		return nil, err
	}
	rows := make([]TrialRow, 0, len(recs))
	for i, rec := range recs {
		fp := fieldParser{name: path, line: i + 2, header: trialsHeader}
		row := TrialRow{Series: rec[0], Estimator: rec[1], N: fp.int(rec, 2), Trial: fp.int(rec, 3), Estimate: fp.float(rec, 4)}
		if fp.err != nil {
			return nil, fp.err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// checkTrialRows checks trials.csv read back against the plan that wrote
// it: one row per series, estimator, n and trial, in TrialEstimates' order.
func checkTrialRows(path string, p *config.Plan, rows []TrialRow) error {
	i := 0
	for _, s := range p.Series {
		for _, e := range s.Estimators {
			for _, n := range p.N {
				for t := 0; t < p.Trials; t++ {
					if i >= len(rows) {
						return inputerr.Errorf("%s: %d rows, want %d (one per series, estimator, n and trial of meta.json's config); the first missing is %s/%s at n = %d, trial %d",
							path, len(rows), trialRows(p), s.Name, e, n, t)
					}
					r := rows[i]
					if r.Series != s.Name || r.Estimator != e || r.N != n || r.Trial != t {
						return inputerr.Errorf("%s: line %d: %s/%s at n = %d, trial %d, want %s/%s at n = %d, trial %d (meta.json's config)",
							path, i+2, r.Series, r.Estimator, r.N, r.Trial, s.Name, e, n, t)
					}
					i++
				}
			}
		}
	}
	if i < len(rows) {
		return inputerr.Errorf("%s: line %d: more rows than meta.json's config has units (%d)", path, i+2, i)
	}
	return nil
}

// ReadTrials reads the trials.csv of the results directory dir, checked
// against its meta.json (one row per series, estimator, n and trial).
func ReadTrials(dir string) ([]TrialRow, error) {
	meta, err := ReadMeta(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, TrialsFile)
	rows, err := ReadFile(path, ReadTrialsCSV)
	if err != nil {
		return nil, err
	}
	if err := checkTrialRows(path, meta.Config, rows); err != nil {
		return nil, err
	}
	return rows, nil
}

// trialRows is the number of lines of trials.csv of p.
func trialRows(p *config.Plan) int { return CurveRows(p) * p.Trials }
