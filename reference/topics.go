package reference

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments/claims"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/quantity"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/models"
)

// WriteEstimators writes the reference's section.
func WriteEstimators(w io.Writer) {
	fmt.Fprint(w, `Every estimator weights by the batch's per-step factors: the action ratio of a
primitive step; on options data the option ratio on an option's first step
(1 on its later steps), times the action ratio inside options whose
underlying policy changed (paper, Theorem 3). Rewards (and the model
columns) are discounted by gamma^(t-1) before any estimator sees them
(SPEC 1c; gamma = 1, the paper's setting, by default); a trajectory that
ends early is padded with reward 0, ratio 1 and q_hat = v_hat = 0; 0/0 :=
0. Importance weights never silently overflow: an estimate that is not
representable as a float64 is an error, never Inf or NaN. The class says
what closed forms of a domain apply to it (none to the model-based ones);
"needs" names data without which the estimator cannot run; the workspace
bound is what `+"`runexp run`"+` and `+"`runexp estimate`"+` check before running, in the
data's shape: n trajectories of steps steps in all, H the longest, Obs and
Actions the numbers of observation and action ids (a domain's; logged
data's largest id + 1), P the points of a grid estimated in one pass.
Every estimator
here gets bootstrap intervals (`+"`runexp estimate -bootstrap`"+`: each replicate
resamples whole episodes and reruns it, a learned model refitted first);
those listing lower bounds get them at every n (`+"`series[].bounds`"+`,
`+"`runexp estimate -bounds`"+`). The cross-fitted ones (drl, adaptive's version 3)
are rerun on each replicate with its own two folds, so a resampled episode
can fall in both folds, which their own cross-fitting rules out: read their
intervals as approximate. An external estimator (docs/external.md)
gets bootstrap intervals in `+"`runexp estimate`"+` and no lower bound.

`)
	for _, i := range estimators.All() {
		fmt.Fprintf(w, "### `%s`\n\n%s\n\n", i.Name, i.Formula)
		fmt.Fprintf(w, "- source: %s\n- class: %s; needs n >= %d\n", i.Source, i.Class, i.MinN)
		if i.Uses != 0 {
			fmt.Fprintf(w, "- uses: %s (without it: equals `%s`)\n", i.Uses, i.Without)
		}
		if i.FitsModel {
			fmt.Fprintf(w, "- fits a model itself: of the series' learned kind (`series[].model`, `runexp estimate -model`), else `fitted`\n")
		}
		if i.Needs != 0 {
			fmt.Fprintf(w, "- needs: %s\n", i.Needs)
		}
		if i.Default {
			fmt.Fprintf(w, "- computed by `runexp estimate` when no estimators are named\n")
		}
		if len(i.Bounds) > 0 {
			fmt.Fprintf(w, "- lower bounds (SPEC 1e): %s\n", strings.Join(i.Bounds, ", "))
		}
		for _, d := range i.Diagnostics {
			fmt.Fprintf(w, "- diagnostic `%s` (per %s, written to %s.csv): %s\n", d.Name, d.Index, d.Name, d.Doc)
		}
		fmt.Fprintf(w, "- workspace: %s\n\n", i.MemoryDoc())
	}
}

// WriteModels writes the reference's section: every model kind of
// package models' registry.
func WriteModels(w io.Writer) {
	fmt.Fprint(w, `The model whose columns q_hat and v_hat the estimators that need a model
read (SPEC 1d): in a config, `+"`series[].model`"+` (default `+"`"+models.Default+"`"+` when an
estimator of the series needs one); on logged data with obs and action
columns, `+"`runexp estimate -model`"+` (a learned kind; data with q_hat and v_hat
columns uses them). A learned model is fitted on the same data set as each
estimate, and refitted on every bootstrap replicate.

`)
	for _, k := range models.Kinds() {
		fmt.Fprintf(w, "### `%s`\n\n%s.\n\n- source: %s\n- made from: %s\n", k.Name, k.Doc, k.Source, k.Needs)
		if k.Learned() {
			fmt.Fprintf(w, "- memory of a fit: %s bytes\n", k.BytesDoc)
		}
		fmt.Fprintln(w)
	}
}

