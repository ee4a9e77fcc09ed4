package policies

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/envs/noisytaxi"
	"github.com/ope-lab/longhorizon/trajectory"
)

func cellOf(r, c int) int { return r*noisytaxi.GridSize + c }

// TestTaxiDistances checks BFS distances worked out by hand on the map of
// SPEC 2.3 (walls: 1|2 in rows 0-1, 0|1 and 2|3 in rows 3-4).
func TestTaxiDistances(t *testing.T) {
	tests := []struct {
		name           string
		r1, c1, r2, c2 int
		want           int
	}{
		// (0,1) S (1,1) S (2,1) E (2,2) E (2,3) E (2,4) N (1,4) N (0,4):
		// the 1|2 wall in rows 0 and 1 forces the detour through row 2.
		{"(0,1) to G", 0, 1, 0, 4, 7},
		// (4,0) N (3,0) N (2,0) E E E (2,3) S (3,3) S (4,3): walls 0|1 and
		// 2|3 in rows 3-4.
		{"Y to B", 4, 0, 4, 3, 7},
		{"R to B", 0, 0, 4, 3, 7}, // Manhattan: down to row 2, across, down
		{"(0,1) to (0,2) round the wall", 0, 1, 0, 2, 5},
		{"(4,0) to (4,1) round the wall", 4, 0, 4, 1, 5},
		{"(4,2) to (4,3) round the wall", 4, 2, 4, 3, 5},
		{"R to (4,4)", 0, 0, 4, 4, 8},
		{"same cell", 3, 3, 3, 3, 0},
	}
	for _, tc := range tests {
		if d := taxiDist[cellOf(tc.r1, tc.c1)][cellOf(tc.r2, tc.c2)]; d != tc.want {
			t.Errorf("%s: distance %d, want %d", tc.name, d, tc.want)
		}
	}
	for a := range noisytaxi.NumCells {
		for b := range noisytaxi.NumCells {
			if taxiDist[a][b] != taxiDist[b][a] || taxiDist[a][b] >= unreach {
				t.Fatalf("distance %d -> %d is %d, back %d", a, b, taxiDist[a][b], taxiDist[b][a])
			}
		}
	}
}

// TestTaxiOptimalAction checks a*(o) on observations worked out by hand.
func TestTaxiOptimalAction(t *testing.T) {
	const (
		R, G, Y, B = noisytaxi.LocR, noisytaxi.LocG, noisytaxi.LocY, noisytaxi.LocB
		in         = noisytaxi.InTaxi
	)
	tests := []struct {
		name string
		o    noisytaxi.Obs
		want noisytaxi.Action
	}{
		// From (0,1) to G: N is the edge, E the 1|2 wall, W goes to (0,0)
		// at distance 8; S to (1,1) is at distance 6 = 7 - 1.
		{"carrying (0,1) to G: wall forces S", noisytaxi.Obs{Row: 0, Col: 1, Pass: in, Dest: G}, noisytaxi.South},
		{"passenger seen at G from (0,1): S", noisytaxi.Obs{Row: 0, Col: 1, Pass: G, Dest: R}, noisytaxi.South},
		{"seen at seen passenger cell: Pickup", noisytaxi.Obs{Row: 0, Col: 0, Pass: R, Dest: G}, noisytaxi.Pickup},
		{"seen at B with passenger seen at B, dest B: Pickup", noisytaxi.Obs{Row: 4, Col: 3, Pass: B, Dest: B}, noisytaxi.Pickup},
		{"carrying, seen at destination: Dropoff", noisytaxi.Obs{Row: 4, Col: 3, Pass: in, Dest: B}, noisytaxi.Dropoff},
		{"carrying, seen at destination R: Dropoff", noisytaxi.Obs{Row: 0, Col: 0, Pass: in, Dest: R}, noisytaxi.Dropoff},
		// Carrying at B, destination Y: W is the 2|3 wall, S the edge; N.
		{"carrying at B to Y: N", noisytaxi.Obs{Row: 4, Col: 3, Pass: in, Dest: Y}, noisytaxi.North},
		// From R to G: S to (1,0) and E to (0,1) are both at distance 7
		// (8 - 1); the tie goes to S.
		{"tie S/E goes to S", noisytaxi.Obs{Row: 0, Col: 0, Pass: G, Dest: Y}, noisytaxi.South},
		// From (2,2) to G: N to (1,2) and E to (2,3) both at distance 3;
		// the tie goes to N.
		{"tie N/E goes to N", noisytaxi.Obs{Row: 2, Col: 2, Pass: in, Dest: G}, noisytaxi.North},
		// From G to Y: S to (1,4) and W to (0,3) both at distance 7.
		{"tie S/W goes to S", noisytaxi.Obs{Row: 0, Col: 4, Pass: Y, Dest: R}, noisytaxi.South},
		// From (2,2) to R: W to (2,1) at distance 3; N to (1,2) at 5.
		{"W to R", noisytaxi.Obs{Row: 2, Col: 2, Pass: R, Dest: B}, noisytaxi.West},
		// From (3,2) to B: E is the 2|3 wall; N to (2,2) at distance 3, S
		// to (4,2) at distance 5.
		{"(3,2) to B: N round the wall", noisytaxi.Obs{Row: 3, Col: 2, Pass: B, Dest: R}, noisytaxi.North},
		// Pickup only when not carrying: carrying at R with dest G moves.
		{"carrying at R, dest G: S", noisytaxi.Obs{Row: 0, Col: 0, Pass: in, Dest: G}, noisytaxi.South},
		// Dropoff only when carrying: seen at dest, passenger seen at R.
		{"not carrying at dest: go to passenger", noisytaxi.Obs{Row: 0, Col: 4, Pass: R, Dest: G}, noisytaxi.South},
	}
	for _, tc := range tests {
		if a := TaxiOptimalAction(tc.o); a != tc.want {
			t.Errorf("%s: a*(%+v) = %v, want %v", tc.name, tc.o, a, tc.want)
		}
	}
}

