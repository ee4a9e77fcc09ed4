package marginal

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// referenceRatioDRL is drl (docs/drl.md section 1) written directly, from
// undiscounted rewards raw and gamma: per fold a map-based tabular model,
// keyed by (t, o, a) when timed (fitted-t) and by (o, a) otherwise (the
// fitted model, censored at H), its DP per step, d^e_t propagated through
// the same transitions, and phi^i with gamma explicit.
func referenceRatioDRL(raw *trajectory.Batch, gamma float64, timed bool) float64 {
	n, h := raw.N(), raw.Horizon()
	half := (n + 1) / 2
	type pair struct{ o, a int32 }
	type key struct {
		t    int
		o, a int32
	}
	pie := map[pair]float64{}
	for s := range raw.Reward {
		pie[pair{raw.Obs[s], raw.Action[s]}] = raw.PiE[s]
	}
	keyOf := func(t int, o, a int32) key {
		if timed {
			return key{t, o, a}
		}
		return key{0, o, a}
	}
	type nuis struct {
		q, v func(t int, o, a int32) float64
		w    func(t int, o int32) float64
	}
	fit := func(lo, hi int) nuis {
		rsum, vis, unc := map[key]float64{}, map[key]float64{}, map[key]float64{}
		tr := map[key]map[int32]float64{}
		cnt := map[key]float64{} // n_t(o), always time-indexed (a = 0)
		start := map[int32]float64{}
		for i := lo; i < hi; i++ {
			for s := raw.Offsets[i]; s < raw.Offsets[i+1]; s++ {
				t := s - raw.Offsets[i] + 1
				k := keyOf(t, raw.Obs[s], raw.Action[s])
				cnt[key{t, raw.Obs[s], 0}]++
				if t == 1 {
					start[raw.Obs[s]]++
				}
				rsum[k] += raw.Reward[s]
				vis[k]++
				if t == h {
					continue
				}
				unc[k]++
				if s+1 < raw.Offsets[i+1] {
					if tr[k] == nil {
						tr[k] = map[int32]float64{}
					}
					tr[k][raw.Obs[s+1]]++
				}
			}
		}
		// Q[t], V[t], t = 1..H+1 (V[H+1] = 0)
		Q := make([]map[pair]float64, h+2)
		V := make([]map[int32]float64, h+2)
		V[h+1] = map[int32]float64{}
		for t := h; t >= 1; t-- {
			Q[t], V[t] = map[pair]float64{}, map[int32]float64{}
			for k, c := range vis {
				if timed && k.t != t {
					continue
				}
				x := rsum[k] / c
				for o2, m := range tr[k] {
					x += gamma * m / unc[k] * V[t+1][o2]
				}
				Q[t][pair{k.o, k.a}] = x
			}
			for p, q := range Q[t] {
				V[t][p.o] += pie[p] * q
			}
		}
		m := float64(hi - lo)
		d := make([]map[int32]float64, h+2)
		d[1] = map[int32]float64{}
		for o, c := range start {
			d[1][o] = c / m
		}
		for t := 1; t <= h; t++ {
			// pi_e renormalised over the actions with an uncensored visit
			known := map[int32]float64{}
			for k := range unc {
				if !timed || k.t == t {
					known[k.o] += pie[pair{k.o, k.a}]
				}
			}
			d[t+1] = map[int32]float64{}
			for k, u := range unc {
				if timed && k.t != t || pie[pair{k.o, k.a}] == 0 {
					continue
				}
				for o2, c := range tr[k] {
					d[t+1][o2] += d[t][k.o] * pie[pair{k.o, k.a}] / known[k.o] * c / u
				}
			}
		}
		return nuis{
			q: func(t int, o, a int32) float64 { return Q[t][pair{o, a}] },
			v: func(t int, o, _ int32) float64 { return V[t][o] },
			w: func(t int, o int32) float64 {
				c := cnt[key{t, o, 0}]
				if c == 0 {
					return 0
				}
				return d[t][o] / (c / m)
			},
		}
	}
	folds := [2]nuis{fit(half, n), fit(0, half)} // nuisances for fold A, B
	total := 0.0
	for i := range n {
		f := folds[0]
		if i >= half {
			f = folds[1]
		}
		lo, hi := raw.Offsets[i], raw.Offsets[i+1]
		if lo == hi {
			continue
		}
		phi := f.v(1, raw.Obs[lo], 0)
		for s := lo; s < hi; s++ {
			t := s - lo + 1
			o, a := raw.Obs[s], raw.Action[s]
			next := 0.0
			if s+1 < hi {
				next = f.v(t+1, raw.Obs[s+1], 0)
			}
			phi += math.Pow(gamma, float64(t-1)) * f.w(t, o) * raw.Ratio[s] * (raw.Reward[s] + gamma*next - f.q(t, o, a))
		}
		total += phi
	}
	return total / float64(n)
}

