package policies

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/envs/noisytaxi"
	"github.com/ope-lab/longhorizon/trajectory"
)

// NoisyTaxi policies (SPEC section 2.3, Experiments 1 and 2).
//
// a*(o) is the optimal primitive action read off an observation o alone:
// Pickup when not carrying and seen on the seen passenger location's cell,
// Dropoff when carrying and seen on the destination's cell, otherwise the
// first move of a shortest path (breadth-first, walls respected) from the
// seen cell to that target, ties broken in the order S, N, E, W.
//
// The primitive epsilon-greedy policy is pi(a|o) = (1-eps)[a = a*(o)] + eps/6.
//
// The options policy with option length m picks, whenever no option runs,
// the optimal option with probability 1-eps and the random option with
// probability eps. The optimal option takes m steps of a*(o), re-reading the
// observation each step; the random option takes m uniformly random
// primitive actions. An option ends after m steps or with the episode. With
// m = 1 the options policy is the primitive policy (same action
// distribution), and it is importance-weighted at the primitive level.

const (
	numMoves = 4 // S, N, E, W: the move actions, numbered 0..3
	unreach  = 1 << 30
)

// taxiDist[from][to] is the number of moves of a shortest path between two
// cells (cell = row*GridSize + col); taxiStar[cell][pass][dest] is a*(o) for
// an observation seen at cell with passenger pass and destination dest (a
// byte per action: the table takes 500 bytes of cache, not 4000).
var taxiDist, taxiStar = buildTaxiTables()

func buildTaxiTables() (dist [noisytaxi.NumCells][noisytaxi.NumCells]int,
	star [noisytaxi.NumCells][noisytaxi.NumPassObs][noisytaxi.NumLocs]uint8) {
	const n = noisytaxi.GridSize
	for from := range noisytaxi.NumCells {
		d := &dist[from]
		for i := range d {
			d[i] = unreach
		}
		d[from] = 0
		queue := [noisytaxi.NumCells]int{from}
		head, tail := 0, 1
		for head < tail {
			c := queue[head]
			head++
			for a := range noisytaxi.Action(numMoves) {
				r, cc := noisytaxi.Move(c/n, c%n, a)
				if nb := r*n + cc; d[nb] == unreach {
					d[nb] = d[c] + 1
					queue[tail] = nb
					tail++
				}
			}
		}
	}
	// next[cell][target]: first move of a shortest path, ties S, N, E, W.
	var next [noisytaxi.NumCells][noisytaxi.NumLocs]noisytaxi.Action
	var locCell [noisytaxi.NumLocs]int
	for l := range noisytaxi.NumLocs {
		r, c := noisytaxi.Location(l)
		locCell[l] = r*n + c
	}
	for cell := range noisytaxi.NumCells {
		for l, target := range locCell {
			next[cell][l] = -1
			if cell == target {
				continue
			}
			for a := range noisytaxi.Action(numMoves) {
				r, c := noisytaxi.Move(cell/n, cell%n, a)
				if dist[r*n+c][target] == dist[cell][target]-1 {
					next[cell][l] = a
					break
				}
			}
			if next[cell][l] < 0 {
				panic("policies: taxi grid is not connected")
			}
		}
	}
	for cell := range noisytaxi.NumCells {
		for dest := range noisytaxi.NumLocs {
			for pass := range noisytaxi.NumPassObs {
				var a noisytaxi.Action
				switch {
				case pass == noisytaxi.InTaxi && cell == locCell[dest]:
					a = noisytaxi.Dropoff
				case pass == noisytaxi.InTaxi:
					a = next[cell][dest]
				case cell == locCell[pass]:
					a = noisytaxi.Pickup
				default:
					a = next[cell][pass]
				}
				star[cell][pass][dest] = uint8(a)
			}
		}
	}
	return dist, star
}

// TaxiOptimalAction returns a*(o). o must be a valid observation (fields in
// range).
func TaxiOptimalAction(o noisytaxi.Obs) noisytaxi.Action {
	return noisytaxi.Action(taxiStar[o.Row*noisytaxi.GridSize+o.Col][o.Pass][o.Dest])
}

// TaxiPrimitiveProb returns pi(a|o) = (1-eps)[a = a*(o)] + eps/6 of the
// primitive epsilon-greedy taxi policy.
func TaxiPrimitiveProb(eps float64, a noisytaxi.Action, o noisytaxi.Obs) float64 {
	if a == TaxiOptimalAction(o) {
		return 1 - eps + eps/noisytaxi.NumActions
	}
	return eps / noisytaxi.NumActions
}

