package noisytaxi

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestPCGRandMatchesRand draws mixed sequences of Uint64, Float64 and IntN
// from a PCGRand and from a *rand.Rand over an equal PCG, and requires the
// same values and the same generator state after every draw. The IntN
// arguments include powers of two (masking), small n (the rejection test
// that almost never fails) and n just above 2^62 and 2^63, where Lemire's
// rejection loop runs often (about a half and a quarter of the draws).
func TestPCGRandMatchesRand(t *testing.T) {
	ns := []int{1, 2, 3, 4, 5, 6, 7, 25, 64, 1000, 1<<30 + 1}
	if math.MaxInt == math.MaxInt64 {
		for _, n := range []uint64{1<<31 - 1, 1 << 31, 1<<32 + 1, 1<<62 + 1, 1<<62 + 12345, 3 << 61, 1<<63 - 1} {
			ns = append(ns, int(n))
		}
	}
	for seed := range uint64(20) {
		fast := NewPCGRand(rand.NewPCG(seed, seed^0xabcdef))
		refPCG := rand.NewPCG(seed, seed^0xabcdef)
		ref := rand.New(refPCG)
		pick := rand.New(rand.NewPCG(seed, 77)) // chooses the calls
		for i := range 20000 {
			switch c := pick.IntN(3); c {
			case 0:
				if g, w := fast.Uint64(), ref.Uint64(); g != w {
					t.Fatalf("seed %d draw %d: Uint64 %d, want %d", seed, i, g, w)
				}
			case 1:
				if g, w := fast.Float64(), ref.Float64(); math.Float64bits(g) != math.Float64bits(w) {
					t.Fatalf("seed %d draw %d: Float64 %v, want %v", seed, i, g, w)
				}
			case 2:
				n := ns[pick.IntN(len(ns))]
				if g, w := fast.IntN(n), ref.IntN(n); g != w {
					t.Fatalf("seed %d draw %d: IntN(%d) %d, want %d", seed, i, n, g, w)
				}
			}
			if *fast.Source() != *refPCG {
				t.Fatalf("seed %d draw %d: generator states differ", seed, i)
			}
		}
	}
}

func TestPCGRandIntNPanics(t *testing.T) {
	for _, n := range []int{0, -1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("IntN(%d) did not panic", n)
				}
			}()
			NewPCGRand(rand.NewPCG(1, 2)).IntN(n)
		}()
	}
}

// TestFloat64Threshold checks that k < Float64Threshold(p) decides
// float64(k)/2^53 < p, the comparison of a Float64 draw, for k at and
// around the threshold, at the ends of the range and at random, for the
// domain's probabilities, edge cases and random p.
func TestFloat64Threshold(t *testing.T) {
	ps := []float64{0, 1, 0.3, 0.05, 0.075, 0.15, 2 * 0.075, 0.5, 1.0 / 3, 0.1, 0.7, 0.95,
		math.SmallestNonzeroFloat64, 0x1p-53, 0x1p-54, 3 * 0x1p-54, 1 - 0x1p-53, math.Nextafter(1, 0), math.Nextafter(1, 2),
		-0.0, -1, 2, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		ps = append(ps, rng.Float64(), float64(rng.Uint64()>>11)/(1<<53), math.Ldexp(rng.Float64(), -rng.IntN(60)))
	}
	const top = 1 << 53
	for _, p := range ps {
		th := Float64Threshold(p)
		if th > top {
			t.Fatalf("Float64Threshold(%v) = %d, above 2^53", p, th)
		}
		ks := []uint64{0, 1, top - 2, top - 1}
		for d := uint64(0); d < 3; d++ {
			if th >= d && th-d < top {
				ks = append(ks, th-d)
			}
			if th+d < top {
				ks = append(ks, th+d)
			}
		}
		for range 50 {
			ks = append(ks, rng.Uint64()<<11>>11)
		}
		for _, k := range ks {
			if want := float64(k)/(1<<53) < p; (k < th) != want {
				t.Fatalf("p %v (threshold %d), k %d: k < threshold is %v, float comparison %v", p, th, k, k < th, want)
			}
		}
	}
}

