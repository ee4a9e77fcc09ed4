// Package tabular is a finite-horizon tabular MDP with exact dynamic
// programming: the engine of the suite domains (issue 16), in which every
// true value is exact. An MDP may be time-dependent (its kernel can change
// with the step), its rewards random with known means, and its episodes
// end on a terminal outcome or at the horizon.
//
// Steps are 0-based in the API (At(t), QTables(...)[t]) and 1-based in
// error messages and formulas, as in SPEC: 0-based step t is SPEC's step
// t+1, whose reward counts gamma^t (SPEC 1c).
package tabular

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Kernel is the dynamics of one step: for state s and action a,
// P[s*Actions+a] is the distribution over next states 0..States-1 followed
// by one more entry, the probability that the episode ends after this
// step (len States+1, summing to 1); Mean[s*Actions+a] is the expected
// reward (of the pair alone, when Enter is set); Draw, when not nil, draws the reward (whose mean must be Mean):
// random rewards such as rare heavy-tailed ones. A nil Draw pays Mean.
//
// Enter, when not nil, makes the reward depend on the step's outcome as
// well: Enter[j] is added to the step's reward when outcome j is drawn
// (len States+1, parallel to a row of P: the next state, or the end as
// its last entry), whether or not the horizon then ends the episode. A
// step's expected reward is then Mean[s*Actions+a] + sum_j P(j|s, a)
// Enter[j]: R(s, a, s') = r(s, a) + Enter(s'), rewards for entering a
// state (COBS's Graph, Voloshin et al. 2021, pays +1 on entering one row
// and -1 on entering the other, whichever row the action aimed at).
type Kernel struct {
	P     [][]float64
	Mean  []float64
	Draw  func(s, a int, rng *rand.Rand) float64
	Enter []float64
}

// MDP is a finite-horizon tabular MDP: an episode starts in a state drawn
// from Start, takes at most Horizon steps, and ends early when the kernel's
// end outcome is drawn.
type MDP struct {
	States, Actions, Horizon int
	Start                    []float64
	// At returns the kernel of 0-based step t (0 <= t < Horizon). A
	// time-homogeneous MDP returns the same kernel for every t.
	At func(t int) *Kernel
}

// Policy is a stationary stochastic policy: Pi[s*Actions+a] = pi(a|s).
type Policy struct {
	Actions int
	Pi      []float64
}

// sumTol is how far from 1 a distribution's sum may be.
const sumTol = 1e-12

// maxCells bounds States*Actions*(States+1), the size of one kernel: it
// keeps every size computation far from integer overflow.
const maxCells = 1 << 40

// checkDist returns an error when p is not a distribution: an entry
// negative or not finite, or a sum more than sumTol from 1.
func checkDist(p []float64) error {
	sum := 0.0
	for j, x := range p {
		if !(x >= 0) || math.IsInf(x, 0) {
			return fmt.Errorf("entry %d is %v, want a finite non-negative probability", j, x)
		}
		sum += x
	}
	if math.Abs(sum-1) > sumTol {
		return fmt.Errorf("probabilities sum to %v, want 1 (within %v)", sum, sumTol)
	}
	return nil
}

// checkSizes checks the MDP's sizes and its start distribution.
func (m *MDP) checkSizes() error {
	if m.States < 1 || m.Actions < 1 || m.Horizon < 1 {
		return fmt.Errorf("tabular: %d states, %d actions, horizon %d: want each >= 1", m.States, m.Actions, m.Horizon)
	}
	if float64(m.States)*float64(m.Actions)*float64(m.States+1) > maxCells {
		return fmt.Errorf("tabular: %d states x %d actions: a kernel of more than 2^40 entries", m.States, m.Actions)
	}
	if len(m.Start) != m.States {
		return fmt.Errorf("tabular: start distribution has %d entries, want %d (states)", len(m.Start), m.States)
	}
	if err := checkDist(m.Start); err != nil {
		return fmt.Errorf("tabular: start distribution: %w", err)
	}
	if m.At == nil {
		return fmt.Errorf("tabular: no kernel function At")
	}
	return nil
}