// TestTaxiOptimalActionProperty checks a*(o) on every observation against
// its definition: Pickup/Dropoff exactly at the target, else a move that
// shortens the distance by one, with no earlier move in S, N, E, W order
// that also does.
func TestTaxiOptimalActionProperty(t *testing.T) {
	for r := range noisytaxi.GridSize {
		for c := range noisytaxi.GridSize {
			for ps := range noisytaxi.NumPassObs {
				for d := range noisytaxi.NumLocs {
					o := noisytaxi.Obs{Row: r, Col: c, Pass: ps, Dest: d}
					a := TaxiOptimalAction(o)
					target, act := ps, noisytaxi.Pickup
					if ps == noisytaxi.InTaxi {
						target, act = d, noisytaxi.Dropoff
					}
					tr, tc := noisytaxi.Location(target)
					dist := taxiDist[cellOf(r, c)][cellOf(tr, tc)]
					if dist == 0 {
						if a != act {
							t.Errorf("a*(%+v) = %v, want %v", o, a, act)
						}
						continue
					}
					for m := range noisytaxi.Action(numMoves) {
						nr, nc := noisytaxi.Move(r, c, m)
						if taxiDist[cellOf(nr, nc)][cellOf(tr, tc)] == dist-1 {
							if a != m {
								t.Errorf("a*(%+v) = %v, want %v (first shortening move)", o, a, m)
							}
							break
						}
					}
				}
			}
		}
	}
}

func TestTaxiPrimitiveProb(t *testing.T) {
	o := noisytaxi.Obs{Row: 0, Col: 1, Pass: noisytaxi.InTaxi, Dest: noisytaxi.LocG}
	for _, eps := range []float64{0, 0.05, 0.3, 1} {
		sum := 0.0
		for a := range noisytaxi.Action(noisytaxi.NumActions) {
			sum += TaxiPrimitiveProb(eps, a, o)
		}
		if math.Abs(sum-1) > 1e-15 {
			t.Errorf("eps %v: probabilities sum to %v", eps, sum)
		}
		// SPEC: (1-eps) + eps/6 for a*, eps/6 otherwise
		if p := TaxiPrimitiveProb(eps, noisytaxi.South, o); math.Abs(p-(1-eps+eps/6)) > 1e-15 {
			t.Errorf("eps %v: pi(a*) = %v", eps, p)
		}
		if p := TaxiPrimitiveProb(eps, noisytaxi.East, o); p != eps/6 {
			t.Errorf("eps %v: pi(E) = %v", eps, p)
		}
	}
}

