package suite

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/trajectory"
)

func TestSuiteFewDeterministic(t *testing.T) { suiteDeterminism(t, "fewstates") }

func TestSuiteFewBruteForce(t *testing.T) {
	suiteBruteForce(t, "fewstates", map[string]float64{"differ": 1, "end_prob": 0.2})
}

func TestSuiteFewMonteCarlo(t *testing.T) { suiteMonteCarlo(t, "fewstates", 20000) }

// TestSuiteFewPolicies: at the defaults pi_b and pi_e are equal in all but
// differ = 2 of the 20 states; there pi_b is uniform (1/3) and pi_e gives
// p_e = 0.95 to the action of highest mean reward and (1 - 0.95)/2 to each
// other.
// In collected data every ratio outside those states is exactly 1, and
// inside it is 0.95 / (1/3) or ((1 - 0.95)/2) / (1/3). With differ = 0 every ratio
// is 1, V(pi_e) = V(pi_b) bit for bit and E_b[W^2] = 1 (to 1e-12: the
// moment sums probabilities); differ above states is refused.
func TestSuiteFewPolicies(t *testing.T) {
	m, b, e, _ := buildSuite(t, "fewstates", nil)
	na := m.Actions
	pe, pb := 0.95, 1.0/3 // variables: float64 arithmetic, as Build does it, not exact constants
	other := (1 - pe) / 2 // 0.025000000000000022
	mean := m.At(0).Mean
	differ := map[int]bool{}
	for s := range m.States {
		same := true
		for a := range na {
			same = same && b.Pi[s*na+a] == e.Pi[s*na+a]
		}
		if same {
			continue
		}
		differ[s] = true
		best := 0
		for a := range na {
			if mean[s*na+a] > mean[s*na+best] {
				best = a
			}
		}
		for a := range na {
			want := other
			if a == best {
				want = pe
			}
			if b.Pi[s*na+a] != pb || e.Pi[s*na+a] != want {
				t.Errorf("state %d action %d: pi_b %v, pi_e %v, want 1/3 and %v", s, a, b.Pi[s*na+a], e.Pi[s*na+a], want)
			}
		}
	}
	if len(differ) != 2 {
		t.Fatalf("policies differ in %d states, want 2", len(differ))
	}
	d, _, err := domains.New("fewstates", nil)
	if err != nil {
		t.Fatal(err)
	}
	d.(domains.ModelDomain).Record(true, false)
	var batch trajectory.Batch
	d.Collect(&batch, 2000, rand.New(rand.NewPCG(1, 2)))
	visits := 0
	for k, r := range batch.Ratio {
		switch {
		case !differ[int(batch.Obs[k])]:
			if r != 1 {
				t.Fatalf("state %d: ratio %v, want 1", batch.Obs[k], r)
			}
		case r != pe/pb && r != other/pb:
			t.Fatalf("differing state %d: ratio %v", batch.Obs[k], r)
		default:
			visits++
		}
	}
	if visits == 0 {
		t.Error("no visit to a differing state in 2000 episodes")
	}

	spec, _ := domains.Lookup("fewstates")
	p, _ := spec.Resolve(map[string]float64{"differ": 0})
	tr, err := spec.Truth(p, nil)
	if err != nil || tr.Value != tr.Extra["behavior_value"] || math.Abs(tr.Extra["is_weight_second_moment"]-1) > 1e-12 {
		t.Errorf("differ 0: truth %+v (%v), want V(pi_e) = V(pi_b) and E_b[W^2] = 1", tr, err)
	}
	if _, _, err := domains.New("fewstates", map[string]float64{"differ": 21}); err == nil || !strings.Contains(err.Error(), "differ = 21, want at most states = 20") {
		t.Errorf("differ 21: error %v", err)
	}
}
