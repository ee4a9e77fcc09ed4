// Package noisytaxi is the NoisyTaxi domain of Experiments 1 and 2 (SPEC
// section 2.3): the 5x5 Taxi grid of Dietterich (2000) with a partially
// observable taxi position and passenger location.
//
// The grid, with R = (row 0, col 0), G = (0, 4), Y = (4, 0), B = (4, 3) and
// its six interior wall segments ('|'):
//
//	+---------+
//	|R: | : :G|   row 0: wall between columns 1 and 2
//	| : | : : |   row 1: wall between columns 1 and 2
//	| : : : : |   row 2: no walls
//	| | : | : |   row 3: walls between columns 0|1 and 2|3
//	|Y| : |B: |   row 4: walls between columns 0|1 and 2|3
//	+---------+
//
// Contract:
//
//   - Actions are South, North, East, West, Pickup, Dropoff, numbered 0..5 in
//     that order; South is row+1, North row-1, East col+1, West col-1. A move
//     into a wall or the grid's edge leaves the taxi in place.
//   - Hidden state: taxi (Row, Col), passenger Pass (a location LocR..LocB, or
//     InTaxi once picked up) and destination Dest (a location).
//   - Reset draws the taxi uniformly over the 25 cells, the passenger
//     uniformly over R, G, Y, B and the destination uniformly over R, G, Y, B
//     independently of the passenger (interp.; with
//     Params.DestMayEqualPassenger false, uniformly over the three others).
//   - Reward of a step: +20 for a Dropoff of the carried passenger at the
//     destination, which ends the episode; -10 for any other Pickup or
//     Dropoff, which changes nothing; -1 otherwise, a successful Pickup (taxi
//     on the passenger's cell, passenger not yet carried) included.
//   - An episode also ends after Params.Cap primitive steps (interp.,
//     default 200).
//   - Observations are drawn afresh from the current hidden state each time
//     Observe is called (interp.: memoryless). Taxi row c is seen as c with
//     probability 1 - 2q, as c-1 and as c+1 with probability q each
//     (q = Params.PositionNoise, 0.075), clamped into the grid so that at an
//     edge the clamped mass adds to c; the column likewise and independently.
//     Before pickup the passenger's location is seen as the true one with
//     probability 1 - s, else as one of R, G, Y, B uniformly, the true one
//     included (s = Params.SwitchProb, 0.15; the true location is seen with
//     probability 1 - 3s/4 = 0.8875). After pickup it is seen as InTaxi,
//     exactly. The destination is seen exactly.
//
// Obs.Index numbers the NumObs = 500 observations densely (ObsAt inverts
// it): the observation ids of SPEC 1d's tabular models.
//
// Transition, Params.CoordObsProbs, Params.PassObsProbs and Params.StartProb
// expose the dynamics, the observation distribution and the start
// distribution in a form an exact dynamic program can enumerate. Env.Step and
// Env.Observe do not allocate. Randomness comes only from the *rand.Rand
// passed to Reset and Observe (or the PCGRand passed to ResetPCG and
// ObservePCG, which draw the same numbers faster); transitions are
// deterministic.
package noisytaxi
