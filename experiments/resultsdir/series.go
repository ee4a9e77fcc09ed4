package resultsdir

import (
	"encoding/csv"
	"io"
	"slices"

	"github.com/ope-lab/longhorizon/experiments/config"
)

// seriesHeader is the fixed columns of series.csv; a column per domain
// parameter follows, named ParamColumn + the parameter's name.
var seriesHeader = []string{"series", "base", "domain"}

// ParamColumn prefixes the name of a domain parameter's column in
// series.csv, so that a parameter named like a fixed column (the drift
// domain's base) gives a column of its own name.
const ParamColumn = "param_"

// WriteSeriesCSV writes series.csv: one row per series with its base name,
// domain and every parameter as a column param_<name> (empty where the
// series' domain has no such parameter). Joined with curve.csv on series
// it gives a tidy table of a sweep: one column per parameter.
func WriteSeriesCSV(w io.Writer, p *config.Plan) error {
	var names []string
	seen := map[string]bool{}
	for _, s := range p.Series {
		for _, ps := range s.Spec().Params {
			if !seen[ps.Name] {
				seen[ps.Name] = true
				names = append(names, ps.Name)
			}
		}
	}
	cw := csv.NewWriter(w)
	header := slices.Clone(seriesHeader)
	for _, name := range names {
		header = append(header, ParamColumn+name)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, s := range p.Series {
		rec := []string{s.Name, s.Base, s.Domain}
		for _, name := range names {
			v := ""
			if ps, ok := s.Spec().Param(name); ok {
				v = ps.Format(s.Params[name])
			}
			rec = append(rec, v)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
