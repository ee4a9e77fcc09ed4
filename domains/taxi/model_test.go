package taxi

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/noisytaxi"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

// taxiModelDomain builds noisytaxi with set over its defaults (mc_episodes
// 0) as a ModelDomain.
func taxiModelDomain(t *testing.T, set map[string]float64) (domains.ModelDomain, domains.Params) {
	t.Helper()
	all := map[string]float64{"mc_episodes": 0}
	for k, v := range set {
		all[k] = v
	}
	d, p, err := domains.New("noisytaxi", all)
	if err != nil {
		t.Fatal(err)
	}
	md, ok := d.(domains.ModelDomain)
	if !ok {
		t.Fatalf("noisytaxi %v is not a ModelDomain", set)
	}
	return md, p
}

// TestTaxiModels: the model columns are offered for primitive data
// (option_length 1) only (SPEC 1d).
func TestTaxiModels(t *testing.T) {
	spec, _ := domains.Lookup("noisytaxi")
	p := spec.Defaults()
	if spec.Models == nil || spec.Models(p) != nil {
		t.Fatalf("Models at option_length 1: want nil")
	}
	for m, want := range map[int]string{
		2: "option_length = 2: the model-based estimators need primitive data (SPEC 1d)",
		3: "option_length = 3: the model-based estimators need primitive data (SPEC 1d)",
	} {
		p["option_length"] = float64(m)
		if err := spec.Models(p); err == nil || err.Error() != want {
			t.Errorf("option_length %d: %v, want %q", m, err, want)
		}
	}
}

// TestTaxiSpace: 5 x 5 seen cells x 5 seen passenger values (R, G, Y, B,
// in taxi) x 4 destinations = 500 observation ids, each the id of exactly
// one observation; 6 actions; the cap as the horizon; pi_e(.|o) the m = 1
// evaluation policy: (1 - 0.05) + 0.05/6 on a*(o), 0.05/6 elsewhere
// (SPEC 2.3), summing to 1.
func TestTaxiSpace(t *testing.T) {
	md, _ := taxiModelDomain(t, map[string]float64{"cap": 50})
	sp := md.Space()
	if sp.Obs != 500 || sp.Actions != 6 || sp.Horizon != 50 {
		t.Fatalf("space %d observations, %d actions, horizon %d; want 500, 6, 50", sp.Obs, sp.Actions, sp.Horizon)
	}
	seen := map[noisytaxi.Obs]int{}
	pi := make([]float64, sp.Actions)
	for id := range sp.Obs {
		o := noisytaxi.ObsAt(id)
		if !o.Valid() || o.Index() != id {
			t.Fatalf("id %d: observation %+v (valid %v) has id %d", id, o, o.Valid(), o.Index())
		}
		if prev, dup := seen[o]; dup {
			t.Fatalf("ids %d and %d name the same observation %+v", prev, id, o)
		}
		seen[o] = id
		sp.PiE(id, pi)
		star := policies.TaxiOptimalAction(o)
		sum := 0.0
		for a, x := range pi {
			want := 0.05 / 6
			if noisytaxi.Action(a) == star {
				want = 1 - 0.05 + 0.05/6
			}
			if math.Abs(x-want) > 1e-15 {
				t.Fatalf("pi_e(%d|%+v) = %v, want %v", a, o, x, want)
			}
			sum += x
		}
		if math.Abs(sum-1) > 1e-15 {
			t.Fatalf("pi_e(.|%+v) sums to %v", o, sum)
		}
	}
	if len(seen) != 500 {
		t.Errorf("%d distinct observations, want 500", len(seen))
	}
}

// collectTaxi collects n episodes from md after Record(ids, exact) with
// the stream (seed, 7), and returns the batch and the stream's next draw.
func collectTaxi(md domains.ModelDomain, ids, exact bool, n int, seed uint64) (*trajectory.Batch, uint64) {
	md.Record(ids, exact)
	var b trajectory.Batch
	rng := rand.New(rand.NewPCG(seed, 7))
	md.Collect(&b, n, rng)
	return &b, rng.Uint64()
}

// TestTaxiRecordSameData: recording draws no random number, so whatever
// Record asks for, Collect from the same stream gives the same episodes
// (offsets, rewards, ratios, splits, bit for bit) and leaves the stream in
// the same state; the columns asked for have one entry a step, ids in
// range; Record(false, false) again records nothing. With option_length 3
// (options data, refused by Spec.Models) Record changes nothing.
func TestTaxiRecordSameData(t *testing.T) {
	for _, m := range []int{1, 3} {
		md, _ := taxiModelDomain(t, map[string]float64{"option_length": float64(m), "gamma": 0.9})
		ref, refNext := collectTaxi(md, false, false, 400, 1)
		for _, rec := range [][2]bool{{true, false}, {false, true}, {true, true}, {false, false}} {
			b, next := collectTaxi(md, rec[0], rec[1], 400, 1)
			if next != refNext || !slices.Equal(b.Offsets, ref.Offsets) || !slices.Equal(b.Reward, ref.Reward) ||
				!slices.Equal(b.Ratio, ref.Ratio) || !slices.Equal(b.OptionRatio, ref.OptionRatio) || !slices.Equal(b.Split, ref.Split) {
				t.Errorf("m %d, Record%v: other episodes than without recording", m, rec)
			}
			if wantIDs, wantModel := rec[0] && m == 1, rec[1] && m == 1; b.HasIDs() != wantIDs || b.HasModel() != wantModel ||
				(!wantIDs && len(b.Obs) != 0) || (!wantModel && len(b.QHat) != 0) {
				t.Errorf("m %d, Record%v: HasIDs %v, HasModel %v", m, rec, b.HasIDs(), b.HasModel())
			}
			if err := b.Validate(); err != nil {
				t.Errorf("m %d, Record%v: %v", m, rec, err)
			}
			for s := range b.Obs {
				if o, a := b.Obs[s], b.Action[s]; o < 0 || o >= noisytaxi.NumObs || a < 0 || a >= noisytaxi.NumActions {
					t.Fatalf("m %d, step %d: ids (%d, %d) out of range", m, s, o, a)
				}
			}
		}
	}
}

