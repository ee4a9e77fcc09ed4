package figure

import (
	"fmt"
	"strconv"

	"github.com/ope-lab/longhorizon/experiments/resultsdir"
)

// bandCount gathers what the MSE panel's bands are, for the line under
// its title that says so.
type bandCount struct {
	trials  int  // the rows' trials; -1 when they differ
	seen    bool // some row was counted
	withSE  int  // points with a positive standard error: a band
	clamped int  // points whose band's lower edge was raised to MSE/lowerClamp
}

// add counts the plotted row r, whose usable standard error is se and
// whose band's lower edge was clamped if clamped.
func (b *bandCount) add(r resultsdir.Row, se float64, clamped bool) {
	switch {
	case !b.seen:
		b.trials, b.seen = r.Trials, true
	case b.trials != r.Trials:
		b.trials = -1
	}
	if se > 0 {
		b.withSE++
	}
	if clamped {
		b.clamped++
	}
}

// over says over how many trials: "over 128 trials", or "over the
// trials" when rows differ or do not say.
func (b *bandCount) over() string {
	if b.trials > 0 {
		return "over " + strconv.Itoa(b.trials) + " trials"
	}
	return "over the trials"
}

// note is the line under the MSE panel's title: what a band is. A band is
// MSE ± MSESE, and MSESE is the standard error of the MSE (the sample
// standard deviation of the squared errors over √trials:
// resultsdir.Row.MSESE).
func (b *bandCount) note() string {
	if b.withSE == 0 {
		return "MSE " + b.over() + "; no bands: no standard error"
	}
	s := "bands: ±1 standard error of the MSE " + b.over()
	if b.clamped > 0 {
		s += fmt.Sprintf(" (lower edge at least MSE/%d)", lowerClamp)
	}
	return s
}

// diagNote is the line under the diagnostic panel's title: its lines are
// means over the trials of the figure's rows (resultsdir.DiagTable),
// without a band.
func diagNote(rows []resultsdir.Row) string {
	var b bandCount
	for _, r := range rows {
		b.add(r, 0, false)
	}
	return "lines: the mean " + b.over() + "; no bands"
}
