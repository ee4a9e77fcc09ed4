package trajectory

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/ope-lab/longhorizon/internal/hugepage"
)

// Batch is a set of trajectories stored flat. Trajectory i occupies steps
// Offsets[i] to Offsets[i+1]-1 of every per-step slice. The zero value is an
// empty batch ready for Add and End.
type Batch struct {
	// Offsets has N()+1 entries; Offsets[0] is 0.
	Offsets []int

	Reward      []float64
	Ratio       []float64
	OptionRatio []float64
	Changed     []bool
	Split       []bool

	// QHat and VHat are the model columns of SPEC 1d, per step: q_hat_t =
	// q(o_t, a_t), the model's expected discounted return from step t on
	// (r_t included, discounted to step t), and v_hat_t = v(o_t) = sum_a
	// pi_e(a|o_t) q(o_t, a). Both empty when the batch has no model (see
	// HasModel); otherwise one entry per step each.
	QHat, VHat []float64
	// Obs and Action are the observation and action ids (>= 0) of every
	// step, for fitting a tabular model; both empty when the producer has
	// none (options data, logs without them).
	Obs, Action []int32
	// PiB and PiE are the behavior's and the evaluation policy's
	// probabilities of the logged action, pi_b(a_t|o_t) and pi_e(a_t|o_t),
	// of every step, for writing the batch as logged data (package
	// logdata): both empty when the producer did not record them (see
	// HasProbs), otherwise one entry per step each. A producer that
	// records them records probabilities whose quotient PiE/PiB is the
	// step's Ratio bit for bit.
	PiB, PiE []float64
	// OptionStart, MuB and MuE are the option structure of options data,
	// per step, for writing the batch as logged data (the format's option
	// columns option_start, mu_b and mu_e): OptionStart marks an option's
	// first step, and MuB and MuE are the behavior's and the evaluation
	// policy's probabilities of the running option, the same on every step
	// of an option. All three empty when the producer did not record them
	// (see HasOptionProbs), otherwise one entry per step each. A producer
	// that records them records, on an option's first step,
	// probabilities whose quotient MuE/MuB is the step's OptionRatio bit
	// for bit (its later steps have OptionRatio 1), and, with PiB and PiE,
	// the probabilities of the action given the running option, whose
	// quotient is the step's Ratio.
	OptionStart []bool
	MuB, MuE    []float64

	// Moments, when not nil, are the exact moments of the kept products
	// of the source the batch was drawn from (a simulated domain that
	// knows them, for incris-oracle); nil otherwise, always for logged
	// data. Prefix, Resample and the Discounted view carry the pointer.
	Moments *StepMoments

	// Gamma is the discount already applied to Reward, QHat and VHat
	// (SPEC 1c): set by Discounted.Of on its view, 0 (none, as 1)
	// otherwise. An estimator that fits a model itself (drl) reads it to
	// undo the discount. Prefix and Resample carry it.
	Gamma float64

	horizon int
}

// HasModel reports whether the batch carries the model columns QHat and
// VHat.
func (b *Batch) HasModel() bool { return len(b.Reward) > 0 && len(b.QHat) == len(b.Reward) }

// HasIDs reports whether the batch carries observation and action ids.
func (b *Batch) HasIDs() bool { return len(b.Reward) > 0 && len(b.Obs) == len(b.Reward) }

// HasProbs reports whether the batch carries the action probabilities PiB
// and PiE.
func (b *Batch) HasProbs() bool { return len(b.Reward) > 0 && len(b.PiB) == len(b.Reward) }

// HasOptionProbs reports whether the batch carries the option structure
// OptionStart, MuB and MuE.
func (b *Batch) HasOptionProbs() bool {
	return len(b.Reward) > 0 && len(b.OptionStart) == len(b.Reward)
}

// Reset empties b, keeping its memory for reuse.
func (b *Batch) Reset() {
	b.Offsets = append(b.Offsets[:0], 0)
	b.Reward = b.Reward[:0]
	b.Ratio = b.Ratio[:0]
	b.OptionRatio = b.OptionRatio[:0]
	b.Changed = b.Changed[:0]
	b.Split = b.Split[:0]
	b.QHat, b.VHat = b.QHat[:0], b.VHat[:0]
	b.Obs, b.Action = b.Obs[:0], b.Action[:0]
	b.PiB, b.PiE = b.PiB[:0], b.PiE[:0]
	b.OptionStart, b.MuB, b.MuE = b.OptionStart[:0], b.MuB[:0], b.MuE[:0]
	b.Moments = nil
	b.Gamma = 0
	b.horizon = 0
}