// stepLog is a trajectory.Recorder that keeps everything in pre-grown slices.
type stepLog struct {
	r, rho, opt []float64
	changed     []bool
	split       []int // step index (within the episode) of each MarkSplit
	ends        int
}

func newStepLog(steps int) *stepLog {
	return &stepLog{
		r: make([]float64, 0, steps), rho: make([]float64, 0, steps), opt: make([]float64, 0, steps),
		changed: make([]bool, 0, steps), split: make([]int, 0, 16),
	}
}

func (l *stepLog) AddOption(r, rho, optionRatio float64, changed bool) {
	l.r = append(l.r, r)
	l.rho = append(l.rho, rho)
	l.opt = append(l.opt, optionRatio)
	l.changed = append(l.changed, changed)
}
func (l *stepLog) MarkSplit() { l.split = append(l.split, len(l.r)-1) }
func (l *stepLog) End()       { l.ends++ }
func (l *stepLog) reset() {
	l.r, l.rho, l.opt, l.changed, l.split, l.ends = l.r[:0], l.rho[:0], l.opt[:0], l.changed[:0], l.split[:0], 0
}

// TestRolloutPrimitiveRatios (m = 1) replays each episode with the same
// random stream, transcribing SPEC's behavior policy independently (draw
// order: Reset, then per step Observe and one uniform, plus one action
// draw when exploring), and checks the recorded rewards, rho = optionRatio
// = pi_e(a|o)/pi_b(a|o), their product, the split at the pickup and End.
func TestRolloutPrimitiveRatios(t *testing.T) {
	const epsB, epsE = 0.3, 0.05
	ro, err := NewTaxiRollout(1, epsB, epsE)
	if err != nil {
		t.Fatal(err)
	}
	env, _ := noisytaxi.New(noisytaxi.DefaultParams())
	replay, _ := noisytaxi.New(noisytaxi.DefaultParams())
	log := newStepLog(512)
	for ep := range 300 {
		log.reset()
		seed := uint64(ep)
		ret, steps := ro.Episode(env, rand.New(rand.NewPCG(seed, 9)), log)
		rng := rand.New(rand.NewPCG(seed, 9))
		replay.Reset(rng)
		prod, recProd, sum := 1.0, 1.0, 0.0
		pickStep := -1
		for i := 0; ; i++ {
			o := replay.Observe(rng)
			a := TaxiOptimalAction(o)
			if rng.Float64() < epsB {
				a = noisytaxi.Action(rng.IntN(noisytaxi.NumActions))
			}
			want := TaxiPrimitiveProb(epsE, a, o) / TaxiPrimitiveProb(epsB, a, o)
			r, done := replay.Step(a)
			if i >= len(log.r) {
				t.Fatalf("episode %d: %d steps recorded, replay has more", ep, len(log.r))
			}
			if log.r[i] != r || math.Abs(log.rho[i]-want) > 1e-14*want || log.opt[i] != log.rho[i] || log.changed[i] {
				t.Fatalf("episode %d step %d: recorded (r %v, rho %v, opt %v, changed %v), want (%v, %v, rho, false)",
					ep, i, log.r[i], log.rho[i], log.opt[i], log.changed[i], r, want)
			}
			prod *= want
			recProd *= log.rho[i]
			sum += r
			if replay.PickedUp() {
				pickStep = i
			}
			if done {
				if i+1 != len(log.r) || steps != i+1 {
					t.Fatalf("episode %d: replay ends after %d steps, recorded %d, returned %d", ep, i+1, len(log.r), steps)
				}
				break
			}
		}
		if math.Abs(prod-recProd) > 1e-12*prod {
			t.Errorf("episode %d: product of rho %v, recomputed %v", ep, recProd, prod)
		}
		if ret != sum || log.ends != 1 {
			t.Errorf("episode %d: return %v (replay %v), %d Ends", ep, ret, sum, log.ends)
		}
		switch {
		case pickStep < 0 && len(log.split) != 0,
			pickStep >= 0 && (len(log.split) != 1 || log.split[0] != pickStep):
			t.Errorf("episode %d: splits at %v, pickup at step %d", ep, log.split, pickStep)
		}
	}
}

