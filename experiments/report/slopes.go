package report

import (
	"math"
	"slices"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
)

// wantsSlopes reports whether some panel of p asks for its slopes: then
// slopes.csv is written.
func wantsSlopes(p *config.Plan) bool {
	return slices.ContainsFunc(p.Plot.Panels, func(pc config.Panel) bool { return pc.Slope })
}

// Slopes fits every line of every panel of p with slope: true (panels
// are p's panels as built, in order), in the panels' line order.
func Slopes(p *config.Plan, panels []resultsdir.Panel) []resultsdir.SlopeRow {
	var out []resultsdir.SlopeRow
	for i, pn := range panels {
		if i >= len(p.Plot.Panels) || !p.Plot.Panels[i].Slope {
			continue
		}
		for _, ln := range pn.Lines {
			xs := make([]float64, 0, len(ln.Points))
			ys := make([]float64, 0, len(ln.Points))
			for _, pt := range ln.Points {
				xs, ys = append(xs, pt.X), append(ys, pt.Y)
			}
			row := resultsdir.SlopeRow{Panel: i + 1, Series: ln.Group, Estimator: ln.Estimator}
			row.Points, row.Slope, row.SE, row.Intercept = LogLogFit(xs, ys)
			out = append(out, row)
		}
	}
	return out
}

// LogLogFit fits log10 y = intercept + slope log10 x by ordinary least
// squares over the points with x > 0 and finite y > 0 (x finite too),
// which it counts. With m such points, u = log10 x, v = log10 y, their
// means u0, v0, Suu = sum (u - u0)^2 and Suv = sum (u - u0)(v - v0):
// slope = Suv / Suu, intercept = v0 - slope u0, and the standard error of
// the slope sqrt(SSR / (m - 2) / Suu), SSR the sum of squared residuals.
// slope and intercept are NaN with fewer than 2 points or a single x
// (Suu = 0), se with fewer than 3.
func LogLogFit(xs, ys []float64) (points int, slope, se, intercept float64) {
	var us, vs []float64
	for i, x := range xs {
		y := ys[i]
		if x > 0 && y > 0 && !math.IsInf(x, 1) && !math.IsInf(y, 1) {
			us, vs = append(us, math.Log10(x)), append(vs, math.Log10(y))
		}
	}
	m := len(us)
	nan := math.NaN()
	if m < 2 {
		return m, nan, nan, nan
	}
	var u0, v0 float64
	for i := range us {
		u0 += us[i]
		v0 += vs[i]
	}
	u0 /= float64(m)
	v0 /= float64(m)
	var suu, suv float64
	for i := range us {
		du := us[i] - u0
		suu += du * du
		suv += du * (vs[i] - v0)
	}
	if !(suu > 0) {
		return m, nan, nan, nan
	}
	slope = suv / suu
	intercept = v0 - slope*u0
	se = nan
	if m >= 3 {
		var ssr float64
		for i := range us {
			e := vs[i] - intercept - slope*us[i]
			ssr += e * e
		}
		se = math.Sqrt(ssr / float64(m-2) / suu)
	}
	return m, slope, se, intercept
}
