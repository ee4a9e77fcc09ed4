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
	type nuis struct{ q, v, w func(t int, o, a int32) float64 }
	fit := func(lo, hi int) nuis {
		rsum, vis, unc := map[key]float64{}, map[key]float64{}, map[key]float64{}
		tr := map[key]map[int32]float64{}
		cnt := map[key]float64{} // n_t(o, a), always time-indexed
		start := map[int32]float64{}
		for i := lo; i < hi; i++ {
			for s := raw.Offsets[i]; s < raw.Offsets[i+1]; s++ {
				t := s - raw.Offsets[i] + 1
				k := keyOf(t, raw.Obs[s], raw.Action[s])
				cnt[key{t, raw.Obs[s], raw.Action[s]}]++
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
			d[t+1] = map[int32]float64{}
			for k, u := range unc {
				if timed && k.t != t {
					continue
				}
				for o2, c := range tr[k] {
					d[t+1][o2] += d[t][k.o] * pie[pair{k.o, k.a}] * c / u
				}
			}
		}
		return nuis{
			q: func(t int, o, a int32) float64 { return Q[t][pair{o, a}] },
			v: func(t int, o, _ int32) float64 { return V[t][o] },
			w: func(t int, o, a int32) float64 {
				c := cnt[key{t, o, a}]
				if c == 0 {
					return 0
				}
				return d[t][o] * pie[pair{o, a}] / (c / m)
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
			phi += math.Pow(gamma, float64(t-1)) * f.w(t, o, a) * (raw.Reward[s] + gamma*next - f.q(t, o, a))
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
	pb := map[[2]int32]float64{{0, 0}: 0.5, {0, 1}: 0.5, {1, 0}: 1, {2, 0}: 1}
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

// TestDRLHandComputed: docs/drl.md section 2's closed form: phi = 2.25,
// 2.25, 1, 6.5, DRL = 3 with fitted and with fitted-t (each observation
// occurs at one step only, so the two models agree), and TMIS 3.125 on the
// same data; drl-mis differs (its weights are mis's).
func TestDRLHandComputed(t *testing.T) {
	b := handBatch()
	for _, kind := range []string{"fitted", "fitted-t"} {
		e := NewDRL()
		e.UseModel(kind)
		phi, err := e.Terms(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []float64{3.75 + 1.5*(1+2-4) + 1*(2-2), 3.75 + 0.5*(0+0-3), 2.5 + 1.5*(2+2-3) + 1.5*(0-2), 2.5 + 0.5*(1+2-1) + 1.5*(4-2)} {
			if !near(phi[i], want, 1e-14) {
				t.Errorf("%s: phi^%d = %v, want %v", kind, i+1, phi[i], want)
			}
		}
		if v, _ := e.Estimate(b); !near(v, (2.25+2.25+1+6.5)/4, 1e-14) {
			t.Errorf("%s: drl %v, want 3", kind, v)
		}
	}
	if v := tmis(t, b, 1); !near(v, 0.75*(1.5+2)+0.25*(0.5+(1+2)/2.0), 1e-14) {
		t.Errorf("TMIS %v, want 3.125", v)
	}
}

// TestDRLEqualsTMISWhereFoldsAgree: when fold B is a copy of fold A (2k
// trajectories, the last k repeating the first k), each fold's fitted-t
// model is the model of the other's own data, every cell's residuals sum
// to 0 (q_t(o, a) is their mean), and drl over fitted-t equals TMIS (dm
// over fitted-t on the whole data) to 1e-12 relative, with random rewards,
// lengths and unlogged pi_e mass, for gamma 1 and 0.8.
func TestDRLEqualsTMISWhereFoldsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	e := NewDRL()
	e.UseModel("fitted-t")
	var disc trajectory.Discounted
	for trial := range 30 {
		one := randomIDBatch(rng)
		var b trajectory.Batch
		for range 2 {
			for i := range one.N() {
				for s := one.Offsets[i]; s < one.Offsets[i+1]; s++ {
					b.Add(one.Reward[s], one.Ratio[s])
					b.AddIDs(one.Obs[s], one.Action[s])
					b.PiB, b.PiE = append(b.PiB, one.PiB[s]), append(b.PiE, one.PiE[s])
				}
				b.End()
			}
		}
		for _, gamma := range []float64{1, 0.8} {
			got, err := e.Estimate(disc.Of(&b, gamma))
			if err != nil {
				t.Fatal(err)
			}
			if want := tmis(t, &b, gamma); !near(got, want, 1e-12) {
				t.Errorf("trial %d, gamma %v: drl %v, TMIS %v", trial, gamma, got, want)
			}
		}
	}
}
