package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"

	"github.com/ope-lab/longhorizon/internal/inputerr"
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
			Variance:     p.nonNegative(rec, 8),
			MSE:          p.nonNegative(rec, 9),
			MSESE:        p.nonNegative(rec, 10),
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

// maxResultsFile bounds a results file read back (curve.csv of the
// largest sweep is a few MiB).
const maxResultsFile = 256 << 20

func readRecords(r io.Reader, name string, header []string) ([][]string, error) {
	recs, err := readAllRecords(r, name, len(header))
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, inputerr.Errorf("%s: empty file, want header %v", name, header)
	}
	for j, h := range header {
		if recs[0][j] != h {
			return nil, inputerr.Errorf("%s: line 1: column %d is %q, want %q", name, j+1, recs[0][j], h)
		}
	}
	return recs[1:], nil
}

// readAllRecords reads a CSV file of fields columns, refusing one beyond
// maxResultsFile bytes.
func readAllRecords(r io.Reader, name string, fields int) ([][]string, error) {
	lr := &io.LimitedReader{R: r, N: maxResultsFile + 1}
	cr := csv.NewReader(lr)
	cr.FieldsPerRecord = fields
	recs, err := cr.ReadAll()
	if lr.N <= 0 {
		return nil, inputerr.Errorf("%s: larger than %d bytes", name, maxResultsFile)
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return nil, inputerr.Errorf("%s: %w", name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return recs, nil
}

// fieldParser parses the fields of one line, keeping the first error:
// bad input naming the file, line and column.
type fieldParser struct {
	name   string
	line   int
	header []string
	err    error
}

func (p *fieldParser) fail(j int, format string, a ...any) {
	if p.err == nil {
		p.err = inputerr.Errorf("%s: line %d: column %s: %s", p.name, p.line, p.header[j], fmt.Sprintf(format, a...))
	}
}

func (p *fieldParser) int(rec []string, j int) int {
	v, err := strconv.Atoi(rec[j])
	if err != nil {
		p.fail(j, "%q is not an integer", rec[j])
	}
	return v
}

// decimal is the number syntax results files are written in
// (FormatFloat): strconv.ParseFloat alone would also read 0x1p-1, 1_0,
// Inf and NaN.
var decimal = regexp.MustCompile(`^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// float parses a finite number in decimal or exponent notation.
func (p *fieldParser) float(rec []string, j int) float64 {
	v, err := strconv.ParseFloat(rec[j], 64)
	if err != nil || !decimal.MatchString(rec[j]) || math.IsNaN(v) || math.IsInf(v, 0) {
		p.fail(j, "%q is not a finite number in decimal notation", rec[j])
	}
	return v
}

// nonNegative parses a finite number >= 0 (a variance, an MSE).
func (p *fieldParser) nonNegative(rec []string, j int) float64 {
	v := p.float(rec, j)
	if v < 0 {
		p.fail(j, "%v is negative", v)
	}
	return v
}

// ratio parses a number >= 0 that may be +Inf (a claim's MSE ratio over a
// zero MSE).
func (p *fieldParser) ratio(rec []string, j int) float64 {
	v, err := strconv.ParseFloat(rec[j], 64)
	if err != nil || math.IsNaN(v) || v < 0 || !decimal.MatchString(rec[j]) && rec[j] != "+Inf" {
		p.fail(j, "%q is not a ratio (a number >= 0, or +Inf)", rec[j])
	}
	return v
}

// bool parses true or false as written by the report.
func (p *fieldParser) bool(rec []string, j int) bool {
	if rec[j] != "true" && rec[j] != "false" {
		p.fail(j, "%q, want true or false", rec[j])
	}
	return rec[j] == "true"
}
