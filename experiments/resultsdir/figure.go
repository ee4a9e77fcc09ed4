package resultsdir

// Figure is everything a run's figure shows, as plain data: package
// report builds it (Report.Figure, and ReadFigure from a results
// directory's files), package figure draws it to the PNG and SVG.
type Figure struct {
	Title string // e.g. "Fig. 4: sub-episode MDP, H = 100 (128 trials)"
	// Rows are the MSE points; one line per (Series, Estimator) pair, in
	// order of first appearance.
	Rows []Row
	// Labels maps "series/estimator" to a legend label; missing keys fall
	// back to the estimator name when the figure has one series, else
	// "series: estimator".
	Labels map[string]string
	// Dashed lists "series/estimator" keys (or bare estimator names,
	// matching any series) drawn dashed: reference lines.
	Dashed []string
	// Diagnostic, when its Rows are not empty, adds a side panel: the mean
	// of a diagnostic against its index, one line per (series, estimator)
	// and n.
	Diagnostic DiagnosticPanel
	// Panels, when not empty, replace the MSE and diagnostic panels: the
	// figure is a grid of these panels under Title and Note.
	Panels []Panel
	// Note is a line of smaller text under the title of a figure with
	// panels (what points and lines mean).
	Note string
	// Published, when not empty, replaces every other panel: one panel
	// per published table (config's published), each cell's central 95%
	// of the run's replicates with their median and the published value.
	Published []PublishedTable
}

// PublishedTable is one published table's panel: its title and cells.
type PublishedTable struct {
	Title string
	Rows  []PublishedRow
}

// DiagnosticPanel is the side panel of a diagnostic's mean per index.
type DiagnosticPanel struct {
	Title, XLabel, YLabel string
	// Rows are the points; N lists the sample sizes drawn, in legend order.
	Rows []DiagRow
	N    []int
}

// Panel is one panel of a figure with panels: lines of simulated points
// with standard errors and, optionally, their closed forms.
type Panel struct {
	Title          string
	XLabel, YLabel string
	LogX, LogY     bool
	// YMin is where a log y axis starts (config plot.panels[].y_min;
	// values below are drawn at it), 0 for from the data.
	YMin float64 `json:",omitempty"`
	// YLo and YHi, when YHi > YLo, fix the range a linear y axis shows
	// (padded as from the data; a coverage: [0, 1]) instead of the data's.
	YLo, YHi float64 `json:",omitempty"`
	Lines    []PanelLine
	// Refs are horizontal reference lines (the true value under a lower
	// bound, 1 - delta under a coverage), drawn dashed across the panel.
	Refs []RefLine `json:",omitempty"`
	// Note, when not empty, is drawn under the panel's title (points
	// left out, weight references missing), one line per "\n"-separated
	// part, before the figure's own notes of the panel.
	Note string `json:",omitempty"`
}

// RefLine is a horizontal reference line of a panel, with its legend
// label.
type RefLine struct {
	Label string
	Y     float64
}

// PanelLine is one line of a panel.
type PanelLine struct {
	Label  string
	Dashed bool
	// Points are the simulated points, in increasing X.
	Points []PanelXY
	// Closed is the closed form, densely sampled; empty when none.
	Closed []XY
	// Series (the line's first series) and Estimator key Closed in
	// closedform.csv.
	Series, Estimator string
	// Group is what the line runs through, as slopes.csv names it: a
	// series (x = n), a base series (x = H), a base series with its other
	// swept values (x a parameter); "" for a line over several series
	// (combine: max).
	Group string
	// Reference marks a weight reference (plot.panels[].weight_reference;
	// Estimator ""): drawn dashed in grey, without markers or error bars,
	// and kept out of the panel's y range beyond two decades of the
	// points.
	Reference bool
}

// PanelXY is a simulated point with its standard error.
type PanelXY struct{ X, Y, SE float64 }

// XY is a point of a closed-form line.
type XY struct{ X, Y float64 }
