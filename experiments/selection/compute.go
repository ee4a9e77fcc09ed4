package selection

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"

	"github.com/ope-lab/longhorizon/internal/streams"
)

// Group is one series of a selection run: its candidate evaluation
// policies (the values of one parameter) and, per candidate, the true
// value and every trial's estimates and intervals.
type Group struct {
	// Name is the series' base name, Domain its domain and Param the
	// parameter whose values Values are the candidates.
	Name, Domain, Param string
	Values              []float64
	// Truth[c] is candidate c's true value V(pi_e).
	Truth []float64
	// Estimators are the series' estimators, in config order, and Labels
	// their names in the markdown and the figure (e.g. with the model
	// they read).
	Estimators, Labels []string
	// Est[c][e][j][t] is estimator e's estimate for candidate c at the
	// j-th n of the grid on trial t; Lo and Hi, the same shape, its
	// interval, with Lo[c][e] nil for an estimator without one.
	Est, Lo, Hi [][][][]float64
}

// Input is what Compute reads: plain data, no config and no domain.
type Input struct {
	Seed   uint64
	Trials int
	N      []int
	// Level is the intervals' level (1 - 2 delta), for the outputs; 0
	// when no series has intervals.
	Level  float64
	Groups []Group
	// Replicates is the number of bootstrap replicates over trials.
	Replicates int
	Claims     []Claim
}

// Row is one value of the outputs: a metric of an estimator on a series
// at n, the mean over trials with its bootstrap interval; NA when the
// estimator has no interval (coverage).
type Row struct {
	Series, Estimator string
	N                 int
	Metric            string
	Value, Lo, Hi     float64
	NA                bool
}

// Spread is what decides a series' outcome at n: how far apart the
// candidates' true values lie against how much each estimator's estimates
// vary over trials.
type Spread struct {
	Series string
	N      int
	// Gap is the median gap between neighbouring true values (sorted),
	// Range the largest minus the smallest.
	Gap, Range float64
	// SD[e] is the median over candidates of estimator e's standard
	// deviation over trials.
	SD []float64
}

// Result is a computed selection: the rows in (series, n, estimator,
// metric) order, the spreads and the claims' verdicts.
type Result struct {
	Input   *Input
	Rows    []Row
	Spreads []Spread
	Verdict []ClaimVerdict
}

// Compute computes every metric of every estimator on every series and n,
// each with its percentile bootstrap interval over trials (Interval), the
// spreads, and the claims' verdicts.
func Compute(in *Input) (*Result, error) {
	if in.Trials < 2 || in.Replicates < 1 {
		return nil, fmt.Errorf("selection: %d trials and %d replicates, want at least 2 and 1", in.Trials, in.Replicates)
	}
	res := &Result{Input: in}
	for gi := range in.Groups {
		g := &in.Groups[gi]
		if err := checkTruths(g.Name, g.Truth); err != nil {
			return nil, err
		}
		for j, n := range in.N {
			draws := Draws(in.Seed, g.Name, n, in.Trials, in.Replicates)
			sp := Spread{Series: g.Name, N: n, Gap: medianGap(g.Truth), Range: slices.Max(g.Truth) - slices.Min(g.Truth)}
			for e, name := range g.Estimators {
				per := PerTrial(g, e, j, in.Trials)
				for _, m := range MetricNames() {
					row := Row{Series: g.Name, Estimator: name, N: n, Metric: m}
					if per[m] == nil {
						row.NA = true
					} else {
						row.Value = mean(per[m])
						row.Lo, row.Hi = Interval(per[m], draws)
					}
					res.Rows = append(res.Rows, row)
				}
				sp.SD = append(sp.SD, medianSD(g, e, j))
			}
			res.Spreads = append(res.Spreads, sp)
		}
	}
	v, err := verdicts(in, res)
	if err != nil {
		return nil, err
	}
	res.Verdict = v
	return res, nil
}

