package experiments

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/run"
	"github.com/ope-lab/longhorizon/experiments/selection"
	"github.com/ope-lab/longhorizon/experiments/selection/selfig"
	"github.com/ope-lab/longhorizon/experiments/unit"
	"github.com/ope-lab/longhorizon/internal/atomicfile"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/membudget"
	"github.com/ope-lab/longhorizon/internal/outdir"
)

// SelectFiles are the files a selection run writes into its directory.
func SelectFiles(p *config.Plan) []string {
	return []string{selection.CSVFile, selection.MarkdownFile, p.Name + ".png", p.Name + ".svg"}
}

// SelectResult is a finished Select.
type SelectResult struct {
	Result *selection.Result
	Units  int
	Wall   time.Duration
}

// Select runs plan p as off-policy selection (runexp select) into dir:
// every series must have candidates (config.Series.Candidates); the
// (series, trial) units run as `runexp run` runs them (run.RunUnits: the
// candidates of a series share each trial's behaviour data), the true
// values come from the domains (run.Truths), and package selection turns
// them into selection.csv, selection.md and the figure, written all or
// none. No checkpoint: a selection run is minutes, not hours. Options'
// Shard, Resume and Holder do not apply.
func Select(ctx context.Context, p *config.Plan, dir string, opt Options) (*SelectResult, error) {
	start := time.Now()
	if err := checkSelect(p); err != nil {
		return nil, inputerr.Mark(fmt.Errorf("config %s: %w", p.File, err))
	}
	need := run.NeedOf(p, workers(opt.Workers), run.Shard{})
	budget := opt.MaxMemory
	if budget <= 0 {
		budget = membudget.Default()
	}
	if err := need.Check(budget); err != nil {
		return nil, fmt.Errorf("config %s: %w", p.File, err)
	}
	if err := outdir.Check(dir); err != nil {
		return nil, err
	}
	if err := checkNames(dir, SelectFiles(p)); err != nil {
		return nil, err
	}
	truths, err := run.Truths(p, opt.TruthCache, opt.TruthProgress, opt.Log)
	if err != nil {
		return nil, err
	}
	units := run.Units(p)
	results, err := run.RunUnits(ctx, p, units, run.Options{Workers: opt.Workers, Progress: opt.Progress})
	if err != nil {
		return nil, err
	}
	in := SelectInput(p, truths, results)
	res, err := selection.Compute(in)
	if err != nil {
		return nil, inputerr.Mark(fmt.Errorf("config %s: %w", p.File, err))
	}
	files, err := selectFiles(p, res)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteAll(dir, files); err != nil {
		return nil, err
	}
	return &SelectResult{Result: res, Units: len(units), Wall: time.Since(start)}, nil
}

// checkSelect refuses a plan that is not a selection: a series without
// candidates, or fewer than 2 trials (the bootstrap resamples them).
func checkSelect(p *config.Plan) error {
	for _, s := range p.Series {
		if s.Candidates == "" {
			return fmt.Errorf("series %s has no candidates (series[].candidates): runexp select needs every series to be a set of candidate policies", s.Base)
		}
	}
	if p.Trials < 2 {
		return fmt.Errorf("trials %d: the bootstrap over trials needs at least 2", p.Trials)
	}
	return nil
}

// selectFiles renders every file of a selection run.
func selectFiles(p *config.Plan, res *selection.Result) ([]atomicfile.File, error) {
	csv, err := selection.CSV(res)
	if err != nil {
		return nil, err
	}
	png, svg, err := selfig.Draw(p.Title, res)
	if err != nil {
		return nil, err
	}
	return []atomicfile.File{
		{Name: selection.CSVFile, Data: csv},
		{Name: selection.MarkdownFile, Data: selection.Markdown(p.Title, res)},
		{Name: p.Name + ".png", Data: png},
		{Name: p.Name + ".svg", Data: svg},
	}, nil
}

// SelectInput gathers package selection's input from a run of plan p:
// the series grouped by base name (their candidates in config order),
// each candidate's truth, and per trial each estimator's estimate and,
// for the estimators with the series' t bound, the two-sided interval
// [L, 2 theta - L] (L the t lower bound at delta, theta the estimate,
// the mean of the same per-trajectory terms: level 1 - 2 delta). results
// are in run.Units' order.
func SelectInput(p *config.Plan, truths []domains.Truth, results []unit.Result) *selection.Input {
	in := &selection.Input{Seed: p.Seed, Trials: p.Trials, N: slices.Clone(p.N), Replicates: config.DefaultReplicates}
	if p.Delta > 0 {
		in.Level = 1 - 2*p.Delta
	}
	if p.Selection != nil {
		in.Replicates, in.Claims = p.Selection.Replicates, p.Selection.Claims
	}
	byUnit := map[[2]int]*unit.Result{}
	for i := range results {
		byUnit[[2]int{results[i].Series, results[i].Trial}] = &results[i]
	}
	for si, s := range p.Series {
		if len(in.Groups) == 0 || in.Groups[len(in.Groups)-1].Name != s.Base {
			in.Groups = append(in.Groups, selection.Group{Name: s.Base, Domain: s.Domain, Param: s.Candidates,
				Estimators: s.Estimators, Labels: labels(&s)})
		}
		g := &in.Groups[len(in.Groups)-1]
		g.Values = append(g.Values, s.Params[s.Candidates])
		g.Truth = append(g.Truth, truths[si].Value)
		tb := slices.Index(s.Bounds, confidence.T)
		est, lo, hi := grid4(len(s.Estimators), len(p.N), p.Trials), make([][][]float64, len(s.Estimators)), make([][][]float64, len(s.Estimators))
		for e := range s.Estimators {
			for t := range p.Trials {
				u := byUnit[[2]int{si, t}]
				for j := range p.N {
					est[e][j][t] = u.Estimates[e][j]
				}
				if tb < 0 || u.Bounds == nil || u.Bounds[e][tb] == nil {
					continue
				}
				if lo[e] == nil {
					lo[e], hi[e] = grid4(1, len(p.N), p.Trials)[0], grid4(1, len(p.N), p.Trials)[0]
				}
				for j := range p.N {
					l := u.Bounds[e][tb][j]
					lo[e][j][t], hi[e][j][t] = l, 2*u.Estimates[e][j]-l
				}
			}
		}
		g.Est, g.Lo, g.Hi = append(g.Est, est), append(g.Lo, lo), append(g.Hi, hi)
	}
	return in
}

// grid4 is a zeroed [a][b][c] array.
func grid4(a, b, c int) [][][]float64 {
	out := make([][][]float64, a)
	for i := range out {
		out[i] = make([][]float64, b)
		for j := range out[i] {
			out[i][j] = make([]float64, c)
		}
	}
	return out
}

// labels names the series' estimators for the markdown and the figure:
// those that read the model columns (estimators.Info.Needs) followed by
// the model's kind, e.g. "dm [fitted-t]" (TMIS).
func labels(s *config.Series) []string {
	out := make([]string, len(s.Estimators))
	for e, name := range s.Estimators {
		out[e] = name
		if info, ok := s.Info(name); ok && info.Needs&estimators.Model != 0 && s.Model != "" {
			out[e] += " [" + s.Model + "]"
		}
	}
	return out
}
