package config

// The validator: YAML, strictly decoded, to a Plan with every default
// filled in, every error naming the file, line and field.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments/claims"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/yamlcheck"
	"github.com/ope-lab/longhorizon/models"
	"go.yaml.in/yaml/v3"
)

// Parse decodes and validates config bytes; path labels errors and gives
// the default name. Every error it returns is bad input
// (inputerr.ErrBadInput) naming the file, and the line and field where
// there is one.
func Parse(data []byte, path string) (*Plan, error) {
	r, err := parse(data, path)
	return r, inputerr.Mark(err)
}

func parse(data []byte, path string) (*Plan, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("config %s: empty file", path)
		}
		return nil, yamlcheck.SyntaxError(data, path, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("config %s: empty file", path)
	}
	var second yaml.Node
	if err := dec.Decode(&second); !errors.Is(err, io.EOF) {
		line := second.Line
		if err != nil || line == 0 {
			return nil, fmt.Errorf("config %s: more than one YAML document (a line '---' starts another); a config is one document", path)
		}
		return nil, fmt.Errorf("config %s:%d: a second YAML document; a config is one document", path, line)
	}
	// Scalars first: yaml.v3 would decode 2.5 into an int as 2.
	v := validator{path: path, root: root.Content[0]}
	v.scalars(v.root, reflect.TypeOf(file{}))
	if v.err != nil {
		return nil, v.err
	}
	var c file
	dec = yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, yamlcheck.CleanError(err))
	}
	r := v.resolve(&c)
	if v.err != nil {
		return nil, v.err
	}
	return r, nil
}

