package taxi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/ope-lab/longhorizon/envs/noisytaxi"
	"github.com/ope-lab/longhorizon/internal/parallel"
	"github.com/ope-lab/longhorizon/internal/streams"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Stats are exact facts of the capped NoisyTaxi episode under the taxi
// options policy (eps, m).
type Stats struct {
	// Value is the expected return V(pi), discounted by gamma (SPEC 1c:
	// the reward of 1-based primitive step t counts gamma^(t-1)).
	Value float64
	// MeanLength is the expected number of primitive steps.
	MeanLength float64
	// CapProb is the probability that the episode reaches the cap without
	// a successful dropoff.
	CapProb float64
}

// taxiActionDist returns, for every hidden state, the distribution of a*(o)
// with o drawn from the observation distribution of that state: the action
// distribution of one step of the optimal option.
func taxiActionDist(p noisytaxi.Params) *[noisytaxi.NumStates][noisytaxi.NumActions]float64 {
	var d [noisytaxi.NumStates][noisytaxi.NumActions]float64
	for i := range noisytaxi.NumStates {
		s := noisytaxi.StateAt(i)
		rows, cols, pass := p.CoordObsProbs(s.Row), p.CoordObsProbs(s.Col), p.PassObsProbs(s.Pass)
		for r, pr := range rows {
			if pr == 0 {
				continue
			}
			for c, pc := range cols {
				if pc == 0 {
					continue
				}
				for ps, pp := range pass {
					if pp == 0 {
						continue
					}
					a := policies.TaxiOptimalAction(noisytaxi.Obs{Row: r, Col: c, Pass: ps, Dest: s.Dest})
					d[i][a] += pr * pc * pp
				}
			}
		}
	}
	return &d
}

// taxiTriple holds (return, steps, cap indicator) to-go.
type taxiTriple [3]float64

