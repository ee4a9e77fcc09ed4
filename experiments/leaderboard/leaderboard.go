package leaderboard

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/ope-lab/longhorizon/experiments/claims"
	"github.com/ope-lab/longhorizon/internal/parallel"
	"github.com/ope-lab/longhorizon/internal/streams"
)

const (
	// Replicates is B, the bootstrap replicates of every interval (the
	// claims' B).
	Replicates = claims.Replicates
	// Within is the ratio to a cell's best up to which an estimator counts
	// as within reach of it (the share column).
	Within = 1.25
	// Seed is the constant the bootstrap's streams are derived from, with
	// each run's seed and its directory's name (StreamName).
	Seed uint64 = 0x6c65616465726264 // "leaderbd"
)

// StreamName is the name whose FNV-1a hash keys the bootstrap streams of
// the run in a directory called dir (its base name).
func StreamName(dir string) string { return "leaderboard:" + dir }

// Rule states how the leaderboard is computed, for its help.
const Rule = `Cells are the (run, series, n) of the directories given; a cell with a
single estimator compares nothing and is left out (and counted). In a
cell, an estimator's ratio is its MSE (curve.csv's mse) over the smallest
MSE of the cell (0/0 := 1; x/0 := +Inf, which counts as a cell and as the
worst ratio, is left out of the geometric mean and is reported), an MSE at
or below (1e-12 |V(pi_e)|)^2 counting as 0 (exact: rounding-size MSEs,
e.g. 1e-30 where a model makes an estimator exact, would otherwise enter
the geometric mean as ratios of 1e26); its rank
is 1 for the smallest MSE, estimators of equal MSE sharing the average of
their ranks. An estimator over a model other than the default (the
series' model: fitted) is an entry of its own, named with the model in
brackets: dm[fqe], wdr[exact] (the domain's true q, a reference). Per
entry (external estimators included), over every cell it ran in: the number of cells, the geometric mean of its ratios, the worst
ratio and the first cell where it occurs (in the order of the directories
given, then of curve.csv), the mean rank, and the share of cells with a
ratio <= 1.25. Rows are sorted by the geometric mean.

Intervals: a bootstrap over trials paired within each run, B = 2000.
Replicate b draws the T trials of each run with replacement, once for the
whole run (T draws in order from stream b of the key 0x6c65616465726264
XOR the run's seed XOR SplitMix64(FNV-1a("leaderboard:" + the base name of
the run's directory)), internal/streams, as the claims' bootstrap draws):
every series, n and estimator of the run share the draw, so that an MSE
and the best it is divided by move together. Every MSE is recomputed as
the mean of the resampled squared errors (estimate - true_value)^2 of
trials.csv (curve.csv's true_value), 0 at or below the same floor, and from them the geometric mean and
the worst ratio of every estimator. [lo, hi] are the 2.5% and 97.5%
percentiles (the 50th smallest and the 50th largest of the 2000
replicates); a replicate in which all of an estimator's ratios are +Inf
counts +Inf for its geometric mean. The same directories give the same
bytes whatever the number of goroutines.`

// Cell is one (run, series, n) of the leaderboard.
type Cell struct {
	Run    string // the run's Label
	Series string
	N      int
}

func (c Cell) String() string { return fmt.Sprintf("%s: %s, n = %d", c.Run, c.Series, c.N) }

// Entry is one estimator's line of the leaderboard.
type Entry struct {
	Estimator string
	// Cells counts the cells it ran in (beside another estimator);
	// Infinite those of them where its ratio is +Inf (the best MSE is 0,
	// its own is not).
	Cells, Infinite int
	// GeoMean is the geometric mean of its finite ratios (NaN when there
	// are none), with its 95% interval [GeoLo, GeoHi].
	GeoMean, GeoLo, GeoHi float64
	// Worst is the largest ratio, first reached in WorstCell, with its 95%
	// interval [WorstLo, WorstHi].
	Worst, WorstLo, WorstHi float64
	WorstCell               Cell
	// MeanRank is the mean of its ranks (1: the best of the cell; ties
	// share the average rank).
	MeanRank float64
	// Share is the fraction of its cells with a ratio <= Within.
	Share float64
}