// TestRolloutOptionRatios (m >= 2): rho is 1 everywhere, optionRatio is
// (1-eps_e)/(1-eps_b) or eps_e/eps_b on steps 0, m, 2m, ... (option
// starts) and exactly 1 elsewhere, and the random option is logged with
// frequency eps_b.
func TestRolloutOptionRatios(t *testing.T) {
	// variables, not constants: the ratios must be computed in float64 as
	// NewTaxiRollout does (constant 0.05/0.3 is exactly 1/6)
	epsB, epsE := 0.3, 0.05
	for _, m := range []int{2, 3, 5} {
		ro, err := NewTaxiRollout(m, epsB, epsE)
		if err != nil {
			t.Fatal(err)
		}
		env, _ := noisytaxi.New(noisytaxi.DefaultParams())
		rng := rand.New(rand.NewPCG(uint64(m), 1))
		log := newStepLog(512)
		var options, random int
		for ep := range 2000 {
			log.reset()
			_, steps := ro.Episode(env, rng, log)
			if steps != len(log.r) || log.ends != 1 {
				t.Fatalf("m %d episode %d: %d steps, %d recorded, %d Ends", m, ep, steps, len(log.r), log.ends)
			}
			for i := range log.r {
				if log.rho[i] != 1 || log.changed[i] {
					t.Fatalf("m %d: step %d has rho %v changed %v", m, i, log.rho[i], log.changed[i])
				}
				switch {
				case i%m != 0 && log.opt[i] != 1:
					t.Fatalf("m %d: option ratio %v inside an option (step %d)", m, log.opt[i], i)
				case i%m == 0 && log.opt[i] == (1-epsE)/(1-epsB):
					options++
				case i%m == 0 && log.opt[i] == epsE/epsB:
					options++
					random++
				case i%m == 0:
					t.Fatalf("m %d: option ratio %v at option start (step %d)", m, log.opt[i], i)
				}
			}
			if len(log.split) > 1 || (len(log.split) == 1 && log.r[log.split[0]] != -1) {
				t.Fatalf("m %d: splits %v", m, log.split)
			}
			if env.Delivered() && len(log.split) != 1 {
				t.Fatalf("m %d: delivered without a split", m)
			}
		}
		p := float64(random) / float64(options)
		if se := math.Sqrt(epsB * (1 - epsB) / float64(options)); math.Abs(p-epsB) > 4*se {
			t.Errorf("m %d: random options %.4f of %d, want %v +- 4*%.4f", m, p, options, epsB, se)
		}
	}
}

func TestNewTaxiRolloutErrors(t *testing.T) {
	tests := []struct {
		m          int
		epsB, epsE float64
	}{
		{0, 0.3, 0.05},
		{1, -0.1, 0.05},
		{1, 0.3, 1.5},
		{1, 0, 0.05}, // random actions of pi_e not covered
		{2, 1, 0.05}, // optimal option of mu_e not covered
		{2, math.NaN(), 0.05},
	}
	for _, tc := range tests {
		if _, err := NewTaxiRollout(tc.m, tc.epsB, tc.epsE); err == nil {
			t.Errorf("NewTaxiRollout(%d, %v, %v) accepted", tc.m, tc.epsB, tc.epsE)
		}
	}
	for _, tc := range []struct {
		m          int
		epsB, epsE float64
	}{{1, 0.3, 0.05}, {3, 0.3, 0.05}, {1, 0, 0}, {2, 1, 1}, {1, 1, 0.05}} {
		if _, err := NewTaxiRollout(tc.m, tc.epsB, tc.epsE); err != nil {
			t.Errorf("NewTaxiRollout(%d, %v, %v): %v", tc.m, tc.epsB, tc.epsE, err)
		}
	}
}