// TaxiOptionProb returns mu(option) of the options policy with this eps:
// 1-eps for the optimal option, eps for the random one. It does not depend
// on the observation.
func TaxiOptionProb(eps float64, random bool) float64 {
	if random {
		return eps
	}
	return 1 - eps
}

// TaxiRollout draws NoisyTaxi episodes under a behavior policy and records
// importance ratios against an evaluation policy, both with option length
// M (M = 1: primitive epsilon-greedy policies).
type TaxiRollout struct {
	m          int
	epsB, epsE float64
	// m == 1: pi_e/pi_b of a*(o) and of any other action
	rhoStar, rhoOther float64
	// m == 1: pi_b and pi_e of a*(o) and of any other action, the numbers
	// whose quotients are rhoStar and rhoOther (recorded by EpisodeRecord
	// with TaxiRecord.Probs)
	pbStar, peStar, pbOther, peOther float64
	// m >= 2: mu_e/mu_b of the optimal and of the random option
	ratioOpt, ratioRand float64
	// kEpsB decides a Float64 draw u = k/2^53 below epsB on its integer k:
	// u < epsB exactly when k < kEpsB (noisytaxi.Float64Threshold).
	kEpsB uint64
}

// NewTaxiRollout returns the rollout of behavior eps epsB against
// evaluation eps epsE with option length m. The behavior policy must give
// positive probability to everything the evaluation policy can do.
func NewTaxiRollout(m int, epsB, epsE float64) (*TaxiRollout, error) {
	if m < 1 {
		return nil, fmt.Errorf("policies: taxi option length m is %d, want at least 1", m)
	}
	if !(epsB >= 0 && epsB <= 1) {
		return nil, fmt.Errorf("policies: taxi behavior eps is %v, want a number in [0, 1]", epsB)
	}
	if !(epsE >= 0 && epsE <= 1) {
		return nil, fmt.Errorf("policies: taxi evaluation eps is %v, want a number in [0, 1]", epsE)
	}
	if epsE > 0 && epsB == 0 {
		return nil, fmt.Errorf("policies: taxi behavior eps is 0 but evaluation eps %v: random actions are not covered", epsE)
	}
	if m > 1 && epsE < 1 && epsB == 1 {
		return nil, fmt.Errorf("policies: taxi behavior eps is 1 but evaluation eps %v: the optimal option is not covered", epsE)
	}
	t := &TaxiRollout{m: m, epsB: epsB, epsE: epsE, kEpsB: noisytaxi.Float64Threshold(epsB)}
	const k = noisytaxi.NumActions
	t.rhoStar = (1 - epsE + epsE/k) / (1 - epsB + epsB/k)
	t.pbStar, t.peStar = 1-epsB+epsB/k, 1-epsE+epsE/k
	t.pbOther, t.peOther = epsB/k, epsE/k
	if epsB > 0 {
		t.rhoOther = (epsE / k) / (epsB / k)
		t.ratioRand = epsE / epsB
	}
	if epsB < 1 {
		t.ratioOpt = (1 - epsE) / (1 - epsB)
	}
	return t, nil
}

// M returns the option length.
func (t *TaxiRollout) M() int { return t.m }

// Eps returns the behavior and evaluation eps.
func (t *TaxiRollout) Eps() (epsB, epsE float64) { return t.epsB, t.epsE }

// TaxiRecord says what a taxi rollout records into its batch on every
// step besides what every rollout records (the reward, the ratios, the
// split mark after the successful pickup and the episode's end): the
// extra columns of SPEC 1d and of the logged-data format. The zero
// TaxiRecord records nothing more.
type TaxiRecord struct {
	// IDs: the id of the observation the behavior policy acted on
	// (noisytaxi.Obs.Index, in [0, noisytaxi.NumObs)) and the action
	// (0..5), by Batch.AddIDs. Option length 1 only.
	IDs bool
	// Model, when not nil, is the exact model of the evaluation policy
	// (domains' noisytaxi truth, built for the environment's parameters):
	// q_hat_t and v_hat_t of Model.StepValues(s_t, a*(o_t), a_t, left), by
	// Batch.AddModel, with s_t the hidden state before step t, o_t the
	// observation the behavior policy acted on and left = cap - t + 1 the
	// steps left, step t included. The values are discounted to step t
	// (SPEC 1d); the harness discounts them further, with the rewards
	// (SPEC 1c). Option length 1 only.
	Model TaxiModel
	// Probs: pi_b(a_t|o_t) and pi_e(a_t|o_t) of the logged action, by
	// Batch.AddProbs: 1 - eps + eps/6 for a*(o_t), eps/6 for any other
	// action (TaxiPrimitiveProb), computed by the same expressions as the
	// ratio, so that pi_e/pi_b is the recorded ratio bit for bit. For M >=
	// 2 (options data) the probabilities of the action given the running
	// option, the same under both policies (their options do not change):
	// 1 inside the optimal option (a*(o_t), for sure), 1/6 inside the
	// random one, so that pi_e/pi_b is the recorded ratio 1; and, by
	// Batch.AddOptionProbs, whether the step starts an option and mu_b,
	// mu_e of the running option (TaxiOptionProb: 1 - eps for the optimal
	// option, eps for the random one), whose quotient is the recorded
	// option ratio of the option's first step bit for bit.
	Probs bool
}

