package resultsdir

import "slices"

// The exact column lists of the files, each returned as a fresh copy (the
// files' formats cannot be changed through them).

// CurveHeader is the exact column list of curve.csv.
func CurveHeader() []string { return slices.Clone(curveHeader) }

// TrialsHeader is the exact column list of trials.csv.
func TrialsHeader() []string { return slices.Clone(trialsHeader) }

// SeriesHeader is the fixed columns of series.csv; a column per domain
// parameter follows, named ParamColumn + the parameter's name.
func SeriesHeader() []string { return slices.Clone(seriesHeader) }

// BoundsHeader is the exact column list of bounds.csv.
func BoundsHeader() []string { return slices.Clone(boundsHeader) }

// StatsHeader is the exact column list of stats.csv.
func StatsHeader() []string { return slices.Clone(statsHeader) }

// PanelsHeader is the column list of panels.csv.
func PanelsHeader() []string { return slices.Clone(panelsHeader) }

// ClosedHeader is the column list of closedform.csv.
func ClosedHeader() []string { return slices.Clone(closedHeader) }

// SlopesHeader is the column list of slopes.csv.
func SlopesHeader() []string { return slices.Clone(slopesHeader) }

// ClaimsHeader is the column list of claims.csv when every claim is on a
// Ratio quantity (see ClaimsHeaderOf).
func ClaimsHeader() []string { return slices.Clone(claimsHeader) }
