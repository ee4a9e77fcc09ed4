package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/external"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/yamlcheck"
)

// External is an external estimator of a series: a program, started in
// the config file's directory and kept running, that answers one JSON
// line per (series, trial) on its standard output to one request on its
// standard input (the protocol is in docs/external.md). In a config it is
// a mapping in a series' estimators list:
//
//	estimators: [pdis, {name: py-pdis, command: [python3, ../examples/external/pdis.py], timeout: 60s}]
type External struct {
	// Name is its key in the series' estimators, curve.csv and claims:
	// a safe name that no registry estimator has.
	Name string `json:"name"`
	// Command is the program and its arguments; a relative program path
	// (one with a slash) and relative arguments are relative to the
	// config file's directory, where the program runs.
	Command []string `json:"command"`
	// Timeout bounds the wait for each response.
	Timeout Duration `json:"timeout"`

	// line and field locate the command in the config file (0 and ""
	// for a plan decoded from JSON), for CheckCommands' messages.
	line  int
	field string
}

// DefaultTimeout is an external estimator's timeout per request when the
// config does not set one.
const DefaultTimeout = 5 * time.Minute

// MaxTimeout bounds an external estimator's timeout: a typo of a few
// digits must not make a hung program wait for years.
const MaxTimeout = 24 * time.Hour

// Duration is a time.Duration written in JSON as a Go duration string
// ("1m30s"), as in the config.
type Duration time.Duration

// MarshalJSON writes d as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: want a string such as \"60s\": %w", err)
	}
	x, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(x)
	return nil
}

// Info returns the registry-style entry of the external estimator: no
// class (so no closed form), no diagnostics, no bounds, no model, MinN 1.
func (x *External) Info() estimators.Info {
	return estimators.Info{
		Name:    x.Name,
		Formula: "external: " + strings.Join(x.Command, " "),
		Source:  "an external program (config series[].estimators; docs/external.md)",
		MinN:    1,
	}
}

// check verifies an external estimator as decoded from JSON or YAML.
func (x *External) check() error {
	switch {
	case !safeName.MatchString(x.Name) || len(x.Name) > MaxNameLen:
		return fmt.Errorf("external estimator name %q, want 1 to %d letters, digits, '_', '.', '+' or '-', starting with a letter or digit", x.Name, MaxNameLen)
	case isRegistryName(x.Name):
		return fmt.Errorf("external estimator name %q is a built-in estimator's key; choose another", x.Name)
	case len(x.Command) == 0 || x.Command[0] == "":
		return fmt.Errorf("external estimator %s: empty command; want a list such as [python3, pdis.py]", x.Name)
	case x.Timeout <= 0 || time.Duration(x.Timeout) > MaxTimeout:
		return fmt.Errorf("external estimator %s: timeout %v, want a duration in (0, %v]", x.Name, time.Duration(x.Timeout), MaxTimeout)
	}
	return nil
}

// Spec returns x as package external runs it, in dir (the config file's
// directory).
func (x *External) Spec(dir string) external.Spec {
	return external.Spec{Name: x.Name, Command: x.Command, Dir: dir, Timeout: time.Duration(x.Timeout)}
}

// Program resolves the program of x's command as the harness starts it
// in dir, the config file's directory (external.Spec.Program).
func (x *External) Program(dir string) (string, error) {
	return x.Spec(dir).Program("the config file's directory")
}

// CheckCommands verifies, before anything runs, that every external
// estimator's program can be started (Program, from the config file's
// directory). An error is bad input naming the config file, the line and
// the field of the command, and the estimator.
func (p *Plan) CheckCommands() error {
	dir := "."
	if p.File != "" {
		dir = filepath.Dir(p.File)
	}
	for i := range p.Series {
		for j := range p.Series[i].External {
			x := &p.Series[i].External[j]
			if _, err := x.Program(dir); err != nil {
				where, field := p.File, x.field
				if x.line > 0 {
					where = fmt.Sprintf("%s:%d", p.File, x.line)
				}
				if field == "" {
					field = fmt.Sprintf("series %s: estimator %s: command", p.Series[i].Name, x.Name)
				}
				return inputerr.Errorf("config %s: %s: external estimator %s: %v", where, field, x.Name, err)
			}
		}
	}
	return nil
}

// isRegistryName reports whether name is a registry estimator's key,
// compared without case so that a file name cannot collide either.
func isRegistryName(name string) bool {
	return slices.ContainsFunc(estimators.Names(), func(k string) bool { return strings.EqualFold(k, name) })
}

// ExternalOf returns the series' external estimator called name, or nil.
func (s *Series) ExternalOf(name string) *External {
	for i := range s.External {
		if s.External[i].Name == name {
			return &s.External[i]
		}
	}
	return nil
}

// HasExternal reports whether the series has an external estimator.
func (s *Series) HasExternal() bool { return len(s.External) > 0 }

// Info returns what the harness knows of estimator name of the series:
// the registry's entry, or External.Info for an external one. Everything
// that asks about an estimator of a series (minimum n, diagnostics,
// workspace, bounds, class, model) asks here, so that an external
// estimator has none of them.
func (s *Series) Info(name string) (estimators.Info, bool) {
	if x := s.ExternalOf(name); x != nil {
		return x.Info(), true
	}
	return estimators.Lookup(name)
}