// refObserve and refReset are the original Observe and Reset, drawing
// Float64 and IntN from a *rand.Rand and comparing in floating point.
func refObserve(p Params, s State, rng *rand.Rand) Obs {
	q1, q2 := p.PositionNoise, 2*p.PositionNoise
	coord := func(c int, u float64) int {
		switch {
		case u < q1:
			return max(c-1, 0)
		case u < q2:
			return min(c+1, GridSize-1)
		}
		return c
	}
	o := Obs{Row: coord(s.Row, rng.Float64()), Col: coord(s.Col, rng.Float64()), Pass: s.Pass, Dest: s.Dest}
	if o.Pass != InTaxi && rng.Float64() < p.SwitchProb {
		o.Pass = rng.IntN(NumLocs)
	}
	return o
}

func refReset(p Params, rng *rand.Rand) State {
	cell := rng.IntN(NumCells)
	pass := rng.IntN(NumLocs)
	var dest int
	if p.DestMayEqualPassenger {
		dest = rng.IntN(NumLocs)
	} else {
		dest = (pass + 1 + rng.IntN(NumLocs-1)) % NumLocs
	}
	return State{Row: cell / GridSize, Col: cell % GridSize, Pass: pass, Dest: dest}
}

// TestObserveResetBitIdentical runs the original Reset and Observe, the
// current ones over a *rand.Rand and ResetPCG and ObservePCG side by side
// on equal generators and requires the same states, observations and
// generator states throughout.
func TestObserveResetBitIdentical(t *testing.T) {
	params := []Params{DefaultParams(),
		{Cap: 200, PositionNoise: 0.075, SwitchProb: 0.15},
		{Cap: 50, PositionNoise: 0.5, SwitchProb: 1, DestMayEqualPassenger: true},
		{Cap: 50, PositionNoise: 0, SwitchProb: 0, DestMayEqualPassenger: true},
		{Cap: 50, PositionNoise: 0.3, SwitchProb: 0.6},
	}
	for pi, p := range params {
		a, _ := New(p) // *rand.Rand
		b, _ := New(p) // PCGRand
		for seed := range uint64(10) {
			refPCG, aPCG, bPCG := rand.NewPCG(seed, 1), rand.NewPCG(seed, 1), rand.NewPCG(seed, 1)
			ref, ra, rb := rand.New(refPCG), rand.New(aPCG), NewPCGRand(bPCG)
			for ep := range 200 {
				want := refReset(p, ref)
				a.Reset(ra)
				b.ResetPCG(rb)
				if a.State() != want || b.State() != want {
					t.Fatalf("params %d seed %d episode %d: Reset %+v, ResetPCG %+v, want %+v", pi, seed, ep, a.State(), b.State(), want)
				}
				for !a.Done() {
					wo := refObserve(p, a.State(), ref)
					oa, ob := a.Observe(ra), b.ObservePCG(rb)
					if oa != wo || ob != wo {
						t.Fatalf("params %d seed %d episode %d: Observe %+v, ObservePCG %+v, want %+v", pi, seed, ep, oa, ob, wo)
					}
					act := Action(ref.IntN(NumActions))
					ra.IntN(NumActions)
					rb.IntN(NumActions)
					a.Step(act)
					b.Step(act)
					if b.State() != a.State() || b.Done() != a.Done() || b.PickedUp() != a.PickedUp() {
						t.Fatalf("params %d seed %d episode %d: states diverge", pi, seed, ep)
					}
				}
			}
			if *aPCG != *refPCG || *bPCG != *refPCG {
				t.Fatalf("params %d seed %d: generator states differ at the end", pi, seed)
			}
		}
	}
}

func TestPCGPathAllocs(t *testing.T) {
	env, _ := New(DefaultParams())
	rng := NewPCGRand(rand.NewPCG(5, 6))
	var sink Obs
	allocs := testing.AllocsPerRun(1000, func() {
		if env.Done() {
			env.ResetPCG(rng)
		}
		sink = env.ObservePCG(rng)
		env.Step(Action(rng.IntN(NumActions)))
	})
	if allocs != 0 {
		t.Errorf("ResetPCG/ObservePCG/Step allocate %v times per run", allocs)
	}
	_ = sink
}

