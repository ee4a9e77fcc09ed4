package policies

import (
	"fmt"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/trajectory"
)

// Env is an environment driven by state-independent (stationary) policies:
// the chain and sub-episode MDPs.
type Env interface {
	// Reset starts a new episode.
	Reset()
	// Step takes action a and returns the reward and whether the episode
	// ended.
	Step(a int) (reward float64, done bool)
}

// Pair is a behavior and an evaluation policy over the same actions, as one
// series of an experiment uses them: the behavior policy draws the actions,
// and each step records the ratio pi_e(a)/pi_b(a) of the action drawn.
type Pair struct {
	Behavior, Evaluation *Stationary
	ratio                []float64 // pi_e(a)/pi_b(a) per action (0 where pi_b(a) = 0: never drawn)
}

// NewPair returns the pair (b, e). Both must have the same actions, and b
// must give positive probability to every action e may take: otherwise
// importance sampling cannot estimate V(pi_e).
func NewPair(b, e *Stationary) (*Pair, error) {
	if b.Actions() != e.Actions() {
		return nil, fmt.Errorf("policies: behavior has %d actions, evaluation %d", b.Actions(), e.Actions())
	}
	p := &Pair{Behavior: b, Evaluation: e, ratio: make([]float64, b.Actions())}
	for a := range p.ratio {
		pb, pe := b.Prob(a), e.Prob(a)
		if pb == 0 {
			if pe > 0 {
				return nil, fmt.Errorf("policies: behavior never takes action %d, which evaluation takes with probability %v: importance sampling cannot estimate V(pi_e)", a, pe)
			}
			continue
		}
		p.ratio[a] = pe / pb
	}
	return p, nil
}

// Ratio returns pi_e(a)/pi_b(a).
func (p *Pair) Ratio(a int) float64 { return p.ratio[a] }

// Probs returns pi_b(a) and pi_e(a), the probabilities whose quotient is
// Ratio(a), bit for bit, wherever pi_b(a) > 0 (the ratio is computed as
// pe / pb from the same two numbers).
func (p *Pair) Probs(a int) (pb, pe float64) {
	return p.Behavior.Prob(a), p.Evaluation.Prob(a)
}

// splitter is implemented by an Env that marks split points (SPEC 1,
// partitioned PDIS): SubEndFlag returns the flag its Step sets when the
// step just taken ended a part. Reading the flag costs no call per step.
type splitter interface{ SubEndFlag() *bool }

// Collect appends n episodes of env under the behavior policy to b, each
// step with its reward and ratio (Batch.Add). When env reports the ends of
// sub-episodes (a SubEndFlag method), every end but the episode's last is
// marked as a split point. Per step it draws one Float64 from rng (the
// behavior's action), nothing else. It does not allocate once b has grown.
// It is CollectRecord recording nothing more.
func (p *Pair) Collect(env Env, b *trajectory.Batch, n int, rng *rand.Rand) {
	collect[[0]struct{}](p, env, nil, b, n, rng, nil)
}

// Observable is an Env whose states have integer ids: what a tabular model
// of SPEC 1d is fitted over.
type Observable interface {
	Env
	// ObsID returns the id of the current observation, the one the next
	// action is taken in.
	ObsID() int
}

// PairRecord says what Pair.CollectRecord records into its batch on every
// step besides what Collect records (the reward, the ratio, the split
// marks and the episodes' ends): the extra columns of SPEC 1d and of the
// logged-data format. The zero PairRecord records nothing more.
type PairRecord struct {
	// IDs: the id of the observation the action was taken in (ObsID
	// before the step) and the action, by Batch.AddIDs.
	IDs bool
	// Probs: pi_b(a) and pi_e(a) of the action (Pair.Probs, whose
	// quotient is the recorded ratio bit for bit), by Batch.AddProbs.
	Probs bool
	// Model, when not nil, gives q_hat and v_hat of every step, by
	// Batch.AddModel.
	Model PairModel
}

// PairModel is an exact model of the evaluation policy's values that
// Pair.CollectRecord records on every step (PairRecord.Model; SPEC 1d).
type PairModel interface {
	// StepValues is called once for every step, in order, after the step:
	// t is its 1-based index within its episode, obs the id of the
	// observation its action a was taken in (ObsID before the step). It
	// returns q_hat and v_hat of the step. It may keep state across the
	// steps of an episode (t = 1 starts one).
	StepValues(t, obs, a int) (q, v float64)
}

