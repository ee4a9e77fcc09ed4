package leaderboard

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/internal/inputerr"
)

const (
	// DefaultBaseline is the estimator every MSE is compared with when
	// Options.Baseline is empty (runexp leaderboard -baseline).
	DefaultBaseline = "cwpdis"
	// MinDomains is the fewest domains a comparison needs to be ranked:
	// fewer say nothing across domains (a t interval over 2 domains
	// spans 12.7 standard errors).
	MinDomains = 3
	// ExactRel is the relative error below which an estimator counts as
	// exact: an MSE below (ExactRel |V(pi_e)|)^2 is raised to it, so that
	// MSEs of rounding size (1e-30 where a model makes an estimator
	// exact) enter the log ratios at a fixed, finite floor.
	ExactRel = 1e-12
)

// Rule states how the leaderboard is computed, for its help.
const Rule = `Domains and cells. A domain is a simulated domain with its parameters
and its true value (meta.json's series: domain, params; curve.csv's
true_value): the series of any of the runs given that simulate the same
domain are one domain (within a run they differ only by the model their
estimators read, e.g. suite's gridworld and gridworld_exact; across runs
the same domain run twice, e.g. fig4's subepisode and beyond's sub), unless
one estimator would appear twice in it (then each series is a domain of
its own). A cell is a (run, domain, n). An estimator over a model other
than the default (fitted) that it reads is an entry of its own, named
with the model in brackets: dm[fqe], wdr[exact]. Domains are as
independent as the runs make them: each series of a sweep (the horizon
run's H, the regimes' p_e) is a domain of its own, and the intervals and
tests below take the domains' scores as independent.

References. An entry is a reference, listed beside a comparison and never
ranked, when its estimator's registry entry needs the domain's exact
moments (estimators.ExactMoments: incris-oracle) or it reads a model made
from the domain's exact q (models.ExactQ: the exact model, wdr[exact]):
data no logged set has. The registry decides, never a name.

Comparisons. Every cell holding the baseline (-baseline, default cwpdis)
defines the set of entries (references left out) that ran in it; each
distinct set is one comparison: those entries over every cell where all
of them ran, so that every ranked entry ran in every cell of its
comparison (with -compare E1,E2,..., instead, the entries named and the
baseline, one comparison per flag). A comparison over fewer than 3
domains is left out (and listed). Comparisons are ordered by their number
of domains, then of entries (named ones: as named).

Scores. In a cell an MSE (curve.csv's mse) below (1e-12 |V(pi_e)|)^2 is
raised to it (an exact estimator's rounding-size MSE enters at a fixed
floor); an MSE that is not finite counts as not run. An entry's score on
a domain is the mean over the comparison's cells of the domain (its n, of
every run) of log10(MSE / MSE of the baseline in the cell): the n of a
series share trajectories, so the domain, not the cell, is the unit.
Across the N domains: the mean score with its 95% Student t interval,
mean ± t_{0.975, N-1} sd / sqrt(N) (deterministic), 10^mean (the geometric
mean of the MSE ratios to the baseline) and the number of domains where
the entry beats the baseline (score < 0).

Ranks and tests (Demšar 2006, J. Mach. Learn. Res. 7:1-30). On each
domain the k ranked entries are ranked by score (1: the smallest; ties
share the average rank; the baseline's own rank counts, and the ranking
does not depend on which entry is the baseline); the table is sorted by
the average rank R_j over the domains. Friedman's chi^2_F = 12N/(k(k+1))
[sum_j R_j^2 - k(k+1)^2/4] (k-1 degrees of freedom; no tie correction) and
Iman and Davenport's F_F = (N-1) chi^2_F / (N(k-1) - chi^2_F) (k-1 and
(k-1)(N-1) degrees of freedom) with their p-values; Nemenyi's critical
difference CD = q_0.05 sqrt(k(k+1)/(6N)), q_0.05 from Demšar's Table 5(a)
for k <= 10 and computed beyond (the 0.95 quantile of the range of k
standard normals, over sqrt(2)): two entries whose average ranks differ by
less than CD are not significantly different at the 5% level. PREFIX.png
and PREFIX.svg draw each comparison's critical-difference diagram
(Demšar's Fig. 1): the average ranks on an axis, 1 on the right, the CD
above it, and a bar under every maximal group of entries whose average
ranks differ by less than CD. The same directories give the same bytes.`

