package policies

import (
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/envs/noisytaxi"
	"github.com/ope-lab/longhorizon/trajectory"
)

// stubModel is a TaxiModel whose values encode their arguments, so that a
// recorded column says what the rollout asked for: q = s.Index() + a/10 +
// left*1000, v = star + left*1000 (exact in float64).
type stubModel struct{ cap int }

func (m stubModel) Cap() int { return m.cap }

func (m stubModel) StepValues(s noisytaxi.State, star, a noisytaxi.Action, left int) (q, v float64) {
	return float64(s.Index()) + float64(a)/10 + float64(left)*1000, float64(star) + float64(left)*1000
}

// recordCases are the things EpisodeRecord can record with option length
// m: everything for m = 1, the probabilities only for options.
func recordCases(m int, model TaxiModel) []TaxiRecord {
	if m != 1 {
		return []TaxiRecord{{}, {Probs: true}}
	}
	return []TaxiRecord{{}, {IDs: true}, {Model: model}, {Probs: true}, {IDs: true, Model: model, Probs: true}}
}

// TestEpisodeRecordSameEpisodes: EpisodeRecord draws what Episode draws,
// so from equal streams it records the same episodes (offsets, rewards,
// ratios, splits, returns and lengths, bit for bit) and leaves the streams
// in the same state, whatever it records, for option lengths 1, 2 and 3;
// the extra columns have one entry a step exactly when asked for, and the
// recorded probabilities' quotients are the recorded ratios bit for bit.
func TestEpisodeRecordSameEpisodes(t *testing.T) {
	p := noisytaxi.DefaultParams()
	envA, _ := noisytaxi.New(p)
	envB, _ := noisytaxi.New(p)
	for _, m := range []int{1, 2, 3} {
		ro, _ := NewTaxiRollout(m, 0.3, 0.05)
		for _, rec := range recordCases(m, stubModel{p.Cap}) {
			rngA := rand.New(rand.NewPCG(11, 12))
			rngB := rand.New(rand.NewPCG(11, 12))
			var a, b trajectory.Batch
			for ep := range 500 {
				retA, stA := ro.Episode(envA, rngA, &a)
				retB, stB := ro.EpisodeRecord(envB, rngB, &b, rec)
				if retA != retB || stA != stB {
					t.Fatalf("m %d %+v episode %d: (%v, %d) recorded, (%v, %d) not", m, rec, ep, retB, stB, retA, stA)
				}
			}
			if x, y := rngA.Uint64(), rngB.Uint64(); x != y {
				t.Errorf("m %d %+v: the streams part after the episodes", m, rec)
			}
			if d := diffBatches(&b, &a); d != "" {
				t.Errorf("m %d %+v: the recorded batch differs from Episode's: %s", m, rec, d)
			}
			if b.HasIDs() != rec.IDs || b.HasModel() != (rec.Model != nil) || b.HasProbs() != rec.Probs ||
				b.HasOptionProbs() != (rec.Probs && m != 1) {
				t.Errorf("m %d %+v: HasIDs %v, HasModel %v, HasProbs %v, HasOptionProbs %v",
					m, rec, b.HasIDs(), b.HasModel(), b.HasProbs(), b.HasOptionProbs())
			}
			if err := b.Validate(); err != nil {
				t.Errorf("m %d %+v: %v", m, rec, err)
			}
			if !rec.Probs {
				continue
			}
			for s := range b.Steps() {
				if b.PiE[s]/b.PiB[s] != b.Ratio[s] {
					t.Fatalf("m %d step %d: pi_e/pi_b = %v/%v, ratio %v", m, s, b.PiE[s], b.PiB[s], b.Ratio[s])
				}
				if m != 1 && b.OptionStart[s] && b.MuE[s]/b.MuB[s] != b.OptionRatio[s] {
					t.Fatalf("m %d step %d: mu_e/mu_b = %v/%v, option ratio %v", m, s, b.MuE[s], b.MuB[s], b.OptionRatio[s])
				}
			}
		}
	}
}

