package domains

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/ope-lab/longhorizon/envs/tabular"
	"github.com/ope-lab/longhorizon/trajectory"
)

// bruteValue returns E[sum_t gamma^(t-1) r_t] of pi on m by enumerating
// every trajectory (start state, then action and outcome at every step)
// with its probability and discounted mean return, sharing nothing
// between trajectories: sum over paths of P(path) x return(path).
func bruteValue(m *tabular.MDP, pi *tabular.Policy, gamma float64) float64 {
	total := 0.0
	var walk func(t, s int, prob, ret, disc float64)
	walk = func(t, s int, prob, ret, disc float64) {
		if t == m.Horizon {
			total += prob * ret
			return
		}
		k := m.At(t)
		for a := range m.Actions {
			i := s*m.Actions + a
			if pi.Pi[i] == 0 {
				continue
			}
			r := ret + disc*k.Mean[i]
			for j, pj := range k.P[i] {
				switch {
				case pj == 0:
				case j == m.States: // the episode ends
					total += prob * pi.Pi[i] * pj * r
				default:
					walk(t+1, j, prob*pi.Pi[i]*pj, r, disc*gamma)
				}
			}
		}
	}
	for s, p := range m.Start {
		walk(0, s, p, 0, 1)
	}
	return total
}

// testTabular is a tiny tabular domain for the machinery's tests: S = 3,
// A = 2, H = 3, a different kernel at every step (drawn from instance),
// early ends (end probability `end` at every (s, a) except state 2,
// action 1, which never ends), Gaussian rewards (sd 0.5) around means in
// [-1, 1]; pi_b uniform, pi_e (0.8, 0.2) in every state. A Build of
// `broken` = 1 returns a kernel that does not sum to 1 at step 2, state
// 1, action 0; `broken` = 2 a behavior that never takes action 1 in state
// 2.
var testTabular = TabularSpec{
	Name: "tabulartest",
	Doc:  "tiny tabular MDP for tests",
	Params: []ParamSpec{
		{Name: "end", Kind: Float, Default: 0.25, Min: 0, Max: 1, Doc: "end probability"},
		{Name: "broken", Kind: Int, Default: 0, Min: 0, Max: 3, Doc: "what to break"},
	},
	Build: func(p Params) (*tabular.MDP, *tabular.Policy, *tabular.Policy, error) {
		if p.Int("broken") == 3 {
			return nil, nil, nil, errTestBuild
		}
		const ns, na, h = 3, 2, 3
		rng := rand.New(rand.NewPCG(uint64(p.Int("instance")), 99))
		ks := make([]*tabular.Kernel, h)
		for t := range ks {
			k := &tabular.Kernel{P: make([][]float64, ns*na), Mean: make([]float64, ns*na)}
			for i := range k.P {
				end := p["end"]
				if i == 2*na+1 {
					end = 0
				}
				row := make([]float64, ns+1)
				sum := 0.0
				for j := range ns { // a flat Dirichlet draw: normalised exponentials
					row[j] = -math.Log(1 - rng.Float64())
					sum += row[j]
				}
				for j := range ns {
					row[j] *= (1 - end) / sum
				}
				row[ns] = end
				k.P[i] = row
				k.Mean[i] = 2*rng.Float64() - 1
			}
			if t == 1 && p.Int("broken") == 1 {
				k.P[1*na+0][0] += 0.1
			}
			mean := k.Mean
			k.Draw = func(s, a int, rng *rand.Rand) float64 { return mean[s*na+a] + 0.5*rng.NormFloat64() }
			ks[t] = k
		}
		m := &tabular.MDP{States: ns, Actions: na, Horizon: h, Start: []float64{0.5, 0.3, 0.2}, At: func(t int) *tabular.Kernel { return ks[t] }}
		b := &tabular.Policy{Actions: na, Pi: []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}}
		e := &tabular.Policy{Actions: na, Pi: []float64{0.8, 0.2, 0.8, 0.2, 0.8, 0.2}}
		if p.Int("broken") == 2 {
			b.Pi[2*na], b.Pi[2*na+1] = 1, 0
		}
		return m, b, e, nil
	},
	TruthDoc: "exact",
}

