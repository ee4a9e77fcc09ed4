package selection

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Claim is a prediction about a selection metric, written in the config
// before the run (YAML selection.claims[]):
//
//   - with Versus, "Metric of Subject is above (below) Versus's": the
//     paired bootstrap interval over trials of the mean difference
//     Subject - Versus decides (Verdict);
//   - without, "Metric of Subject is >= Min" (or "<= Max"): the
//     bootstrap interval of the mean decides.
//
// Subject and Versus are "series/estimator" of one series (its base
// name); N is the n of the grid it is checked at (0: the largest).
type Claim struct {
	Name     string   `yaml:"name" json:"name"`
	Text     string   `yaml:"text" json:"text,omitempty"`
	Metric   string   `yaml:"metric" json:"metric"`
	Subject  string   `yaml:"subject" json:"subject"`
	Versus   string   `yaml:"versus" json:"versus,omitempty"`
	Relation string   `yaml:"relation" json:"relation,omitempty"`
	Min      *float64 `yaml:"min" json:"min,omitempty"`
	Max      *float64 `yaml:"max" json:"max,omitempty"`
	N        int      `yaml:"n" json:"n,omitempty"`
}

// The relations of a claim with Versus.
const (
	Above = "above"
	Below = "below"
)

// The verdicts of a claim.
const (
	Holds        = "holds"
	Fails        = "fails"
	Inconclusive = "inconclusive"
)

// Rule states how a claim's verdict is reached, for help texts and
// the markdown.
const Rule = "A claim with versus holds when the 95% paired percentile bootstrap interval over trials of the mean difference " +
	"subject - versus lies wholly above 0 (relation above) or below 0 (relation below), fails when it lies wholly on the other side, " +
	"and is inconclusive otherwise; a claim with min (max) holds when the interval of the mean lies wholly at or above min (at or below max), " +
	"fails when wholly below (above), and is inconclusive otherwise. A NaN interval (a metric undefined on some trial) is inconclusive."

// ClaimVerdict is a claim checked: the value (the mean difference, or
// the mean) with its interval, and the verdict.
type ClaimVerdict struct {
	Claim
	N             int
	Value, Lo, Hi float64
	Verdict       string
}

// Check checks a claim against the series (base name to its estimators)
// and the grid, filling in N; its error names the key at fault
// ("subject: ...").
func (c *Claim) Check(series map[string][]string, grid []int) (key string, err error) {
	switch {
	case c.Name == "":
		return "name", fmt.Errorf("missing; want a short claim name")
	case !slices.Contains(MetricNames(), c.Metric):
		return "metric", fmt.Errorf("%q, want one of %s", c.Metric, strings.Join(MetricNames(), ", "))
	}
	s, _, err := splitRef(c.Subject, series)
	if err != nil {
		return "subject", err
	}
	if c.Versus != "" {
		vs, _, err := splitRef(c.Versus, series)
		if err != nil {
			return "versus", err
		}
		if vs != s {
			return "versus", fmt.Errorf("%q is on series %s, the subject on %s: a claim compares estimators on the same candidates and trials", c.Versus, vs, s)
		}
		if c.Relation != Above && c.Relation != Below {
			return "relation", fmt.Errorf("%q, want above or below", c.Relation)
		}
		if c.Min != nil || c.Max != nil {
			return "versus", fmt.Errorf("with min or max; a claim is either subject against versus or subject against a threshold")
		}
	} else {
		if c.Relation != "" {
			return "relation", fmt.Errorf("without versus; relation compares subject with versus")
		}
		if (c.Min == nil) == (c.Max == nil) {
			return "min", fmt.Errorf("want versus with relation, or exactly one of min and max")
		}
		if x := thr(c); math.IsNaN(x) || math.IsInf(x, 0) {
			return "min", fmt.Errorf("%v, want a finite number", x)
		}
	}
	switch {
	case c.N == 0:
		c.N = grid[len(grid)-1]
	case !slices.Contains(grid, c.N):
		return "n", fmt.Errorf("%d is not in the n grid %v", c.N, grid)
	}
	return "", nil
}