// checkKernel checks the kernel of 1-based step step.
func (m *MDP) checkKernel(k *Kernel, step int) error {
	if k == nil {
		return fmt.Errorf("tabular: step %d: no kernel", step)
	}
	sa := m.States * m.Actions
	if len(k.P) != sa || len(k.Mean) != sa {
		return fmt.Errorf("tabular: step %d: kernel has %d distributions and %d means, want %d (states x actions)", step, len(k.P), len(k.Mean), sa)
	}
	for i, p := range k.P {
		s, a := i/m.Actions, i%m.Actions
		if len(p) != m.States+1 {
			return fmt.Errorf("tabular: step %d, state %d, action %d: %d outcomes, want %d (states + end)", step, s, a, len(p), m.States+1)
		}
		if err := checkDist(p); err != nil {
			return fmt.Errorf("tabular: step %d, state %d, action %d: %w", step, s, a, err)
		}
		if mu := k.Mean[i]; math.IsNaN(mu) || math.IsInf(mu, 0) {
			return fmt.Errorf("tabular: step %d, state %d, action %d: mean reward %v is not finite", step, s, a, mu)
		}
	}
	if k.Enter == nil {
		return nil
	}
	if len(k.Enter) != m.States+1 {
		return fmt.Errorf("tabular: step %d: %d rewards on entering an outcome, want %d (states + end)", step, len(k.Enter), m.States+1)
	}
	for j, r := range k.Enter {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return fmt.Errorf("tabular: step %d: reward %v on entering outcome %d is not finite", step, r, j)
		}
	}
	return nil
}

// expectedReward returns the mean reward of the (state, action) pair i of
// k, whose outcome distribution is p: Mean[i], plus sum_j p_j Enter[j]
// when k pays for outcomes (the same arithmetic as before Enter existed
// when it does not).
func (k *Kernel) expectedReward(i int, p []float64) float64 {
	r := k.Mean[i]
	if k.Enter != nil {
		for j, pj := range p {
			r += pj * k.Enter[j]
		}
	}
	return r
}

// Validate checks sizes, that every distribution sums to 1 (to 1e-12) with
// non-negative entries, and finite means; the error names the step,
// state and action. A kernel returned for several steps is checked once.
func (m *MDP) Validate() error {
	if err := m.checkSizes(); err != nil {
		return err
	}
	seen := make(map[*Kernel]bool)
	for t := range m.Horizon {
		k := m.At(t)
		if k != nil && seen[k] {
			continue
		}
		if err := m.checkKernel(k, t+1); err != nil {
			return err
		}
		seen[k] = true
	}
	return nil
}

// CheckPolicy checks that pi is a policy of m: Actions equal to m's,
// States*Actions probabilities, and a distribution over actions in every
// state (non-negative, summing to 1 within 1e-12). The error names the
// state.
func (m *MDP) CheckPolicy(pi *Policy) error {
	if pi == nil {
		return fmt.Errorf("tabular: no policy")
	}
	if pi.Actions != m.Actions || len(pi.Pi) != m.States*m.Actions {
		return fmt.Errorf("tabular: policy over %d actions with %d probabilities, want %d actions and %d (states x actions)",
			pi.Actions, len(pi.Pi), m.Actions, m.States*m.Actions)
	}
	for s := range m.States {
		if err := checkDist(pi.Pi[s*m.Actions : (s+1)*m.Actions]); err != nil {
			return fmt.Errorf("tabular: policy in state %d: %w", s, err)
		}
	}
	return nil
}

// Value returns V(pi) = E[sum_t gamma^(t-1) r_t] exactly, by backward
// dynamic programming over (step, state) (SPEC 1c discounting):
//
//	Q_t(s, a) = R_t(s, a) + gamma sum_s' P_t(s'|s, a) V_{t+1}(s'),
//	R_t(s, a) = Mean_t(s, a) [+ sum_j P_t(j|s, a) Enter_t(j) with Enter],
//	V_t(s) = sum_a pi(a|s) Q_t(s, a),  V_{H+1} = 0,
//
// the end outcome being worth 0, and V(pi) = sum_s Start(s) V_1(s). It
// takes O(H S^2 A) time and O(S) memory. m must be valid (Validate) and
// pi a policy of m (CheckPolicy).
func (m *MDP) Value(pi *Policy, gamma float64) float64 {
	return m.backward(pi, gamma, nil)
}

// QTables returns the exact Q tables of pi under gamma: q[t][s*Actions+a]
// = Q_{t+1}(s, a) of Value's recursion (0-based t), the expected
// discounted return from 0-based step t on, r_t included and discounted
// to step t, when a is taken in s at step t and pi followed after. They
// take Horizon x States x Actions float64s (QBytes), in one allocation.
// sum_s Start(s) sum_a pi(a|s) q[0][s*Actions+a] is Value(pi, gamma), by
// the same arithmetic. m must be valid and pi a policy of m.
func (m *MDP) QTables(pi *Policy, gamma float64) [][]float64 {
	sa := m.States * m.Actions
	flat := make([]float64, m.Horizon*sa)
	q := make([][]float64, m.Horizon)
	for t := range q {
		q[t] = flat[t*sa : (t+1)*sa : (t+1)*sa]
	}
	m.backward(pi, gamma, q)
	return q
}