// TaxiModel is an exact model of the evaluation policy's values that a
// taxi rollout with option length 1 records on every step
// (TaxiRecord.Model; SPEC 1d).
type TaxiModel interface {
	// Cap returns the episode cap the values were computed for.
	Cap() int
	// StepValues returns q_hat = Q_left(s, a), the expected discounted
	// return of action a in hidden state s with left steps left (this one
	// included), and v_hat = sum_a' pi_e(a'|o) Q_left(s, a') for an
	// observation o whose optimal action a*(o) is star.
	StepValues(s noisytaxi.State, star, a noisytaxi.Action, left int) (q, v float64)
}

// Episode resets env with rng and runs one episode under the behavior
// policy, drawing everything from rng. Per step it calls
// rec.AddOption(reward, rho, optionRatio, false): for M = 1, rho =
// optionRatio = pi_e(a|o)/pi_b(a|o); for M >= 2, rho = 1 and optionRatio is
// mu_e/mu_b of the logged option on its first step, 1 on its later steps.
// Right after the step of the successful pickup it calls rec.MarkSplit(),
// and at the episode's end (dropoff or cap) rec.End(); for M >= 2 that
// split can fall inside an option. rec may be nil; a *trajectory.Batch is
// called directly, any other Recorder through its interface. It returns
// the episode's return and length. It does not allocate (once a batch has
// grown).
//
// Draw order (fixed, so a stream replays an episode): env.Reset; then per
// step, for M = 1: env.Observe, one Float64 (explore if < epsB) and, when
// exploring, one IntN(6); for M >= 2: at an option start one Float64
// (random option if < epsB), then either IntN(6) (random option) or
// env.Observe (optimal option).
//
// Episode, EpisodeRecord and EpisodePCG are one loop (taxiEpisode),
// called with different streams and recorders: whatever they record, they
// make the same draws in the same order and produce the same episodes.
func (t *TaxiRollout) Episode(env *noisytaxi.Env, rng *rand.Rand, rec trajectory.Recorder) (ret float64, steps int) {
	return t.episode(env, taxiStream{rng: rng}, sinkOf(rec), nil)
}

// EpisodeRecord is Episode recording into the batch b, after each step's
// AddOption (and before its split mark), what rec asks for. It draws the
// same random numbers in the same order as Episode, so it produces the
// same episode, with the same rewards, ratios and split, and leaves rng in
// the same state; only the extra columns differ. With the zero TaxiRecord
// it is Episode into b. It does not allocate once b's columns have grown.
//
// For M >= 2 only rec.Probs can be asked for. It panics when M is not 1
// and rec asks for ids or the model, or when rec.Model was computed for
// another cap than env's: programming errors (options data has no model
// columns, SPEC 1d; domains refuse it before collecting).
func (t *TaxiRollout) EpisodeRecord(env *noisytaxi.Env, rng *rand.Rand, b *trajectory.Batch, rec TaxiRecord) (ret float64, steps int) {
	if t.m != 1 && (rec.IDs || rec.Model != nil) {
		panic(fmt.Sprintf("policies: EpisodeRecord of ids or the model with option length %d, want 1", t.m))
	}
	if rec.Model != nil && rec.Model.Cap() != env.Params().Cap {
		panic(fmt.Sprintf("policies: EpisodeRecord: q values for cap %d, environment's cap %d", rec.Model.Cap(), env.Params().Cap))
	}
	var extra *TaxiRecord
	if rec.IDs || rec.Probs || rec.Model != nil {
		extra = &rec
	}
	return t.episode(env, taxiStream{rng: rng}, sink{b: b}, extra)
}

