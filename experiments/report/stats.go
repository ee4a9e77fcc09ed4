package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/unit"
)

// StatsHeader is the exact column list of stats.csv, written beside
// curve.csv (whose columns are fixed) when a config has panels.
var StatsHeader = []string{"series", "estimator", "n", "bias_se", "variance_se"}

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

// AggregateStats computes the stats rows of every curve row, in curve.csv's
// order, from unit results ordered by (series, trial).
func AggregateStats(r *config.Plan, results []unit.Result) ([]StatsRow, error) {
	bySeries, err := groupBySeries(r, results)
	if err != nil {
		return nil, err
	}
	var rows []StatsRow
	est := make([]float64, r.Trials)
	t := float64(r.Trials)
	for s, rs := range r.Series {
		for e, name := range rs.Estimators {
			for j, n := range r.N {
				for tr, res := range bySeries[s] {
					est[tr] = res.Estimates[e][j]
				}
				mean, v := fixedPopMeanVariance(est)
				m4 := 0.0
				for _, x := range est {
					d := x - mean
					m4 += d * d * d * d
				}
				m4 /= t
				row := StatsRow{Series: rs.Name, Estimator: name, N: n, VarianceSE: math.Sqrt(math.Max(m4-v*v, 0) / t)}
				if r.Trials > 1 {
					row.BiasSE = math.Sqrt(v / (t - 1))
				}
				rows = append(rows, row)
			}
		}
	}
	return rows, nil
}

// WriteStatsCSV writes rows with StatsHeader to w.
func WriteStatsCSV(w io.Writer, rows []StatsRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(StatsHeader); err != nil {
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
	cr.FieldsPerRecord = len(StatsHeader)
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty file, want header %v", name, StatsHeader)
	}
	for j, h := range StatsHeader {
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
				return nil, fmt.Errorf("%s: line %d: column %s: %q is not a number", name, i+2, StatsHeader[3+k], rec[3+k])
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// PanelsHeader is the column list of panels.csv: every simulated point of
// every panel, with the closed form and the deviation in standard errors.
var PanelsHeader = []string{"panel", "title", "series", "estimator", "label", "n", "x", "y", "se", "closed_form", "z"}

// WritePanelsCSV writes the panels' points to w (closed_form and z empty
// where there is no closed form; se too for a weight reference's point).
func WritePanelsCSV(w io.Writer, r *config.Plan, pts []PanelPoint) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(PanelsHeader); err != nil {
		return err
	}
	for _, p := range pts {
		closed := ""
		if !math.IsNaN(p.Closed) {
			closed = FormatFloat(p.Closed)
		}
		se := FormatFloat(p.SE)
		if p.Reference {
			se = "" // exact: no standard error
		}
		rec := []string{strconv.Itoa(p.Panel), r.Plot.Panels[p.Panel-1].Title, p.Series, p.Estimator, p.Label, strconv.Itoa(p.N),
			FormatFloat(p.X), FormatFloat(p.Y), se, closed, formatZ(p.Z)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ClosedHeader is the column list of closedform.csv: the dense closed-form
// line of every panel line that has one (panel 1-based, the line's first
// series and its estimator), so that a results directory redraws its
// figure without the code that computed them.
var ClosedHeader = []string{"panel", "series", "estimator", "x", "y"}

// WriteClosedCSV writes the closed-form lines of panels to w.
func WriteClosedCSV(w io.Writer, panels []Panel) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(ClosedHeader); err != nil {
		return err
	}
	for i, pn := range panels {
		for _, ln := range pn.Lines {
			for _, xy := range ln.Closed {
				rec := []string{strconv.Itoa(i + 1), ln.Series, ln.Estimator, FormatFloat(xy.X), FormatFloat(xy.Y)}
				if err := cw.Write(rec); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// readClosedCSV reads closedform.csv back.
func readClosedCSV(rd io.Reader, path string) (storedClosed, error) {
	recs, err := readRecords(rd, path, ClosedHeader)
	if err != nil {
		return nil, err
	}
	out := storedClosed{}
	for i, rec := range recs {
		p := fieldParser{name: path, line: i + 2, header: ClosedHeader}
		k := closedKey{panel: p.int(rec, 0), series: rec[1], estimator: rec[2]}
		xy := XY{X: p.float(rec, 3), Y: p.float(rec, 4)}
		if p.err != nil {
			return nil, p.err
		}
		out[k] = append(out[k], xy)
	}
	return out, nil
}
