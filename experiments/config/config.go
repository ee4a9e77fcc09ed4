package config

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ope-lab/longhorizon/internal/inputerr"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/models"
)

// file is an experiment configuration as written in YAML. Every key is
// documented in docs/reference.md (generated from Keys); unknown keys are
// errors.
type file struct {
	// Name names the run and its default output directory results/<name>;
	// default: the config file's base name.
	Name string `yaml:"name"`
	// Experiment labels the experiment column of curve.csv (e.g. "3").
	Experiment string `yaml:"experiment"`
	// Title is the figure title.
	Title string `yaml:"title"`
	// Seed roots every random stream (SPEC 3). Default 1.
	Seed *uint64 `yaml:"seed"`
	// Trials per (series, n). Default 128.
	Trials *int `yaml:"trials"`
	// Data is "nested" (default: a trial draws max(n) trajectories once and
	// estimates at n from the first n) or "independent" (fresh data per n).
	Data string `yaml:"data"`
	// N is the grid of data-set sizes, strictly increasing.
	N []int `yaml:"n"`
	// Delta is the lower bounds' 1 - confidence (SPEC 1e), in (0, 1).
	// Default 0.05 when a series has bounds; refused when none has.
	Delta *float64 `yaml:"delta"`
	// Series are the curves' data sources.
	Series []seriesYAML `yaml:"series"`
	// Claims are the paper's claims to check (SPEC 4).
	Claims []Claim `yaml:"claims"`
	// Plot holds figure options.
	Plot Plot `yaml:"plot"`
	// Published is a table of another paper the run reproduces.
	Published *Published `yaml:"published"`
	// Selection holds the options and claims of off-policy selection
	// (runexp select), for a config whose series have candidates.
	Selection *selectionYAML `yaml:"selection"`
	// TrialsFile, when false, leaves trials.csv out (runs of 10^4 trials
	// and more); claims, which are recomputed from it, are then refused.
	TrialsFile *bool `yaml:"trials_file"`
}

// seriesYAML is one domain with its policies and estimators, as written.
type seriesYAML struct {
	Name   string    `yaml:"name"`
	Domain string    `yaml:"domain"`
	Params yaml.Node `yaml:"params"`
	// Zip names swept parameters (lists of one length) that advance
	// together instead of spanning a cartesian product: the i-th series
	// takes the i-th value of each. Named by the first of them.
	Zip []string `yaml:"zip"`
	// Candidates names the swept parameter whose values are the series'
	// candidate evaluation policies (off-policy selection, runexp
	// select): the only swept one, changing pi_e alone (candidates.go).
	Candidates string `yaml:"candidates"`
	// Estimators lists registry keys and external estimators (mappings
	// {name, command, timeout}); decoded by hand (estimatorList).
	Estimators yaml.Node `yaml:"estimators"`
	Model      string    `yaml:"model"`
	// Bounds are the lower bounds of SPEC 1e computed beside the
	// estimates; ReturnRange is [g_lo, g_hi], for those that need it.
	Bounds      []string  `yaml:"bounds"`
	ReturnRange []float64 `yaml:"return_range"`
}

// Claim states a claim checked at every n of the grid in [n_min, n_max],
// holding at all (or some) of them. Subject and versus name curves as
// "series/estimator". Quantity names what the claim is about, an entry
// of claims.Table (Kind), whose Source decides the keys it takes:
//
// A Ratio quantity (mse, the default: the paper's claims): "subject has
// at most max_ratio times the MSE of each of versus".
//
// A Bounds quantity (SPEC 1e; lower_bound, bound_gap, coverage,
// vacuous): "the quantity of subject's Bound is >= Min" (or "<= Max"),
// e.g. "with 3-step options the 95% hcope bound is within 5 of V(pi_e)
// at n = 1000":
//
//	claims:
//	  - {name: tight, subject: "taxi[option_length=3]/is", quantity: bound_gap, bound: hcope, max: 5, n_min: 1000}
//
// A Curve quantity (bias, rel_rmse): "the mean over trials of subject's
// estimate - V(pi_e) lies in [Min, Max]" (either may be absent), checked
// with a bootstrap over the trials (claims.CurveRule), e.g. "wis is
// biased by less than 0.01 from n = 1000 on":
//
//	claims:
//	  - {name: wis-unbiased, subject: "taxi/wis", quantity: bias, min: -0.01, max: 0.01, n_min: 1000}
type Claim struct {
	Name     string   `yaml:"name" json:"name"`
	Text     string   `yaml:"text" json:"text,omitempty"`
	Subject  string   `yaml:"subject" json:"subject"`
	Versus   []string `yaml:"versus" json:"versus"`
	MaxRatio float64  `yaml:"max_ratio" json:"max_ratio"`
	At       string   `yaml:"at" json:"at"`
	NMin     int      `yaml:"n_min" json:"n_min"`
	NMax     int      `yaml:"n_max" json:"n_max"`
	// Quantity is what the claim is about, a name of claims.Table: ""
	// (as written when absent) is claims.Default, mse.
	Quantity string `yaml:"quantity" json:"quantity,omitempty"`
	// Bound is the bound a claim on a bound quantity is about.
	Bound string `yaml:"bound" json:"bound,omitempty"`
	// Min and Max are the thresholds of a claim on a Bounds quantity
	// (exactly one is set) or on a Curve quantity (one or both, Min <=
	// Max).
	Min *float64 `yaml:"min" json:"min,omitempty"`
	Max *float64 `yaml:"max" json:"max,omitempty"`
}