// WriteDomains writes the reference's section.
func WriteDomains(w io.Writer) {
	fmt.Fprintf(w, "A series' `domain` and its `params`; a parameter given as a list sweeps it. (interp.) marks a default that interprets the paper where it is silent (SPEC).\n\n")
	for _, name := range domains.Names() {
		s, _ := domains.Lookup(name)
		fmt.Fprintf(w, "### `%s`\n\n%s.\n\n", s.Name, s.Doc)
		fmt.Fprintf(w, "| parameter | type | default | range | meaning |\n|---|---|---|---|---|\n")
		for _, p := range s.Params {
			def := docValue(p, p.Default)
			if p.Interp {
				def += " (interp.)"
			}
			rng := fmt.Sprintf("[%s, %s]", docValue(p, p.Min), docValue(p, p.Max))
			if p.Kind == domains.Bool {
				rng = "true, false"
			}
			fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", p.Name, p.Kind, def, rng, Cell(p.Doc))
		}
		fmt.Fprintf(w, "\n- true value: %s\n- split points: %s\n", s.TruthDoc, s.Splits)
		if s.ClosedFormDoc != "" {
			fmt.Fprintf(w, "- closed forms: %s\n", s.ClosedFormDoc)
		}
		fmt.Fprintln(w)
	}
}

// docValue writes a parameter value for the reference: integers in full.
func docValue(p domains.ParamSpec, x float64) string {
	if p.Kind == domains.Int {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return p.Format(x)
}

// WriteConfig writes the reference's section.
func WriteConfig(w io.Writer) {
	fmt.Fprintf(w, "YAML; unknown keys and values of the wrong type or out of range are errors naming the file, line and field.\n\n")
	fmt.Fprintf(w, "| key | default | meaning |\n|---|---|---|\n")
	for _, k := range config.Keys() {
		fmt.Fprintf(w, "| `%s` | %s | %s |\n", k.Path, Cell(k.Default), Cell(k.Doc))
	}
	fmt.Fprintln(w)
}

// WriteData writes the reference's section.
func WriteData(w io.Writer) {
	fmt.Fprintf(w, "| column | | meaning |\n|---|---|---|\n")
	for _, c := range logdata.Schema() {
		fmt.Fprintf(w, "| `%s` | %s | %s |\n", c.Name, c.Presence, Cell(c.Doc))
	}
	fmt.Fprintf(w, "\n%s\n\n", strings.Join(strings.Fields(logdata.Rules), " "))
}

// WriteFiles writes the reference's section.
func WriteFiles(w io.Writer) {
	fmt.Fprintf(w, "A run writes to `results/<name>/` (or `-out`); every file whole, through a temporary file. Same config and seed give byte-identical CSV files whatever `-workers` or sharding.\n\n")
	fmt.Fprintf(w, "| file | written | content |\n|---|---|---|\n")
	for _, f := range resultsdir.Files() {
		fmt.Fprintf(w, "| `%s` | %s | %s |\n", f.Name, f.When, Cell(f.Content))
	}
	fmt.Fprintln(w)
}

// Cell escapes text for a markdown table cell.
func Cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}

// WritePanels writes the reference's section on panel quantities, from
// quantity.Table.
func WritePanels(w io.Writer) {
	fmt.Fprintf(w, "What a panel of `plot.panels` can plot as y; panels.csv holds every point (y, se) and, with `closed_form: true`, its closed form and deviation z. "+
		"x is n, %s (the series' horizon, whatever parameter sets it) or a swept parameter (`runexp help config`: plot.panels[].x).\n\n", config.HorizonX)
	fmt.Fprintf(w, "| y | meaning | read from | needs, lines | log y | closed form | weight_reference | se in panels.csv | axis label |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, q := range quantity.Table() {
		logY := "no"
		switch {
		case q.LogY:
			logY = "default"
		case q.Linear != "":
			logY = "refused"
		}
		closed := "no"
		if q.Closed != nil {
			closed = "yes"
		}
		ref := "no"
		if q.WeightRef != nil {
			ref = "`" + q.WeightRefLabel + "`: " + q.WeightRefDoc
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n", q.Name, Cell(q.Doc), q.Source, Cell(q.Source.Needs()), logY, closed, Cell(ref), Cell(q.SE), Cell(q.Label))
	}
	fmt.Fprintln(w)
}

// WriteClaimQuantities writes the reference's section on claim
// quantities, from claims.Table.
func WriteClaimQuantities(w io.Writer) {
	fmt.Fprintf(w, "What a claim of `claims` can be about (`quantity`; default %s); `runexp run` checks every claim at every n of its range and writes claims.csv and claims.md (`runexp help files`), `runexp claims` summarises them.\n\n", claims.Default)
	fmt.Fprintf(w, "| quantity | meaning | read from | keys, point test | bootstrap replicate | verdict |\n|---|---|---|---|---|---|\n")
	for _, q := range claims.Table() {
		rep := "none"
		if q.ReplicateDoc != "" {
			rep = q.ReplicateDoc
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s |\n", q.Name, Cell(q.Doc), q.Source, Cell(q.Source.Keys()), Cell(rep), Cell(q.Source.VerdictDoc()))
	}
	fmt.Fprintln(w)
}