// ExactValue computes V(pi) of the taxi options policy with this eps
// and option length m (m = 1: the primitive epsilon-greedy policy) under
// the discount factor gamma in (0, 1] (SPEC 1c; 1: undiscounted, the
// paper's setting) by finite-horizon dynamic programming over (hidden
// state, running option and its steps left, steps left before the cap),
// averaging a*(o) over the memoryless observation noise of each hidden
// state. The expected episode length and the cap-hit probability come from
// the same recursion; they are not discounted.
//
// The recursion (SPEC 2.3, with SPEC 1c's discount; t counts primitive
// steps, whatever m is): with T steps left, a step from hidden state s
// with action a is worth r(s, a) + gamma U_{T-1}(s'), where U_{T-1} is the
// value to go from the next state s' (0 when the step delivers the
// passenger, and at T - 1 = 0, the cap). At gamma = 1 the product gamma x
// is exactly x, so the numbers are those of the undiscounted recursion,
// bit for bit.
//
// It calls progress, when not nil, with the fraction of the recursion done
// (its cost is linear in the cap and in m: about 25 s at cap 2000 and m =
// 200 on this project's machine); reporting changes no number.
func ExactValue(p noisytaxi.Params, eps float64, m int, gamma float64, progress func(frac float64)) (Stats, error) {
	if err := checkTaxiPolicy(p, eps, gamma); err != nil {
		return Stats{}, err
	}
	if m < 1 {
		return Stats{}, fmt.Errorf("domains: noisytaxi: option length m is %d, want at least 1", m)
	}
	const S, A = noisytaxi.NumStates, noisytaxi.NumActions
	// kind 0: optimal option, kind 1: random option
	probs := taxiKindProbs(p)
	next, rew := taxiTransitions()

	// F[s]: no option running; G[kind][j][s]: an option of kind running
	// with j = 1..m-1 steps left. At T = 0 steps left every live state has
	// hit the cap: (0, 0, 1).
	terminal := taxiTriple{0, 0, 1}
	newLayer := func() ([]taxiTriple, [2][][]taxiTriple) {
		f := make([]taxiTriple, S)
		var g [2][][]taxiTriple
		for k := range g {
			g[k] = make([][]taxiTriple, m)
			for j := 1; j < m; j++ {
				g[k][j] = make([]taxiTriple, S)
			}
		}
		return f, g
	}
	fPrev, gPrev := newLayer()
	fCur, gCur := newLayer()
	fill := func(f []taxiTriple, g [2][][]taxiTriple) {
		for s := range f {
			f[s] = terminal
		}
		for k := range g {
			for j := 1; j < m; j++ {
				for s := range g[k][j] {
					g[k][j][s] = terminal
				}
			}
		}
	}
	fill(fPrev, gPrev)

	// step returns the triple to go from s when this step's action is drawn
	// from pa and the continuation (from the next state, one step fewer
	// left) is cont.
	step := func(pa *[A]float64, s int, cont []taxiTriple) taxiTriple {
		var v taxiTriple
		for a, pr := range pa {
			if pr == 0 {
				continue
			}
			t := taxiTriple{rew[s][a], 1, 0}
			if ns := next[s][a]; ns >= 0 {
				c := &cont[ns]
				t[0] += gamma * c[0] // SPEC 1c; c[0] itself at gamma = 1
				t[1] += c[1]
				t[2] += c[2]
			}
			v[0] += pr * t[0]
			v[1] += pr * t[1]
			v[2] += pr * t[2]
		}
		return v
	}
	w := [2]float64{1 - eps, eps}
	for T := 1; T <= p.Cap; T++ {
		if progress != nil && T%16 == 0 {
			progress(float64(T) / float64(p.Cap))
		}
		for k := range 2 {
			for j := 1; j < m; j++ {
				cont := fPrev
				if j > 1 {
					cont = gPrev[k][j-1]
				}
				for s := range S {
					gCur[k][j][s] = step(&probs[k][s], s, cont)
				}
			}
		}
		for s := range S {
			var v taxiTriple
			for k := range 2 {
				if w[k] == 0 {
					continue
				}
				// first step of a fresh option: m steps left
				cont := fPrev
				if m > 1 {
					cont = gPrev[k][m-1]
				}
				t := step(&probs[k][s], s, cont)
				v[0] += w[k] * t[0]
				v[1] += w[k] * t[1]
				v[2] += w[k] * t[2]
			}
			fCur[s] = v
		}
		fPrev, fCur = fCur, fPrev
		gPrev, gCur = gCur, gPrev
	}
	var st Stats
	for s := range S {
		pr := p.StartProb(noisytaxi.StateAt(s))
		st.Value += pr * fPrev[s][0]
		st.MeanLength += pr * fPrev[s][1]
		st.CapProb += pr * fPrev[s][2]
	}
	return st, nil
}

// checkGamma reports a discount factor outside (0, 1].
func checkGamma(gamma float64) error {
	if !(gamma > 0 && gamma <= 1) {
		return fmt.Errorf("domains: noisytaxi: gamma is %v, want a value in (0, 1]", gamma)
	}
	return nil
}

// checkTaxiPolicy reports the first of the parameters, eps or gamma out of
// its range.
func checkTaxiPolicy(p noisytaxi.Params, eps, gamma float64) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if !(eps >= 0 && eps <= 1) {
		return fmt.Errorf("domains: noisytaxi: eps is %v, want a number in [0, 1]", eps)
	}
	return checkGamma(gamma)
}

// taxiKindProbs returns, per hidden state, the action distribution of a
// step of the optimal option (kind 0: a*(o) averaged over the observation
// noise) and of the random option (kind 1: 1/6 each).
func taxiKindProbs(p noisytaxi.Params) *[2][noisytaxi.NumStates][noisytaxi.NumActions]float64 {
	const S, A = noisytaxi.NumStates, noisytaxi.NumActions
	var probs [2][S][A]float64
	probs[0] = *taxiActionDist(p)
	for s := range S {
		for a := range A {
			probs[1][s][a] = 1.0 / A
		}
	}
	return &probs
}