// TestObservationThresholdBoundaries checks the integer comparisons that
// replace Observe's floating-point ones at and around every threshold,
// where a draw's outcome would change: noisyCoord(c, k) against the
// original switch on u = k/2^53 (c-1 if u < q, c+1 if u < 2q, else c,
// clamped) and switches(k) against u < SwitchProb.
func TestObservationThresholdBoundaries(t *testing.T) {
	for _, p := range []Params{DefaultParams(), {Cap: 1, PositionNoise: 0.5, SwitchProb: 1},
		{Cap: 1, PositionNoise: 0, SwitchProb: 0}, {Cap: 1, PositionNoise: 0.1, SwitchProb: 0.3}} {
		e, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		q1, q2 := p.PositionNoise, 2*p.PositionNoise
		var ks []uint64
		for _, th := range []uint64{e.kq1, e.kq2, e.kSwitch, 0, 1 << 53} {
			for _, k := range []uint64{th - 2, th - 1, th, th + 1, th + 2} {
				if k < 1<<53 { // th - d wraps below 0 to above 2^53
					ks = append(ks, k)
				}
			}
		}
		for _, k := range ks {
			u := float64(k) / (1 << 53)
			for c := range GridSize {
				want := c
				switch {
				case u < q1:
					want = max(c-1, 0)
				case u < q2:
					want = min(c+1, GridSize-1)
				}
				if got := e.noisyCoord(c, k); got != want {
					t.Errorf("params %+v: noisyCoord(%d, %d) = %d, want %d", p, c, k, got, want)
				}
			}
			if got, want := e.switches(k), u < p.SwitchProb; got != want {
				t.Errorf("params %+v: switches(%d) = %v, want %v", p, k, got, want)
			}
		}
	}
}

// TestIntNFromAcceptsInline checks the promise callers rely on to inline
// IntN: for n > 0 not a power of two, IntNFrom(x, n) is the high word of
// x*n, without drawing, whenever the low word is at least n; and IntNFrom
// agrees with IntN on its first draw otherwise.
func TestIntNFromAcceptsInline(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, n := range []int{3, 5, 6, 25, 1000, 1<<30 + 1} {
		for range 10000 {
			src := rand.NewPCG(rng.Uint64(), rng.Uint64())
			before := *src
			r := NewPCGRand(src)
			x := rng.Uint64()
			hi, lo := bits.Mul64(x, uint64(n))
			got := r.IntNFrom(x, n)
			if lo >= uint64(n) && (got != int(hi) || *src != before) {
				t.Fatalf("IntNFrom(%d, %d) = %d (drew: %v), want %d without a draw", x, n, got, *src != before, hi)
			}
		}
	}
	// n just above 2^62: lo < n half the time (the slow path), and lo <
	// 2^64 mod n (a redraw) about a quarter of the time
	if math.MaxInt == math.MaxInt64 {
		wide := uint64(1<<62 + 1)
		n := int(wide)
		src := rand.NewPCG(1, 2)
		ref := rand.New(rand.NewPCG(1, 2))
		for range 1000 {
			if want, got := ref.IntN(n), NewPCGRand(src).IntN(n); got != want {
				t.Fatalf("IntN(%d) = %d, want %d", n, got, want)
			}
		}
	}
}

// TestStepMatchesTransition checks Step's table against Transition for
// every valid state and action: next state, reward, delivery, pickup flag
// and the end of the episode at the cap.
func TestStepMatchesTransition(t *testing.T) {
	for _, cap := range []int{1, 2, 200} {
		p := DefaultParams()
		p.Cap = cap
		e, _ := New(p)
		for i := range NumStates {
			s := StateAt(i)
			for a := range Action(NumActions) {
				e.ResetTo(s)
				if cap == 2 {
					if _, done := e.Step(Pickup); done { // one step in: the next one hits the cap
						t.Fatal("a pickup ended the episode")
					}
					s = e.State()
				}
				want, wr, wdone := Transition(s, a)
				r, done := e.Step(a)
				wantDone := wdone || e.Steps() >= cap
				picked := s.Pass != InTaxi && want.Pass == InTaxi
				if e.State() != want || math.Float64bits(r) != math.Float64bits(wr) || done != wantDone ||
					e.Done() != wantDone || e.Delivered() != wdone || e.PickedUp() != picked {
					t.Fatalf("cap %d, state %+v, action %v: Step gives %+v, %v, done %v, delivered %v, picked %v; Transition %+v, %v, %v (picked %v)",
						cap, s, a, e.State(), r, done, e.Delivered(), e.PickedUp(), want, wr, wdone, picked)
				}
				s = StateAt(i)
			}
		}
	}
}
