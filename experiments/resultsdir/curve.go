package resultsdir

import (
	"encoding/csv"
	"io"
	"strconv"
)

// curveHeader is the exact column list of curve.csv.
var curveHeader = []string{"experiment", "series", "estimator", "n", "trials", "true_value",
	"mean_estimate", "bias", "variance", "mse", "mse_se", "ess", "min_step_ess"}

// Row is one point of an MSE curve: one estimator on one series at one n,
// summarised over the trials (SPEC section 3).
type Row struct {
	Experiment   string
	Series       string
	Estimator    string
	N            int
	Trials       int
	TrueValue    float64
	MeanEstimate float64
	Bias         float64
	// Variance has denominator Trials, so MSE = Bias^2 + Variance.
	Variance float64
	MSE      float64
	// MSESE is the standard error of MSE: the sample standard deviation of
	// the squared errors (denominator Trials-1) over sqrt(Trials).
	MSESE float64
	// ESS and MinStepESS are the means over trials of the Kish effective
	// sample sizes of the data's importance weights at n
	// (estimators.WeightStats): of the final weights, and the smallest
	// over steps of the per-step ones. Every estimator of a series weights
	// by the same factors, so they repeat on its estimators' rows.
	ESS, MinStepESS float64
}

// DiagTable is the mean over trials of one diagnostic (a vector that
// estimators report beside each estimate, e.g. INCRIS's k* per step t),
// written to <Name>.csv with the columns DiagHeader(Name, Index).
type DiagTable struct {
	Name  string // the diagnostic, e.g. "kstar"
	Index string // its index column, e.g. "t"
	Rows  []DiagRow
}

// DiagRow is the mean over trials of a diagnostic of one estimator on one
// series at sample size n, at index I (1-based; for k*, the step t), over
// the trials whose vector reaches I (with variable-length episodes a trial
// may end earlier).
type DiagRow struct {
	Series    string
	Estimator string
	N         int
	I         int
	Mean      float64
}

// DiagHeader is the exact column list of a diagnostic's file:
// series,estimator,n,<index>,mean_<name> (kstar.csv: ...,t,mean_kstar).
func DiagHeader(name, index string) []string {
	return []string{"series", "estimator", "n", index, "mean_" + name}
}

// FormatFloat writes x in the shortest form that reads back to the same
// float64, so that CSV files are byte-stable and lossless.
func FormatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// WriteCSV writes rows with Header to w.
func WriteCurveCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(curveHeader); err != nil {
		return err
	}
	for _, r := range rows {
		rec := []string{r.Experiment, r.Series, r.Estimator, strconv.Itoa(r.N), strconv.Itoa(r.Trials),
			FormatFloat(r.TrueValue), FormatFloat(r.MeanEstimate), FormatFloat(r.Bias),
			FormatFloat(r.Variance), FormatFloat(r.MSE), FormatFloat(r.MSESE),
			FormatFloat(r.ESS), FormatFloat(r.MinStepESS)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteDiagCSV writes a diagnostic's table to w.
func WriteDiagCSV(w io.Writer, t DiagTable) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(DiagHeader(t.Name, t.Index)); err != nil {
		return err
	}
	for _, r := range t.Rows {
		rec := []string{r.Series, r.Estimator, strconv.Itoa(r.N), strconv.Itoa(r.I), FormatFloat(r.Mean)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV reads curve rows written by WriteCSV. name labels errors.
func ReadCurveCSV(r io.Reader, name string) ([]Row, error) {
	recs, err := readRecords(r, name, curveHeader)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(recs))
	for i, rec := range recs {
		p := fieldParser{name: name, line: i + 2, header: curveHeader}
		row := Row{
			Experiment:   rec[0],
			Series:       rec[1],
			Estimator:    rec[2],
			N:            p.int(rec, 3),
			Trials:       p.int(rec, 4),
			TrueValue:    p.float(rec, 5),
			MeanEstimate: p.float(rec, 6),
			Bias:         p.float(rec, 7),
			Variance:     p.nonNegative(rec, 8),
			MSE:          p.nonNegative(rec, 9),
			MSESE:        p.nonNegative(rec, 10),
			ESS:          p.nonNegative(rec, 11),
			MinStepESS:   p.nonNegative(rec, 12),
		}
		for j, v := range []float64{row.ESS, row.MinStepESS} {
			if v > float64(row.N)*(1+1e-9) {
				p.fail(11+j, "%v is above n = %d (Kish's ESS of n weights is at most n)", v, row.N)
			}
		}
		if p.err != nil {
			return nil, p.err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// ReadDiagCSV reads a diagnostic's table written by WriteDiagCSV; path
// labels errors.
func ReadDiagCSV(r io.Reader, path, name, index string) (DiagTable, error) {
	header := DiagHeader(name, index)
	recs, err := readRecords(r, path, header)
	if err != nil {
		return DiagTable{}, err
	}
	t := DiagTable{Name: name, Index: index, Rows: make([]DiagRow, 0, len(recs))}
	for i, rec := range recs {
		p := fieldParser{name: path, line: i + 2, header: header}
		row := DiagRow{Series: rec[0], Estimator: rec[1], N: p.int(rec, 2), I: p.int(rec, 3), Mean: p.float(rec, 4)}
		if p.err != nil {
			return DiagTable{}, p.err
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}