// Grow makes room for n more trajectories of about steps steps in total,
// so that a producer that knows its sizes appends without reallocating.
func (b *Batch) Grow(n, steps int) {
	if len(b.Offsets) == 0 {
		b.Offsets = append(b.Offsets, 0)
	}
	b.Offsets = slices.Grow(b.Offsets, n)
	b.Reward = hugepage.Grow(b.Reward, steps)
	b.Ratio = hugepage.Grow(b.Ratio, steps)
	b.OptionRatio = hugepage.Grow(b.OptionRatio, steps)
	b.Changed = hugepage.Grow(b.Changed, steps)
	b.Split = hugepage.Grow(b.Split, steps)
}

// Add appends a primitive step: reward r and action ratio rho = pi_e/pi_b.
// Its option ratio is rho, as for a one-step option.
func (b *Batch) Add(r, rho float64) {
	b.AddOption(r, rho, rho, false)
}

// AddOption appends a step taken inside an option. rho is the ratio of the
// action given the option, optionRatio is mu_e/mu_b on the option's first
// step and 1 on its later steps, and changed says whether the option's
// underlying policy differs between behavior and evaluation.
func (b *Batch) AddOption(r, rho, optionRatio float64, changed bool) {
	if len(b.Offsets) == 0 {
		b.Offsets = append(b.Offsets, 0)
	}
	b.Reward = append(b.Reward, r)
	b.Ratio = append(b.Ratio, rho)
	b.OptionRatio = append(b.OptionRatio, optionRatio)
	b.Changed = append(b.Changed, changed)
	b.Split = append(b.Split, false)
}

// AddSteps appends primitive steps as Add(r[i], rho[i]) for every i in
// turn would, each marked a split point where split[i] is set (MarkSplit);
// r, rho and split have one entry per step. A rollout that gathers steps
// before adding them appends each column once, where Add appended to
// five columns on every step.
func (b *Batch) AddSteps(r, rho []float64, split []bool) {
	if len(b.Offsets) == 0 {
		b.Offsets = append(b.Offsets, 0)
	}
	b.Reward = append(b.Reward, r...)
	b.Ratio = append(b.Ratio, rho...)
	b.OptionRatio = append(b.OptionRatio, rho...)
	b.Changed = append(b.Changed, make([]bool, len(r))...)
	b.Split = append(b.Split, split...)
}

// AddIDs records the observation and action ids of the step just added
// (call it after every Add or AddOption of a trajectory, or never).
func (b *Batch) AddIDs(obs, action int32) {
	b.Obs = append(b.Obs, obs)
	b.Action = append(b.Action, action)
}

// AddStepIDs records the observation and action ids of the steps just
// added by AddSteps, as AddIDs after each of them would: obs and action
// have one entry per step.
func (b *Batch) AddStepIDs(obs, action []int32) {
	b.Obs = append(b.Obs, obs...)
	b.Action = append(b.Action, action...)
}

// Stretch holds the latest primitive steps of an episode before they are
// added to a batch together (AddSteps, AddStepIDs): each column is
// appended once a stretch, where Add and AddIDs append to every column on
// every step. A rollout keeps one on its stack: Add each step (Flush
// first when Full), MarkSplit after a step that ends a sub-episode, and
// Flush before End.
type Stretch struct {
	k        int // steps held
	r, rho   [256]float64
	split    [256]bool
	obs, act [256]int32
}

// Full reports whether the stretch holds as many steps as it can.
func (s *Stretch) Full() bool { return s.k == len(s.r) }

// Add holds a step: reward r, ratio rho, and its observation and action
// ids (kept only if Flush is told to record them).
func (s *Stretch) Add(r, rho float64, obs, action int32) {
	s.r[s.k], s.rho[s.k], s.split[s.k] = r, rho, false
	s.obs[s.k], s.act[s.k] = obs, action
	s.k++
}

// MarkSplit marks the step held last a split point (Batch.MarkSplit).
func (s *Stretch) MarkSplit() { s.split[s.k-1] = true }

// Flush adds the steps held to b, with their ids if ids is set, and
// empties the stretch.
func (s *Stretch) Flush(b *Batch, ids bool) {
	b.AddSteps(s.r[:s.k], s.rho[:s.k], s.split[:s.k])
	if ids {
		b.AddStepIDs(s.obs[:s.k], s.act[:s.k])
	}
	s.k = 0
}

// AddModel records q_hat and v_hat of the step just added (call it after
// every Add or AddOption, or never).
func (b *Batch) AddModel(qHat, vHat float64) {
	b.QHat = append(b.QHat, qHat)
	b.VHat = append(b.VHat, vHat)
}

// AddProbs records pi_b and pi_e of the action of the step just added
// (call it after every Add or AddOption, or never).
func (b *Batch) AddProbs(piB, piE float64) {
	b.PiB = append(b.PiB, piB)
	b.PiE = append(b.PiE, piE)
}