// TestEpisodeRecordColumns replays each episode with the same stream,
// transcribing the behavior policy (as TestRolloutPrimitiveRatios does),
// and checks every step's columns: the observation id o_t.Index() and
// action a_t; the model asked for the hidden state s_t before step t, a*(o_t),
// a_t and the steps left cap - t + 1 (counting step t) (stubModel).
func TestEpisodeRecordColumns(t *testing.T) {
	const epsB, epsE = 0.3, 0.05
	for _, capSteps := range []int{200, 12} {
		p := noisytaxi.DefaultParams()
		p.Cap = capSteps
		model := stubModel{capSteps}
		ro, _ := NewTaxiRollout(1, epsB, epsE)
		env, _ := noisytaxi.New(p)
		replay, _ := noisytaxi.New(p)
		var b trajectory.Batch
		for ep := range 300 {
			b.Reset()
			ro.EpisodeRecord(env, rand.New(rand.NewPCG(uint64(ep), 3)), &b, TaxiRecord{IDs: true, Model: model})
			rng := rand.New(rand.NewPCG(uint64(ep), 3))
			replay.Reset(rng)
			for i := 0; ; i++ {
				s, left := replay.State(), capSteps-i
				o := replay.Observe(rng)
				a := TaxiOptimalAction(o)
				if rng.Float64() < epsB {
					a = noisytaxi.Action(rng.IntN(noisytaxi.NumActions))
				}
				_, done := replay.Step(a)
				if i >= b.Steps() {
					t.Fatalf("cap %d episode %d: %d steps recorded, the replay has more", capSteps, ep, b.Steps())
				}
				if b.Obs[i] != int32(o.Index()) || b.Action[i] != int32(a) {
					t.Fatalf("cap %d episode %d step %d: ids (%d, %d), want (%d, %d)", capSteps, ep, i, b.Obs[i], b.Action[i], o.Index(), a)
				}
				if wq, wv := model.StepValues(s, TaxiOptimalAction(o), a, left); b.QHat[i] != wq || b.VHat[i] != wv {
					t.Fatalf("cap %d episode %d step %d: (q_hat, v_hat) = (%v, %v), want (%v, %v)", capSteps, ep, i, b.QHat[i], b.VHat[i], wq, wv)
				}
				if done {
					if i+1 != b.Steps() {
						t.Fatalf("cap %d episode %d: replay ends after %d steps, %d recorded", capSteps, ep, i+1, b.Steps())
					}
					break
				}
			}
		}
	}
}

// TestEpisodeRecordAllocs: recording everything into a grown batch does
// not allocate.
func TestEpisodeRecordAllocs(t *testing.T) {
	p := noisytaxi.DefaultParams()
	ro, _ := NewTaxiRollout(1, 0.3, 0.05)
	env, _ := noisytaxi.New(p)
	rng := rand.New(rand.NewPCG(1, 1))
	var b trajectory.Batch
	const steps = 300 * 200
	b.Grow(300, steps)
	b.Obs, b.Action = make([]int32, 0, steps), make([]int32, 0, steps)
	b.QHat, b.VHat = make([]float64, 0, steps), make([]float64, 0, steps)
	b.PiB, b.PiE = make([]float64, 0, steps), make([]float64, 0, steps)
	var model TaxiModel = stubModel{p.Cap}
	rec := TaxiRecord{IDs: true, Model: model, Probs: true}
	if allocs := testing.AllocsPerRun(100, func() { ro.EpisodeRecord(env, rng, &b, rec) }); allocs != 0 {
		t.Errorf("EpisodeRecord into a grown batch allocates %v times", allocs)
	}
}

// TestEpisodeRecordMisuse: options data has no ids or model columns, and
// q values for another cap would be read at the wrong steps left: both are
// programming errors, which panic.
func TestEpisodeRecordMisuse(t *testing.T) {
	p := noisytaxi.DefaultParams()
	env, _ := noisytaxi.New(p)
	ro1, _ := NewTaxiRollout(1, 0.3, 0.05)
	ro2, _ := NewTaxiRollout(2, 0.3, 0.05)
	for name, f := range map[string]func(){
		"m = 2, ids": func() {
			ro2.EpisodeRecord(env, rand.New(rand.NewPCG(1, 1)), new(trajectory.Batch), TaxiRecord{IDs: true})
		},
		"m = 2, model": func() {
			ro2.EpisodeRecord(env, rand.New(rand.NewPCG(1, 1)), new(trajectory.Batch), TaxiRecord{Model: stubModel{p.Cap}})
		},
		"cap 50/200": func() {
			ro1.EpisodeRecord(env, rand.New(rand.NewPCG(1, 1)), new(trajectory.Batch), TaxiRecord{Model: stubModel{50}})
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: EpisodeRecord did not panic", name)
				}
			}()
			f()
		}()
	}
}
