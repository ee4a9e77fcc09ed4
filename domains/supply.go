package domains

import (
	"math"
	"math/rand/v2"

	"github.com/ope-lab/longhorizon/trajectory"
)

// Supply is what a domain built with given parameters can record on every
// step beside rewards and ratios, and the sizes of its ids: what a run
// decides its recording from without building the domain again
// (SupplyOf reads it once, from the interfaces the domain implements).
type Supply struct {
	// IDs: observation and action ids over a Space (a ModelDomain whose
	// data is primitive); Obs, Actions and Horizon are then the sizes of
	// its Space.
	IDs                   bool
	Obs, Actions, Horizon int
	// Model: SPEC 1d's model columns, fitted from the ids or the exact
	// ones (IDs, and Spec.Models accepts the parameters).
	Model bool
	// Probs: the behavior's and the evaluation policy's probabilities of
	// the logged action (a ProbRecorder), on options data with the option
	// structure.
	Probs bool
	// Options: the data are options data (OptionsRecorder.OptionColumns),
	// and Changed: some option's underlying policy can differ between
	// behavior and evaluation.
	Options, Changed bool
	// Lengths are the lengths of the domain's trajectories, measured on
	// a pilot draw (Pilot): what a run's memory need sizes its data sets
	// from, far below MaxSteps where episodes end early (NoisyTaxi).
	Lengths Lengths
}

// SupplyOf returns what domain d, built by spec s with parameters p, can
// record, and the lengths of its trajectories. It asks d's interfaces,
// may switch d's recording of probabilities on and off again, and draws a
// pilot from d (Pilot): call it on a domain about to be thrown away.
func SupplyOf(s *Spec, p Params, d Domain) Supply {
	var sup Supply
	if or, ok := d.(OptionsRecorder); ok {
		sup.Options, sup.Changed = or.OptionColumns()
		sup.Changed = sup.Changed && sup.Options
	}
	if md, ok := d.(ModelDomain); ok && !sup.Options {
		sp := md.Space()
		sup.IDs, sup.Obs, sup.Actions, sup.Horizon = true, sp.Obs, sp.Actions, sp.Horizon
		sup.Model = s.Models != nil && s.Models(p) == nil
	}
	if pr, ok := d.(ProbRecorder); ok && pr.RecordProbs(true) == nil {
		sup.Probs = pr.RecordProbs(false) == nil
	}
	sup.Lengths = Pilot(d, s.MaxSteps(p))
	return sup
}

// Lengths are the lengths, in steps, of a pilot draw of a domain's
// trajectories (Pilot): their mean, standard deviation and longest over
// N trajectories. The zero value is not measured.
type Lengths struct {
	Mean, SD, Max float64
	N             int
}

// pilotSteps bounds the steps of a chunk of a pilot draw, which stops at
// a quarter of them or pilotMax trajectories, and draws at least
// pilotMin. pilotSeed makes it deterministic.
const (
	pilotSteps = 1 << 16
	pilotMin   = 8
	pilotMax   = 512
	pilotSeed  = 0x5eed
	// pilotLongest is the longest trajectory a pilot draws from: a domain
	// whose episodes may be longer is not measured (its need is sized
	// at its longest), so that a pilot takes at most 8 x 2^17 steps (27
	// MB), whatever the parameters.
	pilotLongest = 1 << 17
)

// Pilot draws 8 trajectories of d, and unless all 8 have maxSteps steps
// (a fixed-length domain: its lengths without spread, at no more cost),
// more in chunks of 65536/maxSteps (at least 8, so that a chunk has at
// most 65,536 steps, whatever their lengths) until it has 512 of them or
// 16,384 steps, with a fixed seed, and returns the mean, standard
// deviation and longest of their lengths (the mean of 512 lengths is
// known within 5% of their spread); a domain whose longest is above 2^17
// steps is not measured (the zero Lengths).
// It records
// nothing beyond what d records already, and draws from a stream of its
// own: call it on a domain about to be thrown away (config validation
// builds one per series for its checks).
func Pilot(d Domain, maxSteps int) Lengths {
	if maxSteps > pilotLongest {
		return Lengths{}
	}
	k := min(max(pilotMin, pilotSteps/max(maxSteps, 1)), pilotMax)
	var b trajectory.Batch
	rng := rand.New(rand.NewPCG(pilotSeed, uint64(k)))
	d.Collect(&b, pilotMin, rng)
	if b.Steps() == pilotMin*maxSteps {
		// every one at the longest: a fixed-length domain (or, rarely,
		// one whose early ends are rare: sized at the longest, as without
		// a pilot)
		return Lengths{Mean: float64(maxSteps), Max: float64(maxSteps), N: pilotMin}
	}
	for b.N() < pilotMax && b.Steps() < pilotSteps/4 {
		d.Collect(&b, k, rng)
	}
	var sum, sq float64
	for i := range b.N() {
		l := float64(b.Len(i))
		sum += l
		sq += l * l
	}
	n := float64(b.N())
	mean := sum / n
	return Lengths{Mean: mean, SD: math.Sqrt(max(sq/n-mean*mean, 0)), Max: float64(b.Horizon()), N: b.N()}
}

// Steps bounds the total steps of n trajectories whose lengths are
// those of the pilot l, and at most maxSteps each: n maxSteps when l is
// not measured, else n (Mean + 2 SD/sqrt(N)) + 4 SD sqrt(n), capped at
// n maxSteps. The sum of n independent lengths has mean n mu and
// standard deviation sigma sqrt(n); 4 of those above the mean is passed
// with probability below 1/17 whatever the lengths' law (Cantelli), about
// 3e-5 for a normal sum, and the 2 standard errors on the pilot's mean
// cover its own error (N is a few hundred trajectories or more). A data
// set that passes it anyway costs a few per cent more steps, not a
// refusal: the need is an estimate, within a factor of 2 of what a run
// takes.
func (l Lengths) Steps(n, maxSteps float64) float64 {
	if l.N == 0 || l.Mean <= 0 {
		return n * maxSteps
	}
	s := n*(l.Mean+2*l.SD/math.Sqrt(float64(l.N))) + 4*l.SD*math.Sqrt(n)
	return min(s, n*maxSteps)
}

// Horizon estimates the longest of n trajectories whose lengths are
// those of the pilot l, and at most maxSteps each: maxSteps when l is not
// measured, else the pilot's longest plus SD ln(n/N), at least the mean,
// at most maxSteps. The longest of n draws from a law with an exponential
// tail of scale sigma grows by sigma ln(k) when n grows k-fold (episodes
// that end at a constant rate per step, as NoisyTaxi's roughly do, have
// such a tail, with sigma about their standard deviation); without
// spread (fixed-length domains) it is the length itself.
func (l Lengths) Horizon(n, maxSteps float64) float64 {
	if l.N == 0 || l.Mean <= 0 {
		return maxSteps
	}
	h := l.Max + l.SD*math.Log(max(n, 1)/float64(l.N))
	return min(max(math.Ceil(h), math.Ceil(l.Mean)), maxSteps)
}
