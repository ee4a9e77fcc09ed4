package resultsdir

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
