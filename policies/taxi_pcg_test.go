package policies

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/envs/noisytaxi"
	"github.com/ope-lab/longhorizon/trajectory"
)

// refTaxiEpisode is the original TaxiRollout.Episode together with the
// original noisytaxi Env.Reset, Observe and Step, transcribed verbatim onto
// a local hidden state: every draw through a *rand.Rand, every comparison
// of a Float64 draw in floating point, the ratios computed as the original
// NewTaxiRollout did. It is the reference the fast paths must reproduce bit
// for bit. It returns the episode's return, its length, whether it ended
// with a delivery and the final hidden state.
func refTaxiEpisode(p noisytaxi.Params, m int, epsB, epsE float64, rng *rand.Rand, rec trajectory.Recorder) (ret float64, steps int, delivered bool, final noisytaxi.State) {
	const k = noisytaxi.NumActions
	rhoStar := (1 - epsE + epsE/k) / (1 - epsB + epsB/k)
	var rhoOther, ratioRand, ratioOpt float64
	if epsB > 0 {
		rhoOther = (epsE / k) / (epsB / k)
		ratioRand = epsE / epsB
	}
	if epsB < 1 {
		ratioOpt = (1 - epsE) / (1 - epsB)
	}
	// Env.Reset
	cell := rng.IntN(noisytaxi.NumCells)
	pass := rng.IntN(noisytaxi.NumLocs)
	var dest int
	if p.DestMayEqualPassenger {
		dest = rng.IntN(noisytaxi.NumLocs)
	} else {
		dest = (pass + 1 + rng.IntN(noisytaxi.NumLocs-1)) % noisytaxi.NumLocs
	}
	s := noisytaxi.State{Row: cell / noisytaxi.GridSize, Col: cell % noisytaxi.GridSize, Pass: pass, Dest: dest}
	// Env.Observe
	q1, q2 := p.PositionNoise, 2*p.PositionNoise
	noisyCoord := func(c int, u float64) int {
		switch {
		case u < q1:
			return max(c-1, 0)
		case u < q2:
			return min(c+1, noisytaxi.GridSize-1)
		}
		return c
	}
	observe := func() noisytaxi.Obs {
		o := noisytaxi.Obs{Row: noisyCoord(s.Row, rng.Float64()), Col: noisyCoord(s.Col, rng.Float64()), Pass: s.Pass, Dest: s.Dest}
		if o.Pass != noisytaxi.InTaxi && rng.Float64() < p.SwitchProb {
			o.Pass = rng.IntN(noisytaxi.NumLocs)
		}
		return o
	}
	// Env.Step
	picked := false
	step := func(a noisytaxi.Action) (float64, bool) {
		prev := s.Pass
		var r float64
		s, r, delivered = noisytaxi.Transition(s, a)
		picked = prev != noisytaxi.InTaxi && s.Pass == noisytaxi.InTaxi
		steps++
		return r, delivered || steps >= p.Cap
	}
	// TaxiRollout.Episode
	if m == 1 {
		for {
			o := observe()
			star := TaxiOptimalAction(o)
			a, rho := star, rhoStar
			if rng.Float64() < epsB {
				if a = noisytaxi.Action(rng.IntN(noisytaxi.NumActions)); a != star {
					rho = rhoOther
				}
			}
			r, done := step(a)
			ret += r
			if rec != nil {
				rec.AddOption(r, rho, rho, false)
				if picked {
					rec.MarkSplit()
				}
			}
			if done {
				break
			}
		}
	} else {
		left, random := 0, false
		for {
			optionRatio := 1.0
			if left == 0 {
				left, random = m, rng.Float64() < epsB
				optionRatio = ratioOpt
				if random {
					optionRatio = ratioRand
				}
			}
			var a noisytaxi.Action
			if random {
				a = noisytaxi.Action(rng.IntN(noisytaxi.NumActions))
			} else {
				a = TaxiOptimalAction(observe())
			}
			left--
			r, done := step(a)
			ret += r
			if rec != nil {
				rec.AddOption(r, 1, optionRatio, false)
				if picked {
					rec.MarkSplit()
				}
			}
			if done {
				break
			}
		}
	}
	if rec != nil {
		rec.End()
	}
	return ret, steps, delivered, s
}

