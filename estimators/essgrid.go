package estimators

import (
	"fmt"
	"math"

	"github.com/ope-lab/longhorizon/estimators/internal/weights"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ESSGrid computes, in one pass over a batch, the effective sample sizes
// of WeightStats (ESS and MinStepESS) of the first n trajectories at every
// n of a grid: the harness writes them to curve.csv beside each estimate
// made from those n trajectories (issue 32 item 3). Its zero value is
// ready; it keeps its buffers, so a warm call allocates nothing.
type ESSGrid struct {
	// f is the batch's factors during Compute: buf when the batch must
	// multiply them out (options data), else the batch's own OptionRatio,
	// which is never kept in buf (a later Factors would write into it).
	f, buf []float64
	// plain holds the running weights as float64 while every one is 0 or
	// within [2^-500, 2^500] (so that their squares are normal floats);
	// past that, ws holds them as mantissa and exponent, scaled.
	plain  []float64
	ws     []weights.Scaled
	scaled bool
	seg    []essSegment
	h      []int // h[j]: the horizon of the first grid[j] trajectories
	// steps holds plainPass's per-step sums of every segment.
	steps []float64
}

// essSegment holds the sums of one segment of trajectories, those between
// two consecutive grid points, at one step: sum w and sum w^2 scaled by
// 2^-top, top the largest binary exponent among its nonzero weights
// (weights.MinExp when all are 0).
type essSegment struct {
	top       int
	sum, sum2 float64
}

// Compute writes to ess[j] and minStep[j] the Kish effective sample sizes
// (WeightStats: (sum_i w_i)^2 / sum_i w_i^2) of the first grid[j]
// trajectories of b: ess of the final weights W^i, minStep the smallest
// over t = 1..H of those of W^i_t, H the horizon of the first grid[j]
// trajectories (a trajectory that ended before t keeps its last weight).
// grid must increase, its last point at most b.N(), and ess and minStep
// hold len(grid) values. Cost: O(steps + grid[last] H).
//
// The values agree with WeightStatsOf on b.Prefix(grid[j]) up to the
// rounding of summing segment by segment (a relative 1e-13 in tests).
func (g *ESSGrid) Compute(b *trajectory.Batch, grid []int, ess, minStep []float64) error {
	if len(ess) != len(grid) || len(minStep) != len(grid) {
		return fmt.Errorf("ess grid: %d points, %d and %d outputs", len(grid), len(ess), len(minStep))
	}
	for j, n := range grid {
		if n < 0 || n > b.N() || (j > 0 && n <= grid[j-1]) {
			return fmt.Errorf("ess grid: point %d (n = %d) does not increase within [0, %d]", j, n, b.N())
		}
	}
	if len(grid) == 0 {
		return nil
	}
	n := grid[len(grid)-1]
	g.f = b.Factors(g.buf)
	if len(g.f) > 0 && len(b.OptionRatio) > 0 && &g.f[0] != &b.OptionRatio[0] {
		g.buf = g.f
	}
	defer func() { g.f = nil }()
	g.plain = growFloats(g.plain, n)
	g.ws = growScaled(g.ws, n)
	if cap(g.seg) < len(grid) {
		g.seg = make([]essSegment, len(grid))
	}
	g.seg = g.seg[:len(grid)]
	g.horizons(b, grid)
	for j := range minStep {
		minStep[j] = math.Inf(1)
	}
	if g.plainPass(b, grid, ess, minStep) {
		return nil
	}
	g.stepPass(b, grid, ess, minStep)
	return nil
}

// stepPass is Compute step by step over every trajectory, the weights
// plain until one leaves [2^-500, 2^500], scaled from there on. minStep
// must hold +Inf.
func (g *ESSGrid) stepPass(b *trajectory.Batch, grid []int, ess, minStep []float64) {
	for i := range g.plain {
		g.plain[i] = 1
	}
	g.scaled = false
	for t := range g.h[len(grid)-1] {
		g.step(b, t, grid)
		g.stepMin(t, minStep)
	}
	g.sums(grid)
	g.finish(ess, minStep)
}

// plainPass is Compute trajectory by trajectory, while every running
// weight stays 0 or within [2^-500, 2^500]: the per-step sums of each
// segment, g.steps[(t*len(grid)+j)*2 + {0, 1}], take the trajectories in
// order, as step's plain sums do, so the results are the same bits,
// without step's reads of every trajectory a trajectory's length apart.
// It reports false, having written nothing to ess and minStep, when some
// weight leaves that range (step then goes over to the scaled weights).
func (g *ESSGrid) plainPass(b *trajectory.Batch, grid []int, ess, minStep []float64) bool {
	h, ng := g.h[len(grid)-1], len(grid)
	g.steps = growFloats(g.steps, 2*h*ng)
	clear(g.steps)
	from := 0
	for j, to := range grid {
		for i := from; i < to; i++ {
			w := 1.0
			f := g.f[b.Offsets[i]:b.Offsets[i+1]]
			for t := range h {
				if t < len(f) {
					w *= f[t]
					if w != 0 && !(w >= 0x1p-500 && w <= 0x1p500) {
						return false
					}
				}
				acc := g.steps[2*(t*ng+j):]
				acc[0] += w
				acc[1] += w * w
			}
			g.plain[i] = w
		}
		from = to
	}
	for t := range h {
		g.plainSeg(g.steps[2*t*ng : 2*(t+1)*ng])
		g.stepMin(t, minStep)
	}
	if h == 0 {
		g.plainSums(grid)
	}
	g.finish(ess, minStep)
	return true
}

// stepMin lowers minStep[j] to the Kish ESS of step t (0-based, g.seg
// holding its sums) for every grid point whose horizon reaches t.
func (g *ESSGrid) stepMin(t int, minStep []float64) {
	for j := range minStep {
		if t < g.h[j] {
			minStep[j] = min(minStep[j], g.kish(j))
		}
	}
}

// finish writes the final weights' ESS (g.seg holding their sums) and
// gives a grid point without steps its final ESS as its smallest.
func (g *ESSGrid) finish(ess, minStep []float64) {
	for j := range ess {
		ess[j] = g.kish(j)
		if math.IsInf(minStep[j], 1) { // horizon 0: no step to take a minimum over
			minStep[j] = ess[j]
		}
	}
}

// plainSeg fills g.seg from one step's plain sums (sum, sum of squares per
// segment), at scale 2^0 as plainSums does.
func (g *ESSGrid) plainSeg(sums []float64) {
	for j := range g.seg {
		seg := essSegment{top: weights.MinExp, sum: sums[2*j], sum2: sums[2*j+1]}
		if seg.sum != 0 {
			seg.top = 0
		}
		g.seg[j] = seg
	}
}

// horizons fills g.h: the longest trajectory among the first grid[j].
func (g *ESSGrid) horizons(b *trajectory.Batch, grid []int) {
	if cap(g.h) < len(grid) {
		g.h = make([]int, len(grid))
	}
	g.h = g.h[:len(grid)]
	h, from := 0, 0
	for j, to := range grid {
		for i := from; i < to; i++ {
			h = max(h, b.Len(i))
		}
		g.h[j], from = h, to
	}
}

// step multiplies every running weight by its factor at step t (none past
// a trajectory's end) and sums the segments. Both representations give
// the same products and sums bit for bit: a scaled product rounds as the
// plain one (Frexp is exact), and scaling by a power of two is exact.
func (g *ESSGrid) step(b *trajectory.Batch, t int, grid []int) {
	if !g.scaled {
		inRange := true
		for i, w := range g.plain {
			if s := b.Offsets[i] + t; s < b.Offsets[i+1] {
				w *= g.f[s]
				g.plain[i] = w
				inRange = inRange && (w == 0 || (w >= 0x1p-500 && w <= 0x1p500))
			}
		}
		if inRange {
			g.plainSums(grid)
			return
		}
		g.scaled = true
		for i, w := range g.plain {
			g.ws[i] = weights.Scaled{M: 1}
			g.ws[i].Mul(w)
		}
	} else {
		for i := range g.ws {
			if s := b.Offsets[i] + t; s < b.Offsets[i+1] {
				g.ws[i].Mul(g.f[s])
			}
		}
	}
	g.sums(grid)
}

// plainSums fills g.seg from the plain running weights, at scale 2^0.
func (g *ESSGrid) plainSums(grid []int) {
	from := 0
	for j, to := range grid {
		seg := essSegment{top: weights.MinExp}
		for _, w := range g.plain[from:to] {
			seg.sum += w
			seg.sum2 += w * w
		}
		if seg.sum != 0 {
			seg.top = 0
		}
		g.seg[j] = seg
		from = to
	}
}

// sums fills g.seg from the running weights.
func (g *ESSGrid) sums(grid []int) {
	if !g.scaled {
		g.plainSums(grid)
		return
	}
	from := 0
	for j, to := range grid {
		seg := essSegment{top: weights.MinExp}
		for _, w := range g.ws[from:to] {
			if w.M != 0 {
				seg.top = max(seg.top, w.E)
			}
		}
		if seg.top != weights.MinExp {
			for _, w := range g.ws[from:to] {
				x := w.At(seg.top)
				seg.sum += x
				seg.sum2 += x * x
			}
		}
		g.seg[j] = seg
		from = to
	}
}

// kish returns the Kish ESS of the trajectories of segments 0..j, their
// sums brought to the largest of their scales; 0 when every weight is 0.
func (g *ESSGrid) kish(j int) float64 {
	top := weights.MinExp
	for _, s := range g.seg[:j+1] {
		top = max(top, s.top)
	}
	if top == weights.MinExp {
		return 0
	}
	var sum, sum2 float64
	for _, s := range g.seg[:j+1] {
		if s.top != weights.MinExp {
			sum += math.Ldexp(s.sum, s.top-top)
			sum2 += math.Ldexp(s.sum2, 2*(s.top-top))
		}
	}
	return sum * sum / sum2
}

func growFloats(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	return x[:n]
}

func growScaled(ws []weights.Scaled, n int) []weights.Scaled {
	if cap(ws) < n {
		return make([]weights.Scaled, n)
	}
	return ws[:n]
}