// QBytes returns the memory of QTables for an MDP of the given sizes, in
// bytes: 8 per (step, state, action) and a slice header per step.
func QBytes(states, actions, horizon int) float64 {
	return 8*float64(horizon)*float64(states)*float64(actions) + 24*float64(horizon)
}

// backward runs Value's recursion from step H down to step 1 and returns
// V(pi); when q is not nil it also stores Q_t in q[t-1].
func (m *MDP) backward(pi *Policy, gamma float64, q [][]float64) float64 {
	ns, na := m.States, m.Actions
	next := make([]float64, ns) // V_{t+1}, 0 after the horizon
	cur := make([]float64, ns)
	for t := m.Horizon - 1; t >= 0; t-- {
		k := m.At(t)
		for s := range ns {
			v := 0.0
			for a := range na {
				i := s*na + a
				p := k.P[i][:ns] // the end outcome is worth 0 from then on
				ev := 0.0
				for j, pj := range p {
					ev += pj * next[j]
				}
				qa := k.expectedReward(i, k.P[i]) + gamma*ev
				if q != nil {
					q[t][i] = qa
				}
				v += pi.Pi[i] * qa
			}
			cur[s] = v
		}
		next, cur = cur, next
	}
	val := 0.0
	for s, p := range m.Start {
		val += p * next[s]
	}
	return val
}

// WeightMoment returns E_b[W_H^2], the second moment under the behavior
// policy b of the full importance weight W_H = prod_t e(a_t|s_t) /
// b(a_t|s_t) (a trajectory that ends early keeps its last weight: padded
// steps have ratio 1, SPEC 1). By backward dynamic programming,
//
//	M_t(s) = sum_a e(a|s)^2 / b(a|s) [P_t(end|s, a) + sum_s' P_t(s'|s, a) M_{t+1}(s')],
//	M_{H+1} = 1,  E_b[W_H^2] = sum_s Start(s) M_1(s),
//
// over actions with b(a|s) > 0. It is the variance scale of ordinary
// importance sampling: Var(IS) <= E_b[W_H^2] G_max^2 / n. It returns +Inf
// when e takes an action b never takes. m must be valid and b, e policies
// of m.
func (m *MDP) WeightMoment(b, e *Policy) float64 {
	ns, na := m.States, m.Actions
	next := make([]float64, ns)
	cur := make([]float64, ns)
	for s := range next {
		next[s] = 1
	}
	for t := m.Horizon - 1; t >= 0; t-- {
		k := m.At(t)
		for s := range ns {
			v := 0.0
			for a := range na {
				i := s*na + a
				pb, pe := b.Pi[i], e.Pi[i]
				if pe == 0 {
					continue
				}
				if pb == 0 {
					return math.Inf(1)
				}
				p := k.P[i]
				ev := p[ns]
				for j, pj := range p[:ns] {
					ev += pj * next[j]
				}
				v += pe * pe / pb * ev
			}
			cur[s] = v
		}
		next, cur = cur, next
	}
	val := 0.0
	for s, p := range m.Start {
		val += p * next[s]
	}
	return val
}

// cumulative returns the cumulative sums of the distribution p, with every
// entry from the last positive probability on set to exactly 1, so that
// search(c, u) with u in [0, 1) returns only outcomes of positive
// probability.
func cumulative(dst, p []float64) []float64 {
	last := 0
	sum := 0.0
	for j, x := range p {
		sum += x
		dst = append(dst, sum)
		if x > 0 {
			last = j
		}
	}
	c := dst[len(dst)-len(p):]
	for j := last; j < len(c); j++ {
		c[j] = 1
	}
	return dst
}

// linearSearchMax is the longest table search scans instead of bisecting:
// counting costs a compare per entry and no branch, where bisection's
// branches on a uniform u mispredict about half the time.
const linearSearchMax = 16

// search returns the smallest j with c[j] > u (len(c)-1 if there is none):
// the outcome of a uniform u in [0, 1) by inverse CDF over the cumulative
// sums c. c is nondecreasing (cumulative), so that j is also the number
// of entries before the last that are <= u, which short tables count.
func search(c []float64, u float64) int {
	if len(c) > linearSearchMax {
		return bisect(c, u)
	}
	j := 0
	for _, x := range c[:len(c)-1] {
		// The compiler makes this a SETCC; "if x <= u { j++ }" was a
		// branch, mispredicted on a uniform u about once a search.
		inc := 0
		if x <= u {
			inc = 1
		}
		j += inc
	}
	return j
}

