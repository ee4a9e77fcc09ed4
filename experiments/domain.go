package experiments

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/ope-lab/longhorizon/trajectory"
)

// Domain is one series' data source: an environment with a behavior and an
// evaluation policy, ready to draw trajectories under behavior and to say
// what the evaluation policy's true value is.
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
	// cross-check with its standard error, episode-length statistics).
	Extra map[string]float64 `json:"extra,omitempty"`
}

// ParamKind is the type of a domain parameter.
type ParamKind int

// Kinds of domain parameters.
const (
	Float ParamKind = iota
	Int
	Bool
)

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
// range and meaning. Interp marks a choice SPEC makes where the paper is
// silent; such parameters are listed in the README with their defaults.
type ParamSpec struct {
	Name     string
	Kind     ParamKind
	Default  float64
	Min, Max float64
	Interp   bool
	Doc      string
}

// Params are a series' domain parameters, resolved: every declared
// parameter present, booleans as 0 or 1.
type Params map[string]float64

// Int returns parameter name as an int.
func (p Params) Int(name string) int { return int(p[name]) }

// Bool returns parameter name as a bool.
func (p Params) Bool(name string) bool { return p[name] != 0 }

// DomainSpec describes a domain kind: its parameters and how to build it.
type DomainSpec struct {
	Name   string
	Doc    string
	Params []ParamSpec
	// New builds the domain from resolved parameters.
	New func(p Params) (Domain, error)
	// Truth returns the evaluation policy's true value; progress, when not
	// nil, may be called with a fraction done for long computations.
	Truth func(p Params, progress func(float64)) (Truth, error)
	// Splits says whether the domain marks split points (for
	// partitioned-pdis), and what they are.
	Splits string
	// ClosedForm, when not nil, returns known exact values of an
	// estimator's statistics over data sets of n trajectories, keyed by
	// curve quantity: "mean_estimate", "bias", "variance" (over data sets,
	// so that n*variance is the per-trajectory variance). ok is false when
	// nothing is known for these parameters and estimator. Theory panels
	// draw these beside the simulated points.
	ClosedForm func(p Params, estimator string, n int) (values map[string]float64, ok bool)
}

var domains = map[string]*DomainSpec{}

// RegisterDomain adds a domain kind. It is called from init functions of
// this package; registering a name twice panics (a programming error).
func RegisterDomain(d *DomainSpec) {
	if _, dup := domains[d.Name]; dup {
		panic(fmt.Sprintf("experiments: domain %q registered twice", d.Name))
	}
	domains[d.Name] = d
}

// LookupDomain returns the domain kind called name.
func LookupDomain(name string) (*DomainSpec, bool) {
	d, ok := domains[name]
	return d, ok
}

// DomainNames lists the registered domain kinds, sorted.
func DomainNames() []string {
	names := make([]string, 0, len(domains))
	for n := range domains {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (d *DomainSpec) param(name string) (ParamSpec, bool) {
	for _, p := range d.Params {
		if p.Name == name {
			return p, true
		}
	}
	return ParamSpec{}, false
}

// Defaults returns every parameter at its default.
func (d *DomainSpec) Defaults() Params {
	p := make(Params, len(d.Params))
	for _, s := range d.Params {
		p[s.Name] = s.Default
	}
	return p
}

// Resolve returns the domain's parameters: its defaults, overridden by set.
// An unknown name, a value of the wrong kind (a non-integer for an integer,
// anything but 0 or 1 for a boolean) or out of range is an error.
func (d *DomainSpec) Resolve(set map[string]float64) (Params, error) {
	p := d.Defaults()
	for name, v := range set {
		ps, ok := d.param(name)
		if !ok {
			return nil, fmt.Errorf("domain %s has no parameter %q", d.Name, name)
		}
		switch {
		case ps.Kind == Bool && v != 0 && v != 1:
			return nil, fmt.Errorf("domain %s: %s = %v, want 0 (false) or 1 (true)", d.Name, name, v)
		case ps.Kind != Bool && (v < ps.Min || v > ps.Max || math.IsNaN(v) || (ps.Kind == Int && v != math.Trunc(v))):
			return nil, fmt.Errorf("domain %s: %s = %v, want %s in [%v, %v]", d.Name, name, v, ps.Kind.withArticle(), ps.Min, ps.Max)
		}
		p[name] = v
	}
	return p, nil
}

// NewDomain builds the domain kind name with its defaults overridden by
// set: the programmatic way to draw trajectories from one of the paper's
// domains.
//
//	d, p, _ := experiments.NewDomain("subepisode", map[string]float64{"p_e": 0.9})
//	var b trajectory.Batch
//	d.Collect(&b, 1000, rand.New(rand.NewPCG(1, 2)))
func NewDomain(name string, set map[string]float64) (Domain, Params, error) {
	spec, ok := LookupDomain(name)
	if !ok {
		return nil, nil, fmt.Errorf("unknown domain %q (known: %v)", name, DomainNames())
	}
	p, err := spec.Resolve(set)
	if err != nil {
		return nil, nil, err
	}
	d, err := spec.New(p)
	if err != nil {
		return nil, nil, err
	}
	return d, p, nil
}
