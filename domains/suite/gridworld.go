package suite

import (
	"fmt"
	"math"
	"slices"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/tabular"
)

func init() {
	domains.RegisterTabular(domains.TabularSpec{
		Name: "gridworld",
		Doc: "suite (issue 16): a W x H gridworld with slips and pits, start in the top-left corner, goal in the bottom-right one; " +
			"the episode ends at the goal (+1) or in a pit (-1), so its length depends on the policy. " +
			"It tests estimators when whether a trajectory is still running depends on every earlier action: " +
			"dropping old ratios then biases every later step. pi_e is eps_e-greedy with respect to the optimal values " +
			"of the slippery grid (value iteration), pi_b eps_b-greedy with respect to the same. At the defaults (instance 1) " +
			"pi_e reaches the goal in 81% of episodes (V = 0.52), pi_b in 40% and falls into a pit in 56% (V = -0.26), " +
			"in 11.2 and 12.3 steps on average; a ratio is 0.925/0.625 = 1.48 on the preferred action and 0.025/0.125 = 0.2 " +
			"off it, and E_b[W^2], the variance scale of IS, is about 64 (45 to 95 over instances 1 to 4): hard at n = 100, " +
			"feasible at 10^4",
		Params: []domains.ParamSpec{
			{Name: "width", Kind: domains.Int, Default: 5, Min: 2, Max: 32, Doc: "columns of the grid"},
			{Name: "height", Kind: domains.Int, Default: 5, Min: 2, Max: 32, Doc: "rows of the grid"},
			{Name: "pits", Kind: domains.Int, Default: 3, Min: 0, Max: 32*32 - 2, Doc: "number of pits, placed by the instance uniformly among the cells other than start and goal, redrawn until a path avoiding them joins start and goal"},
			{Name: "slip", Kind: domains.Float, Default: 0.2, Min: 0, Max: 1, Doc: "probability that a move goes, instead, in one of the three other directions (uniformly)"},
			{Name: "step_cost", Kind: domains.Float, Default: 0.01, Min: 0, Max: 1e6, Doc: "cost of a step in an ordinary cell (paid as a reward of -step_cost)"},
			{Name: "horizon", Kind: domains.Int, Default: 30, Min: 1, Max: 10000, Doc: "the episode's cap in steps"},
			{Name: "eps_e", Kind: domains.Float, Default: 0.1, Min: 0, Max: 1, Doc: "evaluation policy: the optimal action with probability 1 - eps_e, else uniform over the 4 actions"},
			{Name: "eps_b", Kind: domains.Float, Default: 0.5, Min: 0, Max: 1, Doc: "behavior policy: the optimal action with probability 1 - eps_b, else uniform over the 4 actions"},
		},
		Build: buildGridworld,
		TruthDoc: "exact dynamic program over (step, cell); the goal and each pit pay their reward on the step after they are " +
			"entered, whatever the action, and the episode then ends",
	})
}

// PCG streams of the instances of gridworld, sparse, credit and drift
// (instanceRand): the ASCII of their names.
const (
	gridStream   = 0x67726964776f726c // "gridworl"
	sparseStream = 0x7370617273657277 // "sparserw"
	creditStream = 0x6372656469746173 // "creditas"
	driftStream  = 0x6472696674737562 // "driftsub"
)

// Actions of the gridworld, and the moves they make: (row, column)
// offsets, rows growing downwards.
const (
	gridNorth = iota
	gridSouth
	gridEast
	gridWest
	gridActions
)

var gridMoves = [gridActions][2]int{{-1, 0}, {1, 0}, {0, 1}, {0, -1}}

// gridMaxDraws bounds the draws of pit placements that leave no safe
// path.
const gridMaxDraws = 1000

// gridworld is a built gridworld instance: its cells are numbered
// row*width + col, the start is cell 0, the goal the last cell.
type gridworld struct {
	w, h int
	pit  []bool
	// dist[c] is the number of moves on a shortest path from c to the
	// goal through cells that are not pits (-1: none).
	dist []int
	// best[c] is pi_e's preferred action in cell c (plan).
	best []int
}

// move returns the cell that moving from c in direction d reaches: c
// itself when the move would leave the grid.
func (g *gridworld) move(c, d int) int {
	r, col := c/g.w+gridMoves[d][0], c%g.w+gridMoves[d][1]
	if r < 0 || r >= g.h || col < 0 || col >= g.w {
		return c
	}
	return r*g.w + col
}

// distances fills g.dist by breadth-first search from the goal over the
// cells that are not pits (moves are reversible, so distances to the goal
// are distances from it).
func (g *gridworld) distances() {
	n := g.w * g.h
	g.dist = make([]int, n)
	for i := range g.dist {
		g.dist[i] = -1
	}
	goal := n - 1
	g.dist[goal] = 0
	queue := []int{goal}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		for d := range gridActions {
			nb := g.move(c, d)
			if !g.pit[nb] && g.dist[nb] < 0 {
				g.dist[nb] = g.dist[c] + 1
				queue = append(queue, nb)
			}
		}
	}
}