// Board is the leaderboard of a set of runs.
type Board struct {
	// Runs are the runs' labels, in the order given.
	Runs []string
	// Cells counts the cells with two or more estimators, Single those
	// with one, left out.
	Cells, Single int
	// Alone lists the estimators that never ran beside another: not
	// ranked.
	Alone []string
	// Replicates is the bootstrap's B.
	Replicates int
	// Entries are the ranked estimators, by GeoMean (NaN last), then mean
	// rank, then name.
	Entries []Entry
}

// Options tune Compute.
type Options struct {
	// Replicates is B (0: Replicates); tests use fewer.
	Replicates int
	// Workers bounds the goroutines of the bootstrap (0: GOMAXPROCS); the
	// result does not depend on it.
	Workers int
}

// table is the runs laid out for the computation: every curve row of every
// run (global index g), and the cells that compare two or more
// estimators.
type table struct {
	est    []string  // estimator names, in order of first appearance
	rowEst []int     // estimator of row g
	rowMSE []float64 // curve.csv's mse of row g, 0 at or below rowExact
	// rowExact is row g's exactness floor (ExactRel |V(pi_e)|)^2: an MSE
	// at or below it counts as 0.
	rowExact []float64
	rowSq    [][]float64 // squared errors of row g, one per trial of its run
	cells    []cellRows
	// runRows lists, per run, the rows of its competitive cells; runKey
	// is its stream key.
	runRows [][]int
	runKey  []uint64
	maxT    int
}

type cellRows struct {
	cell Cell
	rows []int // global rows, in curve.csv's order
}

// layout builds the table of runs; it returns it with the number of
// cells left out (a single estimator) and, per estimator, whether it ran
// beside another somewhere.
func layout(runs []*Run) (*table, int, []bool) {
	tb := &table{runRows: make([][]int, len(runs)), runKey: make([]uint64, len(runs))}
	estID := map[string]int{}
	single := 0
	var ranked []bool
	for ri, r := range runs {
		tb.runKey[ri] = claims.StreamKey(Seed^r.Seed, StreamName(r.Name))
		tb.maxT = max(tb.maxT, r.Trials)
		type sn struct {
			series string
			n      int
		}
		index := map[sn]int{}
		var local []cellRows
		for k, row := range r.Rows {
			g := len(tb.rowEst)
			name := r.Entrant(k)
			id, ok := estID[name]
			if !ok {
				id = len(tb.est)
				estID[name] = id
				tb.est = append(tb.est, name)
				ranked = append(ranked, false)
			}
			tb.rowEst = append(tb.rowEst, id)
			floor := ExactRel * row.TrueValue
			floor *= floor
			tb.rowExact = append(tb.rowExact, floor)
			tb.rowMSE = append(tb.rowMSE, exactMSE(row.MSE, floor))
			tb.rowSq = append(tb.rowSq, r.Sq[k*r.Trials:(k+1)*r.Trials])
			key := sn{row.Series, row.N}
			c, ok := index[key]
			if !ok {
				c = len(local)
				index[key] = c
				local = append(local, cellRows{cell: Cell{Run: r.Label, Series: row.Series, N: row.N}})
			}
			local[c].rows = append(local[c].rows, g)
		}
		for _, c := range local {
			if len(c.rows) < 2 {
				single++
				continue
			}
			tb.cells = append(tb.cells, c)
			tb.runRows[ri] = append(tb.runRows[ri], c.rows...)
			for _, g := range c.rows {
				ranked[tb.rowEst[g]] = true
			}
		}
	}
	return tb, single, ranked
}

// ExactRel is the relative error below which an estimator counts as exact:
// an MSE at or below (ExactRel |V(pi_e)|)^2 is taken as 0, so that MSEs
// of rounding size (1e-30 where a model makes an estimator exact) do not
// enter geometric means as ratios of 1e26; such a cell gives the exact
// estimators ratio 1 (0/0) and the others +Inf (reported, left out of the
// geometric mean).
const ExactRel = 1e-12

