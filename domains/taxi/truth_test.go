package taxi

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/noisytaxi"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestTaxiTruthProgress: the exact recursion reports every 16 steps of the
// cap and the Monte Carlo cross-check chunk by chunk (all when
// unthrottled): many fractions, never decreasing, in (0, 1], the last 1;
// and reporting changes no number (the truth equals taxiTruth's without a
// progress function).
func TestTaxiTruthProgress(t *testing.T) {
	spec, _ := domains.Lookup("noisytaxi")
	p := spec.Defaults()
	p["mc_episodes"] = 10 * 4096 // 10 chunks of MonteCarlo per policy
	var fracs []float64
	got, err := taxiTruthEvery(p, func(f float64) { fracs = append(fracs, f) }, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, err := taxiTruth(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("truth with progress %+v, without %+v", got, want)
	}
	// 2 policies x floor(200/16) = 24 reports of the recursion (cap 200),
	// then 20 chunks of the cross-check
	if len(fracs) != 44 {
		t.Errorf("%d progress reports %v, want 44", len(fracs), fracs)
	}
	for i, f := range fracs {
		if f <= 0 || f > 1 || (i > 0 && f < fracs[i-1]) {
			t.Fatalf("progress %v: want non-decreasing fractions in (0, 1]", fracs)
		}
	}
	if len(fracs) == 0 || fracs[len(fracs)-1] != 1 {
		t.Errorf("progress %v does not end at 1", fracs)
	}
	// throttled to once every hour: the first chunk and the end only
	fracs = nil
	if _, err := taxiTruthEvery(p, func(f float64) { fracs = append(fracs, f) }, 3600e9); err != nil {
		t.Fatal(err)
	}
	// the first report: step 16 of 200 of the first policy's recursion,
	// which is the first half of the recursion, itself the first half of
	// the work: (16/200)/2/2 = 0.02
	if len(fracs) != 2 || fracs[0] != 0.02 || fracs[1] != 1 {
		t.Errorf("throttled progress %v, want [0.02 1] (first report, end)", fracs)
	}
}

// TestTaxiMCEpisodesBound: mc_episodes is bounded by 1e8 (what finishes in
// minutes, see taxiMaxMCEpisodes), its Doc states the bound, and the
// default that committed results use is unchanged.
func TestTaxiMCEpisodesBound(t *testing.T) {
	spec, _ := domains.Lookup("noisytaxi")
	ps, _ := spec.Param("mc_episodes")
	if ps.Max != 1e8 || ps.Default != 1e6 || !strings.Contains(ps.Doc, "at most 1e8") {
		t.Errorf("mc_episodes max %v, default %v, doc %q: want max 1e8 stated in the doc, default 1e6", ps.Max, ps.Default, ps.Doc)
	}
	if _, err := spec.Resolve(map[string]float64{"mc_episodes": 1e8}); err != nil {
		t.Errorf("mc_episodes 1e8: %v", err)
	}
	if _, err := spec.Resolve(map[string]float64{"mc_episodes": 1e8 + 1}); err == nil {
		t.Error("mc_episodes 1e8+1 accepted")
	}
}

// TestTaxiExactHandValues checks the DP against values worked out by hand.
func TestTaxiExactHandValues(t *testing.T) {
	// eps = 1 (uniform actions), cap 1: the expected reward of one random
	// action at the start: 4 moves at -1; Pickup -1 when the taxi starts on
	// the passenger's cell (1/25), else -10; Dropoff -10 (not carrying).
	// (-4 + (-1/25 - 10*24/25) - 10) / 6 = -23.64/6 = -3.94.
	p := noisytaxi.DefaultParams()
	p.Cap = 1
	st, err := ExactValue(p, 1, 1, 1, nil)
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
			d1 := gridDist(s.Row, s.Col, pr1, pc1)
			d2 := gridDist(pr1, pc1, dr, dc)
			v += pr * float64(19-d1-d2)
			l += pr * float64(d1+d2+2)
		}
		for _, m := range []int{1, 2, 3, 7} {
			st, err := ExactValue(p, 0, m, 1, nil)
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
		ex, err := ExactValue(tc.p, tc.eps, tc.m, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		mc, err := MonteCarlo(tc.p, tc.eps, tc.m, 1, n, uint64(100+i), 2, nil)
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
	ref, err := MonteCarlo(p, 0.3, 2, 1, n, 42, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3, 8, 0} {
		got, err := MonteCarlo(p, 0.3, 2, 1, n, 42, w, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got != ref {
			t.Errorf("workers %d: %+v, with 1 worker %+v", w, got, ref)
		}
	}
	if other, _ := MonteCarlo(p, 0.3, 2, 1, n, 43, 2, nil); other == ref {
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
	if _, err := ExactValue(bad, 0.05, 1, 1, nil); err == nil {
		t.Error("ExactValue accepted cap 0")
	}
	if _, err := ExactValue(p, 1.5, 1, 1, nil); err == nil {
		t.Error("ExactValue accepted eps 1.5")
	}
	if _, err := ExactValue(p, 0.05, 0, 1, nil); err == nil {
		t.Error("ExactValue accepted m 0")
	}
	if _, err := MonteCarlo(p, 0.05, 1, 1, 1, 1, 1, nil); err == nil {
		t.Error("MonteCarlo accepted 1 episode")
	}
	if _, err := MonteCarlo(bad, 0.05, 1, 1, 100, 1, 1, nil); err == nil {
		t.Error("MonteCarlo accepted cap 0")
	}
	for _, g := range []float64{0, -0.5, 1.5, math.NaN(), math.Inf(1)} {
		if _, err := ExactValue(p, 0.05, 1, g, nil); err == nil {
			t.Errorf("ExactValue accepted gamma %v", g)
		}
		if _, err := MonteCarlo(p, 0.05, 1, g, 100, 1, 1, nil); err == nil {
			t.Errorf("MonteCarlo accepted gamma %v", g)
		}
		if _, err := NewQ(p, 0.05, g); err == nil {
			t.Errorf("NewQ accepted gamma %v", g)
		}
	}
	if _, err := NewQ(bad, 0.05, 1); err == nil {
		t.Error("NewQ accepted cap 0")
	}
	if _, err := NewQ(p, -0.1, 1); err == nil {
		t.Error("NewQ accepted eps -0.1")
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
			steps := gridDist(s.Row, s.Col, pr1, pc1) + gridDist(pr1, pc1, dr, dc) + 2
			g := 0.0
			for t := 1; t < steps; t++ {
				g -= math.Pow(gamma, float64(t-1))
			}
			g += 20 * math.Pow(gamma, float64(steps-1))
			v += pr * g
			l += pr * float64(steps)
		}
		for _, m := range []int{1, 2, 3, 7} {
			st, err := ExactValue(p, 0, m, gamma, nil)
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
				a = policies.TaxiOptimalAction(env.Observe(rng))
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
// (taxiBruteForce, 1e5 episodes) and with MonteCarlo, for m = 1 and 2
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
		ex, err := ExactValue(p, tc.eps, tc.m, gamma, nil)
		if err != nil {
			t.Fatal(err)
		}
		undisc, _ := ExactValue(p, tc.eps, tc.m, 1, nil)
		bf := taxiBruteForce(p, tc.eps, tc.m, gamma, n, rand.New(rand.NewPCG(uint64(i), 31)))
		mc, err := MonteCarlo(p, tc.eps, tc.m, gamma, n, uint64(200+i), 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("eps %v m %d: exact %.5f (gamma 1: %.5f), brute force %.5f +- %.5f, MonteCarlo %.5f +- %.5f",
			tc.eps, tc.m, ex.Value, undisc.Value, bf.mean, bf.se(), mc.Mean, mc.SE)
		if math.Abs(bf.mean-ex.Value) > 4*bf.se() {
			t.Errorf("eps %v m %d: brute force %v +- %v, exact %v", tc.eps, tc.m, bf.mean, bf.se(), ex.Value)
		}
		if math.Abs(mc.Mean-ex.Value) > 4*mc.SE {
			t.Errorf("eps %v m %d: MonteCarlo %v +- %v, exact %v", tc.eps, tc.m, mc.Mean, mc.SE, ex.Value)
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
// returns: the episode lengths and cap hits of MonteCarlo are those of
// gamma = 1, bit for bit (the same draws), and the discounted mean return
// differs.
func TestTaxiMonteCarloGammaSameEpisodes(t *testing.T) {
	p := noisytaxi.DefaultParams()
	const n = 2*taxiChunk + 5
	one, err := MonteCarlo(p, 0.3, 1, 1, n, 9, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	disc, err := MonteCarlo(p, 0.3, 1, 0.95, n, 9, 2, nil)
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

// BenchmarkTaxiExactValue times the DP for m = 3.
func BenchmarkTaxiExactValue(b *testing.B) {
	p := noisytaxi.DefaultParams()
	for b.Loop() {
		if _, err := ExactValue(p, 0.05, 3, 1, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTaxiRolloutUnbiased: PDIS on behavior data (eps 0.3) with the ratios
// policies.TaxiRollout records is unbiased for the exact value of the evaluation policy (eps
// 0.05): per-decision weights are the running product of rho for m = 1,
// of optionRatio for m >= 2 (Theorem 3 with no changed option). For m = 1 the
// partitioned estimate (weights restarted after the split) is checked too.
// Each must land within 4 standard errors of ExactValue.
func TestTaxiRolloutUnbiased(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const epsB, epsE, n = 0.3, 0.05, 100000
	p := noisytaxi.DefaultParams()
	for _, m := range []int{1, 2, 3} {
		exact, err := ExactValue(p, epsE, m, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		ro, _ := policies.NewTaxiRollout(m, epsB, epsE)
		env, _ := noisytaxi.New(p)
		rng := rand.New(rand.NewPCG(77, uint64(m)))
		var log trajectory.Batch
		var pdis, part moments
		for range n {
			log.Reset()
			ro.Episode(env, rng, &log)
			w, wp, e, ep := 1.0, 1.0, 0.0, 0.0
			split := false // the first split point was passed
			for i, r := range log.Reward {
				// primitive PDIS for m = 1 (optionRatio = rho there);
				// option weights only for m >= 2 (rho = 1 there)
				f := log.OptionRatio[i]
				if m == 1 {
					f = log.Ratio[i]
				}
				w *= f
				wp *= f
				e += w * r
				ep += wp * r
				if log.Split[i] && !split {
					wp, split = 1, true
				}
			}
			pdis.add(e)
			part.add(ep)
		}
		t.Logf("m %d: exact %.5f, PDIS %.4f +- %.4f, partitioned %.4f +- %.4f", m, exact.Value, pdis.mean, pdis.se(), part.mean, part.se())
		if z := (pdis.mean - exact.Value) / pdis.se(); math.Abs(z) > 4 {
			t.Errorf("m %d: PDIS %v +- %v, exact %v (z = %.2f)", m, pdis.mean, pdis.se(), exact.Value, z)
		}
		if m == 1 {
			if z := (part.mean - exact.Value) / part.se(); math.Abs(z) > 4 {
				t.Errorf("m 1: partitioned PDIS %v +- %v, exact %v (z = %.2f)", part.mean, part.se(), exact.Value, z)
			}
		}
	}
}

// gridDist returns the number of moves of a shortest path from the cell
// (r1, c1) to (r2, c2) of the taxi grid, walls respected (breadth-first
// search over noisytaxi.Move).
func gridDist(r1, c1, r2, c2 int) int {
	const n = noisytaxi.GridSize
	var dist [noisytaxi.NumCells]int
	for i := range dist {
		dist[i] = -1
	}
	dist[r1*n+c1] = 0
	queue := []int{r1*n + c1}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		for a := range noisytaxi.Action(4) { // S, N, E, W
			r, cc := noisytaxi.Move(c/n, c%n, a)
			if nb := r*n + cc; dist[nb] < 0 {
				dist[nb] = dist[c] + 1
				queue = append(queue, nb)
			}
		}
	}
	return dist[r2*n+c2]
}
