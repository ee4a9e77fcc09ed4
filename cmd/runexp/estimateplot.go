package main

import (
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/experiments/figure"
)

// plotFlags are runexp estimate's -plot and -plot-truth.
type plotFlags struct {
	path, truth string
}

// add defines the flags on fs.
func (p *plotFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&p.path, "plot", "", "FILE.png or FILE.svg: also draw the estimates with their intervals, one row per estimator")
	fs.StringVar(&p.truth, "plot-truth", "", "V(pi_e), when known: drawn as a dashed line in the -plot figure")
}

// check checks the flags before anything is computed and returns the
// true value (NaN without -plot-truth) and a note when -plot-truth has no
// effect. Errors name the flag.
func (p *plotFlags) check() (truth float64, note string, err error) {
	truth = math.NaN()
	if p.truth != "" {
		v, perr := strconv.ParseFloat(strings.TrimSpace(p.truth), 64)
		if perr != nil || !decimal.MatchString(strings.TrimSpace(p.truth)) || math.IsInf(v, 0) {
			return 0, "", fmt.Errorf("-plot-truth %q: want a finite decimal number", p.truth)
		}
		truth = v
		if p.path == "" {
			note = "-plot-truth has no effect without -plot"
		}
	}
	if p.path != "" {
		if err := figure.CheckEstimatesPath(p.path); err != nil {
			return 0, "", fmt.Errorf("-plot %w", err)
		}
	}
	return truth, note, nil
}

// estimatesFigure is the -plot figure of report r on the data at where:
// its estimates, intervals and what they are, and truth (NaN: none).
func (r *estimateReport) estimatesFigure(where string, truth float64) figure.Estimates {
	e := figure.Estimates{
		Title: fmt.Sprintf("%s: %d episodes, horizon %d", filepath.Base(where), r.Episodes, r.Horizon),
		Truth: truth,
	}
	if r.Bootstrap != nil {
		method := "percentile"
		if r.bca {
			method = "BCa"
		}
		e.Note = fmt.Sprintf("bars: %s %s bootstrap intervals over episodes (B = %d, seed %d)", percent(r.Bootstrap.Confidence), method, r.Bootstrap.Replicates, r.Bootstrap.Seed)
	} else {
		e.Note = "no intervals (-bootstrap 0)"
	}
	for j, n := range r.names {
		row := figure.EstimateRow{Name: n, Value: r.values[j], Lo: math.NaN(), Hi: math.NaN()}
		if r.errs[j] != nil {
			row.Value = math.NaN()
		}
		if r.ivs != nil && r.ivs[j].Failed < r.Bootstrap.Replicates {
			row.Lo, row.Hi = r.ivs[j].Low, r.ivs[j].High
		}
		e.Rows = append(e.Rows, row)
	}
	return e
}

// plot draws pr into path: a file's one policy as before
// (figure.WriteEstimates, truth NaN for none); several policies on one
// figure, policies on the y axis and estimators as colours, with their
// true values (-truth) as marks.
func (pr *policiesReport) plot(where string, truth float64, path string) error {
	if len(pr.reps) == 1 {
		return figure.WriteEstimates(pr.reps[0].estimatesFigure(where, truth), path)
	}
	one := pr.reps[0].estimatesFigure(where, math.NaN())
	e := figure.PolicyEstimates{
		Title: fmt.Sprintf("%s: %d episodes, horizon %d, %d policies", filepath.Base(where), pr.reps[0].Episodes, pr.reps[0].Horizon, len(pr.names)),
		Note:  one.Note, Policies: pr.names, Estimators: pr.reps[0].names, Truths: pr.truth,
	}
	for _, r := range pr.reps {
		e.Rows = append(e.Rows, r.estimatesFigure(where, math.NaN()).Rows)
	}
	return figure.WritePolicyEstimates(e, path)
}