// checkExternal verifies the series' external estimators against its
// estimators list (plans decoded from JSON).
func (s *Series) checkExternal() error {
	for i := range s.External {
		x := &s.External[i]
		if err := x.check(); err != nil {
			return err
		}
		if !slices.Contains(s.Estimators, x.Name) || s.ExternalOf(x.Name) != x {
			return fmt.Errorf("external estimator %s is not once in the estimators list %v", x.Name, s.Estimators)
		}
	}
	for i, e := range s.Estimators {
		if slices.Index(s.Estimators, e) < i {
			return fmt.Errorf("estimator %q is listed twice", e)
		}
	}
	return nil
}

// knows reports whether estimator name is a registry key or an external
// estimator of some series of the plan.
func (p *Plan) knows(name string) bool {
	if _, ok := estimators.Lookup(name); ok {
		return true
	}
	return slices.ContainsFunc(p.Series, func(s Series) bool { return s.ExternalOf(name) != nil })
}

// canLog reports why d's data sets cannot be written as logged data (a
// domain that cannot record the probabilities of its logged actions), or
// nil.
func canLog(d domains.Domain) error {
	pr, ok := d.(domains.ProbRecorder)
	if !ok {
		return errors.New("this domain cannot record the action probabilities the logged-data format holds")
	}
	if err := pr.RecordProbs(true); err != nil {
		return err
	}
	return pr.RecordProbs(false)
}

var (
	stringType   = reflect.TypeOf("")
	externalType = reflect.TypeOf(externalYAML{})
)

// strictDecode decodes a mapping node into an externalYAML, refusing
// keys it does not have.
func strictDecode(node *yaml.Node, x *externalYAML) error {
	for i := 0; i+1 < len(node.Content); i += 2 {
		if key := node.Content[i].Value; key != "name" && key != "command" && key != "timeout" {
			return fmt.Errorf("line %d: unknown key %q of an external estimator (known: name, command, timeout)", node.Content[i].Line, key)
		}
	}
	if err := node.Decode(x); err != nil {
		return yamlcheck.CleanError(err)
	}
	return nil
}

// externalYAML is an external estimator as written in a config.
type externalYAML struct {
	Name    string   `yaml:"name"`
	Command []string `yaml:"command"`
	Timeout string   `yaml:"timeout"`
}

// estimatorList decodes a series' estimators: a list whose items are
// registry keys or external estimators {name, command, timeout}. It
// returns every name in order and the external estimators; registry keys
// are checked by the caller.
func (v *validator) estimatorList(node *yaml.Node, field string, at []any) ([]string, []External) {
	if node.Kind == yaml.AliasNode {
		node = node.Alias
	}
	if node.Kind == 0 || node.Kind == yaml.ScalarNode && node.Tag == "!!null" {
		v.fail(field, at, "no estimators; want a list of %s, or external estimators {name, command}", strings.Join(estimators.Names(), ", "))
		return nil, nil
	}
	if node.Kind != yaml.SequenceNode {
		v.failLine(field, node.Line, "%s, want a list such as [pdis, cwpdis]", yamlcheck.Describe(node))
		return nil, nil
	}
	if len(node.Content) == 0 {
		v.fail(field, at, "no estimators; want a list of %s, or external estimators {name, command}", strings.Join(estimators.Names(), ", "))
	}
	var names []string
	var external []External
	for j, item := range node.Content {
		if item.Kind == yaml.AliasNode {
			item = item.Alias
		}
		f := fmt.Sprintf("%s[%d]", field, j)
		var name string
		switch item.Kind {
		case yaml.ScalarNode:
			v.scalarsAt(item, stringType, f)
			name = item.Value
		case yaml.MappingNode:
			v.scalarsAt(item, externalType, f)
			if v.err != nil {
				return names, external
			}
			var xy externalYAML
			if err := strictDecode(item, &xy); err != nil {
				v.failLine(f, item.Line, "%v", err)
				return names, external
			}
			x := External{Name: xy.Name, Command: xy.Command, Timeout: Duration(DefaultTimeout), line: item.Line, field: f + ".command"}
			for i := 0; i+1 < len(item.Content); i += 2 {
				if item.Content[i].Value == "command" {
					x.line = item.Content[i+1].Line
				}
			}
			if xy.Timeout != "" {
				d, err := time.ParseDuration(xy.Timeout)
				if err != nil {
					v.failLine(f+".timeout", item.Line, "%q is not a duration (write e.g. 60s, 5m, 1h30m)", xy.Timeout)
					return names, external
				}
				x.Timeout = Duration(d)
			}
			if err := x.check(); err != nil {
				v.failLine(f, item.Line, "%v", err)
				return names, external
			}
			name = x.Name
			external = append(external, x)
		default:
			v.failLine(f, item.Line, "%s, want an estimator key or a mapping {name, command, timeout}", yamlcheck.Describe(item))
			return names, external
		}
		if slices.Contains(names, name) {
			v.failLine(f, item.Line, "%q is listed twice", name)
		}
		names = append(names, name)
	}
	return names, external
}
