package noisytaxi

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// specMap is the map of SPEC section 2.3, copied verbatim.
const specMap = `+---------+
|R: | : :G|
| : | : : |
| : : : : |
| | : | : |
|Y| : |B: |
+---------+`

// TestWallsMatchSpecMap parses the ASCII map: in a map row, cell c is at
// character 2c+1 and the separator east of it at 2c+2 ('|' = wall).
func TestWallsMatchSpecMap(t *testing.T) {
	lines := strings.Split(specMap, "\n")[1:6]
	n := 0
	for r, line := range lines {
		for c := 0; c < GridSize-1; c++ {
			wall := line[2*c+2] == '|'
			if wall {
				n++
			}
			if wallEast[r][c] != wall {
				t.Errorf("wall east of (%d,%d): have %v, map says %v", r, c, wallEast[r][c], wall)
			}
			// a move is blocked by the wall in both directions
			if r2, c2 := Move(r, c, East); (r2 == r && c2 == c) != wall {
				t.Errorf("E from (%d,%d) -> (%d,%d), wall %v", r, c, r2, c2, wall)
			}
			if r2, c2 := Move(r, c+1, West); (r2 == r && c2 == c+1) != wall {
				t.Errorf("W from (%d,%d) -> (%d,%d), wall %v", r, c+1, r2, c2, wall)
			}
		}
		for l := range NumLocs {
			if lr, lc := Location(l); lr == r && line[2*lc+1] != "RGYB"[l] {
				t.Errorf("location %c at (%d,%d), map has %q", "RGYB"[l], lr, lc, line[2*lc+1])
			}
		}
	}
	if n != 6 {
		t.Errorf("%d interior wall segments, SPEC draws 6", n)
	}
}

func TestMove(t *testing.T) {
	tests := []struct {
		name       string
		r, c       int
		a          Action
		wantR, wtC int
	}{
		{"E into wall 1|2 row 0", 0, 1, East, 0, 1},
		{"E into wall 1|2 row 1", 1, 1, East, 1, 1},
		{"W into wall 1|2 row 0", 0, 2, West, 0, 2},
		{"E open in row 2", 2, 1, East, 2, 2},
		{"E into wall 0|1 row 4", 4, 0, East, 4, 0},
		{"W into wall 2|3 row 3", 3, 3, West, 3, 3},
		{"E open in row 0", 0, 0, East, 0, 1},
		{"N at top edge", 0, 3, North, 0, 3},
		{"S at bottom edge", 4, 4, South, 4, 4},
		{"E at right edge", 2, 4, East, 2, 4},
		{"W at left edge", 1, 0, West, 1, 0},
		{"S is row+1", 1, 2, South, 2, 2},
		{"N is row-1", 1, 2, North, 0, 2},
		{"Pickup does not move", 1, 2, Pickup, 1, 2},
	}
	for _, tc := range tests {
		if r, c := Move(tc.r, tc.c, tc.a); r != tc.wantR || c != tc.wtC {
			t.Errorf("%s: Move(%d,%d,%v) = (%d,%d), want (%d,%d)", tc.name, tc.r, tc.c, tc.a, r, c, tc.wantR, tc.wtC)
		}
	}
}