// randomIDBatch is a random batch (up to 30 trajectories of up to 6
// steps) with observation and action ids and pi_e consistent per (o, a),
// summing to less than 1 over the actions (mass never logged).
func randomIDBatch(rng *rand.Rand) *trajectory.Batch {
	raw := randomBatch(rng, 2+rng.IntN(30), 1+rng.IntN(6))
	nObs, nAct := 1+rng.IntN(4), 1+rng.IntN(3)
	pe := make([]float64, nObs*nAct)
	for j := range pe {
		pe[j] = rng.Float64()
	}
	steps := raw.Steps()
	raw.Obs, raw.Action = make([]int32, steps), make([]int32, steps)
	raw.PiB, raw.PiE = make([]float64, steps), make([]float64, steps)
	for s := range raw.Obs {
		o, a := rng.IntN(nObs), rng.IntN(nAct)
		raw.Obs[s], raw.Action[s] = int32(o), int32(a)
		raw.PiE[s] = pe[o*nAct+a] / float64(nAct)
		raw.PiB[s] = 1
	}
	return raw
}

// TestDRLMatchesReference: drl over fitted and over fitted-t, on the
// discounted view, equals the direct implementation of docs/drl.md's
// definition (gamma explicit, undiscounted rewards) to 1e-9, for gamma 1,
// 0.9 and 0.5, on random batches with ids (unlogged pi_e mass, pairs
// unseen in a fold, trajectories of different lengths).
func TestDRLMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	var disc trajectory.Discounted
	for _, timed := range []bool{false, true} {
		e := NewDRL()
		if timed {
			e.UseModel("fitted-t")
		}
		for trial := range 40 {
			raw := randomIDBatch(rng)
			for _, gamma := range []float64{1, 0.9, 0.5} {
				got, err := e.Estimate(disc.Of(raw, gamma))
				if err != nil {
					t.Fatal(err)
				}
				if want := referenceRatioDRL(raw, gamma, timed); !near(got, want, 1e-9) {
					t.Errorf("timed %v, trial %d, gamma %v: drl %v, reference %v", timed, trial, gamma, got, want)
				}
			}
		}
	}
}

// handBatch is docs/drl.md section 2's four trajectories of two steps.
func handBatch() *trajectory.Batch {
	var b trajectory.Batch
	pe := map[[2]int32]float64{{0, 0}: 0.75, {0, 1}: 0.25, {1, 0}: 1, {2, 0}: 1}
	pb := map[[2]int32]float64{{0, 0}: 0.375, {0, 1}: 0.625, {1, 0}: 1, {2, 0}: 1}
	for _, tr := range [][2][3]float64{
		{{0, 0, 1}, {1, 0, 2}},
		{{0, 1, 0}, {2, 0, 1}},
		{{0, 0, 2}, {1, 0, 0}},
		{{0, 1, 1}, {1, 0, 4}},
	} {
		for _, st := range tr {
			k := [2]int32{int32(st[0]), int32(st[1])}
			b.Add(st[2], pe[k]/pb[k])
			b.AddIDs(k[0], k[1])
			b.PiB, b.PiE = append(b.PiB, pb[k]), append(b.PiE, pe[k])
		}
		b.End()
	}
	return &b
}

// tmis is dm over fitted-t (Yin & Wang's TMIS) on b (undiscounted
// rewards, pi_e from the rows, unlogged mass q = 0): the mean of v_1.
func tmis(t *testing.T, b *trajectory.Batch, gamma float64) float64 {
	t.Helper()
	nObs, nAct := 0, 0
	for s := range b.Obs {
		nObs, nAct = max(nObs, int(b.Obs[s])+1), max(nAct, int(b.Action[s])+1)
	}
	pie := make([]float64, nObs*nAct)
	for s := range b.Obs {
		pie[int(b.Obs[s])*nAct+int(b.Action[s])] = b.PiE[s]
	}
	sp := models.Space{Obs: nObs, Actions: nAct + 1, Horizon: b.Horizon(), PiE: func(o int, dst []float64) {
		copy(dst, pie[o*nAct:(o+1)*nAct])
		s := 0.0
		for _, x := range dst[:nAct] {
			s += x
		}
		dst[nAct] = max(0, 1-s) // never logged: q = 0
	}}
	c := *b
	c.QHat, c.VHat = nil, nil
	var f models.TimeFitter
	if err := f.Fit(&c, sp, gamma); err != nil {
		t.Fatal(err)
	}
	v := 0.0
	for i := range c.N() {
		if c.Offsets[i+1] > c.Offsets[i] {
			v += c.VHat[c.Offsets[i]]
		}
	}
	return v / float64(c.N())
}