// Plot holds figure options.
type Plot struct {
	// Labels maps "series/estimator" to a legend label.
	Labels map[string]string `yaml:"labels" json:"labels,omitempty"`
	// Dashed lists curves ("series/estimator" or an estimator key) drawn
	// dashed, as references.
	Dashed []string `yaml:"dashed" json:"dashed,omitempty"`
	// Diagnostic, when set, adds a side panel of a diagnostic's mean per
	// index (INCRIS's k* per step) to the MSE figure.
	Diagnostic *DiagnosticPlot `yaml:"diagnostic" json:"diagnostic,omitempty"`
	// Panels, when set, replace the MSE (and diagnostic) panels by a grid
	// of panels, each a small view of the run's rows (see Panel), and make
	// the run write stats.csv and panels.csv. Labels keys may then also
	// name a series by its base name; a label may hold {param}
	// placeholders, replaced by the line's parameter values.
	Panels []Panel `yaml:"panels" json:"panels,omitempty"`
}

// DiagnosticPlot is the side panel (YAML plot.diagnostic) of the mean over
// trials of a diagnostic that estimators report (their registry entries
// list them; e.g. kstar of every INCRIS variant) against its index, one
// line per (series, estimator) reporting it and per n.
//
//	plot:
//	  diagnostic:
//	    name: kstar                 # a diagnostic of runexp help estimators
//	    n: [10, 100, 1000, 10000]   # which n of the grid (default: all)
//	    estimators: [incris]        # default: every estimator of the run reporting it
//	    title: "INCRIS: mean k* per step"
type DiagnosticPlot struct {
	Name       string   `yaml:"name" json:"name"`
	N          []int    `yaml:"n" json:"n"`
	Estimators []string `yaml:"estimators" json:"estimators"`
	Title      string   `yaml:"title" json:"title"`
	// XLabel and YLabel are filled in from the estimators registry, so
	// that a results directory can be redrawn on its own.
	XLabel string `yaml:"-" json:"x_label"`
	YLabel string `yaml:"-" json:"y_label"`
	// Index is the diagnostic's index column ("t"), from the registry.
	Index string `yaml:"-" json:"index"`
}

// Plan is a validated configuration with every default filled in: what
// runs, and what meta.json records.
type Plan struct {
	File       string `json:"config_file"`
	Name       string `json:"name"`
	Experiment string `json:"experiment"`
	Title      string `json:"title"`
	Seed       uint64 `json:"seed"`
	Trials     int    `json:"trials"`
	Data       string `json:"data"`
	N          []int  `json:"n"`
	// Delta is 1 - the confidence of the lower bounds (SPEC 1e); 0 (and
	// not recorded) when no series has bounds.
	Delta  float64  `json:"delta,omitempty"`
	Series []Series `json:"series"`
	Claims []Claim  `json:"claims,omitempty"`
	Plot   Plot     `json:"plot"`
	// Published is the table of another paper the run reproduces (nil:
	// none).
	Published *Published `json:"published,omitempty"`
	// NoTrialsFile leaves trials.csv out (YAML trials_file: false).
	NoTrialsFile bool `json:"no_trials_file,omitempty"`
	// Selection is off-policy selection's options and claims (runexp
	// select); nil when the config has no selection key.
	Selection *Selection `json:"selection,omitempty"`
}

