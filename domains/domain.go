package domains

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/ope-lab/longhorizon/trajectory"
)

// Domain is one series' data source: an environment with a behavior and an
// evaluation policy.
type Domain interface {
	// Collect appends n trajectories drawn under the behavior policy to b,
	// with ratios against the evaluation policy, using only rng for
	// randomness. It must not allocate once b has grown to size.
	Collect(b *trajectory.Batch, n int, rng *rand.Rand)
}

// Truth is the true value V(pi_e) of a series and how it was obtained.
type Truth struct {
	Value float64 `json:"value"`
	// Method says how Value was obtained, e.g. "closed form: p_e^H".
	Method string `json:"method"`
	// Extra holds further facts worth recording in meta.json (a Monte Carlo
	// cross-check with its standard error, episode-length statistics,
	// WeightSecondMoment).
	Extra map[string]float64 `json:"extra,omitempty"`
}

// WeightSecondMoment is the key of Truth.Extra holding E_b[W_H^2], the
// second moment under the behavior policy of the full importance weight
// W_H = prod_t pi_e(a_t|s_t)/pi_b(a_t|s_t) of an episode, for the domains
// that compute it exactly (subepisode and the tabular suite); panels'
// weight references read it.
const WeightSecondMoment = "is_weight_second_moment"

// Moments are exact statistics of an estimator over data sets of n
// trajectories: its mean, its bias and its variance (over data sets, so
// that n Variance is the per-trajectory variance). A statistic that is not
// known is NaN.
type Moments struct {
	Mean, Bias, Variance float64
}

// Estimator classes that closed forms speak of: the values of
// estimators.Info.Class.
const (
	// ClassUnweighted is a mean over trajectories of importance-weighted
	// returns (is, pdis, options-pdis, partitioned-pdis).
	ClassUnweighted = "unweighted"
	// ClassSelfNormalized is importance-weighted returns divided by the
	// sum of the weights (wis, and per step cwpdis).
	ClassSelfNormalized = "self-normalized"
)

// ParamKind is the type of a domain parameter.
type ParamKind int

// Kinds of domain parameters.
const (
	Float ParamKind = iota
	Int
	Bool
)

// String returns the kind's name in help texts: "number", "integer" or
// "boolean".
func (k ParamKind) String() string {
	switch k {
	case Int:
		return "integer"
	case Bool:
		return "boolean"
	}
	return "number"
}

func (k ParamKind) withArticle() string {
	if k == Int {
		return "an integer"
	}
	return "a " + k.String()
}

// ParamSpec declares one parameter of a domain: its type, default, allowed
// range and meaning. Interp marks a default that interprets the paper where
// it is silent (SPEC's "(interp.)").
type ParamSpec struct {
	Name     string
	Kind     ParamKind
	Default  float64
	Min, Max float64
	Interp   bool
	Doc      string
	// Late marks a parameter added after checkpoints were written: at its
	// default (the behavior before it existed) it is left out of a plan's
	// fingerprint (run.Fingerprint), so that those checkpoints resume.
	Late bool
}