// Entry is one entry's line of a comparison.
type Entry struct {
	Estimator string
	// Reference marks a reference (Rule): listed, never ranked.
	Reference bool
	// Mean is the mean over the domains of the entry's score, the mean
	// over the domain's cells of log10(MSE / MSE of the baseline), with
	// its 95% t interval [Lo, Hi] and the scores' standard deviation SD.
	Mean, Lo, Hi, SD float64
	// Better counts the domains where its score is below 0 (it beats the
	// baseline).
	Better int
	// MeanRank is its average rank over the domains (NaN for a
	// reference).
	MeanRank float64
}

// Domain is one domain of a comparison: where its cells come from.
type Domain struct {
	// Label is the first (run: series) of its cells, Also the others
	// (the baseline's series of every cell).
	Label string
	Also  []string
	// Cells counts its cells in the comparison.
	Cells int
}

// Comparison is one table of the leaderboard: k entries over N domains,
// each of them run in every cell.
type Comparison struct {
	Domains []Domain
	// Cells counts the cells, over all domains.
	Cells int
	// Entries are the ranked entries by average rank (then mean score,
	// then name); References the references run in every cell, by mean
	// score.
	Entries, References []Entry
	Friedman
	// Q is Nemenyi's q_0.05 for k entries, CD the critical difference.
	Q, CD float64
	// Groups are the index ranges [first, last] of Entries whose average
	// ranks differ by less than CD (the diagram's bars).
	Groups [][2]int
}

// LeftOut is a comparison with fewer than MinDomains domains.
type LeftOut struct {
	Entries []string
	Domains int
}

// Board is the leaderboard of a set of runs.
type Board struct {
	// Runs are the runs' labels, in the order given.
	Runs []string
	// Baseline is the entry every MSE is compared with.
	Baseline string
	// Comparisons are the tables, in order (Rule).
	Comparisons []Comparison
	// LeftOut are the comparisons over fewer than MinDomains domains.
	LeftOut []LeftOut
	// Unplaced lists the entries in no comparison, in order of first
	// appearance; NoBaseline counts the cells without the baseline,
	// NonFinite the rows whose MSE is not finite.
	Unplaced              []string
	NoBaseline, NonFinite int
}

// Options tune Compute.
type Options struct {
	// Baseline is the entry every MSE is compared with ("":
	// DefaultBaseline).
	Baseline string
	// Compare names the comparisons to make, each a list of entries (the
	// baseline added); nil: one per design (Rule).
	Compare [][]string
}

// cell is one (run, domain, n): the floored MSE of every entry (NaN for
// one that did not run in it) and the (run: series) it ran in.
type cell struct {
	domain int
	mse    []float64
	at     []string
}

// grid is the runs laid out as cells.
type grid struct {
	names []string // entry names, in order of first appearance
	ref   []bool   // whether entry e is a reference
	cells []cell
	nDom  int
	// nonFinite counts the rows left out for a non-finite MSE.
	nonFinite int
}

// layout builds the cells of runs.
func layout(runs []*Run) *grid {
	g := &grid{}
	id := map[string]int{}
	domID := map[string]int{}
	type cellKey struct {
		run    int
		domain string
		n      int
	}
	cellID := map[cellKey]int{}
	for ri, r := range runs {
		keys := runDomains(r)
		for k, row := range r.Rows {
			name := r.Entrant(k)
			e, ok := id[name]
			if !ok {
				e = len(g.names)
				id[name] = e
				g.names = append(g.names, name)
				g.ref = append(g.ref, r.Reference(k))
				for i := range g.cells {
					g.cells[i].mse = append(g.cells[i].mse, math.NaN())
					g.cells[i].at = append(g.cells[i].at, "")
				}
			}
			if math.IsNaN(row.MSE) || math.IsInf(row.MSE, 0) {
				g.nonFinite++
				continue
			}
			dk := keys[row.Series]
			d, ok := domID[dk]
			if !ok {
				d = len(domID)
				domID[dk] = d
			}
			ck := cellKey{ri, dk, row.N}
			c, ok := cellID[ck]
			if !ok {
				c = len(g.cells)
				cellID[ck] = c
				mse := make([]float64, len(g.names))
				for i := range mse {
					mse[i] = math.NaN()
				}
				g.cells = append(g.cells, cell{domain: d, mse: mse, at: make([]string, len(g.names))})
			}
			floor := ExactRel * row.TrueValue
			g.cells[c].mse[e] = max(row.MSE, floor*floor)
			g.cells[c].at[e] = r.Label + ": " + row.Series
		}
	}
	g.nDom = len(domID)
	return g
}