// sameFloats says whether a and b hold the same float64 bit patterns.
func sameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// diffBatches describes the first difference between two batches, or
// returns "" when they are equal bit for bit.
func diffBatches(got, want *trajectory.Batch) string {
	switch {
	case !slices.Equal(got.Offsets, want.Offsets):
		return fmt.Sprintf("offsets differ (%d vs %d trajectories, %d vs %d steps)", got.N(), want.N(), got.Steps(), want.Steps())
	case !sameFloats(got.Reward, want.Reward):
		return "rewards differ"
	case !sameFloats(got.Ratio, want.Ratio):
		return "ratios differ"
	case !sameFloats(got.OptionRatio, want.OptionRatio):
		return "option ratios differ"
	case !slices.Equal(got.Changed, want.Changed):
		return "changed flags differ"
	case !slices.Equal(got.Split, want.Split):
		return "split flags differ"
	case got.Horizon() != want.Horizon():
		return "horizons differ"
	}
	return ""
}

// runEpisode runs one episode on env, recording into b, and returns its
// return and length.
type runEpisode = func(env *noisytaxi.Env, b *trajectory.Batch) (float64, int)

// episodePath is one way of drawing an episode from a seeded stream.
type episodePath struct {
	name string
	// new returns the episode runner of rollout ro drawing from a stream
	// seeded with (s1, s2), and the stream's generator.
	new func(ro *TaxiRollout, s1, s2 uint64) (runEpisode, *rand.PCG)
	// unrecorded: the path records nothing (its records are not compared)
	unrecorded bool
}

var episodePaths = []episodePath{
	{name: "Episode over a *rand.Rand", new: func(ro *TaxiRollout, s1, s2 uint64) (runEpisode, *rand.PCG) {
		src := rand.NewPCG(s1, s2)
		rng := rand.New(src)
		return func(env *noisytaxi.Env, b *trajectory.Batch) (float64, int) { return ro.Episode(env, rng, b) }, src
	}},
	{name: "Episode over a *rand.Rand, nil recorder", unrecorded: true, new: func(ro *TaxiRollout, s1, s2 uint64) (runEpisode, *rand.PCG) {
		src := rand.NewPCG(s1, s2)
		rng := rand.New(src)
		return func(env *noisytaxi.Env, _ *trajectory.Batch) (float64, int) { return ro.Episode(env, rng, nil) }, src
	}},
	{name: "EpisodePCG", new: func(ro *TaxiRollout, s1, s2 uint64) (runEpisode, *rand.PCG) {
		src := rand.NewPCG(s1, s2)
		rng := noisytaxi.NewPCGRand(src)
		return func(env *noisytaxi.Env, b *trajectory.Batch) (float64, int) { return ro.EpisodePCG(env, rng, b) }, src
	}},
	{name: "EpisodePCG, nil batch", unrecorded: true, new: func(ro *TaxiRollout, s1, s2 uint64) (runEpisode, *rand.PCG) {
		src := rand.NewPCG(s1, s2)
		rng := noisytaxi.NewPCGRand(src)
		return func(env *noisytaxi.Env, _ *trajectory.Batch) (float64, int) { return ro.EpisodePCG(env, rng, nil) }, src
	}},
}