// Series is one series with all its domain parameters.
type Series struct {
	// Name is the series name; a sweep appends the swept values, e.g.
	// "taxi[eps_b=0.3,option_length=2]".
	Name string `json:"name"`
	// Base is the name as written in the config.
	Base   string         `json:"base"`
	Domain string         `json:"domain"`
	Params domains.Params `json:"params"`
	// Sweep holds the values of the parameters swept to make this series
	// (nil when the series was not swept).
	Sweep domains.Params `json:"sweep,omitempty"`
	// Candidates, when not empty, names the parameter whose values make
	// the series of Base a set of candidate evaluation policies (YAML
	// series[].candidates): they share Base's random streams (run.Stream),
	// so that every candidate of a trial sees the same behaviour data.
	Candidates string   `json:"candidates,omitempty"`
	Estimators []string `json:"estimators"`
	// External holds the series' external estimators (their names are
	// also in Estimators, in config order): programs that estimate over
	// JSON Lines (docs/external.md). None for most series.
	External []External `json:"external,omitempty"`
	// Model is the kind (package models' registry) of the model whose
	// columns (SPEC 1d) the series' estimators read when one needs them,
	// and that an estimator fitting a model itself (adaptive) fits; ""
	// when none does.
	Model string `json:"model,omitempty"`
	// Bounds are the lower bounds of SPEC 1e computed at every n for
	// each estimator of the series that supports them (Supports); none
	// when empty.
	Bounds []string `json:"bounds,omitempty"`
	// ReturnRange is [g_lo, g_hi], a range holding every return, given
	// exactly when a bound of the series needs it (BoundInfo.NeedsRange).
	ReturnRange []float64 `json:"return_range,omitempty"`

	// supply is what the series' domain can record, read when the config
	// was validated (the domain built there); Supply returns it.
	supply domains.Supply
}

// Supply returns what the series' domain can record beside rewards and
// ratios (domains.SupplyOf), as read when the plan was validated from
// its YAML (the zero Supply for a plan decoded from JSON).
func (s *Series) Supply() domains.Supply { return s.supply }

// Gamma returns the series' discount factor (SPEC 1c), its parameters'
// (domains.Params.Gamma: 1 where the domain has none); validation has
// refused one outside (0, 1].
func (s *Series) Gamma() float64 {
	g, err := s.Params.Gamma()
	if err != nil {
		return 1 // unreachable on a validated plan
	}
	return g
}

// ModelKind returns the registry entry of the series' model (package
// models), and false when no estimator of the series needs one.
func (s *Series) ModelKind() (models.Kind, bool) {
	if s.Model == "" || !s.NeedsModel() {
		return models.Kind{}, false
	}
	return models.Lookup(s.Model)
}

// NeedsModel reports whether some estimator of the series needs the model
// columns (estimators.Info.Needs).
func (s *Series) NeedsModel() bool {
	for _, e := range s.Estimators {
		if info, ok := s.Info(e); ok && info.Needs&estimators.Model != 0 {
			return true
		}
	}
	return false
}

// checkModel checks the series' model against its estimators and domain:
// a model exactly when an estimator needs one, from a domain that can
// supply it with these parameters.
func (s *Series) checkModel() error {
	if !s.NeedsModel() {
		if s.Model == "" {
			return nil
		}
		if !s.fitsModel() {
			return fmt.Errorf("model %q, but no estimator of the series needs a model (those whose `runexp help estimators` entry needs the model columns) or fits one itself (adaptive)", s.Model)
		}
		k, err := models.Get(s.Model)
		if err != nil {
			return err
		}
		if !k.Learned() {
			return fmt.Errorf("model %q, but the series' only estimators that read a model fit one themselves (adaptive): want a learned kind (%s)", s.Model, strings.Join(learnedNames(), ", "))
		}
		return nil
	}
	if _, err := models.Get(s.Model); err != nil {
		return err
	}
	spec := s.Spec()
	names := s.modelEstimators()
	verb := "need"
	if len(names) == 1 {
		verb = "needs"
	}
	if spec.Models == nil {
		return fmt.Errorf("domain %s cannot supply the model columns that %s %s", s.Domain, strings.Join(names, ", "), verb)
	}
	if err := spec.Models(s.Params); err != nil {
		return fmt.Errorf("%s %s a model: %v", strings.Join(names, ", "), verb, err)
	}
	return nil
}

// fitsModel reports whether some estimator of the series fits a model of
// its own (estimators.Info.FitsModel), of the series' kind.
func (s *Series) fitsModel() bool {
	for _, e := range s.Estimators {
		if info, ok := s.Info(e); ok && info.FitsModel {
			return true
		}
	}
	return false
}