// AddOptionProbs records the option structure of the step just added:
// start says whether it is the first step of an option, and muB and muE
// are the behavior's and the evaluation policy's probabilities of the
// running option (call it after every Add or AddOption, or never).
func (b *Batch) AddOptionProbs(start bool, muB, muE float64) {
	b.OptionStart = append(b.OptionStart, start)
	b.MuB = append(b.MuB, muB)
	b.MuE = append(b.MuE, muE)
}

// MarkSplit marks the last added step as the end of a part (a split point
// for partitioned PDIS).
func (b *Batch) MarkSplit() {
	if len(b.Split) > b.Offsets[len(b.Offsets)-1] {
		b.Split[len(b.Split)-1] = true
	}
}

// End closes the trajectory built by the steps added since the last End.
// An empty trajectory (no steps) is allowed: it contributes reward 0.
func (b *Batch) End() {
	if len(b.Offsets) == 0 {
		b.Offsets = append(b.Offsets, 0)
	}
	start := b.Offsets[len(b.Offsets)-1]
	if l := len(b.Reward) - start; l > b.horizon {
		b.horizon = l
	}
	b.Offsets = append(b.Offsets, len(b.Reward))
}

// N returns the number of trajectories.
func (b *Batch) N() int {
	if len(b.Offsets) == 0 {
		return 0
	}
	return len(b.Offsets) - 1
}

// Steps returns the number of recorded (unpadded) steps.
func (b *Batch) Steps() int { return len(b.Reward) }

// Horizon returns the length of the longest trajectory: the H to which
// shorter ones are padded.
func (b *Batch) Horizon() int { return b.horizon }

// Len returns the length of trajectory i.
func (b *Batch) Len(i int) int { return b.Offsets[i+1] - b.Offsets[i] }

// Prefix returns a view of the first n trajectories, sharing b's memory.
// The nested MSE protocol (SPEC section 3) estimates at n from the first n
// trajectories of one trial's data.
func (b *Batch) Prefix(n int) Batch {
	if n > b.N() {
		panic(fmt.Sprintf("trajectory: Prefix(%d) of a batch of %d", n, b.N()))
	}
	end := b.Offsets[n]
	p := Batch{
		Offsets:     b.Offsets[:n+1],
		Reward:      b.Reward[:end],
		Ratio:       b.Ratio[:end],
		OptionRatio: b.OptionRatio[:end],
		Changed:     b.Changed[:end],
		Split:       b.Split[:end],
		Moments:     b.Moments,
		Gamma:       b.Gamma,
	}
	if b.HasModel() {
		p.QHat, p.VHat = b.QHat[:end], b.VHat[:end]
	}
	if b.HasIDs() {
		p.Obs, p.Action = b.Obs[:end], b.Action[:end]
	}
	if b.HasProbs() {
		p.PiB, p.PiE = b.PiB[:end], b.PiE[:end]
	}
	if b.HasOptionProbs() {
		p.OptionStart, p.MuB, p.MuE = b.OptionStart[:end], b.MuB[:end], b.MuE[:end]
	}
	for i := 0; i < n; i++ {
		if l := p.Len(i); l > p.horizon {
			p.horizon = l
		}
	}
	return p
}

// Factors returns the per-step importance factor of every step, the
// numbers whose running product is an importance weight: the option ratio
// (for a primitive step, its action ratio), times the action ratio inside
// options whose underlying policy changed (paper, Theorem 3, read as PDIS:
// the weight of a reward carries every earlier factor). Without changed
// options this is OptionRatio itself; otherwise the factors are written
// into buf (grown as needed) and returned.
func (b *Batch) Factors(buf []float64) []float64 {
	if !anyTrue(b.Changed) {
		return b.OptionRatio
	}
	buf = slices.Grow(buf[:0], len(b.Reward))[:len(b.Reward)]
	for s := range buf {
		f := b.OptionRatio[s]
		if b.Changed[s] {
			f *= b.Ratio[s]
		}
		buf[s] = f
	}
	return buf
}

// anyTrue reports whether some element of bs is true. Factors asks it of
// every step of a batch, for every weighted estimator: bytes.IndexByte
// scans a word or a vector at a time where slices.Contains took a bool at
// a time (5% of a Figure 4 trial). A bool is one byte, 1 when true.
func anyTrue(bs []bool) bool {
	return bytes.IndexByte(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(bs))), len(bs)), 1) >= 0
}