// TestTaxiEpisodeBitIdentical draws batches of episodes with the original
// code (refTaxiEpisode) and with each current path from equal seeds, for
// option lengths 1, 2 and 3 at the defaults and at other parameters, and
// requires identical trajectories (rewards, ratios, option ratios, split
// and changed flags, offsets), identical returns, lengths and end states,
// and identical generator states afterwards (the next draw equal).
func TestTaxiEpisodeBitIdentical(t *testing.T) {
	def := noisytaxi.DefaultParams()
	type setting struct {
		p          noisytaxi.Params
		epsB, epsE float64
	}
	settings := []setting{
		{def, 0.3, 0.05}, // SPEC's behavior and evaluation policies
		{def, 0.05, 0.05},
		{def, 0.3, 0.3},
		{def, 1, 0.05},
		{def, 0.05, 0.3},
		{noisytaxi.Params{Cap: 200, PositionNoise: 0.075, SwitchProb: 0.15}, 0.3, 0.05}, // dest != passenger: IntN(3)
		{noisytaxi.Params{Cap: 30, PositionNoise: 0.5, SwitchProb: 1, DestMayEqualPassenger: true}, 0.3, 0.05},
		{noisytaxi.Params{Cap: 7, PositionNoise: 0, SwitchProb: 0, DestMayEqualPassenger: true}, 0.3, 0.05},
	}
	const episodes = 400
	var want, got trajectory.Batch
	for _, st := range settings {
		for _, m := range []int{1, 2, 3} {
			if m > 1 && st.epsB == 1 && st.epsE < 1 {
				continue // not a valid pair for options
			}
			ro, err := NewTaxiRollout(m, st.epsB, st.epsE)
			if err != nil {
				t.Fatal(err)
			}
			for seed := range uint64(6) {
				name := fmt.Sprintf("params %+v, m %d, eps %v/%v, seed %d", st.p, m, st.epsB, st.epsE, seed)
				refSrc := rand.NewPCG(seed, 1000+seed)
				ref := rand.New(refSrc)
				want.Reset()
				type end struct {
					ret       float64
					steps     int
					delivered bool
					final     noisytaxi.State
				}
				var wantEnds []end
				for range episodes {
					ret, steps, delivered, final := refTaxiEpisode(st.p, m, st.epsB, st.epsE, ref, &want)
					wantEnds = append(wantEnds, end{ret, steps, delivered, final})
				}
				for _, path := range episodePaths {
					env, err := noisytaxi.New(st.p)
					if err != nil {
						t.Fatal(err)
					}
					run, src := path.new(ro, seed, 1000+seed)
					got.Reset()
					for i := range episodes {
						ret, steps := run(env, &got)
						if w := wantEnds[i]; math.Float64bits(ret) != math.Float64bits(w.ret) || steps != w.steps ||
							env.Delivered() != w.delivered || env.Steps() != w.steps || !env.Done() || env.State() != w.final {
							t.Fatalf("%s, %s, episode %d: return %v, %d steps, delivered %v; want %v, %d, %v",
								name, path.name, i, ret, steps, env.Delivered(), w.ret, w.steps, w.delivered)
						}
					}
					if path.unrecorded {
						if got.N() != 0 {
							t.Fatalf("%s, %s: recorded %d episodes", name, path.name, got.N())
						}
					} else if d := diffBatches(&got, &want); d != "" {
						t.Fatalf("%s, %s: %s", name, path.name, d)
					}
					if *src != *refSrc {
						t.Fatalf("%s, %s: generator state differs after the batch", name, path.name)
					}
					if next := *refSrc; src.Uint64() != next.Uint64() {
						t.Fatalf("%s, %s: next draw differs", name, path.name)
					}
				}
			}
		}
	}
}

func TestEpisodePCGAllocs(t *testing.T) {
	env, _ := noisytaxi.New(noisytaxi.DefaultParams())
	var b trajectory.Batch
	b.Grow(100, 4096)
	for _, m := range []int{1, 3} {
		ro, _ := NewTaxiRollout(m, 0.3, 0.05)
		fast := noisytaxi.NewPCGRand(rand.NewPCG(1, 1))
		for name, run := range map[string]func(){
			"EpisodePCG":      func() { ro.EpisodePCG(env, fast, &b) },
			"EpisodePCG, nil": func() { ro.EpisodePCG(env, fast, nil) },
		} {
			allocs := testing.AllocsPerRun(200, func() {
				if b.Steps() > 3000 || b.N() > 90 {
					b.Reset()
				}
				run()
			})
			if allocs != 0 {
				t.Errorf("m %d: %s allocates %v times", m, name, allocs)
			}
		}
	}
}