// learnedNames lists the learned model kinds.
func learnedNames() []string {
	var out []string
	for _, k := range models.Kinds() {
		if k.Learned() {
			out = append(out, k.Name)
		}
	}
	return out
}

// Needs is the union of the data the series' estimators need
// (estimators.Info.Needs): what its domain must record.
func (s *Series) Needs() estimators.Data {
	var d estimators.Data
	for _, e := range s.Estimators {
		if info, ok := s.Info(e); ok {
			d |= info.Needs
		}
	}
	return d
}

// checkIDs checks that the series' domain, built as d, records what its
// estimators need of SPEC 1f's data: observation and action ids
// (estimators.IDs: a domain that can supply models, domains.Spec.Models)
// and the action probabilities (estimators.Probs: a
// domains.ProbRecorder).
func (s *Series) checkIDs(d domains.Domain) error {
	needs := s.Needs()
	names := func(flag estimators.Data) string {
		var out []string
		for _, e := range s.Estimators {
			if info, ok := s.Info(e); ok && info.Needs&flag != 0 {
				out = append(out, e)
			}
		}
		verb := " needs"
		if len(out) > 1 {
			verb = " need"
		}
		return strings.Join(out, ", ") + verb
	}
	if needs&estimators.IDs != 0 {
		spec := s.Spec()
		if spec.Models == nil {
			return fmt.Errorf("%s observation and action ids, which domain %s does not record (domains that do: those that can supply a model)", names(estimators.IDs), s.Domain)
		}
		if err := spec.Models(s.Params); err != nil {
			return fmt.Errorf("%s observation and action ids: %v", names(estimators.IDs), err)
		}
	}
	if needs&estimators.Probs != 0 && d != nil {
		if err := canLog(d); err != nil {
			return fmt.Errorf("%s the action probabilities pi_b and pi_e: %v", names(estimators.Probs), err)
		}
	}
	return nil
}

// checkMoments checks that the series' domain, with its parameters, can
// supply the exact moments of the kept products (domains.Spec.Moments)
// when an estimator of the series needs them (estimators.ExactMoments).
func (s *Series) checkMoments() error {
	var names []string
	for _, e := range s.Estimators {
		if info, ok := s.Info(e); ok && info.Needs&estimators.ExactMoments != 0 {
			names = append(names, e)
		}
	}
	if len(names) == 0 {
		return nil
	}
	verb := "need"
	if len(names) == 1 {
		verb = "needs"
	}
	spec := s.Spec()
	if spec.Moments == nil {
		return fmt.Errorf("domain %s cannot supply the exact moments of the kept products that %s %s (a domain that can: subepisode)", s.Domain, strings.Join(names, ", "), verb)
	}
	if err := spec.Moments(s.Params); err != nil {
		return fmt.Errorf("%s %s exact moments: %v", strings.Join(names, ", "), verb, err)
	}
	return nil
}

// modelEstimators lists the series' estimators that need the model.
func (s *Series) modelEstimators() []string {
	var names []string
	for _, e := range s.Estimators {
		if info, ok := s.Info(e); ok && info.Needs&estimators.Model != 0 {
			names = append(names, e)
		}
	}
	return names
}

// Spec returns the series' domain kind (nil for an unknown domain, which
// Parse and Check refuse).
func (s *Series) Spec() *domains.Spec {
	spec, _ := domains.Lookup(s.Domain)
	return spec
}

// Override sets the plan's trials (when trials > 0) and seed (when seed
// is not empty: an unsigned 64-bit integer in decimal), the overrides of
// `runexp run -trials -seed`; its errors name those flags.
func (p *Plan) Override(trials int, seed string) error {
	switch {
	case trials < 0:
		return fmt.Errorf("-trials %d, want >= 1 (or 0 to keep the config's)", trials)
	case trials > MaxTrials:
		return fmt.Errorf("-trials %d, want at most %d", trials, MaxTrials)
	case trials > 0:
		p.Trials = trials
		if p.Published != nil {
			if err := p.Published.checkTrials(trials); err != nil {
				return fmt.Errorf("-trials: %w", err)
			}
		}
	}
	if seed != "" {
		s, err := strconv.ParseUint(seed, 10, 64)
		if err != nil {
			return fmt.Errorf("-seed %q is not an unsigned 64-bit integer", seed)
		}
		p.Seed = s
	}
	return nil
}

