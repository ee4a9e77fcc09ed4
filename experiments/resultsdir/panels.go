package resultsdir

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/ope-lab/longhorizon/experiments/config"
)

// panelsHeader is the column list of panels.csv: every simulated point of
// every panel, with the closed form and the deviation in standard errors.
var panelsHeader = []string{"panel", "title", "series", "estimator", "label", "n", "x", "y", "se", "closed_form", "z"}

// WritePanelsCSV writes the panels' points to w (closed_form and z empty
// where there is no closed form; se too for a weight reference's point).
func WritePanelsCSV(w io.Writer, r *config.Plan, pts []PanelPoint) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(panelsHeader); err != nil {
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

// closedHeader is the column list of closedform.csv: the dense closed-form
// line of every panel line that has one (panel 1-based, the line's first
// series and its estimator), so that a results directory redraws its
// figure without the code that computed them.
var closedHeader = []string{"panel", "series", "estimator", "x", "y"}

// WriteClosedCSV writes the closed-form lines of panels to w.
func WriteClosedCSV(w io.Writer, panels []Panel) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(closedHeader); err != nil {
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

// ReadClosedCSV reads closedform.csv back: each closed-form line's points
// by panel, series and estimator, in the file's order.
func ReadClosedCSV(rd io.Reader, path string) (map[ClosedKey][]XY, error) {
	recs, err := readRecords(rd, path, closedHeader)
	if err != nil {
		return nil, err
	}
	out := map[ClosedKey][]XY{}
	for i, rec := range recs {
		p := fieldParser{name: path, line: i + 2, header: closedHeader}
		k := ClosedKey{Panel: p.int(rec, 0), Series: rec[1], Estimator: rec[2]}
		xy := XY{X: p.float(rec, 3), Y: p.float(rec, 4)}
		if p.err != nil {
			return nil, p.err
		}
		out[k] = append(out[k], xy)
	}
	return out, nil
}

// PanelPoint is one simulated point of a panel with its closed form, as
// written to panels.csv.
type PanelPoint struct {
	Panel     int // 1-based
	Series    string
	Estimator string
	Label     string
	N         int
	X, Y, SE  float64
	// Closed is the closed-form value (NaN if none); Z = (Y - Closed)/SE,
	// the deviation in standard errors (NaN if no closed form). When SE is
	// 0 (all trials gave the same estimate) a bias or mean is measured by
	// the closed form's sqrt(variance/T) instead; failing that Z is 0 if Y
	// equals Closed to 1e-12, else +/-Inf.
	Closed, Z float64
	// Reference marks a point of a weight reference: Estimator is empty,
	// and panels.csv leaves se, closed_form and z empty.
	Reference bool
}

// ClosedKey names a closed-form line of closedform.csv: its panel
// (1-based), the line's first series and its estimator.
type ClosedKey struct {
	Panel             int
	Series, Estimator string
}

// formatZ writes a deviation for panels.csv (empty when there is none).
func formatZ(z float64) string {
	if math.IsNaN(z) {
		return ""
	}
	return strconv.FormatFloat(z, 'f', 3, 64)
}

// SlopesFile is the file of the log-log slopes of the panels that ask for
// them (plot.panels[].slope).
const SlopesFile = "slopes.csv"

// slopesHeader is the column list of slopes.csv.
var slopesHeader = []string{"panel", "title", "series", "estimator", "x", "y", "at_n", "points", "slope", "slope_se", "intercept"}

// SlopeRow is the least-squares fit of log10 y on log10 x over one line of
// a panel with slope: true (report.LogLogFit).
type SlopeRow struct {
	Panel int // 1-based, as in panels.csv
	// Series is what the line runs through (PanelLine.Group); Estimator
	// is "" for a weight reference.
	Series, Estimator string
	// Points is how many points the fit used; Slope, SE (its standard
	// error) and Intercept are NaN where they are not defined (written
	// empty).
	Points               int
	Slope, SE, Intercept float64
}

// WriteSlopesCSV writes rows with SlopesHeader to w: x, y and at_n are
// the panel's (at_n empty with x = n), NaN values empty.
func WriteSlopesCSV(w io.Writer, p *config.Plan, rows []SlopeRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(slopesHeader); err != nil {
		return err
	}
	opt := func(x float64) string {
		if math.IsNaN(x) {
			return ""
		}
		return FormatFloat(x)
	}
	for _, r := range rows {
		pc := &p.Plot.Panels[r.Panel-1]
		atN := ""
		if pc.X != "n" {
			atN = strconv.Itoa(pc.AtN)
		}
		rec := []string{strconv.Itoa(r.Panel), pc.Title, r.Series, r.Estimator, pc.X, pc.Y, atN, strconv.Itoa(r.Points),
			opt(r.Slope), opt(r.SE), opt(r.Intercept)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
