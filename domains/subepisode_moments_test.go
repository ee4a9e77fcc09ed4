package domains

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/envs/subepisode"
	"github.com/ope-lab/longhorizon/trajectory"
)

// subepisodeMomentsBrute returns the tables of SubepisodeMoments by brute
// force: every one of the 2^H action sequences is played through the env,
// with probability prod_t pi_b(a_t), and B_k g^(t-1) r_t and its square
// are averaged with those probabilities (ratios pi_e(a|s)/pi_b(a) from
// the state each action is taken in). It also returns E_b[W_H^2].
func subepisodeMomentsBrute(p SubepisodeMomentParams) (mean, second []float64, w2 float64) {
	env, _ := subepisode.New(p.Params)
	h := p.Horizon()
	mean, second = make([]float64, trajectory.MomentCells(h)), make([]float64, trajectory.MomentCells(h))
	rho, r := make([]float64, h), make([]float64, h)
	for seq := 0; seq < 1<<h; seq++ {
		env.Reset()
		pr := 1.0
		for s := range h {
			a := (seq >> s) & 1
			pe, pb := p.piE(env.State()), p.PB
			if a == subepisode.A2 {
				pe, pb = 1-pe, 1-pb
			}
			pr *= pb
			if pb > 0 {
				rho[s] = pe / pb
			} else {
				rho[s] = 0
			}
			r[s], _ = env.Step(a)
		}
		if pr == 0 {
			continue
		}
		w := 1.0
		for _, x := range rho {
			w *= x
		}
		w2 += pr * w * w
		for t := 1; t <= h; t++ {
			x := math.Pow(p.Gamma, float64(t-1)) * r[t-1]
			for k := 0; k <= t; k++ {
				if k > 0 {
					x *= rho[t-k]
				}
				mean[trajectory.MomentIndex(t, k)] += pr * x
				second[trajectory.MomentIndex(t, k)] += pr * x * x
			}
		}
	}
	return mean, second, w2
}

