package figure

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PolicyEstimates is the figure of runexp estimate -plot on data with
// several candidate policies: one band per policy down the y axis (the
// first on top), inside it one row per estimator in its colour (a dot
// and its interval, as in Estimates), and each policy's true value,
// when known, as a dashed grey mark across its band: how SCOPE-RL's
// visualize_off_policy_estimates compares policies, turned so that
// names read.
type PolicyEstimates struct {
	Title, Note string
	Policies    []string
	Estimators  []string
	// Rows[k][m] is estimator m's estimate of policy k.
	Rows [][]EstimateRow
	// Truths are the policies' true values (nil: unknown).
	Truths []float64
}

// Geometry of the policies figure.
const (
	polRowMin   = 0.45 * vg.Inch // least height of a policy's band
	polPerEst   = 0.13 * vg.Inch // height per estimator in a band
	polSpread   = 0.6            // the estimators' rows span this much of a band (1)
	polMaxBands = 200            // more policies than this are refused: no legible figure
)

// WritePolicyEstimates draws e into path, a PNG (150 dpi) or an SVG by
// its extension, written whole; the same e gives the same bytes.
func WritePolicyEstimates(e PolicyEstimates, path string) error {
	return writeSingle(e.Title, path, func() (figureLayout, error) { return buildPolicyEstimates(e) })
}

// buildPolicyEstimates lays out the policies figure.
func buildPolicyEstimates(e PolicyEstimates) (*single, error) {
	k, m := len(e.Policies), len(e.Estimators)
	switch {
	case k == 0 || m == 0:
		return nil, fmt.Errorf("figure %q: no estimates to draw", e.Title)
	case len(e.Rows) != k || (e.Truths != nil && len(e.Truths) != k):
		return nil, fmt.Errorf("figure %q: %d policies, %d rows of estimates, %d true values", e.Title, k, len(e.Rows), len(e.Truths))
	case k > polMaxBands:
		return nil, fmt.Errorf("figure %q: %d policies, at most %d fit one figure", e.Title, k, polMaxBands)
	}
	p := newPlot(e.Title, "estimate of V(pi_e)", "")
	p.Y.Tick.Label.Font = font.From(sans, vg.Points(11))
	xr := newRange()
	forests := make([]*forest, m)
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}}
	for j := range forests {
		// past the palette's ten colours, the next shape
		forests[j] = &forest{color: palette[j%len(palette)], shape: shapes[j/len(palette)%len(shapes)]}
	}
	var ticks []plot.Tick
	for i, name := range e.Policies {
		if len(e.Rows[i]) != m {
			return nil, fmt.Errorf("figure %q: policy %s has %d estimates, want %d", e.Title, name, len(e.Rows[i]), m)
		}
		base := float64(k - 1 - i) // the first policy on top
		ticks = append(ticks, plot.Tick{Value: base, Label: name})
		for j, r := range e.Rows[i] {
			forests[j].rows = append(forests[j].rows, forestRow{y: base + offset(j, m), v: r.Value, lo: r.Lo, hi: r.Hi})
			for _, v := range []float64{r.Value, r.Lo, r.Hi} {
				xr.add(v)
			}
		}
		if e.Truths != nil {
			xr.add(e.Truths[i])
		}
	}
	if xr.empty() {
		xr.add(0)
	}
	if !finite(xr.hi - xr.lo) {
		xr.lo, xr.hi = xr.lo/2, xr.hi/2
	}
	p.X.Min, p.X.Max = linPad(xr.lo, xr.hi)
	if !finite(p.X.Max - p.X.Min) {
		p.X.Min, p.X.Max = xr.lo, xr.hi
	}
	p.Y.Min, p.Y.Max = -0.55, float64(k)-0.45
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	leg := newLegend()
	for j, f := range forests {
		p.Add(f)
		leg.Add(e.Estimators[j], forestThumb{color: f.color, dot: true, shape: f.shape})
	}
	if e.Truths != nil {
		var first *plotter.Line
		for i, t := range e.Truths {
			if !finite(t) {
				continue
			}
			base := float64(k - 1 - i)
			l, err := plotter.NewLine(plotter.XYs{{X: t, Y: base - 0.45}, {X: t, Y: base + 0.45}})
			if err != nil {
				return nil, fmt.Errorf("figure: true value of %s: %w", e.Policies[i], err)
			}
			l.Color, l.Width, l.Dashes = refColor, vg.Points(1.6), refDashes[0]
			p.Add(l)
			if first == nil {
				first = l
			}
		}
		if first != nil {
			leg.Add("true value", first)
		}
	}
	band := max(polRowMin, vg.Length(m)*polPerEst)
	h := estChrome + vg.Length(max(k, 2))*band
	pn := &panel{p: p, legend: leg, note: e.Note}
	return &single{pn: pn, w: estWidth, h: wholePixels(max(h, estChrome+vg.Length(m+1)*0.22*vg.Inch))}, nil
}

// offset is the vertical place of estimator j of m inside its policy's
// band, top to bottom in the order given.
func offset(j, m int) float64 {
	if m == 1 {
		return 0
	}
	return polSpread/2 - polSpread*float64(j)/float64(m-1)
}