// exactMSE is mse, or 0 at or below floor (ExactRel).
func exactMSE(mse, floor float64) float64 {
	if mse <= floor {
		return 0
	}
	return mse
}

// ratio is x over the cell's best: 0/0 := 1, x/0 := +Inf.
func ratio(x, best float64) float64 {
	switch {
	case x == best:
		return 1
	case best == 0:
		return math.Inf(1)
	}
	return x / best
}

// acc accumulates, per estimator, the sum of the logs of its finite
// ratios, their count and its worst ratio.
type acc struct {
	sumLog []float64
	finite []int
	worst  []float64
}

func newAcc(n int) *acc {
	return &acc{sumLog: make([]float64, n), finite: make([]int, n), worst: make([]float64, n)}
}

func (a *acc) reset() {
	clear(a.sumLog)
	clear(a.finite)
	for e := range a.worst {
		a.worst[e] = math.Inf(-1)
	}
}

// score adds every cell's ratios, from the MSEs mse of the rows, to a.
func (a *acc) score(cells []cellRows, rowEst []int, mse []float64) {
	for _, c := range cells {
		best := math.Inf(1)
		for _, g := range c.rows {
			best = min(best, mse[g])
		}
		for _, g := range c.rows {
			e, q := rowEst[g], ratio(mse[g], best)
			if !math.IsInf(q, 1) {
				a.sumLog[e] += math.Log(q)
				a.finite[e]++
			}
			a.worst[e] = max(a.worst[e], q)
		}
	}
}

// geo is estimator e's geometric mean of its finite ratios: NaN when
// there are none.
func (a *acc) geo(e int) float64 {
	if a.finite[e] == 0 {
		return math.NaN()
	}
	return math.Exp(a.sumLog[e] / float64(a.finite[e]))
}

// Compute ranks the estimators of runs (Rule).
func Compute(runs []*Run, opt Options) (*Board, error) {
	B := opt.Replicates
	if B <= 0 {
		B = Replicates
	}
	tb, single, ranked := layout(runs)
	board := &Board{Cells: len(tb.cells), Single: single, Replicates: B}
	for _, r := range runs {
		board.Runs = append(board.Runs, r.Label)
	}
	point := pointEntries(tb)
	geoRep, worstRep, err := bootstrap(tb, B, opt.Workers)
	if err != nil {
		return nil, err
	}
	for e, name := range tb.est {
		if !ranked[e] {
			board.Alone = append(board.Alone, name)
			continue
		}
		en := point[e]
		en.GeoLo, en.GeoHi = claims.Percentiles(geoRep[e])
		en.WorstLo, en.WorstHi = claims.Percentiles(worstRep[e])
		board.Entries = append(board.Entries, en)
	}
	sort.SliceStable(board.Entries, func(i, j int) bool {
		a, b := board.Entries[i], board.Entries[j]
		switch {
		case math.IsNaN(a.GeoMean) != math.IsNaN(b.GeoMean):
			return !math.IsNaN(a.GeoMean)
		case a.GeoMean != b.GeoMean && !math.IsNaN(a.GeoMean):
			return a.GeoMean < b.GeoMean
		case a.MeanRank != b.MeanRank:
			return a.MeanRank < b.MeanRank
		}
		return a.Estimator < b.Estimator
	})
	return board, nil
}

