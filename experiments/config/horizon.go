package config

import "fmt"

// HorizonX is the x of a panel drawn against the series' horizon H
// (Panel.X): the longest trajectory its domain draws,
// domains.Spec.MaxSteps, whatever parameter sets it. No domain has a
// parameter of this name (a test keeps it so), so it cannot be mistaken
// for a swept parameter.
const HorizonX = "H"

// HorizonLabel is the default x axis label of a panel with x = HorizonX.
const HorizonLabel = "horizon H"

// DefaultLogX is the default of plot.panels[].log_x for a panel's x: a
// log axis for n and H, a linear one for a parameter.
func DefaultLogX(x string) bool { return x == "n" || x == HorizonX }

// XOf returns the x of series rs in a panel whose x is HorizonX or a
// parameter: its recorded horizon (Horizons) or the parameter's value.
func (pc *Panel) XOf(rs *Series) float64 {
	if pc.X == HorizonX {
		return float64(pc.Horizons[rs.Name])
	}
	return rs.Params[pc.X]
}

// horizons checks a panel with x = HorizonX and returns the horizon of
// every selected series (sel) by name: each must be known (the domain
// declares MaxSteps) and positive, and no two selected series of one base
// series may share one, since the line of a base runs through its series
// in order of H.
func (v *validator) horizons(field string, at func(keys ...any) []any, r *Plan, sel []int) map[string]int {
	out := make(map[string]int, len(sel))
	first := map[string]map[int]string{} // base -> H -> the first series with it
	for _, s := range sel {
		rs := &r.Series[s]
		spec := rs.Spec()
		if spec == nil || spec.MaxSteps == nil {
			v.fail(field+".x", at("x"), "%s, but the horizon of series %s is not known (domain %s declares no longest trajectory)", HorizonX, rs.Name, rs.Domain)
			return out
		}
		h := spec.MaxSteps(rs.Params)
		if h < 1 {
			v.fail(field+".x", at("x"), "%s, but series %s has horizon %d; want >= 1", HorizonX, rs.Name, h)
			return out
		}
		out[rs.Name] = h
		if first[rs.Base] == nil {
			first[rs.Base] = map[int]string{}
		}
		if other, dup := first[rs.Base][h]; dup {
			v.fail(field+".x", at("x"), "%s, but series %s and %s of base %s both have H = %d: a line per base series runs through distinct horizons (list the series it runs through in %s)",
				HorizonX, other, rs.Name, rs.Base, h, field+".series")
			return out
		}
		first[rs.Base][h] = rs.Name
	}
	return out
}

// CheckHorizons checks the horizons of a panel with x = HorizonX read
// back (meta.json): one recorded for every selected series, >= 1, and
// distinct within a base series, as validation records them.
func (pc *Panel) CheckHorizons(r *Plan) error {
	seen := map[string]bool{}
	for _, s := range r.PanelSeries(pc.Series) {
		rs := &r.Series[s]
		h, ok := pc.Horizons[rs.Name]
		if !ok || h < 1 {
			return fmt.Errorf("x %s, but no horizon >= 1 is recorded for series %s (horizons)", HorizonX, rs.Name)
		}
		key := fmt.Sprintf("%s/%d", rs.Base, h)
		if seen[key] {
			return fmt.Errorf("x %s, but two series of base %s have H = %d", HorizonX, rs.Base, h)
		}
		seen[key] = true
	}
	return nil
}