// closeRel reports |got - want| <= tol max(1, |want|).
func closeRel(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// TestSubepisodeMomentsBruteForce: the dynamic program's mean and second
// moment of B_k g^(t-1) r_t at every (t, k), and E_b[W_H^2], equal brute
// force over every action sequence to 1e-12 relative (absolute below 1),
// for 1, 2 and 3 sub-episodes, p_b != 0.5, eps_step != 0, both eps rules,
// both differ_s1_only, gamma 1 and 0.9.
func TestSubepisodeMomentsBruteForce(t *testing.T) {
	for _, s := range []int{1, 2, 3} {
		for _, before := range []bool{true, false} {
			for _, differ := range []bool{false, true} {
				for _, gamma := range []float64{1, 0.9} {
					for _, pol := range [][2]float64{{0.3, 0.75}, {0.5, 0.9}, {0.6, 0.2}} {
						p := SubepisodeMomentParams{Params: subepisode.Params{Subepisodes: s, EpsStep: 0.37, EpsBeforeReward: before},
							PB: pol[0], PE: pol[1], DifferS1Only: differ, Gamma: gamma}
						name := fmt.Sprintf("%+v", p)
						wm, ws, w2 := subepisodeMomentsBrute(p)
						m := SubepisodeMoments(p)
						for tt := 1; tt <= p.Horizon(); tt++ {
							for k := 0; k <= tt; k++ {
								i := trajectory.MomentIndex(tt, k)
								if got := m.Mean(tt, k); !closeRel(got, wm[i], 1e-12) {
									t.Errorf("%s: mean(%d, %d) = %v, brute force %v", name, tt, k, got, wm[i])
								}
								if got := m.Second(tt, k); !closeRel(got, ws[i], 1e-12) {
									t.Errorf("%s: second(%d, %d) = %v, brute force %v", name, tt, k, got, ws[i])
								}
							}
						}
						if got := SubepisodeWeightMoment(p); !closeRel(got, w2, 1e-12) {
							t.Errorf("%s: E_b[W_H^2] = %v, brute force %v", name, got, w2)
						}
					}
				}
			}
		}
	}
}

// TestSubepisodeMomentsTruth: mean(t, t) summed over t is the true value
// V(pi_e) (SPEC 2.2's closed form at gamma = 1, the DP under gamma), and
// second(t, 0) - mean(t, 0)^2 >= 0, at the defaults and a few variants.
func TestSubepisodeMomentsTruth(t *testing.T) {
	for _, differ := range []bool{false, true} {
		for _, gamma := range []float64{1, 0.95} {
			for _, before := range []bool{true, false} {
				sp := subepisode.Params{Subepisodes: 50, EpsStep: 0.01, EpsBeforeReward: before}
				p := SubepisodeMomentParams{Params: sp, PB: 0.5, PE: 0.75, DifferS1Only: differ, Gamma: gamma}
				m := SubepisodeMoments(p)
				v := 0.0
				for tt := 1; tt <= p.Horizon(); tt++ {
					v += m.Mean(tt, tt)
					if m.Second(tt, 0) < m.Mean(tt, 0)*m.Mean(tt, 0)*(1-1e-12) {
						t.Errorf("%+v: second(%d, 0) < mean^2", p, tt)
					}
				}
				if want := SubepisodeValueGamma(sp, 0.75, gamma); !closeRel(v, want, 1e-12) {
					t.Errorf("%+v: sum_t mean(t, t) = %v, true value %v", p, v, want)
				}
			}
		}
	}
}

// TestSubepisodeMomentsMonteCarlo: at SPEC 2.2's defaults (H = 100, p_e =
// 0.75, p_b = 0.5), 10^5 trajectories drawn by the domain itself (its
// Collect, stream PCG(23, 5)): for a handful of cells (t, k), k = 0, 1 and
// t among them, the sample mean of B_k r_t is within 4 exact standard
// errors sqrt((second(t, k) - mean(t, k)^2) / n) of mean(t, k) (the
// sample standard deviation of a heavy-tailed B_k r_t is no yardstick:
// at (100, 100), E_b[W^2] = 1.25^100, it is far below the true one); and,
// for k <= 6, the sample mean of (B_k r_t)^2 within 4 sample standard
// errors of second(t, k). Both differ_s1_only; with it, also k = t = 100
// (E_b[W_100^2] = 1.25^50, about 7e4, so the check has power).
func TestSubepisodeMomentsMonteCarlo(t *testing.T) {
	if testing.Short() {
		t.Skip("10^5 trajectories")
	}
	for _, differ := range []float64{0, 1} {
		spec, _ := Lookup("subepisode")
		p, err := spec.Resolve(map[string]float64{"differ_s1_only": differ})
		if err != nil {
			t.Fatal(err)
		}
		d, err := spec.New(p)
		if err != nil {
			t.Fatal(err)
		}
		var b trajectory.Batch
		const n = 100000
		d.Collect(&b, n, rand.New(rand.NewPCG(23, 5)))
		m := b.Moments
		if m == nil {
			t.Fatal("subepisode's Collect sets no moments")
		}
		cells := [][2]int{{1, 0}, {1, 1}, {2, 0}, {2, 1}, {2, 2}, {7, 3}, {10, 10}, {20, 20}, {37, 1}, {37, 5}, {64, 20}, {100, 0}, {100, 1}, {100, 2}, {100, 9}}
		if differ == 1 {
			cells = append(cells, [2]int{100, 100}, [2]int{99, 99}, [2]int{64, 40})
		}
		for _, c := range cells {
			tt, k := c[0], c[1]
			var s1, q1, q2 float64
			for i := range n {
				lo := b.Offsets[i]
				x := b.Reward[lo+tt-1]
				for j := tt - k; j < tt; j++ {
					x *= b.Ratio[lo+j]
				}
				s1 += x
				q1 += x * x
				q2 += x * x * x * x
			}
			mu := s1 / n
			want := m.Mean(tt, k)
			se := math.Sqrt((m.Second(tt, k) - want*want) / n)
			if math.Abs(mu-want) > 4*se {
				t.Errorf("differ_s1_only %v: (t, k) = (%d, %d): sample mean %v, exact %v, |diff| > 4 se = %v", differ, tt, k, mu, want, 4*se)
			}
			if k <= 6 {
				mu2 := q1 / n
				se2 := math.Sqrt((q2/n - mu2*mu2) * n / (n - 1) / n)
				if want := m.Second(tt, k); math.Abs(mu2-want) > 4*se2 {
					t.Errorf("differ_s1_only %v: (t, k) = (%d, %d): sample second moment %v, exact %v, |diff| > 4 se = %v", differ, tt, k, mu2, want, 4*se2)
				}
			}
		}
	}
}

// TestSubepisodeDifferS1Only: with differ_s1_only the domain draws the
// same trajectories from the same stream (rewards, splits, the ratios of
// S1 steps) as without, with ratio exactly 1 on every S2 or S3 step (the
// even steps), pi_e recorded as pi_b there, the fitted model's pi_e = pi_b
// in S2 and S3; its true value is the same; its batches carry moments,
// and the flag off keeps every ratio as before.
func TestSubepisodeDifferS1Only(t *testing.T) {
	spec, _ := Lookup("subepisode")
	p0, _ := spec.Resolve(map[string]float64{"subepisodes": 7, "p_b": 0.4})
	p1, _ := spec.Resolve(map[string]float64{"subepisodes": 7, "p_b": 0.4, "differ_s1_only": 1})
	d0, _ := spec.New(p0)
	d1, _ := spec.New(p1)
	d1.(ProbRecorder).RecordProbs(true)
	var b0, b1 trajectory.Batch
	d0.Collect(&b0, 50, rand.New(rand.NewPCG(1, 2)))
	d1.Collect(&b1, 50, rand.New(rand.NewPCG(1, 2)))
	if b0.Steps() != b1.Steps() || b1.Moments == nil || b0.Moments == nil {
		t.Fatalf("steps %d, %d; moments %v, %v", b0.Steps(), b1.Steps(), b0.Moments, b1.Moments)
	}
	for s := range b0.Steps() {
		even := (s-b0.Offsets[s/14])%2 == 1 // 14 steps a trajectory
		want := b0.Ratio[s]
		if even {
			want = 1
		}
		if b1.Reward[s] != b0.Reward[s] || b1.Split[s] != b0.Split[s] || b1.Ratio[s] != want || b1.OptionRatio[s] != want ||
			b1.PiE[s]/b1.PiB[s] != want {
			t.Fatalf("step %d: reward %v/%v, ratio %v (want %v), option ratio %v, pi_e/pi_b %v", s, b1.Reward[s], b0.Reward[s], b1.Ratio[s], want, b1.OptionRatio[s], b1.PiE[s]/b1.PiB[s])
		}
		if !even && b0.Ratio[s] == 1 {
			t.Fatalf("step %d: S1 ratio 1", s)
		}
	}
	dst := make([]float64, 2)
	sp := d1.(ModelDomain).Space()
	for o, want := range []float64{0.75, 0.4, 0.4} {
		sp.PiE(o, dst)
		if dst[0] != want || dst[1] != 1-want {
			t.Errorf("pi_e(.|%d) = %v, want a1 with %v", o, dst, want)
		}
	}
	t0, _ := spec.Truth(p0, nil)
	t1, _ := spec.Truth(p1, nil)
	if t0.Value != t1.Value || t0.Method != t1.Method {
		t.Errorf("truth %+v with differ_s1_only, %+v without", t1, t0)
	}
	// E_b[W_H^2] = m2(S1)^7 m2(S2)^7, m2 = 0.75^2/0.4 + 0.25^2/0.6 = 1.5104166...; 1 in S2 with the flag
	m2 := 0.75*0.75/0.4 + 0.25*0.25/0.6
	if w := t0.Extra["is_weight_second_moment"]; !closeRel(w, math.Pow(m2, 14), 1e-13) {
		t.Errorf("E_b[W_H^2] = %v, want m2^14 = %v", w, math.Pow(m2, 14))
	}
	if w := t1.Extra["is_weight_second_moment"]; !closeRel(w, math.Pow(m2, 7), 1e-13) {
		t.Errorf("differ_s1_only: E_b[W_H^2] = %v, want m2^7 = %v", w, math.Pow(m2, 7))
	}
	if err := spec.Moments(p0); err != nil {
		t.Error(err)
	}
	big, _ := spec.Resolve(map[string]float64{"subepisodes": SubepisodeMomentsMax + 1})
	if err := spec.Moments(big); err == nil {
		t.Errorf("subepisodes = %d: exact moments not refused", SubepisodeMomentsMax+1)
	}
}
