package policies

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/ope-lab/longhorizon/envs/noisytaxi"
	"github.com/ope-lab/longhorizon/internal/parallel"
	"github.com/ope-lab/longhorizon/internal/streams"
)

// TaxiStats are exact facts of the capped NoisyTaxi episode under the taxi
// options policy (eps, m).
type TaxiStats struct {
	// Value is the expected return V(pi).
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
					a := TaxiOptimalAction(noisytaxi.Obs{Row: r, Col: c, Pass: ps, Dest: s.Dest})
					d[i][a] += pr * pc * pp
				}
			}
		}
	}
	return &d
}

// taxiTriple holds (return, steps, cap indicator) to-go.
type taxiTriple [3]float64

// TaxiExactValue computes V(pi) of the taxi options policy with this eps
// and option length m (m = 1: the primitive epsilon-greedy policy) by
// finite-horizon dynamic programming over (hidden state, running option
// and its steps left, steps left before the cap), averaging a*(o) over the
// memoryless observation noise of each hidden state. The expected episode
// length and the cap-hit probability come from the same recursion.
func TaxiExactValue(p noisytaxi.Params, eps float64, m int) (TaxiStats, error) {
	return TaxiExactValueProgress(p, eps, m, nil)
}

// TaxiExactValueProgress is TaxiExactValue that also calls progress, when
// not nil, with the fraction of the recursion done (its cost is linear in
// the cap and in m: about 25 s at cap 2000 and m = 200 on this project's
// machine). The numbers are those of TaxiExactValue.
func TaxiExactValueProgress(p noisytaxi.Params, eps float64, m int, progress func(frac float64)) (TaxiStats, error) {
	if err := p.Validate(); err != nil {
		return TaxiStats{}, err
	}
	if !(eps >= 0 && eps <= 1) {
		return TaxiStats{}, fmt.Errorf("policies: taxi eps is %v, want a number in [0, 1]", eps)
	}
	if m < 1 {
		return TaxiStats{}, fmt.Errorf("policies: taxi option length m is %d, want at least 1", m)
	}
	const S, A = noisytaxi.NumStates, noisytaxi.NumActions
	// kind 0: optimal option, kind 1: random option
	var probs [2][S][A]float64
	probs[0] = *taxiActionDist(p)
	for s := range S {
		for a := range A {
			probs[1][s][a] = 1.0 / A
		}
	}
	var next [S][A]int32 // -1: the step ends the episode
	var rew [S][A]float64
	for i := range S {
		for a := range A {
			ns, r, done := noisytaxi.Transition(noisytaxi.StateAt(i), noisytaxi.Action(a))
			rew[i][a] = r
			next[i][a] = int32(ns.Index())
			if done {
				next[i][a] = -1
			}
		}
	}

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
				t[0] += c[0]
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
	var st TaxiStats
	for s := range S {
		pr := p.StartProb(noisytaxi.StateAt(s))
		st.Value += pr * fPrev[s][0]
		st.MeanLength += pr * fPrev[s][1]
		st.CapProb += pr * fPrev[s][2]
	}
	return st, nil
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

// taxiChunk is the number of episodes per random stream of TaxiMonteCarlo.
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

// TaxiMonteCarlo estimates the episode statistics of the taxi options
// policy (eps, m) from episodes on-policy episodes. Episodes are drawn in
// chunks of 4096, chunk c from its own PCG stream seeded by (seed, c), and
// the chunks' results are merged in chunk order, so the result depends on
// seed and episodes only, not on workers (workers <= 0: GOMAXPROCS).
func TaxiMonteCarlo(p noisytaxi.Params, eps float64, m, episodes int, seed uint64, workers int) (MCStats, error) {
	return TaxiMonteCarloProgress(p, eps, m, episodes, seed, workers, nil)
}

// TaxiMonteCarloProgress is TaxiMonteCarlo that also calls progress, when
// not nil, with the number of episodes done after each chunk: calls come
// one at a time (from the workers' goroutines), with increasing counts, the
// last with episodes. The result is TaxiMonteCarlo's, bit for bit.
func TaxiMonteCarloProgress(p noisytaxi.Params, eps float64, m, episodes int, seed uint64, workers int, progress func(done int)) (MCStats, error) {
	if episodes < 2 {
		return MCStats{}, fmt.Errorf("policies: %d Monte Carlo episodes, want at least 2", episodes)
	}
	ro, err := NewTaxiRollout(m, eps, eps)
	if err != nil {
		return MCStats{}, err
	}
	if _, err := noisytaxi.New(p); err != nil {
		return MCStats{}, err
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
		return func(c int) error {
			pcg.Seed(seed, streams.Mix(uint64(c)))
			n := min(taxiChunk, episodes-c*taxiChunk)
			var res result
			for range n {
				ret, steps := ro.EpisodePCG(env, fast, nil)
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