// Format writes a value of the parameter as configs and series names show
// it: true/false for booleans, the shortest decimal form otherwise.
func (ps ParamSpec) Format(x float64) string {
	if ps.Kind == Bool {
		return strconv.FormatBool(x != 0)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// Params are a series' domain parameters, resolved: every declared
// parameter present, booleans as 0 or 1.
type Params map[string]float64

// Int returns parameter name as an int.
func (p Params) Int(name string) int { return int(p[name]) }

// Bool returns parameter name as a bool.
func (p Params) Bool(name string) bool { return p[name] != 0 }

// Gamma returns the discount factor of p (parameter gamma, SPEC 1c): 1
// when p has none (parameters written before gamma existed), an error when
// it is outside (0, 1].
func (p Params) Gamma() (float64, error) {
	g, ok := p["gamma"]
	if !ok {
		return 1, nil
	}
	if !(g > 0 && g <= 1) {
		return 0, fmt.Errorf("gamma = %v, want a value in (0, 1]", g)
	}
	return g, nil
}

// Spec describes a domain kind: its parameters and how to build it.
type Spec struct {
	Name string
	// Doc says what the domain is, for help texts.
	Doc    string
	Params []ParamSpec
	// New builds the domain from resolved parameters. Constraints between
	// parameters (coverage, a horizon that is a multiple of the option
	// length) are checked here.
	New func(p Params) (Domain, error)
	// MaxSteps returns the longest trajectory, in steps, that the domain
	// draws with parameters p: what sizes a run before anything is
	// allocated.
	MaxSteps func(p Params) int
	// Truth computes the evaluation policy's true value; progress, when
	// not nil, may be called with the fraction done of a long computation.
	// truthcache.TrueValue (package domains/truthcache) adds the cache.
	Truth func(p Params, progress func(float64)) (Truth, error)
	// CacheTruth says that Truth is expensive enough to cache on disk.
	CacheTruth bool
	// TruthDoc says how the true value is obtained, for help texts.
	TruthDoc string
	// Splits says whether the domain marks split points (for
	// partitioned-pdis), and what they are.
	Splits string
	// ClosedForm, when not nil, returns the exact statistics over data sets
	// of n trajectories of the estimators of the given class (ClassUnweighted,
	// ...). ok is false when nothing is known for these parameters and
	// class. Theory panels draw these beside the simulated points.
	ClosedForm func(p Params, class string, n int) (m Moments, ok bool)
	// ClosedFormDoc states the closed forms, for help texts.
	ClosedFormDoc string
	// Models, when not nil, says whether the domain with parameters p can
	// supply SPEC 1d's model columns (its Domain is then a ModelDomain):
	// nil, or an error saying why not (options data, for instance). A nil
	// Models means never.
	Models func(p Params) error
	// Moments, when not nil, says whether the domain with parameters p can
	// supply the exact moments of the kept products
	// (trajectory.StepMoments: every Collect then sets Batch.Moments), which
	// estimators that need estimators.ExactMoments read (incris-oracle):
	// nil, or an error saying why not. A nil Moments means never.
	Moments func(p Params) error
	// ExactModelBytes, when not nil, bounds the memory of the exact
	// model's tables (ModelDomain.Record with exact), for budgets; nil
	// means negligible.
	ExactModelBytes func(p Params) float64
}

var registry = map[string]*Spec{}

// Register adds a domain kind. Domains register themselves from init
// functions, of this package and of the packages of domains under it
// (domains/taxi, domains/suite); registering a name twice panics (a
// programming error).
func Register(s *Spec) {
	if _, dup := registry[s.Name]; dup {
		panic(fmt.Sprintf("domains: %q registered twice", s.Name))
	}
	registry[s.Name] = s
}

// Lookup returns the domain kind called name.
func Lookup(name string) (*Spec, bool) {
	s, ok := registry[name]
	return s, ok
}

// Names lists the registered domain kinds, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Param returns the declaration of parameter name.
func (s *Spec) Param(name string) (ParamSpec, bool) {
	for _, p := range s.Params {
		if p.Name == name {
			return p, true
		}
	}
	return ParamSpec{}, false
}

// Defaults returns every parameter at its default.
func (s *Spec) Defaults() Params {
	p := make(Params, len(s.Params))
	for _, ps := range s.Params {
		p[ps.Name] = ps.Default
	}
	return p
}

// Resolve returns the domain's parameters: its defaults, overridden by set.
// An unknown name, a value of the wrong kind (a non-integer for an integer,
// anything but 0 or 1 for a boolean) or out of range is an error.
func (s *Spec) Resolve(set map[string]float64) (Params, error) {
	p := s.Defaults()
	for name, v := range set {
		ps, ok := s.Param(name)
		if !ok {
			return nil, fmt.Errorf("domain %s has no parameter %q", s.Name, name)
		}
		switch {
		case ps.Kind == Bool && v != 0 && v != 1:
			return nil, fmt.Errorf("domain %s: %s = %v, want 0 (false) or 1 (true)", s.Name, name, v)
		case ps.Kind != Bool && (v < ps.Min || v > ps.Max || math.IsNaN(v) || (ps.Kind == Int && v != math.Trunc(v))):
			return nil, fmt.Errorf("domain %s: %s = %v, want %s in [%v, %v]", s.Name, name, v, ps.Kind.withArticle(), ps.Min, ps.Max)
		}
		p[name] = v
	}
	return p, nil
}

// New builds the domain kind name with its defaults overridden by set: the
// programmatic way to draw trajectories from one of the paper's domains.
// It returns the domain and its resolved parameters.
func New(name string, set map[string]float64) (Domain, Params, error) {
	s, ok := Lookup(name)
	if !ok {
		return nil, nil, fmt.Errorf("unknown domain %q (known: %v)", name, Names())
	}
	p, err := s.Resolve(set)
	if err != nil {
		return nil, nil, err
	}
	d, err := s.New(p)
	if err != nil {
		return nil, nil, err
	}
	return d, p, nil
}

// unknownMoments is Moments with every statistic unknown.
var unknownMoments = Moments{Mean: math.NaN(), Bias: math.NaN(), Variance: math.NaN()}
