package resultsdir

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// boundsHeader is the exact column list of bounds.csv.
var boundsHeader = []string{"series", "estimator", "bound", "n", "trials", "delta", "true_value",
	"mean_bound", "bound_se", "coverage", "coverage_se", "vacuous"}

// BoundRow summarises one lower bound (SPEC 1e) of one estimator on one
// series at one n over the T trials' bounds b_1..b_T, with V = V(pi_e)
// the series' true value:
//
//   - MeanBound = (1/T) sum_t b_t; BoundSE = s / sqrt(T), s the sample
//     standard deviation of the b_t (denominator T - 1), 0 if T = 1.
//   - Coverage = #{t : b_t <= V} / T, the fraction of trials whose bound
//     holds (at least 1 - delta for a guarantee such as hcope, up to the
//     trials' noise); CoverageSE = sqrt(Coverage (1 - Coverage) / T), its
//     binomial standard error.
//   - Vacuous = #{t : b_t <= g_lo} / T, the fraction of trials whose bound
//     is no better than the trivial bound g_lo, the lower end of the
//     series' return_range. It is reported for every bound of a series
//     with a return range (t's included: the range is the series'), and
//     is NaN (written empty) for a series without one.
type BoundRow struct {
	Series    string
	Estimator string
	Bound     string
	N         int
	Trials    int
	Delta     float64
	TrueValue float64
	MeanBound float64
	BoundSE   float64
	Coverage  float64
	// CoverageSE is the binomial standard error of Coverage.
	CoverageSE float64
	Vacuous    float64
}

// CoverageSE is the binomial standard error sqrt(c (1 - c) / T) of a
// coverage c over T trials.
func CoverageSE(c float64, trials int) float64 {
	return math.Sqrt(c * (1 - c) / float64(trials))
}

// formatVacuous writes Vacuous (empty when NaN: no return range).
func formatVacuous(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return FormatFloat(v)
}

// WriteBoundsCSV writes rows with BoundsHeader to w.
func WriteBoundsCSV(w io.Writer, rows []BoundRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(boundsHeader); err != nil {
		return err
	}
	for _, r := range rows {
		rec := []string{r.Series, r.Estimator, r.Bound, strconv.Itoa(r.N), strconv.Itoa(r.Trials),
			FormatFloat(r.Delta), FormatFloat(r.TrueValue), FormatFloat(r.MeanBound), FormatFloat(r.BoundSE),
			FormatFloat(r.Coverage), FormatFloat(r.CoverageSE), formatVacuous(r.Vacuous)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadBoundsCSV reads rows written by WriteBoundsCSV; path labels errors,
// which are bad input naming the line and column. Fractions (coverage,
// vacuous) must lie in [0, 1], standard errors be >= 0.
func ReadBoundsCSV(r io.Reader, path string) ([]BoundRow, error) {
	recs, err := readRecords(r, path, boundsHeader)
	if err != nil {
		return nil, err
	}
	rows := make([]BoundRow, 0, len(recs))
	for i, rec := range recs {
		p := fieldParser{name: path, line: i + 2, header: boundsHeader}
		row := BoundRow{Series: rec[0], Estimator: rec[1], Bound: rec[2], N: p.int(rec, 3), Trials: p.int(rec, 4),
			Delta: p.float(rec, 5), TrueValue: p.float(rec, 6), MeanBound: p.float(rec, 7), BoundSE: p.nonNegative(rec, 8),
			Coverage: p.fraction(rec, 9), CoverageSE: p.nonNegative(rec, 10), Vacuous: math.NaN()}
		if rec[11] != "" {
			row.Vacuous = p.fraction(rec, 11)
		}
		if p.err != nil {
			return nil, p.err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// fraction parses a number in [0, 1].
func (p *fieldParser) fraction(rec []string, j int) float64 {
	v := p.float(rec, j)
	if v < 0 || v > 1 {
		p.fail(j, "%v is not a fraction in [0, 1]", v)
	}
	return v
}

// CheckBounds checks bounds rows read back against the plan that wrote
// them and its true values (meta.json): one row per series, estimator,
// bound it supports and n, in the order report.AggregateBounds writes them, each
// with the plan's trials and delta and the series' true value; a coverage
// that is a count over the trials with its binomial standard error; a
// vacuous fraction exactly when the series has a return range.
func CheckBounds(path string, p *config.Plan, truths []SeriesMeta, rows []BoundRow) error {
	i := 0
	for s := range p.Series {
		rs := &p.Series[s]
		_, _, hasRange := rs.Range()
		for _, est := range rs.Estimators {
			for _, kind := range rs.Bounds {
				if !config.Supports(est, kind) {
					continue
				}
				for _, n := range p.N {
					if i >= len(rows) {
						return inputerr.Errorf("%s: %d rows, want one per series, estimator, bound and n of meta.json's config; the first missing is %s/%s %s at n = %d",
							path, len(rows), rs.Name, est, kind, n)
					}
					r, line := rows[i], i+2
					k := r.Coverage * float64(r.Trials)
					switch {
					case r.Series != rs.Name || r.Estimator != est || r.Bound != kind || r.N != n || r.Trials != p.Trials:
						return inputerr.Errorf("%s: line %d: row %s/%s %s at n = %d with %d trials, want %s/%s %s at n = %d with %d trials (meta.json's config)",
							path, line, r.Series, r.Estimator, r.Bound, r.N, r.Trials, rs.Name, est, kind, n, p.Trials)
					case r.Delta != p.Delta:
						return inputerr.Errorf("%s: line %d: delta %v, meta.json's config has %v", path, line, r.Delta, p.Delta)
					case s < len(truths) && (truths[s].Series != rs.Name || r.TrueValue != truths[s].Value):
						return inputerr.Errorf("%s: line %d: true value %v, meta.json records %v for series %s", path, line, r.TrueValue, truths[s].Value, rs.Name)
					case math.Abs(k-math.Round(k)) > 1e-6:
						return inputerr.Errorf("%s: line %d: coverage %v is not a count over %d trials", path, line, r.Coverage, r.Trials)
					case r.CoverageSE != CoverageSE(r.Coverage, r.Trials):
						return inputerr.Errorf("%s: line %d: coverage_se %v, but the binomial standard error of coverage %v over %d trials is %v",
							path, line, r.CoverageSE, r.Coverage, r.Trials, CoverageSE(r.Coverage, r.Trials))
					case hasRange == math.IsNaN(r.Vacuous):
						return inputerr.Errorf("%s: line %d: vacuous %q, want it %s (series %s has %s return_range)", path, line,
							formatVacuous(r.Vacuous), map[bool]string{true: "set", false: "empty"}[hasRange], rs.Name, map[bool]string{true: "a", false: "no"}[hasRange])
					}
					i++
				}
			}
		}
	}
	if i < len(rows) {
		return inputerr.Errorf("%s: line %d: more rows than meta.json's config has bounds (%d)", path, i+2, i)
	}
	return nil
}

// BoundKey names a bounds row: its series, estimator, bound and n.
type BoundKey struct {
	Series, Estimator, Bound string
	N                        int
}

// BoundIndex indexes rows by series, estimator, bound and n.
func BoundIndex(rows []BoundRow) map[BoundKey]BoundRow {
	m := make(map[BoundKey]BoundRow, len(rows))
	for _, r := range rows {
		m[BoundKey{Series: r.Series, Estimator: r.Estimator, Bound: r.Bound, N: r.N}] = r
	}
	return m
}