// taxiTransitions returns the next hidden state's index (-1: the step ends
// the episode) and the reward of every (hidden state, action).
func taxiTransitions() (next *[noisytaxi.NumStates][noisytaxi.NumActions]int32, rew *[noisytaxi.NumStates][noisytaxi.NumActions]float64) {
	next = new([noisytaxi.NumStates][noisytaxi.NumActions]int32)
	rew = new([noisytaxi.NumStates][noisytaxi.NumActions]float64)
	for i := range noisytaxi.NumStates {
		for a := range noisytaxi.NumActions {
			ns, r, done := noisytaxi.Transition(noisytaxi.StateAt(i), noisytaxi.Action(a))
			rew[i][a] = r
			next[i][a] = int32(ns.Index())
			if done {
				next[i][a] = -1
			}
		}
	}
	return next, rew
}

// MCStats is a Monte Carlo estimate of a taxi policy's episode statistics.
type MCStats struct {
	Episodes int
	// Mean is the mean return, SE its standard error (sample standard
	// deviation, denominator n-1, over sqrt(n)).
	Mean, SE float64
	// MeanLength is the mean episode length, LengthSE its standard error.
	MeanLength, LengthSE float64
	// CapProb is the fraction of episodes that hit the cap without a
	// successful dropoff, CapSE its standard error.
	CapProb, CapSE float64
}

// taxiChunk is the number of episodes per random stream of MonteCarlo.
const taxiChunk = 4096

// moments accumulates a mean and a sum of squared deviations (Welford),
// mergeable in a fixed order (Chan et al.).
type moments struct {
	n        float64
	mean, m2 float64
}

func (a *moments) add(x float64) {
	a.n++
	d := x - a.mean
	a.mean += d / a.n
	a.m2 += d * (x - a.mean)
}

func (a *moments) merge(b moments) {
	if b.n == 0 {
		return
	}
	n := a.n + b.n
	d := b.mean - a.mean
	a.mean += d * b.n / n
	a.m2 += b.m2 + d*d*a.n*b.n/n
	a.n = n
}

func (a moments) se() float64 {
	if a.n < 2 {
		return math.NaN()
	}
	return math.Sqrt(a.m2 / (a.n - 1) / a.n)
}

// MonteCarlo estimates the episode statistics of the taxi options
// policy (eps, m) from episodes on-policy episodes, each episode's return
// discounted by gamma in (0, 1] (SPEC 1c: sum_t gamma^(t-1) r_t over its
// primitive steps t, with the factors math.Pow(gamma, t-1) of
// trajectory.Discounted; at gamma = 1 the plain sum of the rewards). The
// lengths and cap hits are not discounted: whatever gamma, the episodes
// are the same. Episodes are drawn in chunks of 4096, chunk c from its own
// PCG stream seeded by (seed, c), and the chunks' results are merged in
// chunk order, so the result depends on seed and episodes only, not on
// workers (workers <= 0: GOMAXPROCS).
//
// It calls progress, when not nil, with the number of episodes done after
// each chunk: calls come one at a time (from the workers' goroutines), with
// increasing counts, the last with episodes; reporting changes no number.
func MonteCarlo(p noisytaxi.Params, eps float64, m int, gamma float64, episodes int, seed uint64, workers int, progress func(done int)) (MCStats, error) {
	if err := checkGamma(gamma); err != nil {
		return MCStats{}, err
	}
	if episodes < 2 {
		return MCStats{}, fmt.Errorf("domains: noisytaxi: %d Monte Carlo episodes, want at least 2", episodes)
	}
	ro, err := policies.NewTaxiRollout(m, eps, eps)
	if err != nil {
		return MCStats{}, err
	}
	if _, err := noisytaxi.New(p); err != nil {
		return MCStats{}, err
	}
	// pow[t] = gamma^t, the discount of 1-based step t+1 (gamma < 1 only:
	// at gamma = 1 the episode's own undiscounted return is used)
	var pow []float64
	if gamma != 1 {
		pow = make([]float64, p.Cap)
		for t := range pow {
			pow[t] = math.Pow(gamma, float64(t))
		}
	}
	chunks := (episodes + taxiChunk - 1) / taxiChunk
	type result struct{ ret, length, capped moments }
	results := make([]result, chunks)
	var (
		mu   sync.Mutex
		done int
	)
	err = parallel.Do(context.Background(), chunks, workers, func() func(int) error {
		env, _ := noisytaxi.New(p)
		var pcg rand.PCG
		fast := noisytaxi.NewPCGRand(&pcg) // the draws of rand.New(&pcg), without its interface calls
		// gamma < 1: each episode's rewards, to discount; recording draws
		// nothing, so the episodes are those of gamma = 1
		var rec *trajectory.Batch
		if pow != nil {
			rec = new(trajectory.Batch)
			rec.Grow(1, p.Cap)
		}
		return func(c int) error {
			pcg.Seed(seed, streams.Mix(uint64(c)))
			n := min(taxiChunk, episodes-c*taxiChunk)
			var res result
			for range n {
				if rec != nil {
					rec.Reset()
				}
				ret, steps := ro.EpisodePCG(env, fast, rec)
				if rec != nil {
					ret = 0
					for t, r := range rec.Reward {
						ret += pow[t] * r
					}
				}
				res.ret.add(ret)
				res.length.add(float64(steps))
				capped := 0.0
				if !env.Delivered() {
					capped = 1
				}
				res.capped.add(capped)
			}
			results[c] = res
			if progress != nil {
				mu.Lock()
				done += n
				progress(done)
				mu.Unlock()
			}
			return nil
		}
	})
	if err != nil {
		return MCStats{}, err
	}
	var tot result
	for _, r := range results {
		tot.ret.merge(r.ret)
		tot.length.merge(r.length)
		tot.capped.merge(r.capped)
	}
	return MCStats{
		Episodes:   episodes,
		Mean:       tot.ret.mean,
		SE:         tot.ret.se(),
		MeanLength: tot.length.mean,
		LengthSE:   tot.length.se(),
		CapProb:    tot.capped.mean,
		CapSE:      tot.capped.se(),
	}, nil
}