// TestTaxiExactDMUnbiased: with the exact model, v_hat_1 = sum_a
// pi_e(a|o_1) q(s_1, a) has expectation V_cap(s_1) given the start state
// s_1 (o_1 averages pi_e(.|o_1) to pi_e's action distribution in s_1), so
// dm = (1/n) sum_i v_hat^i_1 (SPEC 1d) is unbiased for the true value:
// within 4 standard errors over 20000 episodes, under gamma 1 and 0.9
// (whose true values differ by about 3.4, 100 standard errors).
func TestTaxiExactDMUnbiased(t *testing.T) {
	for _, gamma := range []float64{1, 0.9} {
		md, p := taxiModelDomain(t, map[string]float64{"gamma": gamma})
		truth, err := taxiTruth(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := collectTaxi(md, false, true, 20000, 3)
		first := make([]float64, b.N())
		for i := range first {
			first[i] = b.VHat[b.Offsets[i]]
		}
		dm, se := meanSE(first)
		t.Logf("gamma %v: dm %.4f +- %.4f, true value %.4f", gamma, dm, se, truth.Value)
		if math.Abs(dm-truth.Value) > 4*se {
			t.Errorf("gamma %v: dm %v +- %v, true value %v", gamma, dm, se, truth.Value)
		}
	}
}

// TestTaxiExactBellman: the exact columns satisfy SPEC 1d's recursion on
// the logged steps: given step t's hidden state, steps left and action,
// q_hat_t = r_t + gamma E[v_hat_{t+1}] (v_hat_{t+1} := 0 after the last
// step: delivery, or the cap), because v_hat_{t+1} averages over the next
// observation to V_{left-1}(s_{t+1}). So the residuals q_hat_t - r_t -
// gamma v_hat_{t+1} have mean 0, within 4 standard errors over every
// step, on a cap of 12 that binds (the steps left count). The check has
// power: residuals with the steps left off by one step (v_hat_{t+1}
// replaced by v_hat_{t+2}) have a mean far from 0.
func TestTaxiExactBellman(t *testing.T) {
	const gamma = 0.9
	md, _ := taxiModelDomain(t, map[string]float64{"gamma": gamma, "cap": 12})
	b, _ := collectTaxi(md, false, true, 20000, 5)
	var res, shifted []float64
	capped := 0
	for i := range b.N() {
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		if hi-lo == 12 {
			capped++
		}
		next := func(s int) float64 {
			if s < hi {
				return b.VHat[s]
			}
			return 0
		}
		for s := lo; s < hi; s++ {
			res = append(res, b.QHat[s]-b.Reward[s]-gamma*next(s+1))
			shifted = append(shifted, b.QHat[s]-b.Reward[s]-gamma*next(s+2))
		}
	}
	if capped == 0 {
		t.Fatal("no episode reached the cap of 12")
	}
	mean, se := meanSE(res)
	t.Logf("residuals %.5f +- %.5f over %d steps, %d episodes capped", mean, se, len(res), capped)
	if math.Abs(mean) > 4*se {
		t.Errorf("Bellman residuals: mean %v +- %v, want 0", mean, se)
	}
	if mean, se := meanSE(shifted); math.Abs(mean) < 10*se {
		t.Errorf("shifted residuals: mean %v +- %v: the check has no power", mean, se)
	}
}

// meanSE returns the mean of x and its standard error (sample standard
// deviation, denominator n-1, over sqrt(n)).
func meanSE(x []float64) (mean, se float64) {
	mean, sd := stat.MeanStdDev(x, nil)
	return mean, sd / math.Sqrt(float64(len(x)))
}

// TestTaxiExactLazy: New computes no q values (the harness builds domains
// just to read their Space); the first Collect that records the exact
// model does, once.
func TestTaxiExactLazy(t *testing.T) {
	md, _ := taxiModelDomain(t, nil)
	d := md.(*taxiDomain)
	md.Record(true, true)
	if d.q != nil {
		t.Fatal("q values computed before any Collect")
	}
	md.Record(true, false)
	md.Collect(new(trajectory.Batch), 10, rand.New(rand.NewPCG(1, 1)))
	if d.q != nil {
		t.Fatal("q values computed without exact recording")
	}
	md.Record(false, true)
	md.Collect(new(trajectory.Batch), 10, rand.New(rand.NewPCG(1, 1)))
	q := d.q
	if q == nil || q.Cap() != 200 {
		t.Fatalf("q values %v after an exact Collect, want them for cap 200", q)
	}
	md.Collect(new(trajectory.Batch), 10, rand.New(rand.NewPCG(1, 1)))
	if d.q != q {
		t.Error("q values computed twice")
	}
}

// TestTaxiCollectRecordAllocs: Collect recording ids and the exact model
// does not allocate once the batch has grown (Domain's contract).
func TestTaxiCollectRecordAllocs(t *testing.T) {
	md, _ := taxiModelDomain(t, nil)
	md.Record(true, true)
	src := rand.NewPCG(1, 2)
	rng := rand.New(src)
	var b trajectory.Batch
	allocs := testing.AllocsPerRun(20, func() {
		src.Seed(1, 2) // the same episodes every run: the batch grows once
		b.Reset()
		md.Collect(&b, 200, rng)
	})
	if allocs != 0 {
		t.Errorf("Collect with recording allocates %v times a run", allocs)
	}
}