var errTestBuild = errorString("no such instance")

type errorString string

func (e errorString) Error() string { return string(e) }

// testTabularDomain builds testTabular with set.
func testTabularDomain(t *testing.T, set map[string]float64) (*tabularDomain, *Spec, Params) {
	t.Helper()
	spec := testTabular.Spec()
	p, err := spec.Resolve(set)
	if err != nil {
		t.Fatal(err)
	}
	d, err := spec.New(p)
	if err != nil {
		t.Fatal(err)
	}
	return d.(*tabularDomain), spec, p
}

// TestTabularSpec: TabularSpec.Spec adds gamma and instance to the
// domain's parameters; MaxSteps is the horizon (3); no split points;
// models always; the exact model's bytes are QBytes(3, 2, 3) + 8 x 3 x 3
// = 8 x 18 + 24 x 3 + 72 = 288; the domain is a ModelDomain whose space is
// the 3 states, 2 actions, pi_e and the horizon; the truth is the brute
// force enumeration of every trajectory (to 1e-12) under gamma 1 and 0.8
// for several instances, and its Extra the brute force V(pi_b) and a
// weight moment above 1 (Jensen: E_b[W^2] >= E_b[W]^2 = 1, with equality
// only when pi_b = pi_e).
func TestTabularSpec(t *testing.T) {
	spec := testTabular.Spec()
	var names []string
	for _, ps := range spec.Params {
		names = append(names, ps.Name)
	}
	if !slices.Equal(names, []string{"end", "broken", "gamma", "instance"}) {
		t.Errorf("parameters %v, want [end broken gamma instance]", names)
	}
	if ps, _ := spec.Param("instance"); ps != instanceParamSpec || ps.Default != 1 || ps.Max != 1<<30 {
		t.Errorf("instance: %+v", ps)
	}
	p := spec.Defaults()
	if spec.MaxSteps(p) != 3 || spec.Splits != "none" || spec.Models(p) != nil || spec.ExactModelBytes(p) != 288 {
		t.Errorf("MaxSteps %d, Splits %q, Models %v, ExactModelBytes %v; want 3, none, nil, 288",
			spec.MaxSteps(p), spec.Splits, spec.Models(p), spec.ExactModelBytes(p))
	}
	for _, gamma := range []float64{1, 0.8} {
		for inst := 1.0; inst <= 3; inst++ {
			d, spec, p := testTabularDomain(t, map[string]float64{"gamma": gamma, "instance": inst})
			var md ModelDomain = d
			sp := md.Space()
			dst := make([]float64, 2)
			sp.PiE(2, dst)
			if sp.Obs != 3 || sp.Actions != 2 || sp.Horizon != 3 || dst[0] != 0.8 || dst[1] != 0.2 {
				t.Errorf("space %+v, pi_e(.|2) = %v", sp, dst)
			}
			tr, err := spec.Truth(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			m, b, e, _ := testTabular.Build(p)
			if want := bruteValue(m, e, gamma); math.Abs(tr.Value-want) > 1e-12 || tr.Method != tabularTruthMethod {
				t.Errorf("gamma %v instance %v: truth %+v, brute force %v", gamma, inst, tr, want)
			}
			if want := bruteValue(m, b, gamma); math.Abs(tr.Extra["behavior_value"]-want) > 1e-12 || !(tr.Extra["is_weight_second_moment"] > 1) {
				t.Errorf("gamma %v instance %v: extra %v, V(pi_b) by brute force %v", gamma, inst, tr.Extra, want)
			}
		}
	}
}

// TestTabularRefuses: New refuses an invalid kernel (naming step, state
// and action), a behavior without coverage (naming the state and action),
// a Build error (with the domain's name) and gamma 0; MaxSteps of
// refused parameters is 1, never a panic.
func TestTabularRefuses(t *testing.T) {
	spec := testTabular.Spec()
	for _, tc := range []struct {
		set  map[string]float64
		want string
	}{
		{map[string]float64{"broken": 1}, "tabulartest: tabular: step 2, state 1, action 0: probabilities sum to"},
		{map[string]float64{"broken": 2}, "tabulartest: coverage: the behavior policy never takes action 1 in state 2"},
		{map[string]float64{"broken": 3}, "tabulartest: no such instance"},
		{map[string]float64{"gamma": 0}, "gamma = 0, want a value in (0, 1]"},
	} {
		p, err := spec.Resolve(tc.set)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := spec.New(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.set, err, tc.want)
		}
		if _, err := spec.Truth(p, nil); err == nil {
			t.Errorf("%v: Truth accepted", tc.set)
		}
		if spec.MaxSteps(p) != 1 {
			t.Errorf("%v: MaxSteps %d, want 1", tc.set, spec.MaxSteps(p))
		}
	}
}