// Q is the exact action-value function of the primitive taxi policy
// (m = 1) with some eps under a discount factor gamma (SPEC 1c, 1d):
// Q_T(s, a), the expected discounted return from a step taken in hidden
// state s with action a and T steps left before the cap (that step
// included), the policy followed after it. It is the `exact` model of
// SPEC 1d for the noisytaxi domain.
//
// It comes from the recursion of ExactValue for m = 1, in the same
// floating-point operations:
//
//	Q_T(s, a) = r(s, a) + gamma V_{T-1}(s')  (r(s, a) alone when a delivers),
//	V_T(s)    = (1 - eps) sum_a P*(a|s) Q_T(s, a) + eps sum_a Q_T(s, a)/6,
//	V_0       = 0,
//
// where P*(a|s) is the probability of a*(o) = a over the observation noise
// of s; the start-averaged V_cap is therefore ExactValue(p, eps, 1,
// gamma, nil).Value (tested).
//
// Memory: Q_T is r(s, a) + gamma V_{T-1}(s'), one multiply-add away from
// V_{T-1}, so a Q stores V_0 .. V_cap (NumStates = 500 float64s a
// layer) instead of the NumStates x 6 x cap table of Q: 4000 (cap + 1)
// bytes, about 0.8 MB at the default cap of 200 (Q would take 4.8 MB), 400
// MB at the largest cap, 100000. Once a layer equals the one before it bit
// for bit, every later layer equals it too (the recursion is a function of
// the previous layer alone), and no more are stored or computed. Measured
// at the default noise: with eps 0.05 the fixed point is V_143 (144
// layers, 0.6 MB, whatever the cap), with eps 0.3 V_236, with eps 1
// V_18624 (75 MB). A policy that may never deliver (eps 0 with position
// noise 0.5 and switch_prob 1) reaches none: cap + 1 layers.
type Q struct {
	eps, gamma float64
	cap        int
	p          noisytaxi.Params
	next       *[noisytaxi.NumStates][noisytaxi.NumActions]int32
	rew        *[noisytaxi.NumStates][noisytaxi.NumActions]float64
	// v[T*NumStates + s] = V_T(s) for T = 0 .. layers-1; V_T is the last
	// layer for every larger T.
	v []float64
}