// safeName is the character set of the run's and the series' names: they
// become file and directory names and CSV fields.
var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]*$`)

// checkName refuses a name outside safeName or longer than MaxNameLen.
func (v *validator) checkName(field string, at []any, name string) {
	if !safeName.MatchString(name) || len(name) > MaxNameLen {
		v.fail(field, at, "%q, want 1 to %d letters, digits, '_', '.', '+' or '-', starting with a letter or digit", name, MaxNameLen)
	}
}

// validator checks a decoded Config, recording the first error with the
// line of the offending node.
type validator struct {
	path string
	root *yaml.Node
	err  error
}

// fail records an error at the node found by path (keys and indices),
// falling back to the nearest existing ancestor for the line number.
func (v *validator) fail(field string, path []any, format string, args ...any) {
	if v.err != nil {
		return
	}
	line := lineOf(v.root, path)
	v.err = fmt.Errorf("config %s:%d: %s: %s", v.path, line, field, fmt.Sprintf(format, args...))
}

// failLine records an error at a known line.
func (v *validator) failLine(field string, line int, format string, args ...any) {
	if v.err == nil {
		v.err = fmt.Errorf("config %s:%d: %s: %s", v.path, line, field, fmt.Sprintf(format, args...))
	}
}

func lineOf(n *yaml.Node, path []any) int {
	line := n.Line
	for _, p := range path {
		var next *yaml.Node
		switch key := p.(type) {
		case string:
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == key {
						next = n.Content[i+1]
						break
					}
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && key < len(n.Content) {
				next = n.Content[key]
			}
		}
		if next == nil {
			return line
		}
		n = next
		line = n.Line
	}
	return line
}

func (v *validator) resolve(c *file) *Plan {
	r := &Plan{File: v.path, Name: c.Name, Experiment: c.Experiment, Title: c.Title, Data: c.Data, Plot: c.Plot}
	if r.Name == "" {
		r.Name = strings.TrimSuffix(filepath.Base(v.path), filepath.Ext(v.path))
	}
	v.checkName("name", []any{"name"}, r.Name)
	if r.Title == "" {
		r.Title = r.Name
	}
	r.Seed = 1
	if c.Seed != nil {
		r.Seed = *c.Seed
	}
	r.Trials = 128
	if c.Trials != nil {
		r.Trials = *c.Trials
		if r.Trials < 1 || r.Trials > MaxTrials {
			v.fail("trials", []any{"trials"}, "%d, want an integer in [1, %d]", r.Trials, MaxTrials)
		}
	}
	switch r.Data {
	case "":
		r.Data = "nested"
	case "nested", "independent":
	default:
		v.fail("data", []any{"data"}, "%q, want nested or independent", r.Data)
	}
	v.grid(c, r)
	v.series(c, r)
	v.delta(c, r)
	v.claims(c, r)
	v.published(c, r)
	v.trialsFile(c, r)
	v.selection(c, r)
	v.plot(c, r)
	return r
}

func (v *validator) grid(c *file, r *Plan) {
	if len(c.N) == 0 {
		v.fail("n", []any{"n"}, "the n grid is empty or missing; want a list of increasing integers >= 1")
		return
	}
	for i, n := range c.N {
		if n < 1 || n > MaxN {
			v.fail(fmt.Sprintf("n[%d]", i), []any{"n", i}, "%d, want an integer in [1, %d]", n, int64(MaxN))
		}
		if i > 0 && n <= c.N[i-1] {
			v.fail(fmt.Sprintf("n[%d]", i), []any{"n", i}, "%d after %d: the n grid must be strictly increasing", n, c.N[i-1])
		}
	}
	r.N = slices.Clone(c.N)
}

func (v *validator) series(c *file, r *Plan) {
	if len(c.Series) == 0 {
		v.fail("series", []any{"series"}, "no series; want at least one")
		return
	}
	seen := map[string]bool{}
	for i, sc := range c.Series {
		at := func(keys ...any) []any { return append([]any{"series", i}, keys...) }
		field := fmt.Sprintf("series[%d]", i)
		v.checkName(field+".name", at("name"), sc.Name)
		if seen[sc.Name] {
			v.fail(field+".name", at("name"), "%q is used by an earlier series", sc.Name)
		}
		seen[sc.Name] = true
		spec, ok := domains.Lookup(sc.Domain)
		if !ok {
			v.fail(field+".domain", at("domain"), "unknown domain %q (%s)", sc.Domain, yamlcheck.KnownList(sc.Domain, domains.Names()))
			continue
		}
		grid := v.params(spec, &sc.Params, field+".params", at("params"))
		v.zip(&grid, sc.Zip, field+".zip", at("zip"))
		v.candidates(spec, grid, sc.Candidates, field+".candidates", at("candidates"))
		if grid.size() > maxSeriesPerGrid {
			v.fail(field+".params", at("params"), "the sweep expands into more than %d series", maxSeriesPerGrid)
			continue
		}
		names, external := v.estimatorList(&sc.Estimators, field+".estimators", at("estimators"))
		for j, name := range names {
			info, ok := estimators.Lookup(name)
			if !ok {
				if slices.ContainsFunc(external, func(x External) bool { return x.Name == name }) {
					continue
				}
				v.fail(fmt.Sprintf("%s.estimators[%d]", field, j), at("estimators", j), "unknown estimator %q (%s; or an external estimator {name, command})", name, yamlcheck.KnownList(name, estimators.Names()))
				continue
			}
			if len(r.N) > 0 && r.N[0] < info.MinN {
				v.fail("n[0]", []any{"n", 0}, "%d, but estimator %s (series %s) needs n >= %d", r.N[0], name, sc.Name, info.MinN)
			}
		}
		if len(external) > 0 && r.Data != "nested" {
			v.fail(field+".estimators", at("estimators"), "external estimators need data: nested (a request holds a trial's max(n) trajectories); data is %s", r.Data)
		}
		for _, pt := range grid.expand(spec) {
			name := sc.Name
			if len(pt.swept) > 0 {
				name += "[" + strings.Join(pt.swept, ",") + "]"
			}
			if seen[name] && name != sc.Name {
				v.fail(field+".name", at("name"), "expanded series %q is used by an earlier series", name)
			}
			seen[name] = true
			// Build the domain once now, so that constraints between
			// parameters (coverage, a horizon that is a multiple of the
			// option length) fail here, with the line, not mid-run.
			d, err := spec.New(pt.params)
			if err != nil {
				v.fail(field+".params", at("params"), "%s: %v", name, err)
			} else if len(external) > 0 {
				if err := canLog(d); err != nil {
					v.fail(field+".estimators", at("estimators"), "%s: external estimators read the data as logged data: %v", name, err)
				}
			}
			rs := Series{Name: name, Base: sc.Name, Domain: sc.Domain, Params: pt.params,
				Sweep: pt.sweep, Candidates: sc.Candidates, Estimators: slices.Clone(names), External: slices.Clone(external), Model: sc.Model}
			if d != nil {
				rs.supply = domains.SupplyOf(spec, pt.params, d)
			}
			if rs.Model == "" && rs.NeedsModel() {
				rs.Model = models.Default
			}
			if err := rs.checkModel(); err != nil {
				key, path := field+".model", at("model")
				if sc.Model == "" {
					key, path = field+".estimators", at("estimators")
				}
				v.fail(key, path, "%s: %v", name, err)
			}
			if err := rs.checkMoments(); err != nil {
				v.fail(field+".estimators", at("estimators"), "%s: %v", name, err)
			}
			if err := rs.checkIDs(d); err != nil {
				v.fail(field+".estimators", at("estimators"), "%s: %v", name, err)
			}
			v.seriesBounds(&sc, &rs, field, at, r)
			r.Series = append(r.Series, rs)
		}
	}
}

// paramGrid is a series' parameters as written: each declared parameter
// has one value, or a list of values to sweep; the parameters of zip
// advance together.
type paramGrid struct {
	values map[string][]float64
	zip    []string
}

// gridPoint is one combination of a grid: all parameters resolved, and
// the swept ones named for the series name ("p_e=0.5") and recorded.
type gridPoint struct {
	params domains.Params
	sweep  domains.Params
	swept  []string
}

// expand returns the cartesian product of the grid's lists, in the order
// of the domain's declared parameters, the last varying fastest; the zip
// parameters take one place in that order (their first declared one) and
// advance together, the series named by the zip's first parameter.
func (g paramGrid) expand(spec *domains.Spec) []gridPoint {
	pts := []gridPoint{{params: domains.Params{}}}
	zipped := false
	for _, ps := range spec.Params {
		group := []string{ps.Name}
		if slices.Contains(g.zip, ps.Name) {
			if zipped {
				continue // expanded with the zip's first declared parameter
			}
			zipped, group = true, g.zip
		}
		vals := g.values[group[0]]
		var next []gridPoint
		for _, pt := range pts {
			for i, x := range vals {
				q := gridPoint{params: maps.Clone(pt.params), sweep: maps.Clone(pt.sweep), swept: slices.Clone(pt.swept)}
				for _, name := range group {
					q.params[name] = g.values[name][i]
				}
				if len(vals) > 1 {
					if q.sweep == nil {
						q.sweep = domains.Params{}
					}
					for _, name := range group {
						q.sweep[name] = g.values[name][i]
					}
					name, _ := spec.Param(group[0])
					q.swept = append(q.swept, group[0]+"="+name.Format(x))
				}
				next = append(next, q)
			}
		}
		pts = next
	}
	return pts
}

// zip checks a series' zip list against its grid and records it: at
// least two distinct parameters, each given as a list, all of one length.
func (v *validator) zip(g *paramGrid, names []string, field string, at []any) {
	if names == nil {
		return
	}
	if len(names) < 2 {
		v.fail(field, at, "%d parameter(s); want at least two swept parameters that advance together", len(names))
		return
	}
	n := -1
	for j, name := range names {
		f, fat := fmt.Sprintf("%s[%d]", field, j), append(slices.Clone(at), j)
		vals, ok := g.values[name]
		switch {
		case !ok:
			v.fail(f, fat, "%q is not a parameter of the series' domain", name)
			return
		case slices.Index(names, name) < j:
			v.fail(f, fat, "%q is listed twice", name)
			return
		case len(vals) < 2:
			v.fail(f, fat, "%q has one value; a zipped parameter is a list (a sweep)", name)
			return
		case n >= 0 && len(vals) != n:
			v.fail(f, fat, "%q has %d values, %q has %d; zipped lists have one length", name, len(vals), names[0], n)
			return
		}
		n = len(vals)
	}
	g.zip = names
}

// maxSeriesPerGrid bounds one series' sweep, so that a typo cannot plan
// millions of series.
const maxSeriesPerGrid = 10000

// params resolves a series' params mapping against the domain's declared
// parameters: unknown keys, wrong types and out-of-range values are errors.
// A value may be a list (a sweep): the series expands into the cartesian
// product of its lists.
func (v *validator) params(spec *domains.Spec, node *yaml.Node, field string, at []any) paramGrid {
	g := paramGrid{values: map[string][]float64{}}
	for name, x := range spec.Defaults() {
		g.values[name] = []float64{x}
	}
	if node.Kind == 0 {
		return g // no params: all defaults
	}
	if node.Kind != yaml.MappingNode {
		v.fail(field, at, "want a mapping of parameter names to values")
		return g
	}
	given := map[string]bool{}
	for i := 0; i+1 < len(node.Content); i += 2 {
		key, val := node.Content[i].Value, node.Content[i+1]
		kat := append(slices.Clone(at), key)
		if given[key] {
			v.failLine(field+"."+key, node.Content[i].Line, "given twice")
			continue
		}
		given[key] = true
		ps, ok := spec.Param(key)
		if !ok {
			names := make([]string, len(spec.Params))
			for j, s := range spec.Params {
				names[j] = s.Name
			}
			v.fail(field+"."+key, kat, "unknown parameter of domain %s (%s)", spec.Name, yamlcheck.KnownList(key, names))
			continue
		}
		items := []*yaml.Node{val}
		if val.Kind == yaml.SequenceNode {
			items = val.Content
			if len(items) == 0 {
				v.fail(field+"."+key, kat, "empty list; a sweep needs at least one value")
				continue
			}
		}
		var xs []float64
		for j, item := range items {
			x, err := scalarParam(ps, item)
			if err != nil {
				f := field + "." + key
				if val.Kind == yaml.SequenceNode {
					f = fmt.Sprintf("%s[%d]", f, j)
				}
				v.fail(f, append(slices.Clone(kat), j), "%v", err)
				continue
			}
			if slices.Contains(xs, x) {
				v.fail(fmt.Sprintf("%s.%s[%d]", field, key, j), append(slices.Clone(kat), j), "%v is listed twice", item.Value)
			}
			xs = append(xs, x)
		}
		g.values[key] = xs
	}
	return g
}

// size is the number of series the grid expands into.
func (g paramGrid) size() int {
	n := 1
	for name, vals := range g.values {
		if slices.Contains(g.zip, name) && name != g.zip[0] {
			continue
		}
		n *= len(vals)
		if n > maxSeriesPerGrid {
			return n
		}
	}
	return n
}

// scalarParam decodes one parameter value and checks its type and range.
func scalarParam(ps domains.ParamSpec, val *yaml.Node) (float64, error) {
	if val.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("want a single %s value or a list of them", ps.Kind)
	}
	var x float64
	switch ps.Kind {
	case domains.Bool:
		b, err := strconv.ParseBool(val.Value)
		if err != nil || val.Tag != "!!bool" {
			return 0, fmt.Errorf("%q is not a boolean (true or false)", val.Value)
		}
		if b {
			x = 1
		}
		return x, nil
	case domains.Int:
		i, err := strconv.Atoi(val.Value)
		if err != nil || !yamlcheck.DecimalInt.MatchString(val.Value) || val.Tag != "!!int" {
			return 0, fmt.Errorf("%q is not an integer", val.Value)
		}
		x = float64(i)
	default:
		f, err := strconv.ParseFloat(val.Value, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || val.Tag != "!!int" && val.Tag != "!!float" {
			return 0, fmt.Errorf("%q is not a finite number", val.Value)
		}
		x = f
	}
	if x < ps.Min || x > ps.Max {
		return 0, fmt.Errorf("%v is outside [%v, %v]", val.Value, ps.Min, ps.Max)
	}
	return x, nil
}

func (v *validator) claims(c *file, r *Plan) {
	for i, cl := range c.Claims {
		at := func(keys ...any) []any { return append([]any{"claims", i}, keys...) }
		field := fmt.Sprintf("claims[%d]", i)
		if cl.Name == "" {
			v.fail(field+".name", at("name"), "missing; want a short claim name")
		}
		v.curveRef(r, field+".subject", at("subject"), cl.Subject)
		if q := cl.Kind(); q != nil && q.Source == claims.Ratio {
			if len(cl.Versus) == 0 {
				v.fail(field+".versus", at("versus"), "empty; want a list of series/estimator curves")
			}
			for j, ref := range cl.Versus {
				v.curveRef(r, fmt.Sprintf("%s.versus[%d]", field, j), at("versus", j), ref)
			}
			if !(cl.MaxRatio > 0) {
				v.fail(field+".max_ratio", at("max_ratio"), "%v, want a number > 0", cl.MaxRatio)
			}
		}
		if key, err := cl.checkQuantity(r); err != nil {
			v.fail(field+"."+key, at(key), "%v", err)
		}
		if cl.Min != nil {
			x := *cl.Min
			cl.Min = &x
		}
		if cl.Max != nil {
			x := *cl.Max
			cl.Max = &x
		}
		switch cl.At {
		case "":
			cl.At = "all"
		case "all", "some":
		default:
			v.fail(field+".at", at("at"), "%q, want all or some", cl.At)
		}
		if cl.NMin == 0 && len(r.N) > 0 {
			cl.NMin = r.N[0]
		}
		if cl.NMax == 0 && len(r.N) > 0 {
			cl.NMax = r.NMax()
		}
		if cl.NMin > cl.NMax {
			v.fail(field+".n_min", at("n_min"), "%d is above n_max %d", cl.NMin, cl.NMax)
		} else if !slices.ContainsFunc(r.N, func(n int) bool { return n >= cl.NMin && n <= cl.NMax }) {
			v.fail(field+".n_min", at("n_min"), "no n of the grid %v lies in [%d, %d]: the claim would be checked at no point", r.N, cl.NMin, cl.NMax)
		}
		r.Claims = append(r.Claims, cl)
	}
}

// trialsFile resolves trials_file: claims are recomputed from trials.csv
// (their bootstrap resamples its trials), so a run without it has none.
func (v *validator) trialsFile(c *file, r *Plan) {
	if c.TrialsFile == nil || *c.TrialsFile {
		return
	}
	r.NoTrialsFile = true
	if len(c.Claims) > 0 {
		v.fail("trials_file", []any{"trials_file"}, "false, but the config has claims, whose bootstrap is recomputed from trials.csv; keep trials.csv or state the claims on published cells' percentiles")
	}
}

// curveRef checks a "series/estimator" reference.
func (v *validator) curveRef(r *Plan, field string, at []any, ref string) {
	series, est, ok := strings.Cut(ref, "/")
	if !ok {
		v.fail(field, at, "%q, want series/estimator", ref)
		return
	}
	for _, s := range r.Series {
		if s.Name == series {
			if !slices.Contains(s.Estimators, est) {
				v.fail(field, at, "series %s has no estimator %q (it has %s)", series, est, strings.Join(s.Estimators, ", "))
			}
			return
		}
	}
	v.fail(field, at, "no series %q", series)
}

func (v *validator) plot(c *file, r *Plan) {
	for key := range c.Plot.Labels {
		if len(c.Plot.Panels) > 0 {
			v.labelRef(r, "plot.labels", []any{"plot", "labels"}, key)
		} else {
			v.curveRef(r, "plot.labels", []any{"plot", "labels"}, key)
		}
	}
	r.Plot.Diagnostic = v.diagnostic(c.Plot.Diagnostic, r)
	r.Plot.Panels = v.panels(c.Plot.Panels, r)
}

// diagnostic validates plot.diagnostic and fills in its defaults and its
// labels from the estimators registry.
func (v *validator) diagnostic(dp *DiagnosticPlot, r *Plan) *DiagnosticPlot {
	if dp == nil {
		return nil
	}
	out := *dp
	at := func(keys ...any) []any { return append([]any{"plot", "diagnostic"}, keys...) }
	var reporting []string // estimators of the run that report it
	var diag estimators.Diagnostic
	for _, s := range r.Series {
		for _, e := range s.Estimators {
			info, _ := s.Info(e)
			for _, d := range info.Diagnostics {
				if d.Name == dp.Name && !slices.Contains(reporting, e) {
					reporting = append(reporting, e)
					diag = d
				}
			}
		}
	}
	if len(reporting) == 0 {
		v.fail("plot.diagnostic.name", at("name"), "%q is a diagnostic of no estimator of this config (runexp help estimators lists them)", dp.Name)
		return &out
	}
	for i, e := range dp.Estimators {
		if !slices.Contains(reporting, e) {
			v.fail(fmt.Sprintf("plot.diagnostic.estimators[%d]", i), at("estimators", i), "%q does not report %s here (these do: %s)", e, dp.Name, strings.Join(reporting, ", "))
		}
	}
	if len(out.Estimators) == 0 {
		out.Estimators = reporting
	}
	out.Estimators = slices.Clone(out.Estimators)
	for i, n := range dp.N {
		if !slices.Contains(r.N, n) {
			v.fail(fmt.Sprintf("plot.diagnostic.n[%d]", i), at("n", i), "%d is not in the n grid", n)
		}
	}
	if len(out.N) == 0 {
		out.N = r.N
	}
	out.N = slices.Clone(out.N)
	if out.Title == "" {
		out.Title = diag.Label + " per " + diag.IndexLabel
	}
	out.XLabel, out.YLabel, out.Index = diag.IndexLabel, diag.Label, diag.Index
	return &out
}
