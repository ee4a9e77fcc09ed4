package resultsdir

import (
	"encoding/csv"
	"io"
	"math"
	"path/filepath"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// The files of a run that reproduces a published table (config's
// published): the comparison in CSV, in markdown beside the paper's
// layout, and as a booktabs LaTeX table.
const (
	PublishedFile = "published.csv"
	PublishedMD   = "published.md"
	PublishedTeX  = "published.tex"
)

// publishedHeader is the exact column list of published.csv (issue 30).
var publishedHeader = []string{"source", "table", "row", "column", "published", "median", "lo", "hi", "percentile"}

// PublishedHeader returns published.csv's columns (a copy).
func PublishedHeader() []string { return append([]string(nil), publishedHeader...) }

// PublishedRow compares one published cell with the distribution of the
// relative MSE over the run's replicates of the paper's experiment
// (config.Published): its median, its 2.5% and 97.5% points Lo and Hi
// (linear interpolation between order statistics, Hyndman & Fan's type
// 7), and Percentile, the percentage of replicates below the published
// value, ties counted half (the mid-rank).
type PublishedRow struct {
	Source, Table, Row, Column string
	Published                  float64
	Median, Lo, Hi             float64
	Percentile                 float64
}

// Inside reports whether the published value lies in [Lo, Hi], the
// central 95% of the replicates.
func (r PublishedRow) Inside() bool { return r.Published >= r.Lo && r.Published <= r.Hi }

// WritePublishedCSV writes rows with PublishedHeader to w, floats in
// FormatFloat's shortest round-trip form (+Inf where a replicate's
// estimates were not finite).
func WritePublishedCSV(w io.Writer, rows []PublishedRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(publishedHeader); err != nil {
		return err
	}
	for _, r := range rows {
		rec := []string{r.Source, r.Table, r.Row, r.Column, FormatFloat(r.Published),
			FormatFloat(r.Median), FormatFloat(r.Lo), FormatFloat(r.Hi), FormatFloat(r.Percentile)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadPublishedCSV reads published.csv back; path labels errors.
func ReadPublishedCSV(r io.Reader, path string) ([]PublishedRow, error) {
	recs, err := readRecords(r, path, publishedHeader)
	if err != nil {
		return nil, err
	}
	rows := make([]PublishedRow, 0, len(recs))
	for i, rec := range recs {
		fp := fieldParser{name: path, line: i + 2, header: publishedHeader}
		row := PublishedRow{Source: rec[0], Table: rec[1], Row: rec[2], Column: rec[3], Published: fp.nonNegative(rec, 4),
			Median: fp.ratio(rec, 5), Lo: fp.ratio(rec, 6), Hi: fp.ratio(rec, 7), Percentile: fp.nonNegative(rec, 8)}
		switch {
		case fp.err != nil:
		case row.Percentile > 100:
			fp.fail(8, "%v is above 100", row.Percentile)
		case !(row.Lo <= row.Median && row.Median <= row.Hi):
			fp.fail(5, "median %v outside [lo, hi] = [%v, %v]", row.Median, row.Lo, row.Hi)
		}
		if fp.err != nil {
			return nil, fp.err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// CheckPublished checks published.csv read back against the plan that
// wrote it: one row per cell of its published section, in order, with the
// published value it states.
func CheckPublished(path string, p *config.Plan, rows []PublishedRow) error {
	cells := p.Published.Cells
	for i, c := range cells {
		if i >= len(rows) {
			return inputerr.Errorf("%s: %d rows, want %d (one per published cell of meta.json's config); the first missing is table %s row %s column %s",
				path, len(rows), len(cells), c.Table, c.Row, c.Column)
		}
		r := rows[i]
		if r.Source != p.Published.Source || r.Table != c.Table || r.Row != c.Row || r.Column != c.Column || r.Published != c.Value {
			return inputerr.Errorf("%s: line %d: %s table %s row %s column %s = %v, want %s table %s row %s column %s = %v (meta.json's config)",
				path, i+2, r.Source, r.Table, r.Row, r.Column, r.Published, p.Published.Source, c.Table, c.Row, c.Column, c.Value)
		}
	}
	if len(rows) > len(cells) {
		return inputerr.Errorf("%s: line %d: more rows than meta.json's config has published cells (%d)", path, len(cells)+2, len(cells))
	}
	return nil
}

// ReadPublished reads the published.csv of the results directory dir,
// checked against its meta.json.
func ReadPublished(dir string, p *config.Plan) ([]PublishedRow, error) {
	path := filepath.Join(dir, PublishedFile)
	rows, err := ReadFile(path, ReadPublishedCSV)
	if err != nil {
		return nil, err
	}
	if err := CheckPublished(path, p, rows); err != nil {
		return nil, err
	}
	return rows, nil
}

// Quantile returns the q-quantile of sorted x (ascending, no NaN, +Inf
// allowed) by linear interpolation between order statistics (Hyndman &
// Fan's type 7, R's and numpy's default): h = (len-1) q, x[floor h] +
// (h - floor h)(x[floor h + 1] - x[floor h]).
func Quantile(sorted []float64, q float64) float64 {
	h := float64(len(sorted)-1) * q
	lo := int(math.Floor(h))
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	a, b := sorted[lo], sorted[lo+1]
	if frac := h - float64(lo); frac > 0 && a != b {
		return a + frac*(b-a)
	}
	return a
}

// MidRankPercentile returns 100 times the fraction of sorted (ascending)
// below x, values equal to x counted half.
func MidRankPercentile(sorted []float64, x float64) float64 {
	below, equal := 0, 0
	for _, v := range sorted {
		switch {
		case v < x:
			below++
		case v == x:
			equal++
		}
	}
	return 100 * (float64(below) + float64(equal)/2) / float64(len(sorted))
}
