package policies

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/envs/noisytaxi"
	"github.com/ope-lab/longhorizon/trajectory"
)

// The repo's batch type is what the experiments record taxi episodes into.

// TestTaxiExactHandValues checks the DP against values worked out by hand.
func TestTaxiExactHandValues(t *testing.T) {
	// eps = 1 (uniform actions), cap 1: the expected reward of one random
	// action at the start: 4 moves at -1; Pickup -1 when the taxi starts on
	// the passenger's cell (1/25), else -10; Dropoff -10 (not carrying).
	// (-4 + (-1/25 - 10*24/25) - 10) / 6 = -23.64/6 = -3.94.
	p := noisytaxi.DefaultParams()
	p.Cap = 1
	st, err := TaxiExactValue(p, 1, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(st.Value-(-3.94)) > 1e-12 || math.Abs(st.MeanLength-1) > 1e-12 || math.Abs(st.CapProb-1) > 1e-12 {
		t.Errorf("eps 1, cap 1: %+v, want value -3.94, length 1, cap prob 1", st)
	}

	// No noise, eps = 0: the taxi drives d1 = d(taxi, passenger) moves,
	// picks up (-1), drives d2 = d(passenger, destination) moves and drops
	// off (+20): return 19 - d1 - d2, length d1 + d2 + 2, whatever m is.
	for _, mayEqual := range []bool{true, false} {
		p := noisytaxi.DefaultParams()
		p.PositionNoise, p.SwitchProb, p.DestMayEqualPassenger = 0, 0, mayEqual
		var v, l float64
		for i := range noisytaxi.NumStates {
			s := noisytaxi.StateAt(i)
			pr := p.StartProb(s)
			if pr == 0 {
				continue
			}
			pr1, pc1 := noisytaxi.Location(s.Pass)
			dr, dc := noisytaxi.Location(s.Dest)
			d1 := taxiDist[cellOf(s.Row, s.Col)][cellOf(pr1, pc1)]
			d2 := taxiDist[cellOf(pr1, pc1)][cellOf(dr, dc)]
			v += pr * float64(19-d1-d2)
			l += pr * float64(d1+d2+2)
		}
		for _, m := range []int{1, 2, 3, 7} {
			st, err := TaxiExactValue(p, 0, m, 1)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(st.Value-v) > 1e-9 || math.Abs(st.MeanLength-l) > 1e-9 || st.CapProb != 0 {
				t.Errorf("noise-free, mayEqual %v, m %d: %+v, want value %v length %v cap 0", mayEqual, m, st, v, l)
			}
		}
	}
}

// TestTaxiActionDist: per hidden state the observation-averaged a*
// distribution sums to 1; spot checks by hand.
func TestTaxiActionDist(t *testing.T) {
	p := noisytaxi.DefaultParams()
	d := taxiActionDist(p)
	for i := range noisytaxi.NumStates {
		sum := 0.0
		for _, x := range d[i] {
			sum += x
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("state %+v: a* distribution sums to %v", noisytaxi.StateAt(i), sum)
		}
	}
	// Carrying at G with destination G: Dropoff iff seen at (0,4): row 0
	// seen w.p. 0.925 (edge clamp), column 4 w.p. 0.925: 0.855625.
	s := noisytaxi.State{Row: 0, Col: 4, Pass: noisytaxi.InTaxi, Dest: noisytaxi.LocG}
	if got := d[s.Index()][noisytaxi.Dropoff]; math.Abs(got-0.925*0.925) > 1e-12 {
		t.Errorf("P(Dropoff | carrying at G for G) = %v, want 0.855625", got)
	}
	// At R with the passenger at R: Pickup iff seen at (0,0) (0.925^2)
	// and the passenger seen at R (0.8875).
	s = noisytaxi.State{Row: 0, Col: 0, Pass: noisytaxi.LocR, Dest: noisytaxi.LocB}
	if got := d[s.Index()][noisytaxi.Pickup]; math.Abs(got-0.925*0.925*0.8875) > 1e-12 {
		t.Errorf("P(Pickup | at R, passenger at R) = %v, want %v", got, 0.925*0.925*0.8875)
	}
}

// TestTaxiExactVsMonteCarlo: the DP's value, mean length and cap-hit
// probability agree with 2e5 simulated episodes within 4 standard errors,
// for SPEC's eps and m, and for a short cap (so that the cap binds) and
// the destination-differs variant.
func TestTaxiExactVsMonteCarlo(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const n = 200000
	def := noisytaxi.DefaultParams()
	short := def
	short.Cap = 20
	other := def
	other.DestMayEqualPassenger = false
	tests := []struct {
		name string
		p    noisytaxi.Params
		eps  float64
		m    int
	}{
		{"eps 0.05 m 1", def, 0.05, 1},
		{"eps 0.05 m 2", def, 0.05, 2},
		{"eps 0.05 m 3", def, 0.05, 3},
		{"eps 0.3 m 1", def, 0.3, 1},
		{"eps 0.3 m 2", def, 0.3, 2},
		{"eps 0.3 m 3", def, 0.3, 3},
		{"cap 20 eps 0.3 m 2", short, 0.3, 2},
		{"cap 20 eps 0.3 m 3", short, 0.3, 3},
		{"dest differs eps 0.3 m 1", other, 0.3, 1},
	}
	for i, tc := range tests {
		ex, err := TaxiExactValue(tc.p, tc.eps, tc.m, 1)
		if err != nil {
			t.Fatal(err)
		}
		mc, err := TaxiMonteCarlo(tc.p, tc.eps, tc.m, 1, n, uint64(100+i), 2)
		if err != nil {
			t.Fatal(err)
		}
		// the cap-hit SE from the exact probability (the sample one is 0
		// when no episode hits the cap), plus 1/n for a single stray hit
		capSE := math.Sqrt(ex.CapProb*(1-ex.CapProb)/n) + 1.0/n
		if math.Abs(mc.Mean-ex.Value) > 4*mc.SE ||
			math.Abs(mc.MeanLength-ex.MeanLength) > 4*mc.LengthSE ||
			math.Abs(mc.CapProb-ex.CapProb) > 4*capSE {
			t.Errorf("%s: exact %+v, Monte Carlo %+v", tc.name, ex, mc)
		}
		if tc.p.Cap == 20 && ex.CapProb < 0.1 {
			t.Errorf("%s: cap-hit probability %v; the case is meant to make the cap bind", tc.name, ex.CapProb)
		}
	}
}

// TestTaxiMonteCarloDeterministic: the estimate depends on the seed and the
// number of episodes only, not on the number of workers.
func TestTaxiMonteCarloDeterministic(t *testing.T) {
	p := noisytaxi.DefaultParams()
	const n = 3*taxiChunk + 17
	ref, err := TaxiMonteCarlo(p, 0.3, 2, 1, n, 42, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3, 8, 0} {
		got, err := TaxiMonteCarlo(p, 0.3, 2, 1, n, 42, w)
		if err != nil {
			t.Fatal(err)
		}
		if got != ref {
			t.Errorf("workers %d: %+v, with 1 worker %+v", w, got, ref)
		}
	}
	if other, _ := TaxiMonteCarlo(p, 0.3, 2, 1, n, 43, 2); other == ref {
		t.Error("seeds 42 and 43 give the same estimate")
	}
	if ref.Episodes != n {
		t.Errorf("Episodes = %d, want %d", ref.Episodes, n)
	}
}

func TestTaxiValueErrors(t *testing.T) {
	p := noisytaxi.DefaultParams()
	bad := p
	bad.Cap = 0
	if _, err := TaxiExactValue(bad, 0.05, 1, 1); err == nil {
		t.Error("TaxiExactValue accepted cap 0")
	}
	if _, err := TaxiExactValue(p, 1.5, 1, 1); err == nil {
		t.Error("TaxiExactValue accepted eps 1.5")
	}
	if _, err := TaxiExactValue(p, 0.05, 0, 1); err == nil {
		t.Error("TaxiExactValue accepted m 0")
	}
	if _, err := TaxiMonteCarlo(p, 0.05, 1, 1, 1, 1, 1); err == nil {
		t.Error("TaxiMonteCarlo accepted 1 episode")
	}
	if _, err := TaxiMonteCarlo(bad, 0.05, 1, 1, 100, 1, 1); err == nil {
		t.Error("TaxiMonteCarlo accepted cap 0")
	}
	for _, g := range []float64{0, -0.5, 1.5, math.NaN(), math.Inf(1)} {
		if _, err := TaxiExactValue(p, 0.05, 1, g); err == nil {
			t.Errorf("TaxiExactValue accepted gamma %v", g)
		}
		if _, err := TaxiMonteCarlo(p, 0.05, 1, g, 100, 1, 1); err == nil {
			t.Errorf("TaxiMonteCarlo accepted gamma %v", g)
		}
		if _, err := NewTaxiQ(p, 0.05, g); err == nil {
			t.Errorf("NewTaxiQ accepted gamma %v", g)
		}
	}
	if _, err := NewTaxiQ(bad, 0.05, 1); err == nil {
		t.Error("NewTaxiQ accepted cap 0")
	}
	if _, err := NewTaxiQ(p, -0.1, 1); err == nil {
		t.Error("NewTaxiQ accepted eps -0.1")
	}
}

// TestTaxiExactDiscountedHandValues: without noise and with eps = 0 the
// episode from a start state is fixed (see TestTaxiExactHandValues): d1
// moves, the pickup and d2 moves at -1 each, then the dropoff at +20, L =
// d1 + d2 + 2 steps. Discounted (SPEC 1c, step t counts gamma^(t-1)):
// G = -(1 + gamma + ... + gamma^(L-2)) + 20 gamma^(L-1), whatever m is
// (t counts primitive steps). Its mean over the start distribution is the
// value; the length and cap probability do not change with gamma.
func TestTaxiExactDiscountedHandValues(t *testing.T) {
	p := noisytaxi.DefaultParams()
	p.PositionNoise, p.SwitchProb = 0, 0
	for _, gamma := range []float64{0.9, 0.5} {
		var v, l float64
		for i := range noisytaxi.NumStates {
			s := noisytaxi.StateAt(i)
			pr := p.StartProb(s)
			if pr == 0 {
				continue
			}
			pr1, pc1 := noisytaxi.Location(s.Pass)
			dr, dc := noisytaxi.Location(s.Dest)
			steps := taxiDist[cellOf(s.Row, s.Col)][cellOf(pr1, pc1)] + taxiDist[cellOf(pr1, pc1)][cellOf(dr, dc)] + 2
			g := 0.0
			for t := 1; t < steps; t++ {
				g -= math.Pow(gamma, float64(t-1))
			}
			g += 20 * math.Pow(gamma, float64(steps-1))
			v += pr * g
			l += pr * float64(steps)
		}
		for _, m := range []int{1, 2, 3, 7} {
			st, err := TaxiExactValue(p, 0, m, gamma)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(st.Value-v) > 1e-12 || math.Abs(st.MeanLength-l) > 1e-9 || st.CapProb != 0 {
				t.Errorf("noise-free, gamma %v, m %d: %+v, want value %v length %v cap 0", gamma, m, st, v, l)
			}
		}
	}
}

// taxiBruteForce simulates n episodes of the taxi options policy (eps, m)
// written out from SPEC 2.3 on its own (an option of m steps, random with
// probability eps: uniform actions; else a*(o) of a fresh observation each
// step), and returns the moments of the returns discounted by gamma
// (G = sum_t gamma^(t-1) r_t, SPEC 1c).
func taxiBruteForce(p noisytaxi.Params, eps float64, m int, gamma float64, n int, rng *rand.Rand) moments {
	env, _ := noisytaxi.New(p)
	var mo moments
	for range n {
		env.Reset(rng)
		left, random := 0, false
		ret, disc := 0.0, 1.0
		for {
			if left == 0 {
				left, random = m, rng.Float64() < eps
			}
			var a noisytaxi.Action
			if random {
				a = noisytaxi.Action(rng.IntN(noisytaxi.NumActions))
			} else {
				a = TaxiOptimalAction(env.Observe(rng))
			}
			left--
			r, done := env.Step(a)
			ret += disc * r
			disc *= gamma
			if done {
				break
			}
		}
		mo.add(ret)
	}
	return mo
}

// TestTaxiExactDiscountedVsMonteCarlo: under gamma = 0.9 the DP's value
// agrees within 4 standard errors with a brute-force simulation
// (taxiBruteForce, 1e5 episodes) and with TaxiMonteCarlo, for m = 1 and 2
// on cap 10, where the cap binds (the DP's cap-hit probability is 0.90
// under eps 0.3, 0.81 under eps 0.05), for the behavior and the
// evaluation eps. The check has power: the undiscounted value is more than
// 10 standard errors away (about 5 units and 2 units: 200 and 100 se).
func TestTaxiExactDiscountedVsMonteCarlo(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const n, gamma = 100000, 0.9
	p := noisytaxi.DefaultParams()
	p.Cap = 10
	for i, tc := range []struct {
		eps float64
		m   int
	}{{0.3, 1}, {0.3, 2}, {0.05, 1}, {0.05, 2}} {
		ex, err := TaxiExactValue(p, tc.eps, tc.m, gamma)
		if err != nil {
			t.Fatal(err)
		}
		undisc, _ := TaxiExactValue(p, tc.eps, tc.m, 1)
		bf := taxiBruteForce(p, tc.eps, tc.m, gamma, n, rand.New(rand.NewPCG(uint64(i), 31)))
		mc, err := TaxiMonteCarlo(p, tc.eps, tc.m, gamma, n, uint64(200+i), 2)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("eps %v m %d: exact %.5f (gamma 1: %.5f), brute force %.5f +- %.5f, TaxiMonteCarlo %.5f +- %.5f",
			tc.eps, tc.m, ex.Value, undisc.Value, bf.mean, bf.se(), mc.Mean, mc.SE)
		if math.Abs(bf.mean-ex.Value) > 4*bf.se() {
			t.Errorf("eps %v m %d: brute force %v +- %v, exact %v", tc.eps, tc.m, bf.mean, bf.se(), ex.Value)
		}
		if math.Abs(mc.Mean-ex.Value) > 4*mc.SE {
			t.Errorf("eps %v m %d: TaxiMonteCarlo %v +- %v, exact %v", tc.eps, tc.m, mc.Mean, mc.SE, ex.Value)
		}
		if math.Abs(undisc.Value-ex.Value) < 10*bf.se() {
			t.Errorf("eps %v m %d: gamma 1 value %v within 10 se of gamma 0.9's %v: the check has no power", tc.eps, tc.m, undisc.Value, ex.Value)
		}
		// the length statistics are undiscounted: those of gamma = 1
		if ex.MeanLength != undisc.MeanLength || ex.CapProb != undisc.CapProb {
			t.Errorf("eps %v m %d: length %v cap %v under gamma, %v %v without", tc.eps, tc.m, ex.MeanLength, ex.CapProb, undisc.MeanLength, undisc.CapProb)
		}
	}
}

// TestTaxiMonteCarloGammaSameEpisodes: discounting changes only the
// returns: the episode lengths and cap hits of TaxiMonteCarlo are those of
// gamma = 1, bit for bit (the same draws), and the discounted mean return
// differs.
func TestTaxiMonteCarloGammaSameEpisodes(t *testing.T) {
	p := noisytaxi.DefaultParams()
	const n = 2*taxiChunk + 5
	one, err := TaxiMonteCarlo(p, 0.3, 1, 1, n, 9, 2)
	if err != nil {
		t.Fatal(err)
	}
	disc, err := TaxiMonteCarlo(p, 0.3, 1, 0.95, n, 9, 2)
	if err != nil {
		t.Fatal(err)
	}
	if disc.MeanLength != one.MeanLength || disc.LengthSE != one.LengthSE || disc.CapProb != one.CapProb {
		t.Errorf("gamma 0.95 lengths %+v, gamma 1 %+v: want the same episodes", disc, one)
	}
	if disc.Mean == one.Mean {
		t.Errorf("gamma 0.95 and 1 give the same mean return %v", one.Mean)
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

// BenchmarkTaxiExactValue times the DP for m = 3.
func BenchmarkTaxiExactValue(b *testing.B) {
	p := noisytaxi.DefaultParams()
	for b.Loop() {
		if _, err := TaxiExactValue(p, 0.05, 3, 1); err != nil {
			b.Fatal(err)
		}
	}
}