// pointEntries computes every estimator's numbers from curve.csv's MSEs.
func pointEntries(tb *table) []Entry {
	out := make([]Entry, len(tb.est))
	a := newAcc(len(tb.est))
	a.reset()
	a.score(tb.cells, tb.rowEst, tb.rowMSE)
	rankSum := make([]float64, len(tb.est))
	within := make([]int, len(tb.est))
	for e := range out {
		out[e] = Entry{Estimator: tb.est[e], Worst: math.Inf(-1)}
	}
	var order []int
	for _, c := range tb.cells {
		best := math.Inf(1)
		for _, g := range c.rows {
			best = min(best, tb.rowMSE[g])
		}
		for _, g := range c.rows {
			en := &out[tb.rowEst[g]]
			q := ratio(tb.rowMSE[g], best)
			en.Cells++
			if math.IsInf(q, 1) {
				en.Infinite++
			}
			if q <= Within {
				within[tb.rowEst[g]]++
			}
			if q > en.Worst {
				en.Worst, en.WorstCell = q, c.cell
			}
		}
		// ranks: by MSE, ties sharing the average of their positions
		order = append(order[:0], c.rows...)
		sort.SliceStable(order, func(i, j int) bool { return tb.rowMSE[order[i]] < tb.rowMSE[order[j]] })
		for i := 0; i < len(order); {
			j := i + 1
			for j < len(order) && tb.rowMSE[order[j]] == tb.rowMSE[order[i]] {
				j++
			}
			r := float64(i+1+j) / 2 // the mean of positions i+1 .. j
			for _, g := range order[i:j] {
				rankSum[tb.rowEst[g]] += r
			}
			i = j
		}
	}
	for e := range out {
		if n := out[e].Cells; n > 0 {
			out[e].GeoMean = a.geo(e)
			out[e].MeanRank = rankSum[e] / float64(n)
			out[e].Share = float64(within[e]) / float64(n)
		}
	}
	return out
}

// bootstrap returns every estimator's B replicates of its geometric mean
// and of its worst ratio (Rule): geo[e][b], worst[e][b]. A replicate's
// numbers depend on b alone; a replicate allocates nothing.
func bootstrap(tb *table, B, workers int) (geo, worst [][]float64, err error) {
	geo, worst = make([][]float64, len(tb.est)), make([][]float64, len(tb.est))
	for e := range geo {
		geo[e], worst[e] = make([]float64, B), make([]float64, B)
	}
	if len(tb.cells) == 0 {
		return geo, worst, nil
	}
	err = parallel.Do(context.Background(), B, workers, func() func(int) error {
		rep := newReplicate(tb)
		return func(b int) error {
			rep.run(b)
			for e := range tb.est {
				// no finite ratio in this replicate: +Inf, so that the
				// percentiles stay defined
				g := rep.acc.geo(e)
				if math.IsNaN(g) {
					g = math.Inf(1)
				}
				geo[e][b], worst[e][b] = g, rep.acc.worst[e]
			}
			return nil
		}
	})
	return geo, worst, err
}

// replicate is one goroutine's workspace of the bootstrap.
type replicate struct {
	tb     *table
	pcg    rand.PCG
	rng    *rand.Rand
	counts []int
	w      []float64
	mse    []float64
	acc    *acc
}

func newReplicate(tb *table) *replicate {
	r := &replicate{tb: tb, counts: make([]int, tb.maxT), w: make([]float64, tb.maxT),
		mse: make([]float64, len(tb.rowEst)), acc: newAcc(len(tb.est))}
	r.rng = rand.New(&r.pcg)
	return r
}

// run computes replicate b into r.acc: per run, T draws with replacement
// from stream b of the run's key (the claims' drawTrials), as weights
// count/T; every MSE of its competitive cells as the weighted mean of the
// row's squared errors; then the ratios of every cell.
func (r *replicate) run(b int) {
	tb := r.tb
	for ri, rows := range tb.runRows {
		if len(rows) == 0 {
			continue
		}
		T := len(tb.rowSq[rows[0]])
		streams.Seed(&r.pcg, tb.runKey[ri], uint64(b))
		c := r.counts[:T]
		clear(c)
		for range T {
			c[r.rng.IntN(T)]++
		}
		w := r.w[:T]
		for t := range w {
			w[t] = float64(c[t]) / float64(T)
		}
		for _, g := range rows {
			r.mse[g] = exactMSE(dot(w, tb.rowSq[g]), tb.rowExact[g])
		}
	}
	r.acc.reset()
	r.acc.score(tb.cells, tb.rowEst, r.mse)
}

// dot is the sum of w[t] x[t] in order (no fused multiply-add, so that
// the bytes do not depend on the architecture's compiler).
func dot(w, x []float64) float64 {
	s := 0.0
	x = x[:len(w)]
	for t, v := range w {
		s += float64(v * x[t])
	}
	return s
}