// runDomains returns the domain key of each series of r: its Domains
// entry, or, when one entry would appear twice among the series of a key,
// a key of each series' own.
func runDomains(r *Run) map[string]string {
	seen := map[string]map[string]string{} // key -> entry -> series
	split := map[string]bool{}
	for k, row := range r.Rows {
		dk := r.Domains[row.Series]
		if seen[dk] == nil {
			seen[dk] = map[string]string{}
		}
		name := r.Entrant(k)
		if s, ok := seen[dk][name]; ok && s != row.Series {
			split[dk] = true
		}
		seen[dk][name] = row.Series
	}
	out := map[string]string{}
	for s, dk := range r.Domains {
		if split[dk] {
			dk += " series=" + r.Label + "/" + s
		}
		out[s] = dk
	}
	return out
}

// Compute ranks the entries of runs (Rule).
func Compute(runs []*Run, opt Options) (*Board, error) {
	base := opt.Baseline
	if base == "" {
		base = DefaultBaseline
	}
	g := layout(runs)
	b := &Board{Baseline: base, NonFinite: g.nonFinite}
	for _, r := range runs {
		b.Runs = append(b.Runs, r.Label)
	}
	be := slices.Index(g.names, base)
	switch {
	case be < 0:
		return nil, inputerr.Errorf("baseline %q: no row of the runs given has it (their entries: %s)", base, strings.Join(g.names, ", "))
	case g.ref[be]:
		return nil, inputerr.Errorf("baseline %q is a reference (exact moments or an exact model): it is never ranked; name a feasible estimator", base)
	}
	sets, err := designs(g, be, opt.Compare)
	if err != nil {
		return nil, err
	}
	placed := make([]bool, len(g.names))
	for _, set := range sets {
		cells := common(g, set)
		if n := countDomains(g, cells); n < MinDomains {
			lo := LeftOut{Domains: n}
			for _, e := range set {
				lo.Entries = append(lo.Entries, g.names[e])
			}
			b.LeftOut = append(b.LeftOut, lo)
			continue
		}
		c := compare(g, set, cells, be)
		for _, e := range append(slices.Clone(c.Entries), c.References...) {
			placed[slices.Index(g.names, e.Estimator)] = true
		}
		b.Comparisons = append(b.Comparisons, c)
	}
	for e, name := range g.names {
		if !placed[e] {
			b.Unplaced = append(b.Unplaced, name)
		}
	}
	for _, c := range g.cells {
		if math.IsNaN(c.mse[be]) {
			b.NoBaseline++
		}
	}
	if opt.Compare == nil {
		sort.SliceStable(b.Comparisons, func(i, j int) bool {
			x, y := b.Comparisons[i], b.Comparisons[j]
			if len(x.Domains) != len(y.Domains) {
				return len(x.Domains) > len(y.Domains)
			}
			return len(x.Entries) > len(y.Entries)
		})
	}
	return b, nil
}

// designs returns the entry sets to compare, each sorted, the baseline
// be among them: those named (compare), or every distinct set of the
// non-reference entries of a cell holding the baseline, in order of
// first appearance.
func designs(g *grid, be int, compare [][]string) ([][]int, error) {
	var out [][]int
	seen := map[string]bool{}
	add := func(set []int) {
		slices.Sort(set)
		key := fmt.Sprint(set)
		if !seen[key] {
			seen[key] = true
			out = append(out, set)
		}
	}
	if compare != nil {
		for _, names := range compare {
			set := []int{be}
			for _, name := range names {
				e := slices.Index(g.names, name)
				switch {
				case e < 0:
					return nil, inputerr.Errorf("-compare %s: no row of the runs given has %q (their entries: %s)", strings.Join(names, ","), name, strings.Join(g.names, ", "))
				case g.ref[e]:
					return nil, inputerr.Errorf("-compare %s: %q is a reference (exact moments or an exact model): never ranked", strings.Join(names, ","), name)
				case !slices.Contains(set, e):
					set = append(set, e)
				}
			}
			if len(set) < 2 {
				return nil, inputerr.Errorf("-compare %s: names no estimator beside the baseline %s", strings.Join(names, ","), g.names[be])
			}
			add(set)
		}
		return out, nil
	}
	for _, c := range g.cells {
		if math.IsNaN(c.mse[be]) {
			continue
		}
		var set []int
		for e, m := range c.mse {
			if !math.IsNaN(m) && !g.ref[e] {
				set = append(set, e)
			}
		}
		if len(set) > 1 { // the baseline alone compares nothing
			add(set)
		}
	}
	return out, nil
}