func TestRolloutAllocs(t *testing.T) {
	env, _ := noisytaxi.New(noisytaxi.DefaultParams())
	rng := rand.New(rand.NewPCG(1, 1))
	log := newStepLog(4096)
	for _, m := range []int{1, 3} {
		ro, _ := NewTaxiRollout(m, 0.3, 0.05)
		allocs := testing.AllocsPerRun(200, func() {
			if len(log.r) > 3000 {
				log.reset()
			}
			ro.Episode(env, rng, log)
		})
		if allocs != 0 {
			t.Errorf("m %d: a rollout allocates %v times", m, allocs)
		}
	}
}

// TestRolloutIntoBatch: a rollout into a pre-grown *trajectory.Batch
// records one trajectory per episode, with its split, without allocating.
func TestRolloutIntoBatch(t *testing.T) {
	env, _ := noisytaxi.New(noisytaxi.DefaultParams())
	rng := rand.New(rand.NewPCG(3, 3))
	ro, _ := NewTaxiRollout(1, 0.3, 0.05)
	var b trajectory.Batch
	b.Grow(300, 300*200)
	allocs := testing.AllocsPerRun(100, func() { ro.Episode(env, rng, &b) })
	if allocs != 0 {
		t.Errorf("a rollout into a grown batch allocates %v times", allocs)
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	if b.N() != 101 { // AllocsPerRun runs the function once more to warm up
		t.Errorf("%d trajectories, want 101", b.N())
	}
	for i := range b.N() {
		splits := 0
		for s := b.Offsets[i]; s < b.Offsets[i+1]; s++ {
			if b.Split[s] {
				splits++
			}
		}
		if splits > 1 {
			t.Errorf("trajectory %d has %d splits", i, splits)
		}
	}
}

// discard is a trajectory.Recorder that keeps nothing.
type discard struct{ steps int }

func (d *discard) AddOption(r, rho, optionRatio float64, changed bool) { d.steps++ }
func (d *discard) MarkSplit()                                          {}
func (d *discard) End()                                                {}

// BenchmarkRollout reports primitive steps per second of behavior rollouts
// (eps_b 0.3 against eps_e 0.05) into a recorder.
func BenchmarkRollout(b *testing.B) {
	for _, m := range []int{1, 2, 3} {
		b.Run("m="+string(rune('0'+m)), func(b *testing.B) {
			env, _ := noisytaxi.New(noisytaxi.DefaultParams())
			rng := rand.New(rand.NewPCG(1, 2))
			ro, _ := NewTaxiRollout(m, 0.3, 0.05)
			var rec discard
			b.ReportAllocs()
			for b.Loop() {
				ro.Episode(env, rng, &rec)
			}
			b.ReportMetric(float64(rec.steps)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}

// BenchmarkRolloutBatch is BenchmarkRollout recording into a reused
// trajectory.Batch (as a domain's Collect does), on the *rand.Rand path
// (Episode) and on the fast path (EpisodePCG), from equal seeds: both draw
// the same episodes.
func BenchmarkRolloutBatch(b *testing.B) {
	for _, path := range []string{"rand", "pcg"} {
		for _, m := range []int{1, 2, 3} {
			b.Run(path+"/m="+string(rune('0'+m)), func(b *testing.B) {
				env, _ := noisytaxi.New(noisytaxi.DefaultParams())
				src := rand.NewPCG(1, 2)
				rng, fast := rand.New(src), noisytaxi.NewPCGRand(src)
				ro, _ := NewTaxiRollout(m, 0.3, 0.05)
				var batch trajectory.Batch
				batch.Grow(1000, 1000*200)
				steps, episodes := 0, 0
				b.ReportAllocs()
				for b.Loop() {
					if episodes%1000 == 0 {
						steps += batch.Steps()
						batch.Reset()
					}
					episodes++
					if path == "rand" {
						ro.Episode(env, rng, &batch)
					} else {
						ro.EpisodePCG(env, fast, &batch)
					}
				}
				steps += batch.Steps()
				b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
			})
		}
	}
}
