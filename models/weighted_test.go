package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// weightedData is random data for the checks of q-reg and mrdr against
// direct implementations: a random walk over observations with actions
// from a behaviour policy pi_b(.|o) (known tables), pi_e(.|o) a table with
// pi_e(a0|o) = 0 at every other observation (where pi_b has mass on a0,
// so Omega is definite on the actions with pi_e > 0), and ratios
// pi_e / pi_b of the logged actions.
type weightedData struct {
	rng      *rand.Rand
	b        *trajectory.Batch
	sp       Space
	gamma    float64
	pie, pib [][]float64
	singular int // observations where pi_e > 0 on every action (Omega singular)
}

func newWeightedData(seed uint64, n, h, obs, actions int) *weightedData {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	d := &weightedData{rng: rng, gamma: 0.9}
	dist := func(zero bool) []float64 {
		p, sum := make([]float64, actions), 0.0
		for a := range p {
			if a == 0 && zero {
				continue
			}
			p[a] = 0.2 + rng.Float64()
			sum += p[a]
		}
		for a := range p {
			p[a] /= sum
		}
		return p
	}
	for o := range obs {
		d.pie = append(d.pie, dist(o%2 == 1))
		d.pib = append(d.pib, dist(false))
		if o%2 == 0 {
			d.singular++
		}
	}
	d.sp = Space{Obs: obs, Actions: actions, Horizon: h, PiE: table(d.pie)}
	var b trajectory.Batch
	for range n {
		o := rng.IntN(obs)
		for t := 0; t < h; t++ {
			a := draw(rng, d.pib[o])
			b.Add(rng.NormFloat64()+float64(a), d.pie[o][a]/d.pib[o][a])
			b.AddIDs(int32(o), int32(a))
			if rng.IntN(h) == 0 {
				break
			}
			o = (o + 1 + rng.IntN(2)) % obs
		}
		b.End()
	}
	d.b = &b
	return d
}

// targets returns, for every step of b, G_t and the weights
// gamma^(t-1) W_t (q-reg) and c_t = gamma^(2(t-1)) W_{t-1}^2 rho_t
// (mrdr), each computed from its definition (docs/models.md):
// products of the ratios and sums over the steps left, nothing shared.
func targets(b *trajectory.Batch, gamma float64) (g, wq, c []float64) {
	prod := func(lo, hi int) float64 { // rho_lo ... rho_hi (1 when empty)
		p := 1.0
		for s := lo; s <= hi; s++ {
			p *= b.Ratio[s]
		}
		return p
	}
	for i := range b.N() {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		for s := lo; s < hi; s++ {
			t := s - lo + 1
			gt := 0.0
			for tau := s; tau < hi; tau++ {
				gt += math.Pow(gamma, float64(tau-s)) * prod(s+1, tau) * b.Reward[tau]
			}
			g = append(g, gt)
			wq = append(wq, math.Pow(gamma, float64(t-1))*prod(lo, s))
			wPrev := prod(lo, s-1)
			c = append(c, math.Pow(gamma, float64(2*(t-1)))*wPrev*wPrev*b.Ratio[s])
		}
	}
	return g, wq, c
}

// refWeighted is the direct implementation of q-reg (mrdr false) and
// mrdr: their Q table from the definitions, by maps over the pairs, read
// at every step of apply.
func refWeighted(train, apply *trajectory.Batch, sp Space, gamma float64, mrdr bool) (q, v []float64) {
	g, wq, c := targets(train, gamma)
	type pair struct{ o, a int32 }
	num, den, dobs := map[pair]float64{}, map[pair]float64{}, map[int32]float64{}
	for s := range train.Steps() {
		p := pair{train.Obs[s], train.Action[s]}
		if mrdr {
			num[p] += c[s] * g[s]
			dobs[p.o] += c[s]
		} else {
			num[p] += wq[s] * g[s]
			den[p] += wq[s]
		}
	}
	pie := make([]float64, sp.Actions)
	Q := func(o, a int32) float64 {
		sp.PiE(int(o), pie)
		d := den[pair{o, a}]
		if mrdr {
			d = pie[a] * dobs[o]
		}
		if d == 0 {
			return 0
		}
		return num[pair{o, a}] / d
	}
	visited := map[int32]bool{}
	for _, o := range train.Obs {
		visited[o] = true
	}
	for s := range apply.Steps() {
		o := apply.Obs[s]
		if !visited[o] {
			q, v = append(q, 0), append(v, 0)
			continue
		}
		sp.PiE(int(o), pie)
		vs := 0.0
		for a := range sp.Actions {
			vs += pie[a] * Q(o, int32(a))
		}
		q, v = append(q, Q(o, apply.Action[s])), append(v, vs)
	}
	return q, v
}