// plan fills g.best with the actions of an optimal policy for the first
// step of an episode of h steps: value iteration over h sweeps of the
// finite-horizon Bellman equation, V_h = 0,
//
//	Q_t(c, a) = r(c) + sum_d P(d|a) V_{t+1}(move(c, d)),  V_t(c) = max_a Q_t(c, a),
//
// with r(c) = -cost in ordinary cells, the goal and the pits absorbing
// (worth +1 and -1, their V_t equal to that reward for t < h) and
// P(d|a) = 1 - slip for d = a, slip/3 otherwise; best(c) = argmax_a
// Q_1(c, a), ties (within 1e-12) to the first of N, S, E, W. The
// evaluation policy uses it in every step: near-optimal, since it ignores
// only how the steps left shrink. A sweep that changes no value is a
// fixed point and ends the iteration early, with the same result.
func (g *gridworld) plan(h int, slip, cost float64) {
	n := g.w * g.h
	v, next := make([]float64, n), make([]float64, n)
	g.best = make([]int, n)
	for t := h - 1; t >= 0; t-- {
		for c := range n {
			switch {
			case c == n-1:
				v[c] = 1
				continue
			case g.pit[c]:
				v[c] = -1
				continue
			}
			bestQ := math.Inf(-1)
			for a := range gridActions {
				q := -cost
				for d := range gridActions {
					pd := slip / 3
					if d == a {
						pd = 1 - slip
					}
					q += pd * next[g.move(c, d)]
				}
				if q > bestQ+1e-12 {
					bestQ, g.best[c] = q, a
				}
			}
			v[c] = bestQ
		}
		if slices.Equal(v, next) {
			// A fixed point: every earlier sweep would repeat this one,
			// best included.
			return
		}
		v, next = next, v
	}
}

// newGridworld places the pits of instance p (width, height, pits): npits
// distinct cells drawn uniformly among those other than start and goal
// (a partial Fisher-Yates shuffle), redrawn until a safe path joins start
// and goal.
func newGridworld(p domains.Params) (*gridworld, error) {
	w, h, npits := p.Int("width"), p.Int("height"), p.Int("pits")
	n := w * h
	if npits > n-2 {
		return nil, fmt.Errorf("pits = %d, want at most width x height - 2 = %d", npits, n-2)
	}
	g := &gridworld{w: w, h: h, pit: make([]bool, n)}
	rng := instanceRand(p, gridStream)
	cand := make([]int, n-2)
	for draw := 0; draw < gridMaxDraws; draw++ {
		clear(g.pit)
		for i := range cand {
			cand[i] = i + 1
		}
		for i := range npits {
			j := i + rng.IntN(len(cand)-i)
			cand[i], cand[j] = cand[j], cand[i]
			g.pit[cand[i]] = true
		}
		g.distances()
		if g.dist[0] >= 0 {
			g.plan(p.Int("horizon"), p["slip"], p["step_cost"])
			return g, nil
		}
	}
	return nil, fmt.Errorf("no placement of %d pits in a %d x %d grid left a safe path from start to goal in %d draws of instance %d",
		npits, w, h, gridMaxDraws, p.Int("instance"))
}

// buildGridworld builds the gridworld MDP of parameters p and its
// behavior and evaluation policies. States are the cells (row*width +
// col), actions N, S, E, W. In an ordinary cell an action moves in its
// direction with probability 1 - slip and in each other direction with
// probability slip/3 (a move off the grid stays put), paying -step_cost.
// The goal pays +1 and a pit -1 on the next step, whatever the action,
// and the episode then ends: so a reward stays a function of (state,
// action), as the kernel needs. Both policies are uniform in the goal and
// the pits (their ratio there is 1); elsewhere
//
//	pi(a|c) = (1 - eps) [a = a*(c)] + eps/4,
//
// a*(c) = best(c), the optimal first action of an episode of horizon
// steps (gridworld.plan).
func buildGridworld(p domains.Params) (*tabular.MDP, *tabular.Policy, *tabular.Policy, error) {
	g, err := newGridworld(p)
	if err != nil {
		return nil, nil, nil, err
	}
	n, na := g.w*g.h, gridActions
	slip, cost := p["slip"], p["step_cost"]
	k := &tabular.Kernel{P: make([][]float64, n*na), Mean: make([]float64, n*na)}
	for c := range n {
		for a := range na {
			row := make([]float64, n+1)
			i := c*na + a
			k.P[i] = row
			switch {
			case c == n-1:
				row[n], k.Mean[i] = 1, 1
			case g.pit[c]:
				row[n], k.Mean[i] = 1, -1
			default:
				for d := range na {
					q := slip / 3
					if d == a {
						q = 1 - slip
					}
					row[g.move(c, d)] += q
				}
				k.Mean[i] = -cost
			}
		}
	}
	start := make([]float64, n)
	start[0] = 1
	m := &tabular.MDP{States: n, Actions: na, Horizon: p.Int("horizon"), Start: start,
		At: func(int) *tabular.Kernel { return k }}
	policy := func(eps float64) *tabular.Policy {
		pi := &tabular.Policy{Actions: na, Pi: make([]float64, n*na)}
		for c := range n {
			for a := range na {
				if c == n-1 || g.pit[c] {
					pi.Pi[c*na+a] = 1.0 / float64(na)
					continue
				}
				x := eps / float64(na)
				if a == g.best[c] {
					x += 1 - eps
				}
				pi.Pi[c*na+a] = x
			}
		}
		return pi
	}
	return m, policy(p["eps_b"]), policy(p["eps_e"]), nil
}
