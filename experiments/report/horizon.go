package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/quantity"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
)

// lineGroup is what a line of panel pc runs through, as legends and
// slopes.csv name it: with x = n a series (its full name); with x = H a
// base series (config.HorizonX: its selected series in order of H); with
// x a parameter the base series with its other swept values (sweepName).
func lineGroup(pc *config.Panel, rs *config.Series) string {
	switch pc.X {
	case "n":
		return rs.Name
	case config.HorizonX:
		return rs.Base
	}
	return sweepName(rs, pc.X)
}

// namesX reports whether label l would show one point's value of x for a
// whole line of panel pc: it names the x parameter, or with x = H any
// parameter swept in rs's base series.
func namesX(l string, pc *config.Panel, rs *config.Series) bool {
	if pc.X != config.HorizonX {
		return strings.Contains(l, "{"+pc.X+"}")
	}
	for name := range rs.Sweep {
		if strings.Contains(l, "{"+name+"}") {
			return true
		}
	}
	return false
}

// skipped counts the points of a panel left out because its quantity is
// undefined there (quantity.Quantity.Undefined), by reason, with the base
// series they belong to.
type skipped struct {
	why    []string
	count  map[string]int
	groups map[string][]string
}

func (s *skipped) add(why, base string) {
	if s.count == nil {
		s.count, s.groups = map[string]int{}, map[string][]string{}
	}
	if s.count[why] == 0 {
		s.why = append(s.why, why)
	}
	s.count[why]++
	if !slices.Contains(s.groups[why], base) {
		s.groups[why] = append(s.groups[why], base)
	}
}

// note says, for the panel's note, which points were left out and why,
// e.g. "rel_rmse undefined where V(pi_e) = 0: 2 points of ch left out";
// "" when none was.
func (s *skipped) note(y string) string {
	var out []string
	for _, why := range s.why {
		pts := "points"
		if s.count[why] == 1 {
			pts = "point"
		}
		out = append(out, fmt.Sprintf("%s undefined where %s: %d %s of %s left out", y, why, s.count[why], pts, nameList(s.groups[why])))
	}
	return strings.Join(out, "; ")
}

// nameList joins names for a panel's note, which is one line: the first
// three, then how many more, e.g. "a, b, c and 2 more".
func nameList(names []string) string {
	const most = 3
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:most], ", "), len(names)-most)
}

// weightRefLines returns the weight references of panel pc (index idx,
// quantity q, estimator lines lines): per group of lines, in order of
// first appearance, a dashed reference line (PanelLine.Reference) through
// q.WeightRef(E_b[W_H^2], V(pi_e), n) of each of its series, at n = at_n
// (each n of the grid with x = n), in order of x; the points for
// panels.csv (empty estimator, no standard error); and the note naming the
// base series of the series that have no E_b[W_H^2] in their truth
// (domains.WeightSecondMoment; or a non-finite reference), whose points
// are left out, "" when none has. truths[s] is series s's truth (nil:
// none known). A group whose every reference point an earlier group's
// line already has (series of two bases over the same domain and
// parameters, e.g. one estimator run over a shorter range of H) draws no
// second, identical line.
func weightRefLines(r *config.Plan, idx int, pc *config.Panel, q *quantity.Quantity, lines []*panelLine, truths []domains.Truth) ([]resultsdir.PanelLine, []resultsdir.PanelPoint, string) {
	var groups []string
	members := map[string][]int{}
	for _, ln := range lines {
		if members[ln.group] == nil {
			groups = append(groups, ln.group)
		}
		for _, s := range ln.members {
			if !slices.Contains(members[ln.group], s) {
				members[ln.group] = append(members[ln.group], s)
			}
		}
	}
	var out []resultsdir.PanelLine
	var points []resultsdir.PanelPoint
	var missing []string
	for _, g := range groups {
		ms := slices.Clone(members[g])
		slices.Sort(ms) // selection order
		label := q.WeightRefLabel
		if len(groups) > 1 {
			label += ", " + g
		}
		pl := resultsdir.PanelLine{Label: label, Dashed: true, Reference: true, Series: r.Series[ms[0]].Name, Group: g}
		var pts []resultsdir.PanelPoint
		for _, s := range ms {
			rs := &r.Series[s]
			for _, n := range r.N {
				if pc.X != "n" && n != pc.AtN {
					continue
				}
				w2, ok := 0.0, false
				if s < len(truths) {
					w2, ok = truths[s].Extra[domains.WeightSecondMoment]
				}
				y := math.NaN()
				if ok {
					y = q.WeightRef(w2, truths[s].Value, n)
				}
				if math.IsNaN(y) || math.IsInf(y, 0) {
					if !slices.Contains(missing, rs.Base) {
						missing = append(missing, rs.Base)
					}
					continue
				}
				x := float64(n)
				if pc.X != "n" {
					x = pc.XOf(rs)
				}
				pts = append(pts, resultsdir.PanelPoint{Panel: idx + 1, Series: rs.Name, Label: label, N: n, X: x, Y: y,
					SE: math.NaN(), Closed: math.NaN(), Z: math.NaN(), Reference: true})
			}
		}
		slices.SortStableFunc(pts, func(a, b resultsdir.PanelPoint) int { return cmp.Compare(a.X, b.X) })
		for _, pt := range pts {
			pl.Points = append(pl.Points, resultsdir.PanelXY{X: pt.X, Y: pt.Y})
		}
		if slices.ContainsFunc(out, func(o resultsdir.PanelLine) bool { return coversPoints(o.Points, pl.Points) }) {
			continue // the same domain and parameters as a group drawn already
		}
		points = append(points, pts...)
		if len(pl.Points) > 0 {
			out = append(out, pl)
		}
	}
	note := ""
	if len(missing) > 0 {
		note = fmt.Sprintf("no E_b[W_H^2] recorded for %s: no reference there", nameList(missing))
	}
	return out, points, note
}

// coversPoints reports whether line has every point of pts, exactly.
func coversPoints(line, pts []resultsdir.PanelXY) bool {
	for _, p := range pts {
		if !slices.Contains(line, p) {
			return false
		}
	}
	return len(pts) > 0
}