// common returns the cells where every entry of set ran.
func common(g *grid, set []int) []int {
	var out []int
	for i, c := range g.cells {
		if !slices.ContainsFunc(set, func(e int) bool { return math.IsNaN(c.mse[e]) }) {
			out = append(out, i)
		}
	}
	return out
}

// countDomains is the number of distinct domains of cells.
func countDomains(g *grid, cells []int) int {
	seen := make([]bool, g.nDom)
	n := 0
	for _, i := range cells {
		if d := g.cells[i].domain; !seen[d] {
			seen[d] = true
			n++
		}
	}
	return n
}

// compare computes the comparison of the entries set over cells (Rule).
func compare(g *grid, set, cells []int, be int) Comparison {
	var c Comparison
	c.Cells = len(cells)
	slot := map[int]int{} // domain -> index in c.Domains
	var domCells [][]int
	for _, i := range cells {
		cl := g.cells[i]
		at := cl.at[be]
		d, ok := slot[cl.domain]
		if !ok {
			d = len(c.Domains)
			slot[cl.domain] = d
			c.Domains = append(c.Domains, Domain{Label: at})
			domCells = append(domCells, nil)
		}
		dom := &c.Domains[d]
		dom.Cells++
		if at != dom.Label && !slices.Contains(dom.Also, at) {
			dom.Also = append(dom.Also, at)
		}
		domCells[d] = append(domCells[d], i)
	}
	scores := func(e int) []float64 {
		s := make([]float64, len(domCells))
		for d, cs := range domCells {
			for _, i := range cs {
				s[d] += math.Log10(g.cells[i].mse[e] / g.cells[i].mse[be])
			}
			s[d] /= float64(len(cs))
		}
		return s
	}
	ranked := make([][]float64, len(set))
	for j, e := range set {
		ranked[j] = scores(e)
	}
	avg := averageRanks(ranked)
	for j, e := range set {
		c.Entries = append(c.Entries, entry(g.names[e], ranked[j], avg[j]))
	}
	sort.SliceStable(c.Entries, func(i, j int) bool {
		x, y := c.Entries[i], c.Entries[j]
		if x.MeanRank != y.MeanRank {
			return x.MeanRank < y.MeanRank
		}
		if x.Mean != y.Mean {
			return x.Mean < y.Mean
		}
		return x.Estimator < y.Estimator
	})
	sortedRanks := make([]float64, len(c.Entries))
	for i, e := range c.Entries {
		sortedRanks[i] = e.MeanRank
	}
	c.Friedman = FriedmanTest(sortedRanks, len(c.Domains))
	c.Q, c.CD = NemenyiQ(len(set)), CriticalDifference(len(set), len(c.Domains))
	c.Groups = cliques(sortedRanks, c.CD)
	for e, ref := range g.ref {
		if ref && !slices.ContainsFunc(cells, func(i int) bool { return math.IsNaN(g.cells[i].mse[e]) }) {
			r := entry(g.names[e], scores(e), math.NaN())
			r.Reference = true
			c.References = append(c.References, r)
		}
	}
	sort.SliceStable(c.References, func(i, j int) bool { return c.References[i].Mean < c.References[j].Mean })
	return c
}

// averageRanks returns each entry's average rank over the domains, from
// its scores scores[j][d] (rankRow on every domain).
func averageRanks(scores [][]float64) []float64 {
	k := len(scores)
	avg := make([]float64, k)
	if k == 0 {
		return avg
	}
	vals, ranks, order := make([]float64, k), make([]float64, k), make([]int, k)
	n := len(scores[0])
	for d := range n {
		for j := range scores {
			vals[j] = scores[j][d]
		}
		rankRow(vals, ranks, order)
		for j, r := range ranks {
			avg[j] += r // a sum of halves: exact
		}
	}
	for j := range avg {
		avg[j] /= float64(n)
	}
	return avg
}

// entry summarises the scores s of one entry over the domains.
func entry(name string, s []float64, meanRank float64) Entry {
	e := Entry{Estimator: name, MeanRank: meanRank}
	e.Mean, e.Lo, e.Hi, e.SD = tInterval(s)
	for _, v := range s {
		if v < 0 {
			e.Better++
		}
	}
	return e
}

// String names the comparison: "k entries over N domains (C cells)".
func (c *Comparison) String() string {
	return strconv.Itoa(len(c.Entries)) + " estimators over " + plural(len(c.Domains), "domain") + " (" + plural(c.Cells, "cell") + ")"
}