// TestWeightedReference: q-reg and mrdr equal their direct
// implementations (refWeighted) on random data with zero ratios and
// pi_e(a|o) = 0 at some pairs, at gamma 1 and 0.9, fitted on a batch and
// read on itself and on another; within 1e-9 relative (the sums run in
// another order).
func TestWeightedReference(t *testing.T) {
	d := newWeightedData(5, 400, 12, 10, 3)
	other := newWeightedData(6, 100, 12, 10, 3).b
	for _, mrdr := range []bool{false, true} {
		for _, gamma := range []float64{1, 0.9} {
			for _, apply := range []*trajectory.Batch{d.b, other} {
				var l Learner = new(QReg)
				if mrdr {
					l = new(MRDR)
				}
				train, to := clone(d.b), clone(apply)
				if apply == d.b {
					to = train
				}
				if err := l.FitTo(train, to, d.sp, gamma); err != nil {
					t.Fatal(err)
				}
				wq, wv := refWeighted(d.b, apply, d.sp, gamma, mrdr)
				for s := range wq {
					if !closeRel(to.QHat[s], wq[s], 1e-9) || !closeRel(to.VHat[s], wv[s], 1e-9) {
						t.Fatalf("mrdr %v, gamma %v, step %d: q_hat %v, v_hat %v; direct %v, %v", mrdr, gamma, s, to.QHat[s], to.VHat[s], wq[s], wv[s])
					}
				}
			}
		}
	}
}

// closeRel reports |x - y| <= tol max(1, |y|).
func closeRel(x, y, tol float64) bool { return math.Abs(x-y) <= tol*max(1, math.Abs(y)) }

// qTable returns the Q table a fit wrote into b's columns, 0 at pairs b
// never visits (as the learners' own Q).
func (d *weightedData) qTable(b *trajectory.Batch) []float64 {
	q := make([]float64, d.sp.Obs*d.sp.Actions)
	for s := range b.Steps() {
		q[int(b.Obs[s])*d.sp.Actions+int(b.Action[s])] = b.QHat[s]
	}
	return q
}

// residuals calls f(o, c_t, r) for every step, r = D(o) Q(o, .) - G_t e_{a_t}.
func (d *weightedData) residuals(q []float64, f func(o int, c float64, r []float64)) {
	g, _, c := targets(d.b, d.gamma)
	na := d.sp.Actions
	r := make([]float64, na)
	for s := range d.b.Steps() {
		o := int(d.b.Obs[s])
		for a := range na {
			r[a] = d.pie[o][a] * q[o*na+a]
		}
		r[d.b.Action[s]] -= g[s]
		f(o, c[s], r)
	}
}

// mrdrObjective is J(Q) = sum c_t r^T Omega(o_t) r, Omega(o) =
// diag(1/pi_b(.|o)) - 1 1^T.
func (d *weightedData) mrdrObjective(q []float64) float64 {
	j := 0.0
	d.residuals(q, func(o int, c float64, r []float64) {
		quad, sum := 0.0, 0.0
		for a, x := range r {
			quad += x * x / d.pib[o][a]
			sum += x
		}
		j += c * (quad - sum*sum)
	})
	return j
}

// mrdrGradient is dJ/dQ(o, b) = sum over o's steps of 2 c_t pi_e(b|o)
// (r_b / pi_b(b|o) - sum r), with the sum of its terms' sizes.
func (d *weightedData) mrdrGradient(q []float64) (grad, scale []float64) {
	na := d.sp.Actions
	grad, scale = make([]float64, len(q)), make([]float64, len(q))
	d.residuals(q, func(o int, c float64, r []float64) {
		sum, abs := 0.0, 0.0
		for _, x := range r {
			sum += x
			abs += math.Abs(x)
		}
		for b, x := range r {
			grad[o*na+b] += 2 * c * d.pie[o][b] * (x/d.pib[o][b] - sum)
			scale[o*na+b] += 2 * c * d.pie[o][b] * (math.Abs(x)/d.pib[o][b] + abs)
		}
	})
	return grad, scale
}