// TestTabularCollectReplay: Collect's trajectories are a replay, on the
// same stream, of the sampler driven by pi_b (start draw, then per step
// the action, the reward's draw and the transition): the same rewards bit
// for bit, and the ratio of every step is pi_e(a|s)/pi_b(a|s) at the
// recorded state and action (0.8/0.5 = 1.6 for action 0, 0.2/0.5 = 0.4
// for action 1).
func TestTabularCollectReplay(t *testing.T) {
	d, _, p := testTabularDomain(t, map[string]float64{"instance": 2, "end": 0.3})
	d.Record(true, false)
	var b trajectory.Batch
	const n = 2000
	d.Collect(&b, n, rand.New(rand.NewPCG(3, 4)))
	m, pb, _, _ := testTabular.Build(p)
	env, err := tabular.NewSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	act := tabular.NewPolicySampler(pb)
	rng := rand.New(rand.NewPCG(3, 4))
	short := 0
	for i := range n {
		env.Reset(rng)
		for k := b.Offsets[i]; ; k++ {
			s := env.State()
			a := act.Sample(s, rng)
			r, done := env.Step(a, rng)
			if k >= b.Offsets[i+1] || b.Reward[k] != r || int(b.Obs[k]) != s || int(b.Action[k]) != a {
				t.Fatalf("trajectory %d, step %d: batch differs from the replay (reward %v, state %d, action %d)", i, k-b.Offsets[i], r, s, a)
			}
			if want := [2]float64{1.6, 0.4}[a]; b.Ratio[k] != want || b.OptionRatio[k] != want {
				t.Fatalf("trajectory %d: ratio %v for action %d, want %v", i, b.Ratio[k], a, want)
			}
			if done {
				if k != b.Offsets[i+1]-1 {
					t.Fatalf("trajectory %d ends at step %d in the replay, %d in the batch", i, k-b.Offsets[i]+1, b.Len(i))
				}
				break
			}
		}
		if b.Len(i) < 3 {
			short++
		}
	}
	if short == 0 || b.Horizon() != 3 {
		t.Errorf("%d trajectories end early, horizon %d: want some early ends and horizon 3", short, b.Horizon())
	}
}

// TestTabularRecordSame: recording ids and/or the exact model draws no
// random number: on the same stream every setting gives the same offsets,
// rewards and ratios as recording nothing, bit for bit, with the columns
// present exactly when asked for.
func TestTabularRecordSame(t *testing.T) {
	plain, _, _ := testTabularDomain(t, map[string]float64{"gamma": 0.9})
	var base trajectory.Batch
	plain.Collect(&base, 500, rand.New(rand.NewPCG(5, 6)))
	for _, rec := range [][2]bool{{true, false}, {false, true}, {true, true}, {false, false}} {
		d, _, _ := testTabularDomain(t, map[string]float64{"gamma": 0.9})
		d.Record(true, true)
		d.Record(rec[0], rec[1])
		var b trajectory.Batch
		d.Collect(&b, 500, rand.New(rand.NewPCG(5, 6)))
		if !slices.Equal(b.Offsets, base.Offsets) || !slices.Equal(b.Reward, base.Reward) || !slices.Equal(b.Ratio, base.Ratio) ||
			!slices.Equal(b.OptionRatio, base.OptionRatio) || slices.Contains(b.Split, true) {
			t.Fatalf("record %v: recording changed the trajectories", rec)
		}
		if b.HasIDs() != rec[0] || b.HasModel() != rec[1] || b.Validate() != nil {
			t.Errorf("record %v: ids %v, model %v (%v)", rec, b.HasIDs(), b.HasModel(), b.Validate())
		}
	}
}