// PerTrial returns, per metric, its value on each trial for estimator e
// of g at the j-th n; coverage is nil when the estimator has no interval.
func PerTrial(g *Group, e, j, trials int) map[string][]float64 {
	out := map[string][]float64{}
	C := len(g.Values)
	est, lo, hi := make([]float64, C), make([]float64, C), make([]float64, C)
	hasCI := g.Lo != nil && g.Lo[0][e] != nil
	for t := range trials {
		for c := range C {
			est[c] = g.Est[c][e][j][t]
			if hasCI {
				lo[c], hi[c] = g.Lo[c][e][j][t], g.Hi[c][e][j][t]
			}
		}
		out[Spearman] = append(out[Spearman], SpearmanRho(est, g.Truth))
		out[Regret1] = append(out[Regret1], Regret(est, g.Truth, 1))
		out[Regret3] = append(out[Regret3], Regret(est, g.Truth, 3))
		if hasCI {
			out[Coverage] = append(out[Coverage], CoverageOf(lo, hi, g.Truth))
		}
	}
	return out
}

// Draws returns the bootstrap's resampled trials: replicate r is
// trials indices drawn uniformly with replacement from the stream
// streams.New(key, r), key from the seed, the series and n alone, so
// that every estimator and metric of a (series, n) is resampled the same
// way (a claim comparing two estimators is a paired bootstrap).
func Draws(seed uint64, series string, n, trials, replicates int) [][]int {
	h := fnv.New64a()
	h.Write([]byte("selection\x00" + series + "\x00" + strconv.Itoa(n)))
	key := seed ^ streams.Mix(h.Sum64())
	out := make([][]int, replicates)
	for r := range out {
		rng := streams.New(key, uint64(r))
		idx := make([]int, trials)
		for i := range idx {
			idx[i] = rng.IntN(trials)
		}
		out[r] = idx
	}
	return out
}

// Interval returns the 95% percentile bootstrap interval of the mean of
// x over the replicates draws: with B replicate means sorted, the
// ceil(0.025 B)-th smallest and largest (claims.Percentiles' rule). A
// NaN in x makes it NaN.
func Interval(x []float64, draws [][]int) (lo, hi float64) {
	return percentiles(replicateMeans(x, draws))
}

// replicateMeans returns the mean of x over each replicate's draw.
func replicateMeans(x []float64, draws [][]int) []float64 {
	out := make([]float64, len(draws))
	for r, idx := range draws {
		s := 0.0
		for _, i := range idx {
			s += x[i]
		}
		out[r] = s / float64(len(idx))
	}
	return out
}

// level is the bootstrap intervals' level.
const level = 0.95

// percentiles sorts r and returns its percentile interval at level:
// k = ceil(B (1 - level)/2), the k-th smallest and the k-th largest (for
// B = 2000 the 50th), NaN when a replicate is NaN.
func percentiles(r []float64) (lo, hi float64) {
	if slices.ContainsFunc(r, math.IsNaN) {
		return math.NaN(), math.NaN()
	}
	slices.Sort(r)
	k := max(int(math.Ceil(float64(len(r))*(1-level)/2))-1, 0)
	return r[k], r[len(r)-1-k]
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// medianGap is the median of the gaps between neighbouring values of
// truth, sorted.
func medianGap(truth []float64) float64 {
	s := slices.Sorted(slices.Values(truth))
	gaps := make([]float64, len(s)-1)
	for i := range gaps {
		gaps[i] = s[i+1] - s[i]
	}
	return median(gaps)
}

// medianSD is the median over the candidates of the standard deviation
// over trials (denominator T - 1) of estimator e's estimates at the j-th n.
func medianSD(g *Group, e, j int) float64 {
	sds := make([]float64, len(g.Values))
	for c := range sds {
		x := g.Est[c][e][j]
		m := mean(x)
		ss := 0.0
		for _, v := range x {
			ss += (v - m) * (v - m)
		}
		sds[c] = math.Sqrt(ss / float64(len(x)-1))
	}
	return median(sds)
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(x))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Figure geometry, in inches, shared by package selfig (which draws it)
// and run.NeedOf (which sizes its canvas before the run).
const (
	FigurePanelW  = 3.6  // a series' column
	FigurePanelH  = 2.9  // a metric's row
	FigureLegendH = 0.35 // the legend strip
	FigureTitleH  = 0.4  // the title strip
	FigureRows    = 2    // Spearman and regret@1
)

// FigureInches returns the figure's width and height for groups series.
func FigureInches(groups int) (w, h float64) {
	return float64(groups) * FigurePanelW, FigureRows*FigurePanelH + FigureLegendH + FigureTitleH
}