// EpisodePCG is Episode drawing from rng and recording into the batch rec
// (nil: nothing recorded): the same draws in the same order, the same
// episode, the same records and results, bit for bit, as Episode with a
// *rand.Rand over rng's PCG (rand.New(rng.Source())), and the PCG is left
// in the same state. It is faster: it calls the PCG directly (inlined)
// rather than through the rand.Source interface. It does not allocate once
// rec has grown.
func (t *TaxiRollout) EpisodePCG(env *noisytaxi.Env, rng noisytaxi.PCGRand, rec *trajectory.Batch) (ret float64, steps int) {
	return t.episode(env, taxiStream{src: rng.Source()}, sink{b: rec}, nil)
}

// episode runs taxiEpisode, the taxi rollout, in the copy compiled for s,
// t's option length, out and whether rec (not nil) asks for extra
// columns.
func (t *TaxiRollout) episode(env *noisytaxi.Env, s taxiStream, out sink, rec *TaxiRecord) (ret float64, steps int) {
	primitive := t.m == 1
	switch {
	case out.b == nil && out.rec != nil && primitive:
		return taxiEpisode[[modeRecorder | modePrimitive]struct{}](t, env, s, out, nil)
	case out.b == nil && out.rec != nil:
		return taxiEpisode[[modeRecorder]struct{}](t, env, s, out, nil)
	case s.src != nil && primitive:
		return taxiEpisode[[modePCG | modePrimitive]struct{}](t, env, s, out, nil)
	case s.src != nil:
		return taxiEpisode[[modePCG]struct{}](t, env, s, out, nil)
	case rec != nil && out.b != nil && primitive:
		return taxiEpisode[[modeExtras | modePrimitive]struct{}](t, env, s, out, rec)
	case rec != nil && out.b != nil:
		return taxiEpisode[[modeExtras]struct{}](t, env, s, out, rec)
	case primitive:
		return taxiEpisode[[modePrimitive]struct{}](t, env, s, out, nil)
	}
	return taxiEpisode[[0]struct{}](t, env, s, out, nil)
}

// taxiEpisode is the taxi rollout, the only one: it resets env, runs one
// episode of t's behavior policy drawing from s (s.src in mode modePCG,
// else s.rng), and writes every step to out (out.rec in mode
// modeRecorder, else the batch out.b, if not nil), with the extra columns
// rec asks for in mode modeExtras. See Episode for what it records and its draw order,
// TaxiRecord for the extra columns; the recording draws nothing. What the
// extra columns need of a step is kept in memory (x), written only with
// modeExtras.
func taxiEpisode[M loopMode](t *TaxiRollout, env *noisytaxi.Env, s taxiStream, out sink, rec *TaxiRecord) (ret float64, steps int) {
	const k = noisytaxi.NumActions
	var mode M
	pcg, primitive := len(mode)&modePCG != 0, len(mode)&modePrimitive != 0
	extras, toRecorder := len(mode)&modeExtras != 0, len(mode)&modeRecorder != 0
	src, rng := s.src, s.rng
	if pcg {
		env.ResetPCG(noisytaxi.NewPCGRand(src))
	} else {
		env.Reset(rng)
	}
	b := out.b
	var x taxiStep
	kEpsB := t.kEpsB
	left, random := 0, false // M >= 2: steps left in the running option, its kind
	// The three kinds of draws, each written out for both streams (the
	// branches on pcg are compiled away): the observation (env.Observe), a
	// Float64 below eps_b (on its integer, see noisytaxi.Float64Threshold)
	// and a uniform action (IntN(6); for a PCG, Lemire's method inline:
	// accept the draw at once unless IntNFrom may have to draw again).
	for {
		var (
			o                noisytaxi.Obs
			star, a          noisytaxi.Action // a*(o), the action
			start            bool             // M >= 2: the step starts an option
			u                uint64
			rho, optionRatio = 1.0, 1.0
		)
		if primitive {
			if pcg {
				o = env.ObservePCG(noisytaxi.NewPCGRand(src))
				u = src.Uint64()
			} else {
				o = env.Observe(rng)
				u = rng.Uint64()
			}
			star = TaxiOptimalAction(o)
			a, rho = star, t.rhoStar
			if low53(u) < kEpsB { // explore
				if pcg {
					u = src.Uint64()
					if hi, lo := bits.Mul64(u, k); lo >= k {
						a = noisytaxi.Action(hi)
					} else {
						a = noisytaxi.Action(noisytaxi.NewPCGRand(src).IntNFrom(u, k))
					}
				} else {
					a = noisytaxi.Action(rng.IntN(k))
				}
				if a != star {
					rho = t.rhoOther
				}
			}
			optionRatio = rho
		} else {
			if start = left == 0; start {
				if pcg {
					u = src.Uint64()
				} else {
					u = rng.Uint64()
				}
				left, random = t.m, low53(u) < kEpsB // a random option
				optionRatio = t.ratioOpt
				if random {
					optionRatio = t.ratioRand
				}
			}
			switch {
			case random && pcg:
				u = src.Uint64()
				if hi, lo := bits.Mul64(u, k); lo >= k {
					a = noisytaxi.Action(hi)
				} else {
					a = noisytaxi.Action(noisytaxi.NewPCGRand(src).IntNFrom(u, k))
				}
			case random:
				a = noisytaxi.Action(rng.IntN(k))
			case pcg:
				o = env.ObservePCG(noisytaxi.NewPCGRand(src))
				star = TaxiOptimalAction(o)
				a = star
			default:
				o = env.Observe(rng)
				star = TaxiOptimalAction(o)
				a = star
			}
			left--
		}
		if extras {
			x.obs = o
		}
		if extras {
			x.s, x.steps, x.star, x.a, x.start, x.random = env.State(), env.Steps(), star, a, start, random
		}
		r, done := env.Step(a)
		ret += r
		switch {
		case toRecorder:
			out.rec.AddOption(r, rho, optionRatio, false)
			if env.PickedUp() {
				out.rec.MarkSplit()
			}
		case b != nil:
			b.AddOption(r, rho, optionRatio, false)
			if extras {
				t.recordExtras(b, env, rec, &x)
			}
			if env.PickedUp() {
				b.MarkSplit()
			}
		}
		if done {
			break
		}
	}
	switch {
	case toRecorder:
		out.rec.End()
	case b != nil:
		b.End()
	}
	return ret, env.Steps()
}