// TestTabularExactModel: with the exact model, dm (the mean of v_hat at
// step 1) and dr (SPEC 1d, per-trajectory sums) are unbiased: within 4
// standard errors of the truth, at gamma 1 and 0.8. On the last step q_hat
// is the mean reward of (s, a) (nothing follows), and v_hat is
// sum_a pi_e(a|s) q(s, a), which at step 1 averaged over Start is the
// truth (to 1e-12).
func TestTabularExactModel(t *testing.T) {
	for _, gamma := range []float64{1, 0.8} {
		d, spec, p := testTabularDomain(t, map[string]float64{"gamma": gamma})
		d.Record(true, true)
		var b trajectory.Batch
		const n = 40000
		d.Collect(&b, n, rand.New(rand.NewPCG(7, uint64(gamma*10))))
		tr, _ := spec.Truth(p, nil)
		m, _, e, _ := testTabular.Build(p)
		var v1 float64
		for s, ps := range m.Start {
			v1 += ps * d.v[s]
		}
		if math.Abs(v1-tr.Value) > 1e-12 {
			t.Errorf("gamma %v: sum_s Start(s) v_1(s) = %v, truth %v", gamma, v1, tr.Value)
		}
		dm, dr := make([]float64, n), make([]float64, n)
		for i := range n {
			lo, hi := b.Offsets[i], b.Offsets[i+1]
			dm[i] = b.VHat[lo]
			w, disc := 1.0, 1.0
			for k := lo; k < hi; k++ {
				prev := w
				w *= b.Ratio[k]
				dr[i] += disc * (w*b.Reward[k] - (w*b.QHat[k] - prev*b.VHat[k]))
				disc *= gamma
				if k-lo == 2 { // the last step: q = Mean_3(s, a)
					s, a := int(b.Obs[k]), int(b.Action[k])
					if b.QHat[k] != m.At(2).Mean[s*2+a] {
						t.Fatalf("last step q_hat %v, mean reward %v", b.QHat[k], m.At(2).Mean[s*2+a])
					}
				}
				s := int(b.Obs[k])
				if v := e.Pi[s*2]*d.q[k-lo][s*2] + e.Pi[s*2+1]*d.q[k-lo][s*2+1]; b.VHat[k] != v {
					t.Fatalf("v_hat %v, sum_a pi_e q = %v", b.VHat[k], v)
				}
			}
		}
		for name, x := range map[string][]float64{"dm": dm, "dr": dr} {
			mean, se := meanSE(x)
			if math.Abs(mean-tr.Value) > 4*se || se == 0 {
				t.Errorf("gamma %v: %s = %v +- %v, truth %v", gamma, name, mean, se, tr.Value)
			}
		}
	}
}

// TestTabularCollectNoAlloc: once the batch has grown, Collect allocates
// nothing, recording nothing or everything.
func TestTabularCollectNoAlloc(t *testing.T) {
	for _, rec := range []bool{false, true} {
		d, _, _ := testTabularDomain(t, nil)
		d.Record(rec, rec)
		rng := rand.New(rand.NewPCG(1, 2))
		var b trajectory.Batch
		d.Collect(&b, 300, rng)
		if allocs := testing.AllocsPerRun(20, func() {
			b.Reset()
			d.Collect(&b, 300, rng)
		}); allocs != 0 {
			t.Errorf("record %v: Collect allocates %v times, want 0", rec, allocs)
		}
	}
}

// meanSE returns the mean of x and its standard error (sample standard
// deviation, denominator n-1, over sqrt(n)).
func meanSE(x []float64) (mean, se float64) {
	mean, sd := stat.MeanStdDev(x, nil)
	return mean, sd / math.Sqrt(float64(len(x)))
}
