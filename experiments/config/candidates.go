package config

import (
	"fmt"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/experiments/selection"
	"github.com/ope-lab/longhorizon/internal/streams"
	"github.com/ope-lab/longhorizon/trajectory"
)

// pilotTrajectories is the size of the pilot draw on which candidates'
// behaviour data are compared: enough to pass through every kind of step
// of the committed domains, small enough to cost nothing at validation.
const pilotTrajectories = 32

// candidates checks series[].candidates (off-policy selection): name is
// a parameter of the domain swept with at least two values, no other
// parameter is swept, and the candidates differ in pi_e alone: drawn
// from one random stream, every candidate's pilot has the same behaviour
// data (selection.BehaviourDiff). The last check reads the domains, not their
// names: a parameter of the dynamics or of pi_b is refused whatever the
// domain calls it.
func (v *validator) candidates(spec *domains.Spec, g paramGrid, name, field string, at []any) {
	if name == "" {
		return
	}
	vals, ok := g.values[name]
	switch {
	case !ok:
		v.fail(field, at, "%q is not a parameter of domain %s", name, spec.Name)
		return
	case len(vals) < 2:
		v.fail(field, at, "%q has one value; the candidates are its list of values (at least 2)", name)
		return
	case g.zip != nil:
		v.fail(field, at, "with zip: the candidates' parameter must be the only swept one")
		return
	}
	for _, ps := range spec.Params {
		if ps.Name != name && len(g.values[ps.Name]) > 1 {
			v.fail(field, at, "%q is swept too; the candidates' parameter %q must be the only swept one (one series per set of candidates)", ps.Name, name)
			return
		}
	}
	var first trajectory.Batch
	for i, x := range vals {
		p := domains.Params{}
		for k, xs := range g.values {
			p[k] = xs[0]
		}
		p[name] = x
		b, err := pilot(spec, p)
		if err != nil {
			return // the series' own check of its parameters reports it
		}
		if i == 0 {
			first = b
			continue
		}
		if diff := selection.BehaviourDiff(&first, &b); diff != "" {
			ps, _ := spec.Param(name)
			v.fail(field, at, "%q changes the behaviour data, not only pi_e: drawn from one stream, %s=%s and %s=%s differ in %s; a candidate may change only the evaluation policy",
				name, name, ps.Format(vals[0]), name, ps.Format(x), diff)
			return
		}
	}
}

// pilot draws pilotTrajectories of the domain of spec with parameters p
// from a fixed stream, recording the ids and probabilities it can.
func pilot(spec *domains.Spec, p domains.Params) (trajectory.Batch, error) {
	var b trajectory.Batch
	d, err := spec.New(p)
	if err != nil {
		return b, err
	}
	if md, ok := d.(domains.ModelDomain); ok {
		md.Record(true, false)
	}
	if pr, ok := d.(domains.ProbRecorder); ok {
		_ = pr.RecordProbs(true) // a domain that cannot has its pi_b compared through the rest
	}
	d.Collect(&b, pilotTrajectories, streams.New(0x5e1ec7, 0))
	return b, nil
}

// selectionYAML is the selection key as written.
type selectionYAML struct {
	Replicates *int              `yaml:"replicates"`
	Claims     []selection.Claim `yaml:"claims"`
}

// Selection is off-policy selection's part of a plan (runexp select):
// the bootstrap's replicates and the claims, checked against the series
// with candidates.
type Selection struct {
	Replicates int               `json:"replicates"`
	Claims     []selection.Claim `json:"claims,omitempty"`
}

// DefaultReplicates is selection.replicates when not given.
const DefaultReplicates = 2000

// maxReplicates bounds selection.replicates.
const maxReplicates = 100000

// selection resolves the selection key: replicates and claims, each
// claim on a series with candidates (by its name as written).
func (v *validator) selection(c *file, r *Plan) {
	if c.Selection == nil {
		return
	}
	sel := &Selection{Replicates: DefaultReplicates}
	if x := c.Selection.Replicates; x != nil {
		sel.Replicates = *x
		if *x < 1 || *x > maxReplicates {
			v.fail("selection.replicates", []any{"selection", "replicates"}, "%d, want an integer in [1, %d]", *x, maxReplicates)
		}
	}
	series := map[string][]string{}
	for _, s := range r.Series {
		if s.Candidates != "" {
			series[s.Base] = s.Estimators
		}
	}
	for i, cl := range c.Selection.Claims {
		if len(r.N) == 0 {
			break
		}
		if key, err := cl.Check(series, r.N); err != nil {
			v.fail(fmt.Sprintf("selection.claims[%d].%s", i, key), []any{"selection", "claims", i, key}, "%v", err)
		}
		if cl.Min != nil {
			x := *cl.Min
			cl.Min = &x
		}
		if cl.Max != nil {
			x := *cl.Max
			cl.Max = &x
		}
		sel.Claims = append(sel.Claims, cl)
	}
	r.Selection = sel
}