// TestDRLHandComputed: docs/drl.md section 2's closed form: phi = 1.75,
// 2.55, 1.5, 6.3, DRL = 3.025 with fitted and with fitted-t (each
// observation occurs at one step only, so the two models agree), and TMIS
// 3.125 on the same data.
func TestDRLHandComputed(t *testing.T) {
	b := handBatch()
	for _, kind := range []string{"fitted", "fitted-t"} {
		e := NewDRL()
		e.UseModel(kind)
		phi, err := e.Terms(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		// w_1(0) rho = 1 x 2 or 1 x 0.4; fold A: w_2(1) = 1/(2/2), w_2(2) = 0;
		// fold B: w_2(1) = 0.75/(1/2)
		for i, want := range []float64{3.75 + 2*(1+2-4) + 1*(2-2), 3.75 + 0.4*(0+0-3), 2.5 + 2*(2+2-3) + 1.5*(0-2), 2.5 + 0.4*(1+2-1) + 1.5*(4-2)} {
			if !near(phi[i], want, 1e-14) {
				t.Errorf("%s: phi^%d = %v, want %v", kind, i+1, phi[i], want)
			}
		}
		if v, _ := e.Estimate(b); !near(v, (1.75+2.55+1.5+6.3)/4, 1e-14) {
			t.Errorf("%s: drl %v, want 3.025", kind, v)
		}
	}
	if v := tmis(t, b, 1); !near(v, 0.75*(1.5+2)+0.25*(0.5+(1+2)/2.0), 1e-14) {
		t.Errorf("TMIS %v, want 3.125", v)
	}
}

// TestDRLExactWhereTheModelIs: on a time-indexed MDP with deterministic
// rewards r(t, o, a) and transitions o' = f(t, o, a) (3 observations, 2
// actions, H = 6, pi_b uniform, pi_e random), with n = 400 trajectories
// every (t, o, a) reached is visited in both folds (checked), so each
// fold's fitted-t model is exact where pi_e goes, every residual r_t +
// v_{t+1} - q_t is 0, and drl over fitted-t equals TMIS (dm over fitted-t)
// and the DP value of the empirical start distribution, (1/n) sum_i
// V_1(o^i_1), to 1e-12 relative, for gamma 1 and 0.8.
func TestDRLExactWhereTheModelIs(t *testing.T) {
	const nObs, nAct, h, n = 3, 2, 6, 400
	rng := rand.New(rand.NewPCG(37, 38))
	for trial := range 5 {
		r, f := make([]float64, h*nObs*nAct), make([]int32, h*nObs*nAct)
		for j := range r {
			r[j], f[j] = rng.NormFloat64(), int32(rng.IntN(nObs))
		}
		pe := make([]float64, nObs*nAct)
		for o := range nObs {
			p := 0.1 + 0.8*rng.Float64()
			pe[o*nAct], pe[o*nAct+1] = p, 1-p
		}
		var b trajectory.Batch
		seen := [2]map[int]bool{{}, {}}
		for i := range n {
			o := int32(rng.IntN(nObs))
			for st := range h {
				a := int32(rng.IntN(nAct))
				j := (st*nObs+int(o))*nAct + int(a)
				seen[2*i/n][j] = true
				b.Add(r[j], pe[int(o)*nAct+int(a)]/0.5)
				b.AddIDs(o, a)
				b.PiB, b.PiE = append(b.PiB, 0.5), append(b.PiE, pe[int(o)*nAct+int(a)])
				o = f[j]
			}
			b.End()
		}
		for j := range seen[0] {
			if !seen[1][j] {
				t.Fatalf("trial %d: cell %d visited in fold A only", trial, j)
			}
		}
		for _, gamma := range []float64{1, 0.8} {
			// V_t(o) by backward induction over the true model
			v := make([]float64, (h+1)*nObs)
			for st := h - 1; st >= 0; st-- {
				for o := range nObs {
					for a := range nAct {
						j := (st*nObs+o)*nAct + a
						v[st*nObs+o] += pe[o*nAct+a] * (r[j] + gamma*v[(st+1)*nObs+int(f[j])])
					}
				}
			}
			exact := 0.0
			for i := range n {
				exact += v[b.Obs[b.Offsets[i]]] / n
			}
			e := NewDRL()
			e.UseModel("fitted-t")
			var disc trajectory.Discounted
			got, err := e.Estimate(disc.Of(&b, gamma))
			if err != nil {
				t.Fatal(err)
			}
			if tm := tmis(t, &b, gamma); !near(got, tm, 1e-12) || !near(got, exact, 1e-12) {
				t.Errorf("trial %d, gamma %v: drl %v, TMIS %v, exact %v", trial, gamma, got, tm, exact)
			}
		}
	}
}