// Check verifies a plan decoded from JSON (a checkpoint's header, a
// results directory's meta.json) as Parse verifies a config: names from
// the safe set (they become file names), a strictly increasing n grid
// within MaxN, trials within MaxTrials, known domains and estimators,
// parameters within their ranges, bounds and their return ranges, delta,
// and the quantities of claims. A plan written before bounds existed has
// none. Its errors are bad input.
func (p *Plan) Check() error {
	return inputerr.Mark(p.check())
}

func (p *Plan) check() error {
	if !safeName.MatchString(p.Name) || len(p.Name) > MaxNameLen {
		return fmt.Errorf("plan name %q is not a safe file name", p.Name)
	}
	if len(p.N) == 0 || len(p.Series) == 0 || p.Trials < 1 || p.Trials > MaxTrials {
		return fmt.Errorf("plan %q: empty n grid, no series, or trials %d outside [1, %d]", p.Name, p.Trials, MaxTrials)
	}
	for i, n := range p.N {
		if n < 1 || n > MaxN || i > 0 && n <= p.N[i-1] {
			return fmt.Errorf("plan %q: n grid %v is not strictly increasing in [1, %d]", p.Name, p.N, int64(MaxN))
		}
	}
	if p.Data != "nested" && p.Data != "independent" {
		return fmt.Errorf("plan %q: data %q, want nested or independent", p.Name, p.Data)
	}
	for _, s := range p.Series {
		spec := s.Spec()
		if spec == nil {
			return fmt.Errorf("series %s: unknown domain %q", s.Name, s.Domain)
		}
		if !safeName.MatchString(s.Base) || len(s.Base) > MaxNameLen || !strings.HasPrefix(s.Name, s.Base) {
			return fmt.Errorf("series %q (base %q): not a safe series name", s.Name, s.Base)
		}
		// A parameter added after the plan was written (gamma) takes its
		// default, the value every earlier run had.
		for _, ps := range spec.Params {
			if _, ok := s.Params[ps.Name]; !ok && s.Params != nil {
				s.Params[ps.Name] = ps.Default
			}
		}
		if _, err := spec.Resolve(s.Params); err != nil || len(s.Params) != len(spec.Params) {
			return fmt.Errorf("series %s: parameters %v do not resolve: %v", s.Name, s.Params, err)
		}
		if len(s.Estimators) == 0 {
			return fmt.Errorf("series %s: no estimators", s.Name)
		}
		if err := s.checkExternal(); err != nil {
			return fmt.Errorf("series %s: %w", s.Name, err)
		}
		if s.HasExternal() && p.Data != "nested" {
			return fmt.Errorf("series %s: external estimators need data: nested", s.Name)
		}
		for _, e := range s.Estimators {
			if _, ok := s.Info(e); !ok {
				return fmt.Errorf("series %s: unknown estimator %q", s.Name, e)
			}
		}
		if err := s.checkModel(); err != nil {
			return fmt.Errorf("series %s: %w", s.Name, err)
		}
		if err := s.checkMoments(); err != nil {
			return fmt.Errorf("series %s: %w", s.Name, err)
		}
	}
	if err := p.checkBounds(); err != nil {
		return err
	}
	if err := p.checkPublished(); err != nil {
		return err
	}
	if p.NoTrialsFile && len(p.Claims) > 0 {
		return fmt.Errorf("plan %q: claims without trials.csv", p.Name)
	}
	return p.checkClaims()
}

// NMax returns the largest n of the grid.
func (r *Plan) NMax() int { return r.N[len(r.N)-1] }

// Load reads, strictly decodes and validates the YAML config at path.
// Errors name the file, the line and the field.
func Load(path string) (*Plan, error) {
	data, err := readCapped(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	r, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Limits of a config, checked before anything is sized from it: a
// config is a small hand-written file, and a typo of a few digits must be
// refused, not planned.
const (
	// MaxFileBytes bounds a config file.
	MaxFileBytes = 1 << 20
	// MaxTrials bounds trials.
	MaxTrials = 1 << 24
	// MaxN bounds every n of the grid (memory is checked separately, see
	// run.NeedOf).
	MaxN = 1 << 40
	// MaxNameLen bounds the run's and a series' name.
	MaxNameLen = 100
)

// readCapped reads the file at path, refusing one longer than limit bytes
// (an endless device such as /dev/zero included) without reading more
// than limit+1 bytes.
func readCapped(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, inputerr.Open(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, inputerr.Open(err) // names path (a directory: "is a directory, not a file")
	}
	if int64(len(data)) > limit {
		return nil, inputerr.Errorf("%s: larger than %d bytes; a config is a small YAML file", path, limit)
	}
	return data, nil
}