// CollectRecord is Collect recording, after every step's Add (and before
// its split mark), what rec asks for: the same random draws, so the same
// trajectories, rewards, ratios and splits as Collect on the same stream;
// with the zero PairRecord it is Collect. It does not allocate once b's
// columns have grown, if rec.Model does not.
func (p *Pair) CollectRecord(env Observable, b *trajectory.Batch, n int, rng *rand.Rand, rec PairRecord) {
	if !rec.IDs && !rec.Probs && rec.Model == nil {
		collect[[0]struct{}](p, env, env, b, n, rng, nil)
		return
	}
	collect[[modeExtras]struct{}](p, env, env, b, n, rng, &rec)
}

// collect is the stationary rollout, the only one: Collect with, in mode
// modeExtras, the extra columns of rec, reading observation ids from
// obsEnv (env itself; nil when rec needs none).
func collect[M loopMode](p *Pair, env Env, obsEnv Observable, b *trajectory.Batch, n int, rng *rand.Rand, rec *PairRecord) {
	var mode M
	extras := len(mode)&modeExtras != 0
	var subEnd *bool
	if sp, ok := env.(splitter); ok {
		subEnd = sp.SubEndFlag()
	}
	needObs := extras && (rec.IDs || rec.Model != nil)
	// Only the probabilities and a model are recorded step by step; ids
	// go through the stretch too.
	perStep := extras && (rec.Probs || rec.Model != nil)
	ids := extras && rec.IDs
	// The draw of Stationary.Pick's two-action case, made here: a call
	// per step less (a tenth of the chain's and the sub-episode MDP's
	// collection).
	two, cut := p.Behavior.twoPositive, p.Behavior.cum[0]
	// Without extra columns, steps are gathered here and added a stretch
	// at a time (Batch.AddSteps): appending to the batch's five columns on
	// every step was a third of the collection.
	var st trajectory.Stretch
	for range n {
		env.Reset()
		for t := 1; ; t++ {
			obs := 0
			if needObs {
				obs = obsEnv.ObsID()
			}
			var a int
			if two {
				if rng.Float64() >= cut {
					a = 1
				}
			} else {
				a = p.Behavior.Sample(rng)
			}
			r, done := env.Step(a)
			if perStep {
				b.Add(r, p.ratio[a])
				p.recordExtras(b, rec, t, obs, a)
			} else {
				if st.Full() {
					st.Flush(b, ids)
				}
				st.Add(r, p.ratio[a], int32(obs), int32(a))
			}
			if done {
				break
			}
			if subEnd != nil && *subEnd {
				if perStep {
					b.MarkSplit()
				} else {
					st.MarkSplit()
				}
			}
		}
		st.Flush(b, ids)
		b.End()
	}
}

// recordExtras records the extra columns rec asks for of step t, taken
// in observation obs with action a, just added to b.
func (p *Pair) recordExtras(b *trajectory.Batch, rec *PairRecord, t, obs, a int) {
	if rec.IDs {
		b.AddIDs(int32(obs), int32(a))
	}
	if rec.Probs {
		b.AddProbs(p.Probs(a))
	}
	if rec.Model != nil {
		b.AddModel(rec.Model.StepValues(t, obs, a))
	}
}

// sink is where a rollout writes its steps: a *trajectory.Batch, called
// directly (the common case, and the only one that takes extra columns),
// or, when b is nil, any other trajectory.Recorder through its interface
// (the loop's mode modeRecorder), or nothing.
type sink struct {
	b   *trajectory.Batch
	rec trajectory.Recorder
}

// sinkOf returns the sink of rec (nil: nothing).
func sinkOf(rec trajectory.Recorder) sink {
	if b, ok := rec.(*trajectory.Batch); ok {
		return sink{b: b}
	}
	return sink{rec: rec}
}

// loopMode says which copy of a generic rollout loop (collect,
// chainEpisode, taxiEpisode: one loop per policy family) is compiled:
// len(M{}) is a sum of mode bits. Go compiles a generic function once per
// shape of its type arguments (each array length its own shape) and folds
// len of the shape's array to a constant, so each copy keeps only the
// branches of its mode: one loop in the source, as fast as a loop written
// for each mode. (Calls of methods of type parameters go through a
// dictionary, so a recorder type parameter would not inline; a mode does
// not call anything.)
type loopMode interface {
	~[0]struct{} | ~[1]struct{} | ~[2]struct{} | ~[3]struct{} |
		~[4]struct{} | ~[5]struct{} | ~[6]struct{} | ~[7]struct{} |
		~[8]struct{} | ~[9]struct{} | ~[10]struct{} | ~[11]struct{} |
		~[12]struct{} | ~[13]struct{} | ~[14]struct{} | ~[15]struct{}
}

// The bits of a loopMode.
const (
	modeExtras    = 1 << iota // record the extra columns the record struct asks for
	modeRecorder              // write to sink.rec, a trajectory.Recorder, not to sink.b
	modePCG                   // taxi: draw from a PCG directly (else from a *rand.Rand)
	modePrimitive             // taxi: M = 1, primitive policies (else m-step options)
)