// taxiStep is what the extra columns of TaxiRecord need of a step, taken
// before it: the hidden state and the steps done, the observation acted
// on (M = 1), a*(o), the action, and the running option (M >= 2).
type taxiStep struct {
	s             noisytaxi.State
	steps         int
	obs           noisytaxi.Obs
	star, a       noisytaxi.Action
	start, random bool
}

// recordExtras records the extra columns rec asks for of the step x just
// added to b (env's episode, after the step).
func (t *TaxiRollout) recordExtras(b *trajectory.Batch, env *noisytaxi.Env, rec *TaxiRecord, x *taxiStep) {
	if rec.IDs {
		b.AddIDs(int32(x.obs.Index()), int32(x.a))
	}
	if rec.Probs {
		t.addProbs(b, x.a == x.star, x.start, x.random)
	}
	if rec.Model != nil {
		b.AddModel(rec.Model.StepValues(x.s, x.star, x.a, env.Params().Cap-x.steps))
	}
}

// addProbs records the probabilities of TaxiRecord.Probs of a step: for M
// = 1 (primitive) those of a*(o) when isStar, else of another action; for
// M >= 2 those of the running option, random or optimal, which start says
// whether the step starts.
func (t *TaxiRollout) addProbs(b *trajectory.Batch, isStar, start, random bool) {
	const uniform = 1.0 / noisytaxi.NumActions // pi(a | random option)
	switch {
	case t.m == 1 && isStar:
		b.AddProbs(t.pbStar, t.peStar)
	case t.m == 1:
		b.AddProbs(t.pbOther, t.peOther)
	default:
		pi := 1.0 // a*(o), for sure, inside the optimal option
		if random {
			pi = uniform
		}
		b.AddProbs(pi, pi)
		b.AddOptionProbs(start, TaxiOptionProb(t.epsB, random), TaxiOptionProb(t.epsE, random))
	}
}

// taxiStream is the random stream of a taxi rollout: a *rand.Rand, or,
// when src is not nil, a PCG called directly, which makes the same draws
// faster (the compiler inlines (*rand.PCG).Uint64, where a *rand.Rand
// calls its source through the rand.Source interface; see
// noisytaxi.PCGRand).
type taxiStream struct {
	rng *rand.Rand
	src *rand.PCG
}

// low53 returns the bits of a Uint64 that Float64 uses: (*rand.Rand).Float64
// returns low53(x)/2^53 for its one draw x.
func low53(x uint64) uint64 { return x << 11 >> 11 }