// NewQ computes the action values of the primitive taxi policy with
// this eps under gamma, for the parameters p (whose cap bounds the steps
// left). It takes time linear in the layers it stores (see Q), about
// 10 ms per 1000 on this project's machine.
func NewQ(p noisytaxi.Params, eps, gamma float64) (*Q, error) {
	if err := checkTaxiPolicy(p, eps, gamma); err != nil {
		return nil, err
	}
	const S = noisytaxi.NumStates
	probs := taxiKindProbs(p)
	q := &Q{eps: eps, gamma: gamma, cap: p.Cap, p: p}
	q.next, q.rew = taxiTransitions()
	w := [2]float64{1 - eps, eps}
	q.v = make([]float64, S, S*min(p.Cap+1, 1024)) // V_0 = 0
	for T := 1; T <= p.Cap; T++ {
		prev := q.v[len(q.v)-S:]
		var cur [S]float64
		for s := range S {
			// ExactValue's step for m = 1, value component
			// only: the same operations in the same order
			var v float64
			for k := range 2 {
				if w[k] == 0 {
					continue
				}
				var t float64
				for a, pr := range probs[k][s] {
					if pr == 0 {
						continue
					}
					x := q.rew[s][a]
					if ns := q.next[s][a]; ns >= 0 {
						x += gamma * prev[ns]
					}
					t += pr * x
				}
				v += w[k] * t
			}
			cur[s] = v
		}
		if [S]float64(prev) == cur {
			break // a fixed point: V_T = V_{T-1} for every later T too
		}
		q.v = append(q.v, cur[:]...)
	}
	return q, nil
}

// layer returns V_T for T >= 0.
func (q *Q) layer(T int) []float64 {
	const S = noisytaxi.NumStates
	off := min(T*S, len(q.v)-S)
	return q.v[off : off+S]
}

// at returns Q_left(s, a) for the state index s.
func (q *Q) at(s int, a noisytaxi.Action, left int) float64 {
	x := q.rew[s][a]
	if ns := q.next[s][a]; ns >= 0 {
		x += q.gamma * q.layer(left - 1)[ns]
	}
	return x
}

// StepValues returns q_hat = Q_left(s, a) and v_hat = sum_a' pi(a'|o)
// Q_left(s, a') for an observation o with a*(o) = star: the expected
// discounted returns (discounted to this step) of taking action a in
// hidden state s with left steps left before the cap, this one included
// (1 <= left <= cap; at 1-based step t of an episode, left = cap - t + 1),
// and of acting on o, the policy followed after it (pi(a'|o) =
// policies.TaxiPrimitiveProb(eps, a', o)). It is the policies.TaxiModel
// the rollout records (SPEC 1d).
func (q *Q) StepValues(s noisytaxi.State, star, a noisytaxi.Action, left int) (qHat, vHat float64) {
	si := s.Index()
	return q.at(si, a, left), q.v1(si, star, left)
}

// v1 is V for the state index si and an observation with a*(o) = star.
func (q *Q) v1(si int, star noisytaxi.Action, left int) float64 {
	const k = noisytaxi.NumActions
	other := q.eps / k
	var v float64
	for a := range noisytaxi.Action(k) {
		pr := other
		if a == star {
			pr = 1 - q.eps + q.eps/k // TaxiPrimitiveProb's arithmetic
		}
		v += pr * q.at(si, a, left)
	}
	return v
}

// Cap returns the cap the values were computed for: StepValues takes at
// most that many steps left.
func (q *Q) Cap() int { return q.cap }

var _ policies.TaxiModel = (*Q)(nil)

// QBytes returns an upper bound of the bytes a Q for this cap
// holds: NumStates float64s for each of at most cap + 1 layers, the
// transition and reward tables, and append's slack (at most as much
// again). It is a float64 so that sizes beyond memory can be computed and
// refused without overflow.
func QBytes(cap float64) float64 {
	const tables = noisytaxi.NumStates * noisytaxi.NumActions * (4 + 8)
	return 2*8*noisytaxi.NumStates*(cap+1) + tables
}