func thr(c *Claim) float64 {
	if c.Min != nil {
		return *c.Min
	}
	return *c.Max
}

// splitRef splits "series/estimator", checking both exist.
func splitRef(ref string, series map[string][]string) (string, string, error) {
	s, e, ok := strings.Cut(ref, "/")
	if !ok {
		return "", "", fmt.Errorf("%q, want series/estimator", ref)
	}
	ests, ok := series[s]
	if !ok {
		return "", "", fmt.Errorf("no series %q with candidates", s)
	}
	if !slices.Contains(ests, e) {
		return "", "", fmt.Errorf("series %s has no estimator %q (it has %s)", s, e, strings.Join(ests, ", "))
	}
	return s, e, nil
}

// verdicts checks every claim of in against the per-trial metrics.
func verdicts(in *Input, res *Result) ([]ClaimVerdict, error) {
	var out []ClaimVerdict
	for _, c := range in.Claims {
		sName, sEst, _ := strings.Cut(c.Subject, "/")
		g, j := findGroup(in, sName, c.N)
		if g == nil {
			return nil, fmt.Errorf("claim %s: no series %s at n = %d", c.Name, sName, c.N)
		}
		x, err := metricOf(g, sEst, c.Metric, j, in.Trials)
		if err != nil {
			return nil, fmt.Errorf("claim %s: %w", c.Name, err)
		}
		if c.Versus != "" {
			_, vEst, _ := strings.Cut(c.Versus, "/")
			y, err := metricOf(g, vEst, c.Metric, j, in.Trials)
			if err != nil {
				return nil, fmt.Errorf("claim %s: %w", c.Name, err)
			}
			for t := range x {
				x[t] -= y[t]
			}
		}
		v := ClaimVerdict{Claim: c, N: c.N, Value: mean(x)}
		v.Lo, v.Hi = Interval(x, Draws(in.Seed, g.Name, c.N, in.Trials, in.Replicates))
		v.Verdict = decide(&c, v.Lo, v.Hi)
		out = append(out, v)
	}
	return out, nil
}

// decide applies Rule to the interval [lo, hi].
func decide(c *Claim, lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return Inconclusive
	}
	above, below := 0.0, 0.0 // the thresholds the interval must clear
	switch {
	case c.Versus != "":
	case c.Min != nil:
		above = *c.Min
		if lo >= above {
			return Holds
		}
		if hi < above {
			return Fails
		}
		return Inconclusive
	default:
		below = *c.Max
		if hi <= below {
			return Holds
		}
		if lo > below {
			return Fails
		}
		return Inconclusive
	}
	switch {
	case c.Relation == Above && lo > 0, c.Relation == Below && hi < 0:
		return Holds
	case c.Relation == Above && hi < 0, c.Relation == Below && lo > 0:
		return Fails
	}
	return Inconclusive
}

// findGroup returns the group called name and the index of n in the grid.
func findGroup(in *Input, name string, n int) (*Group, int) {
	j := slices.Index(in.N, n)
	for i := range in.Groups {
		if in.Groups[i].Name == name && j >= 0 {
			return &in.Groups[i], j
		}
	}
	return nil, -1
}

// metricOf returns the per-trial values of metric m of estimator est.
func metricOf(g *Group, est, m string, j, trials int) ([]float64, error) {
	e := slices.Index(g.Estimators, est)
	if e < 0 {
		return nil, fmt.Errorf("series %s has no estimator %s", g.Name, est)
	}
	x := PerTrial(g, e, j, trials)[m]
	if x == nil {
		return nil, fmt.Errorf("%s of %s/%s: the estimator has no interval (no t bound)", m, g.Name, est)
	}
	return x, nil
}
