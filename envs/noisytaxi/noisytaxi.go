package noisytaxi

import (
	"fmt"
	"math/rand/v2"
)

// GridSize is the number of rows and of columns of the grid.
const GridSize = 5

// NumCells is the number of taxi cells.
const NumCells = GridSize * GridSize

// Action is a primitive action.
type Action int

// The primitive actions, in index order.
const (
	South Action = iota // row + 1
	North               // row - 1
	East                // col + 1
	West                // col - 1
	Pickup
	Dropoff
)

// NumActions is the number of primitive actions.
const NumActions = 6

func (a Action) String() string {
	switch a {
	case South:
		return "S"
	case North:
		return "N"
	case East:
		return "E"
	case West:
		return "W"
	case Pickup:
		return "Pickup"
	case Dropoff:
		return "Dropoff"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// The four special locations, and the passenger's "location" once carried.
const (
	LocR = iota
	LocG
	LocY
	LocB
	InTaxi
)

// NumLocs is the number of special locations (R, G, Y, B).
const NumLocs = 4

// NumPassObs is the number of values of State.Pass and Obs.Pass:
// LocR..LocB and InTaxi.
const NumPassObs = NumLocs + 1

var locCells = [NumLocs][2]int{
	LocR: {0, 0},
	LocG: {0, 4},
	LocY: {4, 0},
	LocB: {4, 3},
}

// Location returns the cell of special location loc (LocR..LocB).
func Location(loc int) (row, col int) {
	c := locCells[loc]
	return c[0], c[1]
}

// wallEast[r][c] says there is a wall between cells (r, c) and (r, c+1).
var wallEast = [GridSize][GridSize - 1]bool{
	0: {1: true},
	1: {1: true},
	3: {0: true, 2: true},
	4: {0: true, 2: true},
}

// Move returns the cell reached from (row, col) by move action a (South,
// North, East or West): the same cell if a wall or the edge is in the way.
// Other actions leave the cell unchanged.
func Move(row, col int, a Action) (int, int) {
	switch a {
	case South:
		if row < GridSize-1 {
			row++
		}
	case North:
		if row > 0 {
			row--
		}
	case East:
		if col < GridSize-1 && !wallEast[row][col] {
			col++
		}
	case West:
		if col > 0 && !wallEast[row][col-1] {
			col--
		}
	}
	return row, col
}

// Params are the domain's parameters. DefaultParams gives SPEC's values.
type Params struct {
	// Cap is the episode cap in primitive steps (interp.; SPEC: 200).
	Cap int
	// PositionNoise is the probability of seeing the taxi's row (column)
	// one lower, and likewise one higher, before clamping (paper: 0.075).
	PositionNoise float64
	// SwitchProb is the probability that the passenger's location, before
	// pickup, is seen as a uniform draw from R, G, Y, B (paper: 0.15).
	SwitchProb float64
	// DestMayEqualPassenger says whether the destination is drawn from all
	// four locations independently of the passenger (interp.; SPEC: true)
	// or from the three locations other than the passenger's.
	DestMayEqualPassenger bool
}

// DefaultParams returns the parameters of SPEC section 2.3.
func DefaultParams() Params {
	return Params{Cap: 200, PositionNoise: 0.075, SwitchProb: 0.15, DestMayEqualPassenger: true}
}

// Validate reports the first parameter out of its range.
func (p Params) Validate() error {
	if p.Cap < 1 {
		return fmt.Errorf("noisytaxi: Cap is %d, want at least 1", p.Cap)
	}
	if !(p.PositionNoise >= 0 && p.PositionNoise <= 0.5) {
		return fmt.Errorf("noisytaxi: PositionNoise is %v, want a number in [0, 0.5]", p.PositionNoise)
	}
	if !(p.SwitchProb >= 0 && p.SwitchProb <= 1) {
		return fmt.Errorf("noisytaxi: SwitchProb is %v, want a number in [0, 1]", p.SwitchProb)
	}
	return nil
}

// CoordObsProbs returns the distribution of the seen row (or column) when
// the true one is c: c with 1 - 2q, c-1 and c+1 with q each, clamped into
// 0..GridSize-1.
func (p Params) CoordObsProbs(c int) [GridSize]float64 {
	var d [GridSize]float64
	q := p.PositionNoise
	d[c] += 1 - 2*q
	d[max(c-1, 0)] += q
	d[min(c+1, GridSize-1)] += q
	return d
}

// PassObsProbs returns the distribution of the seen passenger location
// (indexed LocR..LocB, InTaxi) when the true one is pass.
func (p Params) PassObsProbs(pass int) [NumPassObs]float64 {
	var d [NumPassObs]float64
	if pass == InTaxi {
		d[InTaxi] = 1
		return d
	}
	s := p.SwitchProb
	for l := range NumLocs {
		d[l] = s / NumLocs
	}
	d[pass] += 1 - s
	return d
}

// ObsProb returns the probability of observing o in hidden state s.
func (p Params) ObsProb(s State, o Obs) float64 {
	if o.Dest != s.Dest || o.Row < 0 || o.Row >= GridSize || o.Col < 0 || o.Col >= GridSize ||
		o.Pass < 0 || o.Pass >= NumPassObs {
		return 0
	}
	return p.CoordObsProbs(s.Row)[o.Row] * p.CoordObsProbs(s.Col)[o.Col] * p.PassObsProbs(s.Pass)[o.Pass]
}

// StartProb returns the probability that Reset starts in s.
func (p Params) StartProb(s State) float64 {
	if !s.Valid() || s.Pass == InTaxi {
		return 0
	}
	if p.DestMayEqualPassenger {
		return 1.0 / (NumCells * NumLocs * NumLocs)
	}
	if s.Dest == s.Pass {
		return 0
	}
	return 1.0 / (NumCells * NumLocs * (NumLocs - 1))
}

// State is the hidden state.
type State struct {
	Row, Col int // taxi cell
	Pass     int // passenger: LocR..LocB, or InTaxi once picked up
	Dest     int // destination: LocR..LocB
}

// NumStates is the number of hidden states, the range of State.Index.
const NumStates = NumCells * NumPassObs * NumLocs

// Valid says whether every field of s is in range.
func (s State) Valid() bool {
	return s.Row >= 0 && s.Row < GridSize && s.Col >= 0 && s.Col < GridSize &&
		s.Pass >= 0 && s.Pass < NumPassObs && s.Dest >= 0 && s.Dest < NumLocs
}

// Index numbers the valid states 0..NumStates-1.
func (s State) Index() int {
	return ((s.Row*GridSize+s.Col)*NumPassObs+s.Pass)*NumLocs + s.Dest
}

// StateAt is the inverse of State.Index.
func StateAt(i int) State {
	var s State
	s.Dest = i % NumLocs
	i /= NumLocs
	s.Pass = i % NumPassObs
	i /= NumPassObs
	s.Col = i % GridSize
	s.Row = i / GridSize
	return s
}

// Obs is an observation: the taxi's cell as seen, the passenger's location
// as seen (LocR..LocB, or InTaxi, exact once carried), and the destination
// (exact).
type Obs struct {
	Row, Col int
	Pass     int
	Dest     int
}

// NumObs is the number of observations, the range of Obs.Index: every
// seen cell, seen passenger location (LocR..LocB, InTaxi) and destination.
const NumObs = NumCells * NumPassObs * NumLocs

// Valid says whether every field of o is in range.
func (o Obs) Valid() bool {
	return o.Row >= 0 && o.Row < GridSize && o.Col >= 0 && o.Col < GridSize &&
		o.Pass >= 0 && o.Pass < NumPassObs && o.Dest >= 0 && o.Dest < NumLocs
}

// Index numbers the valid observations 0..NumObs-1, densely: distinct
// observations get distinct indices, in the layout of State.Index (an
// observation and the hidden state with the same fields share an index).
func (o Obs) Index() int {
	return ((o.Row*GridSize+o.Col)*NumPassObs+o.Pass)*NumLocs + o.Dest
}

// ObsAt is the inverse of Obs.Index.
func ObsAt(i int) Obs {
	s := StateAt(i)
	return Obs{Row: s.Row, Col: s.Col, Pass: s.Pass, Dest: s.Dest}
}

// Rewards.
const (
	RewardStep    = -1.0
	RewardIllegal = -10.0
	RewardDeliver = 20.0
)

// Transition returns the state after action a in s, its reward, and whether
// the episode ends (a successful dropoff). It ignores the cap.
func Transition(s State, a Action) (next State, reward float64, done bool) {
	switch a {
	case Pickup:
		if s.Pass != InTaxi {
			if r, c := Location(s.Pass); r == s.Row && c == s.Col {
				s.Pass = InTaxi
				return s, RewardStep, false
			}
		}
		return s, RewardIllegal, false
	case Dropoff:
		if s.Pass == InTaxi {
			if r, c := Location(s.Dest); r == s.Row && c == s.Col {
				return s, RewardDeliver, true
			}
		}
		return s, RewardIllegal, false
	}
	s.Row, s.Col = Move(s.Row, s.Col, a)
	return s, RewardStep, false
}

// Env is one NoisyTaxi episode in progress. Use New, then Reset.
type Env struct {
	p         Params
	s         State
	steps     int
	done      bool
	delivered bool
	picked    bool // the last step was the successful pickup
	// Observation thresholds on the 53 bits k of a uniform u = k/2^53
	// (Float64Threshold): u < q exactly when k < kq1, u < 2q when k < kq2,
	// u < SwitchProb when k < kSwitch.
	kq1, kq2, kSwitch uint64
}

// New returns an environment with parameters p, in a finished state: call
// Reset (or ResetTo) before Step.
func New(p Params) (*Env, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Env{p: p, done: true, kq1: Float64Threshold(p.PositionNoise), kq2: Float64Threshold(2 * p.PositionNoise),
		kSwitch: Float64Threshold(p.SwitchProb)}, nil
}

// Params returns the environment's parameters.
func (e *Env) Params() Params { return e.p }

// Reset starts a new episode from a state drawn from the start distribution.
func (e *Env) Reset(rng *rand.Rand) {
	cell := rng.IntN(NumCells)
	pass := rng.IntN(NumLocs)
	var dest int
	if e.p.DestMayEqualPassenger {
		dest = rng.IntN(NumLocs)
	} else {
		dest = (pass + 1 + rng.IntN(NumLocs-1)) % NumLocs
	}
	e.ResetTo(State{Row: cell / GridSize, Col: cell % GridSize, Pass: pass, Dest: dest})
}

// ResetPCG is Reset drawing from rng: the same draws and the same start
// state as Reset with a *rand.Rand over rng's PCG, faster.
func (e *Env) ResetPCG(rng PCGRand) {
	cell := rng.IntN(NumCells)
	pass := rng.IntN(NumLocs)
	var dest int
	if e.p.DestMayEqualPassenger {
		dest = rng.IntN(NumLocs)
	} else {
		dest = (pass + 1 + rng.IntN(NumLocs-1)) % NumLocs
	}
	e.ResetTo(State{Row: cell / GridSize, Col: cell % GridSize, Pass: pass, Dest: dest})
}

// ResetTo starts a new episode from state s (for tests and scripted runs).
// It panics if s is not Valid.
func (e *Env) ResetTo(s State) {
	if !s.Valid() {
		panic("noisytaxi: ResetTo an invalid state")
	}
	e.s = s
	e.steps = 0
	e.done = false
	e.delivered = false
	e.picked = false
}

// noisyCoord returns coordinate c as seen with a uniform draw u = k/2^53
// (k the low 53 bits of a Uint64): c-1 when u < q, else c+1 when u < 2q,
// else c; clamped into the grid.
func (e *Env) noisyCoord(c int, k uint64) int {
	// Branch-free (conditional moves): the noise is a coin flip the CPU
	// cannot predict. kq1 <= kq2, so k < kq1 overrides k < kq2.
	seen, lower, higher := c, max(c-1, 0), min(c+1, GridSize-1)
	if k < e.kq2 {
		seen = higher
	}
	if k < e.kq1 {
		seen = lower
	}
	return seen
}

// switches says whether the passenger is seen as a uniform draw from R, G,
// Y, B given a uniform draw u = k/2^53: u < SwitchProb.
func (e *Env) switches(k uint64) bool { return k < e.kSwitch }

// Observe draws an observation of the current hidden state: one Float64
// for the row, one for the column, then before pickup one Float64 for the
// switch and, when it switches, one IntN(NumLocs). (Each Float64 u is
// compared with its probability on the integer k of u = k/2^53, which
// decides u < p exactly as the float comparison does; see
// Float64Threshold.)
func (e *Env) Observe(rng *rand.Rand) Obs {
	o := Obs{
		Row:  e.noisyCoord(e.s.Row, low53(rng.Uint64())),
		Col:  e.noisyCoord(e.s.Col, low53(rng.Uint64())),
		Pass: e.s.Pass,
		Dest: e.s.Dest,
	}
	if o.Pass != InTaxi && e.switches(low53(rng.Uint64())) {
		o.Pass = rng.IntN(NumLocs)
	}
	return o
}

// ObservePCG is Observe drawing from rng: the same draws and the same
// observation as Observe with a *rand.Rand over rng's PCG, faster.
func (e *Env) ObservePCG(rng PCGRand) Obs {
	o := Obs{
		Row:  e.noisyCoord(e.s.Row, low53(rng.src.Uint64())),
		Col:  e.noisyCoord(e.s.Col, low53(rng.src.Uint64())),
		Pass: e.s.Pass,
		Dest: e.s.Dest,
	}
	if o.Pass != InTaxi && e.switches(low53(rng.src.Uint64())) {
		o.Pass = int(rng.src.Uint64() & (NumLocs - 1)) // IntN(NumLocs), NumLocs being a power of two
	}
	return o
}

// IntN(n) masks a draw when n is a power of two, as ObservePCG does for
// NumLocs: this constant does not compile (it overflows uint) otherwise.
const _ uint = -(NumLocs & (NumLocs - 1))

// Step takes action a and returns its reward and whether the episode has
// ended (a successful dropoff, or the cap reached). Stepping a finished
// episode panics.
func (e *Env) Step(a Action) (reward float64, done bool) {
	if e.done || uint(a) >= NumActions {
		e.badStep()
	}
	// Transition(e.s, a), read from a table: no branch on the action,
	// whose kind (move, pickup, dropoff) the CPU cannot predict.
	t := stepTable[e.s.Index()*NumActions+int(a)]
	e.s.Row, e.s.Col, e.s.Pass = int(t.row), int(t.col), int(t.pass)
	e.delivered, e.picked = t.kind&stepDelivered != 0, t.kind&stepPicked != 0
	e.steps++
	e.done = e.delivered || e.steps >= e.p.Cap
	return stepReward[t.kind&stepRewardMask], e.done
}

// badStep panics with the reason a step is not allowed.
func (e *Env) badStep() {
	if e.done {
		panic("noisytaxi: Step after the episode ended")
	}
	panic("noisytaxi: Step with an invalid action")
}

// stepEntry is Transition(s, a) for one hidden state s and action a: the
// taxi cell and passenger after it (the destination never changes) and
// its kind: the reward's index in stepReward, and flags.
type stepEntry struct{ row, col, pass, kind uint8 }

const (
	stepRewardMask = 3      // kind & stepRewardMask indexes stepReward
	stepDelivered  = 1 << 2 // the step delivered the passenger (done)
	stepPicked     = 1 << 3 // the step was the successful pickup
)

// stepReward is indexed by kind & stepRewardMask (the last entry unused).
var stepReward = [stepRewardMask + 1]float64{RewardStep, RewardIllegal, RewardDeliver, RewardStep}

// stepTable[s.Index()*NumActions + a] is Transition(s, a) for every valid
// state s and action a.
var stepTable = func() (t [NumStates * NumActions]stepEntry) {
	for i := range NumStates {
		s := StateAt(i)
		for a := range Action(NumActions) {
			next, r, done := Transition(s, a)
			var kind uint8
			switch r {
			case RewardStep:
				kind = 0
			case RewardIllegal:
				kind = 1
			case RewardDeliver:
				kind = 2
			default:
				panic("noisytaxi: a reward missing from stepReward")
			}
			if done {
				kind |= stepDelivered
			}
			if s.Pass != InTaxi && next.Pass == InTaxi {
				kind |= stepPicked
			}
			if next.Dest != s.Dest {
				panic("noisytaxi: a transition changes the destination")
			}
			t[i*NumActions+int(a)] = stepEntry{uint8(next.Row), uint8(next.Col), uint8(next.Pass), kind}
		}
	}
	return t
}()

// State returns the hidden state.
func (e *Env) State() State { return e.s }

// Steps returns the number of steps taken in this episode.
func (e *Env) Steps() int { return e.steps }

// Done says whether the episode has ended.
func (e *Env) Done() bool { return e.done }

// Delivered says whether the episode ended with a successful dropoff (as
// opposed to reaching the cap, or not having ended).
func (e *Env) Delivered() bool { return e.delivered }

// Carrying says whether the passenger is in the taxi.
func (e *Env) Carrying() bool { return e.s.Pass == InTaxi }

// PickedUp says whether the last step was the successful pickup: the split
// point of partitioned PDIS (SPEC section 1; tau_1 includes that step).
// There is at most one per episode.
func (e *Env) PickedUp() bool { return e.picked }
