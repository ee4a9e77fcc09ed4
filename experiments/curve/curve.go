// Package curve defines the rows of a run's results (curve.csv, kstar.csv)
// and reads and writes them. It is the contract between the runner, which
// produces rows, and the plot package, which draws them: neither needs the
// other.
package curve

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// Header is the exact column list of curve.csv.
var Header = []string{"experiment", "series", "estimator", "n", "trials", "true_value",
	"mean_estimate", "bias", "variance", "mse", "mse_se"}

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
}

// KStarHeader is the exact column list of kstar.csv.
var KStarHeader = []string{"series", "estimator", "n", "t", "mean_kstar"}

// KStarRow is the mean over trials of the number of most recent weights k*
// that INCRIS kept for the reward at step t (1-based), at sample size n
// (over the trials whose data reach step t).
type KStarRow struct {
	Series    string
	Estimator string
	N         int
	T         int
	MeanKStar float64
}

// FormatFloat writes x in the shortest form that reads back to the same
// float64, so that CSV files are byte-stable and lossless.
func FormatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// WriteCSV writes rows with Header to w.
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(Header); err != nil {
		return err
	}
	for _, r := range rows {
		rec := []string{r.Experiment, r.Series, r.Estimator, strconv.Itoa(r.N), strconv.Itoa(r.Trials),
			FormatFloat(r.TrueValue), FormatFloat(r.MeanEstimate), FormatFloat(r.Bias),
			FormatFloat(r.Variance), FormatFloat(r.MSE), FormatFloat(r.MSESE)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteKStarCSV writes rows with KStarHeader to w.
func WriteKStarCSV(w io.Writer, rows []KStarRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(KStarHeader); err != nil {
		return err
	}
	for _, r := range rows {
		rec := []string{r.Series, r.Estimator, strconv.Itoa(r.N), strconv.Itoa(r.T), FormatFloat(r.MeanKStar)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV reads curve rows written by WriteCSV. name labels errors.
func ReadCSV(r io.Reader, name string) ([]Row, error) {
	recs, err := readRecords(r, name, Header)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(recs))
	for i, rec := range recs {
		p := fieldParser{name: name, line: i + 2, header: Header}
		row := Row{
			Experiment:   rec[0],
			Series:       rec[1],
			Estimator:    rec[2],
			N:            p.int(rec, 3),
			Trials:       p.int(rec, 4),
			TrueValue:    p.float(rec, 5),
			MeanEstimate: p.float(rec, 6),
			Bias:         p.float(rec, 7),
			Variance:     p.float(rec, 8),
			MSE:          p.float(rec, 9),
			MSESE:        p.float(rec, 10),
		}
		if p.err != nil {
			return nil, p.err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// ReadKStarCSV reads rows written by WriteKStarCSV.
func ReadKStarCSV(r io.Reader, name string) ([]KStarRow, error) {
	recs, err := readRecords(r, name, KStarHeader)
	if err != nil {
		return nil, err
	}
	rows := make([]KStarRow, 0, len(recs))
	for i, rec := range recs {
		p := fieldParser{name: name, line: i + 2, header: KStarHeader}
		row := KStarRow{Series: rec[0], Estimator: rec[1], N: p.int(rec, 2), T: p.int(rec, 3), MeanKStar: p.float(rec, 4)}
		if p.err != nil {
			return nil, p.err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func readRecords(r io.Reader, name string, header []string) ([][]string, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = len(header)
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty file, want header %v", name, header)
	}
	for j, h := range header {
		if recs[0][j] != h {
			return nil, fmt.Errorf("%s: line 1: column %d is %q, want %q", name, j+1, recs[0][j], h)
		}
	}
	return recs[1:], nil
}

type fieldParser struct {
	name   string
	line   int
	header []string
	err    error
}

func (p *fieldParser) int(rec []string, j int) int {
	v, err := strconv.Atoi(rec[j])
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%s: line %d: column %s: %q is not an integer", p.name, p.line, p.header[j], rec[j])
	}
	return v
}

func (p *fieldParser) float(rec []string, j int) float64 {
	v, err := strconv.ParseFloat(rec[j], 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%s: line %d: column %s: %q is not a number", p.name, p.line, p.header[j], rec[j])
	}
	return v
}