// bisect is search by bisection: the smallest j with c[j] > u, or
// len(c)-1.
func bisect(c []float64, u float64) int {
	lo, hi := 0, len(c)-1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if c[mid] > u {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// samplerKernel is one distinct kernel of a Sampler: the cumulative sums
// of every P(.|s, a), flat (States+1 per (s, a)), its means and Draw.
type samplerKernel struct {
	cdf   []float64
	mean  []float64
	draw  func(s, a int, rng *rand.Rand) float64
	enter []float64
}

// Sampler draws episodes of an MDP: an environment with Reset and Step.
// Each step draws one Float64 for the transition (inverse CDF over the
// kernel's P), after the reward's own draws when the kernel has a Draw
// (a kernel's Enter adds the outcome's reward without drawing);
// Reset draws one Float64 for the start state. Neither allocates. A
// Sampler is not safe for concurrent use.
type Sampler struct {
	states, actions, horizon int
	start                    []float64 // cumulative start distribution
	kernels                  []samplerKernel
	step                     []int32 // step t's kernel in kernels

	t, s int // 0-based step of the next Step, current state
}

// NewSampler validates m and returns a sampler of its episodes, with the
// cumulative tables of every distinct kernel (At(t) returning the same
// *Kernel for several steps shares one table): S (S+1) A float64s a
// distinct kernel.
func NewSampler(m *MDP) (*Sampler, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	e := &Sampler{states: m.States, actions: m.Actions, horizon: m.Horizon, step: make([]int32, m.Horizon)}
	e.start = cumulative(make([]float64, 0, m.States), m.Start)
	index := make(map[*Kernel]int32)
	for t := range m.Horizon {
		k := m.At(t)
		i, ok := index[k]
		if !ok {
			i = int32(len(e.kernels))
			index[k] = i
			cdf := make([]float64, 0, len(k.P)*(m.States+1))
			for _, p := range k.P {
				cdf = cumulative(cdf, p)
			}
			e.kernels = append(e.kernels, samplerKernel{cdf: cdf, mean: k.Mean, draw: k.Draw, enter: k.Enter})
		}
		e.step[t] = i
	}
	return e, nil
}

// Reset starts an episode: step 1, a state drawn from the start
// distribution.
func (e *Sampler) Reset(rng *rand.Rand) {
	e.t = 0
	e.s = search(e.start, rng.Float64())
}

// State returns the current state: the one the next action is taken in.
func (e *Sampler) State() int { return e.s }

// Step takes action a in the current state and returns the reward (the
// kernel's Draw, or its Mean when Draw is nil, plus Enter of the drawn
// outcome when the kernel has one) and whether the episode ended: on the
// end outcome or after the horizon's step. Calling Step after the episode
// ended, before Reset, is a programming error.
func (e *Sampler) Step(a int, rng *rand.Rand) (reward float64, done bool) {
	k := &e.kernels[e.step[e.t]]
	i := e.s*e.actions + a
	if k.draw != nil {
		reward = k.draw(e.s, a, rng)
	} else {
		reward = k.mean[i]
	}
	w := e.states + 1
	next := search(k.cdf[i*w:(i+1)*w], rng.Float64())
	if k.enter != nil {
		reward += k.enter[next]
	}
	e.t++
	if next == e.states || e.t == e.horizon {
		return reward, true
	}
	e.s = next
	return reward, false
}

// PolicySampler draws the actions of a policy by inverse CDF: one Float64
// per action, without allocating.
type PolicySampler struct {
	actions int
	cdf     []float64
}

// NewPolicySampler returns a sampler of pi's actions. pi must be a policy
// of the MDP it acts in (MDP.CheckPolicy).
func NewPolicySampler(pi *Policy) *PolicySampler {
	ps := &PolicySampler{actions: pi.Actions, cdf: make([]float64, 0, len(pi.Pi))}
	for i := 0; i+pi.Actions <= len(pi.Pi); i += pi.Actions {
		ps.cdf = cumulative(ps.cdf, pi.Pi[i:i+pi.Actions])
	}
	return ps
}

// Sample draws an action in state s. Actions of probability 0 are never
// drawn.
func (ps *PolicySampler) Sample(s int, rng *rand.Rand) int {
	return search(ps.cdf[s*ps.actions:(s+1)*ps.actions], rng.Float64())
}