// Validate checks the batch's invariants: consistent slice lengths,
// increasing offsets, and finite, non-negative ratios. Producers that read
// user data call it; simulators need not.
func (b *Batch) Validate() error {
	if len(b.Offsets) == 0 || b.Offsets[0] != 0 {
		return fmt.Errorf("trajectory: offsets must start at 0")
	}
	m := len(b.Reward)
	if len(b.Ratio) != m || len(b.OptionRatio) != m || len(b.Changed) != m || len(b.Split) != m {
		return fmt.Errorf("trajectory: per-step slices have different lengths")
	}
	if (len(b.QHat) != 0 || len(b.VHat) != 0) && (len(b.QHat) != m || len(b.VHat) != m) {
		return fmt.Errorf("trajectory: q_hat and v_hat must both have one value a step, or be absent")
	}
	if (len(b.Obs) != 0 || len(b.Action) != 0) && (len(b.Obs) != m || len(b.Action) != m) {
		return fmt.Errorf("trajectory: observation and action ids must both have one value a step, or be absent")
	}
	if (len(b.PiB) != 0 || len(b.PiE) != 0) && (len(b.PiB) != m || len(b.PiE) != m) {
		return fmt.Errorf("trajectory: pi_b and pi_e must both have one value a step, or be absent")
	}
	if (len(b.OptionStart) != 0 || len(b.MuB) != 0 || len(b.MuE) != 0) && (len(b.OptionStart) != m || len(b.MuB) != m || len(b.MuE) != m) {
		return fmt.Errorf("trajectory: option_start, mu_b and mu_e must all have one value a step, or be absent")
	}
	for i := 1; i < len(b.Offsets); i++ {
		if b.Offsets[i] < b.Offsets[i-1] || b.Offsets[i] > m {
			return fmt.Errorf("trajectory: offset %d (%d) out of order", i, b.Offsets[i])
		}
	}
	if b.Offsets[len(b.Offsets)-1] != m {
		return fmt.Errorf("trajectory: %d steps after the last End", m-b.Offsets[len(b.Offsets)-1])
	}
	if len(b.OptionStart) == m {
		for i := 0; i+1 < len(b.Offsets); i++ {
			if lo := b.Offsets[i]; lo < b.Offsets[i+1] && !b.OptionStart[lo] {
				return fmt.Errorf("trajectory: trajectory %d: its first step does not start an option", i)
			}
		}
	}
	for s := 0; s < m; s++ {
		if r := b.Reward[s]; math.IsNaN(r) || math.IsInf(r, 0) {
			return fmt.Errorf("trajectory: step %d: reward %v is not finite", s, r)
		}
		if len(b.QHat) == m {
			if q, v := b.QHat[s], b.VHat[s]; math.IsNaN(q+v) || math.IsInf(q, 0) || math.IsInf(v, 0) {
				return fmt.Errorf("trajectory: step %d: q_hat %v or v_hat %v is not finite", s, q, v)
			}
		}
		if len(b.PiB) == m {
			if pb, pe := b.PiB[s], b.PiE[s]; !(pb > 0 && pb <= 1) || !(pe >= 0 && pe <= 1) {
				return fmt.Errorf("trajectory: step %d: pi_b %v must be in (0, 1] and pi_e %v in [0, 1]", s, pb, pe)
			}
		}
		if len(b.OptionStart) == m {
			if mb, me := b.MuB[s], b.MuE[s]; !(mb > 0 && mb <= 1) || !(me >= 0 && me <= 1) {
				return fmt.Errorf("trajectory: step %d: mu_b %v must be in (0, 1] and mu_e %v in [0, 1]", s, mb, me)
			}
		}
		for _, v := range [...]float64{b.Ratio[s], b.OptionRatio[s]} {
			if !(v >= 0) || math.IsInf(v, 0) {
				return fmt.Errorf("trajectory: step %d: ratio %v is not a finite non-negative number", s, v)
			}
		}
	}
	return nil
}

// Recorder receives episodes step by step as a simulator produces them:
// *Batch is the recorder every rollout writes to. See Batch.AddOption,
// Batch.MarkSplit and Batch.End for the meaning of the calls.
type Recorder interface {
	AddOption(r, rho, optionRatio float64, changed bool)
	MarkSplit()
	End()
}

var _ Recorder = (*Batch)(nil)

// Bytes a Batch stores: per step a reward, a ratio and an option ratio
// (float64) and the changed and split flags (bool); per trajectory an
// offset.
const (
	BytesPerStep       = 3*8 + 2
	BytesPerTrajectory = 8
)

// Size returns an upper bound, in bytes, of the memory of a batch holding
// n trajectories of steps steps in total, counting the slack of append's
// doubling (at most as much again). It is a float64 so that sizes far
// beyond memory can be computed, and refused, without overflow.
func Size(n, steps float64) float64 {
	return 2 * (BytesPerStep*steps + BytesPerTrajectory*(n+1))
}
