package resultsdir

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// statsHeader is the exact column list of stats.csv, written beside
// curve.csv (whose columns are fixed) when a config has panels.
var statsHeader = []string{"series", "estimator", "n", "bias_se", "variance_se"}

// StatsRow holds the standard errors that panels draw, for one curve row
// (series, estimator, n), over the T trials' estimates x_1..x_T with mean
// m, variance v = (1/T) sum (x_t - m)^2 (curve.csv's, denominator T) and
// fourth central moment m4 = (1/T) sum (x_t - m)^4:
//
//   - BiasSE = sqrt(v / (T - 1)): the standard error of the mean estimate,
//     s / sqrt(T) with s^2 = T v / (T - 1) the sample variance; also the
//     standard error of the bias when the true value is exact. 0 if T = 1.
//   - VarianceSE = sqrt((m4 - v^2) / T): the large-T standard error of the
//     sample variance (Var(s^2) ~ (mu4 - sigma^4) / T).
type StatsRow struct {
	Series     string
	Estimator  string
	N          int
	BiasSE     float64
	VarianceSE float64
}

// WriteStatsCSV writes rows with StatsHeader to w.
func WriteStatsCSV(w io.Writer, rows []StatsRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(statsHeader); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write([]string{r.Series, r.Estimator, strconv.Itoa(r.N), FormatFloat(r.BiasSE), FormatFloat(r.VarianceSE)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadStatsCSV reads rows written by WriteStatsCSV; name labels errors.
func ReadStatsCSV(rd io.Reader, name string) ([]StatsRow, error) {
	cr := csv.NewReader(rd)
	cr.FieldsPerRecord = len(statsHeader)
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty file, want header %v", name, statsHeader)
	}
	for j, h := range statsHeader {
		if recs[0][j] != h {
			return nil, fmt.Errorf("%s: line 1: column %d is %q, want %q", name, j+1, recs[0][j], h)
		}
	}
	rows := make([]StatsRow, 0, len(recs)-1)
	for i, rec := range recs[1:] {
		row := StatsRow{Series: rec[0], Estimator: rec[1]}
		var err error
		if row.N, err = strconv.Atoi(rec[2]); err != nil {
			return nil, fmt.Errorf("%s: line %d: column n: %q is not an integer", name, i+2, rec[2])
		}
		for k, dst := range []*float64{&row.BiasSE, &row.VarianceSE} {
			if *dst, err = strconv.ParseFloat(rec[3+k], 64); err != nil {
				return nil, fmt.Errorf("%s: line %d: column %s: %q is not a number", name, i+2, statsHeader[3+k], rec[3+k])
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}