// TestScriptedEpisode: taxi at (2,2), passenger at R, destination G. The
// rewards are those of SPEC 2.3: -1 per move, -1 for the successful pickup,
// +20 for the dropoff, which ends the episode.
func TestScriptedEpisode(t *testing.T) {
	env, err := New(DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	env.ResetTo(State{Row: 2, Col: 2, Pass: LocR, Dest: LocG})
	script := []struct {
		a      Action
		r      float64
		picked bool
		done   bool
	}{
		{West, -1, false, false}, {West, -1, false, false}, // (2,0)
		{North, -1, false, false}, {North, -1, false, false}, // (0,0) = R
		{Pickup, -1, true, false},
		{East, -1, false, false},                             // (0,1)
		{South, -1, false, false}, {South, -1, false, false}, // (2,1): the wall blocks E in rows 0, 1
		{East, -1, false, false}, {East, -1, false, false}, {East, -1, false, false}, // (2,4)
		{North, -1, false, false}, {North, -1, false, false}, // (0,4) = G
		{Dropoff, 20, false, true},
	}
	for i, s := range script {
		r, done := env.Step(s.a)
		if r != s.r || done != s.done || env.PickedUp() != s.picked {
			t.Fatalf("step %d (%v): reward %v done %v picked %v, want %v %v %v (state %+v)",
				i, s.a, r, done, env.PickedUp(), s.r, s.done, s.picked, env.State())
		}
	}
	if !env.Delivered() || env.Steps() != len(script) {
		t.Errorf("delivered %v after %d steps, want true after %d", env.Delivered(), env.Steps(), len(script))
	}
	defer func() {
		if recover() == nil {
			t.Error("Step after the end did not panic")
		}
	}()
	env.Step(North)
}

// TestIllegalPickupDropoff: every pickup or dropoff other than the two
// successful ones gives -10 and changes nothing (SPEC 2.3).
func TestIllegalPickupDropoff(t *testing.T) {
	tests := []struct {
		name string
		s    State
		a    Action
	}{
		{"pickup away from passenger", State{2, 2, LocR, LocG}, Pickup},
		{"pickup at another location", State{0, 4, LocR, LocG}, Pickup},
		{"pickup while carrying", State{0, 0, InTaxi, LocG}, Pickup},
		{"dropoff not carrying, at destination", State{0, 4, LocR, LocG}, Dropoff},
		{"dropoff not carrying, at passenger", State{0, 0, LocR, LocG}, Dropoff},
		{"dropoff carrying, elsewhere", State{0, 0, InTaxi, LocG}, Dropoff},
	}
	env, _ := New(DefaultParams())
	for _, tc := range tests {
		env.ResetTo(tc.s)
		r, done := env.Step(tc.a)
		if r != -10 || done || env.State() != tc.s || env.PickedUp() {
			t.Errorf("%s: reward %v done %v state %+v picked %v; want -10 false %+v false",
				tc.name, r, done, env.State(), env.PickedUp(), tc.s)
		}
	}
	// Pickup then dropoff where passenger and destination coincide.
	env.ResetTo(State{4, 3, LocB, LocB})
	if r, _ := env.Step(Pickup); r != -1 || !env.PickedUp() {
		t.Errorf("pickup at B: reward %v picked %v", r, env.PickedUp())
	}
	if r, done := env.Step(Dropoff); r != 20 || !done {
		t.Errorf("dropoff at B: reward %v done %v", r, done)
	}
}

func TestCap(t *testing.T) {
	p := DefaultParams()
	p.Cap = 7
	env, _ := New(p)
	env.ResetTo(State{2, 2, LocR, LocG})
	for i := 1; i <= 7; i++ {
		_, done := env.Step(South)
		if done != (i == 7) {
			t.Fatalf("step %d: done %v", i, done)
		}
	}
	if env.Delivered() {
		t.Error("capped episode reports delivered")
	}
}

// within checks that count/n is within 4 standard errors of p.
func within(t *testing.T, what string, count, n int, p float64) {
	t.Helper()
	f := float64(count) / float64(n)
	se := math.Sqrt(p * (1 - p) / float64(n))
	if p == 0 || p == 1 {
		if f != p {
			t.Errorf("%s: frequency %v, want exactly %v", what, f, p)
		}
		return
	}
	if math.Abs(f-p) > 4*se {
		t.Errorf("%s: frequency %.5f, want %.5f +- 4*%.5f", what, f, p, se)
	}
}

// TestObservationFrequencies: 200k draws; expected probabilities are SPEC
// 2.3's: 0.85 / 0.075 / 0.075 in the interior, 0.925 / 0.075 at an edge
// (the clamped 0.075 adds to the true coordinate), passenger true with
// 0.85 + 0.15/4 = 0.8875, each other location 0.15/4 = 0.0375.
func TestObservationFrequencies(t *testing.T) {
	const n = 200000
	rng := rand.New(rand.NewPCG(1, 2))
	env, _ := New(DefaultParams())
	tests := []struct {
		s        State
		row, col [GridSize]float64
		pass     [NumPassObs]float64
	}{
		{State{2, 1, LocY, LocB},
			[GridSize]float64{0, 0.075, 0.85, 0.075, 0},
			[GridSize]float64{0.075, 0.85, 0.075, 0, 0},
			[NumPassObs]float64{0.0375, 0.0375, 0.8875, 0.0375, 0}},
		{State{0, 4, LocG, LocR},
			[GridSize]float64{0.925, 0.075, 0, 0, 0},
			[GridSize]float64{0, 0, 0, 0.075, 0.925},
			[NumPassObs]float64{0.0375, 0.8875, 0.0375, 0.0375, 0}},
		{State{4, 0, InTaxi, LocG},
			[GridSize]float64{0, 0, 0, 0.075, 0.925},
			[GridSize]float64{0.925, 0.075, 0, 0, 0},
			[NumPassObs]float64{0, 0, 0, 0, 1}},
	}
	p := DefaultParams()
	for _, tc := range tests {
		env.ResetTo(tc.s)
		var rows, cols [GridSize]int
		var pass [NumPassObs]int
		for range n {
			o := env.Observe(rng)
			rows[o.Row]++
			cols[o.Col]++
			pass[o.Pass]++
			if o.Dest != tc.s.Dest {
				t.Fatalf("destination seen as %d, is %d", o.Dest, tc.s.Dest)
			}
		}
		if env.State() != tc.s {
			t.Fatal("Observe changed the state")
		}
		for i := range GridSize {
			within(t, "row", rows[i], n, tc.row[i])
			within(t, "col", cols[i], n, tc.col[i])
		}
		for i := range NumPassObs {
			within(t, "passenger", pass[i], n, tc.pass[i])
		}
		// the exported distributions say the same
		if d := p.CoordObsProbs(tc.s.Row); !close5(d[:], tc.row[:]) {
			t.Errorf("CoordObsProbs(%d) = %v, want %v", tc.s.Row, d, tc.row)
		}
		if d := p.CoordObsProbs(tc.s.Col); !close5(d[:], tc.col[:]) {
			t.Errorf("CoordObsProbs(%d) = %v, want %v", tc.s.Col, d, tc.col)
		}
		if d := p.PassObsProbs(tc.s.Pass); !close5(d[:], tc.pass[:]) {
			t.Errorf("PassObsProbs(%d) = %v, want %v", tc.s.Pass, d, tc.pass)
		}
	}
}

func close5(a, b []float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return true
}

// TestObsProbSums: the observation distribution sums to 1 in every state.
func TestObsProbSums(t *testing.T) {
	p := DefaultParams()
	for i := range NumStates {
		s := StateAt(i)
		if s.Index() != i || !s.Valid() {
			t.Fatalf("StateAt(%d) = %+v, Index %d", i, s, s.Index())
		}
		sum := 0.0
		for r := range GridSize {
			for c := range GridSize {
				for ps := range NumPassObs {
					sum += p.ObsProb(s, Obs{r, c, ps, s.Dest})
				}
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("state %+v: observation probabilities sum to %v", s, sum)
		}
	}
}

// TestStartDistribution: StartProb sums to 1; Reset's destination equals
// the passenger's location with probability 1/4 by default (independent
// draws) and never when DestMayEqualPassenger is false.
func TestStartDistribution(t *testing.T) {
	for _, mayEqual := range []bool{true, false} {
		p := DefaultParams()
		p.DestMayEqualPassenger = mayEqual
		sum, eq := 0.0, 0.0
		for i := range NumStates {
			s := StateAt(i)
			sum += p.StartProb(s)
			if s.Pass == s.Dest {
				eq += p.StartProb(s)
			}
		}
		want := 0.25
		if !mayEqual {
			want = 0
		}
		if math.Abs(sum-1) > 1e-12 || math.Abs(eq-want) > 1e-12 {
			t.Errorf("mayEqual %v: StartProb sums to %v, P(dest = pass) = %v, want 1, %v", mayEqual, sum, eq, want)
		}
		env, _ := New(p)
		rng := rand.New(rand.NewPCG(3, 4))
		const n = 100000
		var same, corner int
		for range n {
			env.Reset(rng)
			s := env.State()
			if s.Pass == s.Dest {
				same++
			}
			if s.Row == 0 && s.Col == 0 {
				corner++
			}
		}
		within(t, "dest = pass", same, n, want)
		within(t, "taxi at (0,0)", corner, n, 1.0/25)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		field string
		edit  func(*Params)
	}{
		{"Cap", func(p *Params) { p.Cap = 0 }},
		{"PositionNoise", func(p *Params) { p.PositionNoise = 0.6 }},
		{"PositionNoise", func(p *Params) { p.PositionNoise = math.NaN() }},
		{"SwitchProb", func(p *Params) { p.SwitchProb = -0.1 }},
	}
	if err := DefaultParams().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		p := DefaultParams()
		tc.edit(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("Validate(%+v) = %v, want an error naming %s", p, err, tc.field)
		}
		if _, err := New(p); err == nil {
			t.Errorf("New(%+v) accepted bad params", p)
		}
	}
}

func TestStepObserveAllocs(t *testing.T) {
	env, _ := New(DefaultParams())
	rng := rand.New(rand.NewPCG(5, 6))
	var sink Obs
	allocs := testing.AllocsPerRun(1000, func() {
		if env.Done() {
			env.Reset(rng)
		}
		sink = env.Observe(rng)
		env.Step(Action(rng.IntN(NumActions)))
	})
	if allocs != 0 {
		t.Errorf("Reset/Observe/Step allocate %v times per run", allocs)
	}
	_ = sink
}

// TestObsIndex: Obs.Index maps the 5 x 5 x 5 x 4 = 500 valid observations
// (seen row, seen column, seen passenger R, G, Y, B or in taxi,
// destination) one to one onto 0..NumObs-1, and ObsAt inverts it.
func TestObsIndex(t *testing.T) {
	if NumObs != 500 {
		t.Fatalf("NumObs = %d, want 5*5*5*4 = 500", NumObs)
	}
	seen := make([]bool, NumObs)
	n := 0
	for r := range GridSize {
		for c := range GridSize {
			for ps := range NumPassObs {
				for d := range NumLocs {
					o := Obs{Row: r, Col: c, Pass: ps, Dest: d}
					i := o.Index()
					if !o.Valid() || i < 0 || i >= NumObs || seen[i] {
						t.Fatalf("%+v: index %d out of range or taken (valid %v)", o, i, o.Valid())
					}
					seen[i] = true
					n++
					if back := ObsAt(i); back != o {
						t.Fatalf("ObsAt(%d) = %+v, want %+v", i, back, o)
					}
				}
			}
		}
	}
	if n != NumObs {
		t.Errorf("%d observations enumerated, want %d", n, NumObs)
	}
	for _, o := range []Obs{{Row: -1}, {Row: GridSize}, {Col: GridSize}, {Pass: NumPassObs}, {Dest: NumLocs}, {Dest: -1}} {
		if o.Valid() {
			t.Errorf("%+v reported valid", o)
		}
	}
}
