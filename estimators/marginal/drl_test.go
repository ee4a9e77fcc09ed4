package marginal

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// referenceDRL is SPEC 1f's drl (drl-mis) written directly, from undiscounted
// rewards raw and gamma: per fold a map-based censored tabular model, a
// DP per step, mis's d_t and n_t, and phi^i with gamma explicit.
func referenceDRL(raw *trajectory.Batch, gamma float64) float64 {
	n, h := raw.N(), raw.Horizon()
	half := (n + 1) / 2
	type pair struct{ o, a int32 }
	pie := map[pair]float64{}
	for s := range raw.Reward {
		pie[pair{raw.Obs[s], raw.Action[s]}] = raw.PiE[s]
	}
	type nuis struct {
		q func(t int, o, a int32) float64 // 1-based t
		v func(t int, o int32) float64
		w func(t int, o int32) float64
	}
	fit := func(lo, hi int) nuis {
		rsum, vis, unc := map[pair]float64{}, map[pair]float64{}, map[pair]float64{}
		tr := map[pair]map[int32]float64{}
		acts := map[int32][]int32{}
		for i := lo; i < hi; i++ {
			for s := raw.Offsets[i]; s < raw.Offsets[i+1]; s++ {
				p := pair{raw.Obs[s], raw.Action[s]}
				if vis[p] == 0 {
					acts[p.o] = append(acts[p.o], p.a)
				}
				rsum[p] += raw.Reward[s]
				vis[p]++
				if s-raw.Offsets[i]+1 == h {
					continue
				}
				unc[p]++
				if s+1 < raw.Offsets[i+1] {
					if tr[p] == nil {
						tr[p] = map[int32]float64{}
					}
					tr[p][raw.Obs[s+1]]++
				}
			}
		}
		// V[k][o], Q[k][p] with k steps left
		V := make([]map[int32]float64, h+1)
		Q := make([]map[pair]float64, h+1)
		V[0], Q[0] = map[int32]float64{}, map[pair]float64{}
		for k := 1; k <= h; k++ {
			V[k], Q[k] = map[int32]float64{}, map[pair]float64{}
			for p, c := range vis {
				x := rsum[p] / c
				for o2, m := range tr[p] {
					x += gamma * m / unc[p] * V[k-1][o2]
				}
				Q[k][p] = x
			}
			for o, as := range acts {
				for _, a := range as {
					V[k][o] += pie[pair{o, a}] * Q[k][pair{o, a}]
				}
			}
		}
		// mis d_t, n_t
		m := float64(hi - lo)
		d := make([]map[int32]float64, h+2)
		cnt := make([]map[int32]float64, h+2)
		for t := range d {
			d[t], cnt[t] = map[int32]float64{}, map[int32]float64{}
		}
		for i := lo; i < hi; i++ {
			for s := raw.Offsets[i]; s < raw.Offsets[i+1]; s++ {
				cnt[s-raw.Offsets[i]+1][raw.Obs[s]]++
			}
		}
		for o, c := range cnt[1] {
			d[1][o] = c / m
		}
		for t := 1; t < h; t++ {
			for i := lo; i < hi; i++ {
				s := raw.Offsets[i] + t - 1
				if s+1 < raw.Offsets[i+1] {
					o := raw.Obs[s]
					d[t+1][raw.Obs[s+1]] += d[t][o] * raw.Ratio[s] / cnt[t][o]
				}
			}
		}
		return nuis{
			q: func(t int, o, a int32) float64 { return Q[h-t+1][pair{o, a}] },
			v: func(t int, o int32) float64 { return V[h-t+1][o] },
			w: func(t int, o int32) float64 {
				if cnt[t][o] == 0 {
					return 0
				}
				return d[t][o] / (cnt[t][o] / m)
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
		phi := f.v(1, raw.Obs[lo])
		for s := lo; s < hi; s++ {
			t := s - lo + 1
			next := 0.0
			if s+1 < hi {
				next = f.v(t+1, raw.Obs[s+1])
			}
			phi += math.Pow(gamma, float64(t-1)) * f.w(t, raw.Obs[s]) * raw.Ratio[s] *
				(raw.Reward[s] + gamma*next - f.q(t, raw.Obs[s], raw.Action[s]))
		}
		total += phi
	}
	return total / float64(n)
}

// TestDRLMISMatchesReference: drl-mis on the discounted view equals the
// direct implementation of SPEC 1f's formula (gamma explicit, undiscounted
// rewards) for gamma 1, 0.9 and 0.5, on random batches with ids and
// consistent pi_e per (o, a).
func TestDRLMISMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	e := NewDRLMIS()
	var disc trajectory.Discounted
	for trial := range 30 {
		raw := randomBatch(rng, 2+rng.IntN(30), 1+rng.IntN(6))
		nObs, nAct := 1+rng.IntN(4), 1+rng.IntN(3)
		pe := make([]float64, nObs*nAct)
		for j := range pe {
			pe[j] = rng.Float64()
		}
		raw.Obs, raw.Action = make([]int32, raw.Steps()), make([]int32, raw.Steps())
		raw.PiB, raw.PiE = make([]float64, raw.Steps()), make([]float64, raw.Steps())
		for s := range raw.Obs {
			o, a := rng.IntN(nObs), rng.IntN(nAct)
			raw.Obs[s], raw.Action[s] = int32(o), int32(a)
			raw.PiE[s] = pe[o*nAct+a] / float64(nAct) // sums to < 1 over a
			raw.PiB[s] = 1
		}
		for _, gamma := range []float64{1, 0.9, 0.5} {
			got, err := e.Estimate(disc.Of(raw, gamma))
			if err != nil {
				t.Fatal(err)
			}
			want := referenceDRL(raw, gamma)
			if !near(got, want, 1e-9) {
				t.Errorf("trial %d, gamma %v: drl-mis %v, reference %v", trial, gamma, got, want)
			}
		}
	}
	var b trajectory.Batch
	b.Add(1, 1)
	b.AddIDs(0, 0)
	b.End()
	b.Add(1, 1)
	b.AddIDs(0, 0)
	b.End()
	if _, err := e.Estimate(&b); err == nil {
		t.Error("drl-mis without probabilities: no error")
	}
}

// TestDRLTerms: the per-trajectory terms phi^i (the t bound's input,
// SPEC 1e) of drl (over fitted and fitted-t) and drl-mis average to the
// estimate, to 1e-12 relative to their size, on random batches with ids
// (empty trajectories included, whose term is 0); the estimates
// themselves are the references' (TestDRLMatchesReference,
// TestDRLMISMatchesReference), so the terms are their phi^i. A warm Terms
// allocates nothing.
func TestDRLTerms(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	timed := NewDRL()
	timed.UseModel("fitted-t")
	for _, e := range []*DRL{NewDRL(), timed, NewDRLMIS()} {
		testTerms(t, rng, e)
	}
}

// testTerms is TestDRLTerms for one estimator.
func testTerms(t *testing.T, rng *rand.Rand, e *DRL) {
	var x []float64
	for trial := range 30 {
		b := withIDs(rng, randomBatch(rng, 3+rng.IntN(40), 1+rng.IntN(8)), 1+rng.IntN(4), 1+rng.IntN(3))
		if trial%5 == 0 {
			b.End() // an empty trajectory last
		}
		want, err := e.Estimate(b)
		if err != nil {
			t.Fatal(err)
		}
		if x, err = e.Terms(b, x); err != nil {
			t.Fatal(err)
		}
		if len(x) != b.N() {
			t.Fatalf("trial %d: %d terms for %d trajectories", trial, len(x), b.N())
		}
		mean, size := 0.0, 0.0
		for _, v := range x {
			mean += v / float64(len(x))
			size = max(size, math.Abs(v))
		}
		if math.Abs(mean-want) > 1e-12*max(size, 1) {
			t.Errorf("%s, trial %d: mean of terms %v, estimate %v", e.Name(), trial, mean, want)
		}
		if trial%5 == 0 && x[len(x)-1] != 0 {
			t.Errorf("trial %d: the empty trajectory's term %v, want 0", trial, x[len(x)-1])
		}
		if a := testing.AllocsPerRun(3, func() { x, _ = e.Terms(b, x) }); a != 0 {
			t.Errorf("%s, trial %d: %v allocations a warm Terms call", e.Name(), trial, a)
		}
	}
}

// TestDRLUsesModel: for drl and drl-mis, UseModel("fitted") is the
// default bit for bit; with
// fitted-t, q_t is time-indexed: on layered data, where observation o_t
// = t - 1 (each observation at one step only), the two models are the
// same (to rounding: 1e-12) and so are the estimates; where observations
// recur at different steps and rewards depend on t they differ.
func TestDRLUsesModel(t *testing.T) {
	build := func(layered bool, rng *rand.Rand) *trajectory.Batch {
		var b trajectory.Batch
		for range 40 {
			for st := range 5 {
				o := int32(rng.IntN(2))
				if layered {
					o = int32(st)
				}
				a := int32(rng.IntN(2))
				pb, pe := 0.5, []float64{0.7, 0.3}[a]
				b.Add(float64(st)*float64(a)+rng.Float64(), pe/pb)
				b.AddIDs(o, a)
				b.PiB, b.PiE = append(b.PiB, pb), append(b.PiE, pe)
			}
			b.End()
		}
		return &b
	}
	for _, mk := range []func() *DRL{NewDRL, NewDRLMIS} {
		rng := rand.New(rand.NewPCG(3, 9))
		for _, layered := range []bool{true, false} {
			usesModel(t, build(layered, rng), layered, mk)
		}
	}
}

// usesModel is TestDRLUsesModel for one batch and estimator.
func usesModel(t *testing.T, b *trajectory.Batch, layered bool, mk func() *DRL) {
	t.Helper()
	est := func(kind string) float64 {
		e := mk()
		if kind != "" {
			e.UseModel(kind)
		}
		v, err := e.Estimate(b)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	name := mk().Name()
	plain, fitted, timed := est(""), est("fitted"), est("fitted-t")
	if plain != fitted {
		t.Errorf("%s, layered %v: UseModel(fitted) %v, default %v", name, layered, fitted, plain)
	}
	if same := near(timed, plain, 1e-12); same != layered {
		t.Errorf("%s, layered %v: fitted-t %v, fitted %v (equal: %v)", name, layered, timed, plain, same)
	}
}
